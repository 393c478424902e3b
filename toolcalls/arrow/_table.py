"""Whole tables: a column of responses parsed into a struct column beside it, and the calls of
a parsed column as a table of their own, one row per call.

`parse_table` is the body an engine's batch map wants: Ray Data ``map_batches(...,
batch_format="pyarrow")`` and Hugging Face ``datasets`` ``.with_format("arrow").map(...,
batched=True)`` hand it a pyarrow table and take one back.
"""

from __future__ import annotations

from typing import Any

from ..parsing.formats._base import Format
from ..tools._read import ToolsLike
from ._parse import parse_array
from ._pyarrow import pa, pc

__all__ = ["calls_table", "parse_table"]


def parse_table(
    table: Any,
    column: str,
    format: str | Format = "auto",  # noqa: A002 - the concept is called "format" everywhere
    *,
    tools: ToolsLike = None,
    provider: str | None = None,
    into: str = "parsed",
) -> Any:
    """`table` with `column` parsed (as `parse_array` parses it) into a new struct column
    `into`; every other column kept. Raises `ValueError` if `into` is taken."""
    if into in table.column_names:
        raise ValueError(f"the table has a column {into!r} already: name another with into=")
    parsed = parse_array(table.column(column), format, tools=tools, provider=provider)
    return table.append_column(into, parsed)


def calls_table(parsed: Any) -> Any:
    """One row per call of a parsed column (a `RESULT_TYPE` array or chunked array): ``row``
    (the call's row in `parsed`), then the call's ``id``, ``name``, ``arguments`` (JSON text),
    ``start`` and ``end`` (its span; null for a native call) and ``source``."""
    if isinstance(parsed, pa.ChunkedArray):
        parsed = parsed.combine_chunks()
    calls = parsed.field("calls")
    rows = pc.list_parent_indices(calls)
    flat = pc.list_flatten(calls)
    span = flat.field("span")
    return pa.table({"row": rows.cast(pa.int64()), "id": flat.field("id"),
                     "name": flat.field("name"), "arguments": flat.field("arguments"),
                     "start": span.field("start"), "end": span.field("end"),
                     "source": flat.field("source")})
