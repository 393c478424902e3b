"""`parse_array`: a column of responses parsed row by row into one `RESULT_TYPE` column."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..parsing.formats._base import Format
from ..providers._rows import ResponseRows, RowReader, TextRows
from ..tools._read import ToolsLike
from ._build import ResultColumns
from ._pyarrow import pa
from ._schema import RESULT_TYPE

__all__ = ["parse_array"]


def parse_array(
    texts: Any,
    format: str | Format = "auto",  # noqa: A002 - the concept is called "format" everywhere
    *,
    tools: ToolsLike = None,
    provider: str | None = None,
    thinking: bool = False,
    validate: bool = False,
) -> Any:
    """Parse each row of `texts`; a `pyarrow.StructArray` of `RESULT_TYPE`, row for row.

    Args:
        texts: a pyarrow string array (string, large_string or string_view), a
            ``ChunkedArray`` of one (a table's column: the result is chunked the same way),
            or any iterable of str and None.
        format: as `toolcalls.parse`: a name, alias, model id, ``"auto"`` per row, or a Format.
            With `provider`, the format of the responses' text parts (None: not parsed).
        tools: the tools offered to the model, read once for every row.
        provider: each row is a saved response or captured stream of this provider API
            (``"openai"``, ``"openai_responses"``, ``"anthropic"``, ``"gemini"``,
            ``"ollama"``, or ``"auto"`` to tell a whole response's provider from its shape).
        thinking, validate: as `toolcalls.parse`.

    A null row gives a null row. A row that cannot be read (not a string; with `provider`,
    not a response) gives a row whose ``error`` says why: one bad row never stops the rest.
    """
    reader: RowReader = (
        TextRows(format, tools, thinking=thinking, validate=validate) if provider is None
        else ResponseRows(provider, format, tools))
    if isinstance(texts, pa.ChunkedArray):
        return pa.chunked_array([_parse(reader, _rows(chunk, provider)) for chunk in texts.chunks],
                                type=RESULT_TYPE)
    return _parse(reader, _rows(texts, provider))


def _rows(texts: Any, provider: str | None) -> Iterable[Any]:
    if not isinstance(texts, pa.Array):
        return texts  # type: ignore[no-any-return]
    if provider is None and not _is_text(texts.type):
        raise TypeError(f"parse_array needs a column of text (string, large_string or "
                        f"string_view), not {texts.type}: cast it, or read the rows you meant")
    return texts.to_pylist()  # type: ignore[no-any-return]


def _is_text(arrow_type: Any) -> bool:
    return bool(pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type)
                or pa.types.is_string_view(arrow_type) or pa.types.is_null(arrow_type))


def _parse(reader: RowReader, rows: Iterable[Any]) -> Any:
    columns = ResultColumns()
    for row in rows:
        if row is None:
            columns.add_null()
            continue
        read = reader.read(row)
        if isinstance(read, str):
            columns.add_error(read)
        else:
            columns.add(read)
    return columns.array()
