"""Parquet for ``parse --jsonl``: a batch's rows as an Arrow table, and the file written from
the batches' part files. pyarrow (the ``arrow`` extra) is needed for Parquet output only; JSONL
output runs without it.

pyarrow is loaded on first use, by name: imported with this module it cost every ``toolcalls``
command 280 ms and 46 MB (``toolcalls --version``: 0.9 s and 44 MB without it).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from .._errors import ToolCallsError
from ..parsing._models import ParseResult

__all__ = ["MissingPyarrow", "ParquetJoin", "need_pyarrow", "result_table", "write_parquet"]


class MissingPyarrow(ToolCallsError):
    """Parquet output without pyarrow."""


@cache
def _module(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def need_pyarrow() -> None:
    if _module("pyarrow.parquet") is None:
        raise MissingPyarrow("Parquet output needs pyarrow: pip install 'toolcalls[arrow]' "
                             "(or write --out FILE.jsonl)")


def _pyarrow() -> tuple[Any, Any, Any]:
    """pyarrow, pyarrow.parquet and `toolcalls.arrow._build` (which needs pyarrow)."""
    need_pyarrow()
    return _module("pyarrow"), _module("pyarrow.parquet"), _module("toolcalls.arrow._build")


def result_table(numbers: range, keep: Sequence[str], kept: list[list[str | None]],
                 results: list[ParseResult | str | None]) -> Any:
    """The row numbers, the kept fields, then `RESULT_TYPE`'s fields as columns."""
    pa, _, build = _pyarrow()
    columns = build.ResultColumns()
    for result in results:
        if result is None:
            columns.add_null()
        elif isinstance(result, str):
            columns.add_error(result)
        else:
            columns.add(result)
    parsed = columns.array()
    names = ["row", *keep, *(field.name for field in parsed.type)]
    arrays = [pa.array(numbers, pa.int64()), *(pa.array(values, pa.string()) for values in kept),
              *parsed.flatten()]
    return pa.Table.from_arrays(arrays, names=names)


def write_parquet(table: Any, path: Path) -> None:
    _pyarrow()[1].write_table(table, path)


class ParquetJoin:
    """One Parquet file of part files appended in order, each part one row group."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self._writer: Any = None

    def append(self, part: Path) -> None:
        pq = _pyarrow()[1]
        table = pq.read_table(part)
        if self._writer is None:
            self._writer = pq.ParquetWriter(self.out, table.schema)
        self._writer.write_table(table)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
