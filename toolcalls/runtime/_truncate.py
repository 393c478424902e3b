"""Cut a result the model would read to a budget of characters, keeping the whole in ``details``.

A tool that returns a megabyte would fill the model's context; `truncate_result` keeps the
first `limit` characters of its content, in order, and says where it cut::

    result = truncate_result(result, limit=10_000)
    result.text()                       # the start, then "[… 990,000 of 1,000,000 characters
                                        # left out here. …]"
    result.details["full_content"]      # every item, as the tool returned them

How each item is counted and cut:

- text counts its characters and is cut at the budget;
- JSON counts the characters of its JSON text and stays valid JSON when cut: lists and objects
  keep their leading elements and keys and drop the rest, long strings keep their start and end
  in "…", and a value that cannot fit even so is left out whole. A JSON item is never turned
  into a text preview: a program that reads the value still gets a value;
- an image counts `IMAGE_COST` characters and is kept or left out whole.

Everything after the cut is left out, and one text marker says how much. The markers fit in
the limit: the content of a cut result is never longer than `limit` characters.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from ._results import Content, Json, Text, ToolImage, ToolResult

__all__ = ["DEFAULT_LIMIT", "IMAGE_COST", "content_size", "truncate_result"]

DEFAULT_LIMIT = 10_000
"""Characters of content a result keeps by default."""
IMAGE_COST = 100
"""Characters an image counts for: a fixed small cost, whatever its size in bytes."""
_MARKER_ROOM = 200
"""Characters kept back from the budget for the markers (a quarter of a smaller limit)."""
_ELLIPSIS = "…"


class _Omitted:
    """A JSON value that does not fit at all."""


_OMITTED = _Omitted()


def truncate_result(result: ToolResult, limit: int = DEFAULT_LIMIT) -> ToolResult:
    """`result` with its content cut to `limit` characters in all, or `result` itself (the
    same object) when it fits."""
    if limit < 1:
        raise ValueError(f"the truncation limit is a positive number of characters, not {limit}")
    total = content_size(result.content)
    if total <= limit:
        return result
    kept = _cut_content(result.content, limit - min(_MARKER_ROOM, limit // 4))
    left_out = total - content_size(kept)
    kept.append(Text(_marker(left_out, total, limit - content_size(kept))))
    return replace(result, content=tuple(kept), details=_full_details(result, total))


def content_size(content: tuple[Content, ...] | list[Content]) -> int:
    """Characters the model reads for `content`, counted as `truncate_result` counts them."""
    return sum(_item_size(item) for item in content)


def _item_size(item: Content) -> int:
    if isinstance(item, Text):
        return len(item.text)
    if isinstance(item, Json):
        return len(_dumps(item.value))
    return IMAGE_COST


def _cut_content(content: tuple[Content, ...], budget: int) -> list[Content]:
    """The leading items that fit `budget`, the first that does not cut to what is left."""
    kept: list[Content] = []
    for item in content:
        size = _item_size(item)
        if size <= budget:
            kept.append(item)
            budget -= size
            continue
        part = _cut_item(item, budget)
        if part is not None:
            kept.append(part)
        break
    return kept


def _cut_item(item: Content, budget: int) -> Content | None:
    if isinstance(item, Text):
        return Text(item.text[:budget]) if budget > 0 else None
    if isinstance(item, ToolImage):
        return None
    value = _shrink(item.value, budget)
    return None if isinstance(value, _Omitted) else Json(value)


def _marker(left_out: int, total: int, room: int) -> str:
    """What the model reads at the cut: how much is missing, and that it was kept."""
    long = (f"\n[… {left_out:,} of {total:,} characters left out here. The full result was "
            "kept but is not shown to you: ask for a smaller part (a range, a filter, a page) "
            "if you need more.]")
    short = f"\n[… {left_out:,} of {total:,} characters left out]"
    return long if len(long) <= room else short[:max(room, 0)]


def _full_details(result: ToolResult, total: int) -> dict[str, Any]:
    details: dict[str, Any] = {"full_content": result.content, "full_size": total}
    if result.details is not None:
        details["details"] = result.details
    return details


def _dumps(value: Any) -> str:
    # The same JSON text `ToolResult.text` writes, so sizes match what the model reads.
    return json.dumps(value, ensure_ascii=False, default=str)


def _shrink(value: Any, budget: int) -> Any:
    """`value`, or a valid JSON value cut from it, whose JSON text fits `budget`; `_OMITTED`
    when not even a cut one fits."""
    if len(_dumps(value)) <= budget:
        return value
    if isinstance(value, str):
        return _shrink_string(value, budget)
    if isinstance(value, list | tuple):
        return _shrink_list(list(value), budget)
    if isinstance(value, dict):
        return _shrink_object(value, budget)
    return _OMITTED  # a number, boolean or null is whole or not at all


def _shrink_string(text: str, budget: int) -> str | _Omitted:
    """The start and end of `text` around "…", as long as fits."""
    keep = budget - 3  # the quotes and the ellipsis
    while keep >= 0:
        head = (keep + 1) // 2
        cut = text[:head] + _ELLIPSIS + text[len(text) - (keep - head):]
        overflow = len(_dumps(cut)) - budget
        if overflow <= 0:
            return cut
        keep -= overflow  # escapes made it longer than its characters
    return _OMITTED


def _shrink_list(items: list[Any], budget: int) -> list[Any] | _Omitted:
    if budget < 2:
        return _OMITTED
    kept: list[Any] = []
    used = 2  # []
    for item in items:
        separator = 2 if kept else 0  # ", "
        part = _shrink(item, budget - used - separator)
        if isinstance(part, _Omitted):
            break
        kept.append(part)
        used += separator + len(_dumps(part))
        if part is not item:
            break  # cut: what follows would read as whole items after a partial one
    return kept


def _shrink_object(data: dict[Any, Any], budget: int) -> dict[Any, Any] | _Omitted:
    if budget < 2:
        return _OMITTED
    kept: dict[Any, Any] = {}
    used = 2  # {}
    for key, item in data.items():
        prefix = len(_dumps(str(key))) + 2 + (2 if kept else 0)  # "key": and ", "
        part = _shrink(item, budget - used - prefix)
        if isinstance(part, _Omitted):
            break
        kept[key] = part
        used += prefix + len(_dumps(part))
        if part is not item:
            break
    return kept
