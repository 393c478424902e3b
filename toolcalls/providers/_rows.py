"""What one row of a log holds, read into a `ParseResult`: model text, or a saved provider
response. Shared by `toolcalls.arrow` (a column at a time) and ``toolcalls parse --jsonl`` (a
file of rows, which needs no pyarrow for JSONL output).

A row of text is parsed as `toolcalls.parse` parses it. A row of a provider log is one saved
response (its JSON text, or the object itself) read by `toolcalls.read_response`, or one
captured stream read by `toolcalls.read_stream`: the raw SSE or NDJSON text as it came over the
wire, or a JSON list of its chunks. A row that is none of these gets a message saying why,
recorded in the row's ``error``; it never stops the rest.
"""

from __future__ import annotations

from typing import Any

from .._errors import ToolCallsError
from ..parsing._api import Parser
from ..parsing._models import ParseResult
from ..parsing.formats._base import Format
from ..tools._read import ToolsLike, read_tools
from ._fields import load_json
from ._response_reader import read_response
from ._stream_reader import read_stream

__all__ = ["ResponseRows", "RowReader", "TextRows"]

RowError = str
"""Why a row could not be read."""

_READ_ERRORS = (ToolCallsError, ValueError, TypeError)
"""What the readers raise for a row that is not what it should be (not JSON, a response of no
provider's shape, a chunk of the wrong type): recorded for that row."""


class RowReader:
    """Reads one row; `TextRows` and `ResponseRows` are the two kinds."""

    def read(self, row: Any) -> ParseResult | RowError:
        raise NotImplementedError


class TextRows(RowReader):
    """Each row is one model response's text."""

    def __init__(self, fmt: str | Format, tools: ToolsLike, *, thinking: bool,
                 validate: bool) -> None:
        self._parser = Parser(fmt, tools=tools, thinking=thinking, validate=validate)

    def read(self, row: Any) -> ParseResult | RowError:
        if not isinstance(row, str):
            return f"a row of text is a string, not {type(row).__name__}"
        return self._parser.parse(row)


class ResponseRows(RowReader):
    """Each row is one saved response or captured stream of `provider` ("auto": a whole
    response's provider is told from its shape; a stream's cannot be)."""

    def __init__(self, provider: str, fmt: str | Format | None, tools: ToolsLike) -> None:
        self._provider = None if provider == "auto" else provider
        self._format = fmt
        self._tools = read_tools(tools)

    def read(self, row: Any) -> ParseResult | RowError:
        try:
            return self._read(row)
        except _READ_ERRORS as exc:
            return f"{type(exc).__name__}: {exc}"

    def _read(self, row: Any) -> ParseResult:
        if isinstance(row, str | bytes | bytearray):
            try:  # load_json: nesting too deep for the decoder is a ValueError too, not a crash
                row = load_json(row)
            except ValueError:  # not one JSON document: a captured SSE or NDJSON stream
                return self._stream([row])
        if isinstance(row, list):
            return self._stream(row)
        return read_response(row, self._provider, format=self._format, tools=self._tools)

    def _stream(self, chunks: list[Any]) -> ParseResult:
        if self._provider is None:
            raise ValueError("a captured stream does not say which provider sent it: name it "
                             "(provider='openai', --provider openai)")
        reader = read_stream(self._provider, format=self._format, tools=self._tools)
        for chunk in chunks:
            reader.feed(chunk)
        reader.close()
        return reader.result()
