"""`ResultColumns`: parse results gathered row by row into one Arrow struct array.

Each row, and each call, incomplete call and issue in it, is kept as one tuple of its leaf
values; at the end the tuples are turned into columns (``zip(*rows)``) and assembled into
`RESULT_TYPE` with offsets for the lists. One tuple per item keeps the Python work per row to a
few appends: 6.3 us a one-call row where ``pa.array(dicts, type=RESULT_TYPE)`` takes 11.0
(bench/arrow.py, 20,000 rows, the pure-Python install).

Arrow strings are UTF-8, which cannot hold a lone surrogate (a Python string read from JSON
can): such a character is written as its ``\\uXXXX`` escape, and the row gets a
``lone_surrogate`` issue saying so, so nothing changes silently.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..parsing._models import ParseIssue, ParseResult, Span
from ..providers._fields import encodable, escape_surrogates
from ._pyarrow import pa
from ._schema import CALL, INCOMPLETE, ISSUE, RESULT_TYPE

__all__ = ["ResultColumns"]

Leaf = str | int | bool | None
"""One leaf value of a row or item tuple (a span is three leaves: start, end, is-null)."""


class _Listed:
    """A list-of-structs column: the items of every row as tuples, and each row's end."""

    __slots__ = ("items", "offsets", "type")

    def __init__(self, item_type: Any) -> None:
        self.type = item_type
        self.items: list[tuple[Leaf, ...]] = []
        self.offsets: list[int] = [0]

    def end_row(self) -> None:
        self.offsets.append(len(self.items))

    def array(self) -> Any:
        columns = _columns(self.items, _width(self.type))
        items = pa.StructArray.from_arrays(_children(self.type, columns), fields=list(self.type))
        return pa.ListArray.from_arrays(pa.array(self.offsets, pa.int32()), items)


class ResultColumns:
    """Rows in, one `RESULT_TYPE` struct array out: `add` a result, `add_null` for a null
    input, `add_error` for a row that could not be read, then `array`."""

    def __init__(self) -> None:
        self._rows: list[tuple[Leaf, ...]] = []
        self._nulls: list[bool] = []
        self._calls = _Listed(CALL)
        self._incomplete = _Listed(INCOMPLETE)
        self._issues = _Listed(ISSUE)
        self._escaped = False

    def __len__(self) -> int:
        return len(self._nulls)

    def add(self, result: ParseResult) -> None:
        self._escaped = False
        text = self._text
        for call in result.calls:
            self._calls.items.append((text(call.id), text(call.name), text(call.arguments_json()),
                                      *_span(call.span), call.source))
        for piece in result.incomplete:
            name = None if piece.name is None else text(piece.name)
            self._incomplete.items.append((name, text(piece.raw), *_span(piece.span),
                                           piece.source))
        reasoning = None if result.reasoning is None else text(result.reasoning)
        self._rows.append((result.format, text(result.content), reasoning, result.provider,
                           result.finish_reason, _usage(result.usage), None))
        issues = [*result.issues, _SURROGATE_ISSUE] if self._escaped else result.issues
        for issue in issues:
            self._issues.items.append((issue.kind, text(issue.message), *_span(issue.span)))
        self._end_row(null=False)

    def add_null(self) -> None:
        self._rows.append((None,) * 7)
        self._end_row(null=True)

    def add_error(self, message: str) -> None:
        self._rows.append((None, "", None, None, None, None, escape_surrogates(message)))
        self._end_row(null=False)

    def array(self) -> Any:
        """The rows added so far, as a `pyarrow.StructArray` of `RESULT_TYPE`."""
        top = iter(_columns(self._rows, 7))
        lists = {"calls": self._calls, "incomplete": self._incomplete, "issues": self._issues}
        children = [lists[field.name].array() if field.name in lists
                    else pa.array(next(top), pa.string()) for field in RESULT_TYPE]
        return pa.StructArray.from_arrays(children, fields=list(RESULT_TYPE),
                                          mask=pa.array(self._nulls, pa.bool_()))

    def _end_row(self, *, null: bool) -> None:
        self._nulls.append(null)
        self._calls.end_row()
        self._incomplete.end_row()
        self._issues.end_row()

    def _text(self, text: str) -> str:
        if encodable(text):
            return text
        self._escaped = True
        return escape_surrogates(text)


_SURROGATE_ISSUE = ParseIssue(
    kind="lone_surrogate", span=None,
    message="the result held a lone surrogate, which Arrow's UTF-8 strings cannot: each is "
            "written as its \\uXXXX escape")


def _span(span: Span | None) -> tuple[int, int, bool]:
    return (0, 0, True) if span is None else (span[0], span[1], False)


def _width(item_type: Any) -> int:
    """Leaves per item tuple: a span field takes three."""
    return sum(3 if field.name == "span" else 1 for field in item_type)


def _columns(rows: Sequence[tuple[Leaf, ...]], width: int) -> list[tuple[Leaf, ...]]:
    return list(zip(*rows, strict=True)) if rows else [()] * width


def _children(item_type: Any, columns: list[tuple[Leaf, ...]]) -> list[Any]:
    """Each field's array, in the struct's order, from the item tuples' columns."""
    arrays, at = [], 0
    for field in item_type:
        if field.name == "span":
            starts, ends, nulls = columns[at:at + 3]
            arrays.append(pa.StructArray.from_arrays(
                [pa.array(starts, pa.int64()), pa.array(ends, pa.int64())],
                names=["start", "end"], mask=pa.array(nulls, pa.bool_())))
            at += 3
        else:
            arrays.append(pa.array(columns[at], pa.string()))
            at += 1
    return arrays


def _usage(usage: dict[str, Any] | None) -> str | None:
    return None if usage is None else escape_surrogates(json.dumps(usage, ensure_ascii=False))
