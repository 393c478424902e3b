"""One batch of ``parse --jsonl`` lines turned into output rows, in a worker process (or in the
command's own, with one worker).

Each line is one JSON row. ``--text-field`` picks the value to parse: dotted keys and integer
indices, a negative one counting from the end (``messages.-1.content``). A line that is not
JSON, a row without that field, or a value of the wrong kind becomes an output row whose
``error`` says so, with its line number: a bad row never stops the rest. A JSON ``null`` there
gives a null result. The output rows are Arrow (for Parquet: the row number, the kept fields
as text, then `toolcalls.arrow.RESULT_TYPE`'s fields as columns) or JSONL lines (the same
fields, a call's arguments as a JSON object rather than its text).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..parsing._models import ParseResult
from ..providers._fields import escape_surrogates, load_json
from ..providers._rows import ResponseRows, RowReader, TextRows
from ..tools._tool import Tool
from ._bulk_arrow import result_table

__all__ = ["RESULT_FIELDS", "Batch", "Job", "LineReader", "Parsed", "field_path", "parse_batch"]

Output = Literal["parquet", "jsonl"]
RESULT_FIELDS = ("format", "content", "reasoning", "calls", "incomplete", "issues", "provider",
                 "finish_reason", "usage", "error")
"""An output row's fields after the row number and kept fields: `toolcalls.arrow.RESULT_TYPE`'s."""
FieldPath = tuple[str | int, ...]


@dataclass(frozen=True)
class Job:
    """What every batch of one run is parsed with (sent to each worker once)."""

    format: str
    tools: tuple[Tool, ...]
    provider: str | None
    text_field: FieldPath  # () with --provider: the whole row is the response
    keep: tuple[str, ...]
    thinking: bool
    output: Output


@dataclass(frozen=True)
class Batch:
    """Lines of the input, in order, the first being line `first_line` (from 1)."""

    index: int
    first_line: int
    lines: list[bytes]


@dataclass(frozen=True)
class Parsed:
    """A batch's output: an Arrow table or JSONL bytes, with its counts for the summary."""

    index: int
    rows: int
    calls: int
    errors: int
    data: Any


def field_path(spec: str | None) -> FieldPath:
    """``messages.-1.content`` as ``("messages", -1, "content")``; None as ``()``."""
    if not spec:
        return ()
    return tuple(int(part) if _is_index(part) else part for part in spec.split("."))


def _is_index(part: str) -> bool:
    return part.removeprefix("-").isdigit()


class _Unreadable(Exception):
    """Why a line gives no value to parse; its message goes into the row's ``error``."""


def _pick(row: Any, path: FieldPath) -> Any:
    value = row
    for depth, step in enumerate(path):
        where = ".".join(map(str, path[: depth + 1]))
        if isinstance(step, int) and isinstance(value, list):
            if not -len(value) <= step < len(value):
                raise _Unreadable(f"no item {where} (the list has {len(value)})")
            value = value[step]
        elif isinstance(value, dict) and str(step) in value:
            value = value[str(step)]
        else:
            raise _Unreadable(f"no field {where}")
    return value


class LineReader:
    """Reads one line to its parse, or to the message saying why it could not be read."""

    def __init__(self, job: Job) -> None:
        self.job = job
        self.reader: RowReader = (
            TextRows(job.format, list(job.tools), thinking=job.thinking, validate=False)
            if job.provider is None else
            ResponseRows(job.provider, None if job.format == "none" else job.format,
                         list(job.tools)))

    def read(self, line: bytes) -> tuple[Any, ParseResult | str | None]:
        """The row's JSON (None if it is not JSON) and its parse, error message or None."""
        try:
            row = load_json(line)
        except ValueError as error:
            return None, f"not a JSON row ({error})" if line.strip() else "an empty line"
        try:
            value = _pick(row, self.job.text_field)
        except _Unreadable as error:
            return row, str(error)
        if value is None:
            return row, None
        if self.job.provider is None and not isinstance(value, str):
            return row, f"the text to parse is a string, not {_kind(value)}"
        return row, self.reader.read(value)


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", bool: "a boolean"}.get(type(value),
                                                                     type(value).__name__)


def parse_batch(reader: LineReader, batch: Batch) -> Parsed:
    """The batch's output rows (one `reader` serves every batch of a process)."""
    job = reader.job
    read = [reader.read(line) for line in batch.lines]
    results = [result for _, result in read]
    calls = sum(len(result.calls) for result in results if isinstance(result, ParseResult))
    errors = sum(isinstance(result, str) for result in results)
    kept = [[_kept(row, name) for row, _ in read] for name in job.keep]
    numbers = range(batch.first_line, batch.first_line + len(batch.lines))
    data = (_jsonl(numbers, job.keep, kept, results) if job.output == "jsonl"
            else result_table(numbers, job.keep, kept, results))
    return Parsed(batch.index, len(batch.lines), calls, errors, data)


def _kept(row: Any, name: str) -> str | None:
    """A kept field as text: a string as it is, anything else as its JSON."""
    value = row.get(name) if isinstance(row, dict) else None
    if value is None or isinstance(value, str):
        return None if value is None else escape_surrogates(value)
    return escape_surrogates(json.dumps(value, ensure_ascii=False))


def _jsonl(numbers: range, keep: Sequence[str], kept: list[list[str | None]],
           results: list[ParseResult | str | None]) -> bytes:
    lines = []
    for at, (number, result) in enumerate(zip(numbers, results, strict=True)):
        record: dict[str, Any] = {"row": number}
        record.update({name: values[at] for name, values in zip(keep, kept, strict=True)})
        record.update(dict.fromkeys(RESULT_FIELDS))  # a null row
        if isinstance(result, ParseResult):
            record.update(result.model_dump(mode="json", include=set(RESULT_FIELDS)))
        elif result is not None:  # as toolcalls.arrow writes a row it could not read
            record.update(content="", calls=[], incomplete=[], issues=[], error=result)
        lines.append(escape_surrogates(json.dumps(record, ensure_ascii=False)))
    return ("\n".join(lines) + "\n").encode("utf-8")


