"""The Arrow type of a parse result: one struct per row, the same fields as `ParseResult`.

Arguments are JSON text (``call.arguments_json()``, as streaming and OpenAI's
``tool_calls`` write them): a schema cannot type every tool's arguments at once, and engines
read JSON text natively (DuckDB ``->>``, Polars ``str.json_decode``, Spark ``from_json``).
Spans are ``{start, end}`` character offsets into the row's text, null for a native call.
"""

from __future__ import annotations

from typing import Any, Final

from ._pyarrow import pa

__all__ = ["CALL", "INCOMPLETE", "ISSUE", "RESULT_TYPE", "SPAN"]

SPAN: Final[Any] = pa.struct([("start", pa.int64()), ("end", pa.int64())])

CALL: Final[Any] = pa.struct([
    ("id", pa.string()),
    ("name", pa.string()),
    ("arguments", pa.string()),  # a JSON object, as text
    ("span", SPAN),
    ("source", pa.string()),  # "text" or "native"
])

INCOMPLETE: Final[Any] = pa.struct([
    ("name", pa.string()),
    ("raw", pa.string()),
    ("span", SPAN),
    ("source", pa.string()),
])

ISSUE: Final[Any] = pa.struct([
    ("kind", pa.string()),  # toolcalls.parsing.issues.ISSUE_KINDS
    ("message", pa.string()),
    ("span", SPAN),
])

RESULT_TYPE: Final[Any] = pa.struct([
    ("format", pa.string()),
    ("content", pa.string()),
    ("reasoning", pa.string()),
    ("calls", pa.list_(CALL)),
    ("incomplete", pa.list_(INCOMPLETE)),
    ("issues", pa.list_(ISSUE)),
    ("provider", pa.string()),
    ("finish_reason", pa.string()),
    ("usage", pa.string()),  # the provider's usage object, as JSON text
    ("error", pa.string()),  # why a row could not be read at all (then the rest is empty)
])
"""One row's parse. A null input row gives a null row; a row that could not be read (a saved
response that is not JSON, say) gives ``error`` and no calls, never an exception."""
