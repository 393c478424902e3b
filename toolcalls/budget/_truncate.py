"""Tool results cut to a character or token cap: head and tail kept, cut marked, JSON valid.

A tool can return far more than a model should read (a log, a file, a page of search results).
`truncate_result` keeps the start and the end, where the useful parts of such output usually
are, and says how much it left out. A result that is JSON stays JSON: long strings are cut
inside the string, long arrays and objects keep their first and last members around a marker
member, so the model still reads a well-formed value and a caller can still ``json.loads`` it.

The JSON cut is found by a binary search over one knob, `limit`: strings keep at most `limit`
characters and containers at most ``limit // ITEMS_PER_LIMIT + 1`` members. Whatever the knob,
the candidate is serialised and measured, so the cap is never exceeded.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from ..parsing._json import MAX_DEPTH
from ._tokens import DEFAULT_ENCODING, TokenCounter, as_counter

__all__ = [
    "DEFAULT_RESULT_CHARS",
    "MIN_RESULT_CHARS",
    "truncate_result",
]

DEFAULT_RESULT_CHARS = 10_000
"""The seed design's cap on a tool result shown to the model."""

MIN_RESULT_CHARS = 64
"""The smallest character cap accepted: room for a marker and a few characters of context."""

ITEMS_PER_LIMIT = 16
"""Characters of the `limit` knob per container member kept (a member is rarely shorter)."""

_MARKER_KEY = "…truncated"


def truncate_result(
    result: str,
    max_chars: int | None = DEFAULT_RESULT_CHARS,
    *,
    max_tokens: int | None = None,
    encoding: str | TokenCounter = DEFAULT_ENCODING,
) -> str:
    """``result`` unchanged if it fits, else its head and tail around a marker of the cut.

    Args:
        result: the tool's output as text; JSON text stays valid JSON (re-serialised compactly).
        max_chars: cap in characters (None: no character cap).
        max_tokens: cap in tokens of ``encoding`` (None: no token cap).
        encoding: a shipped encoding name or any `TokenCounter`.

    Raises:
        ValueError: a cap below `MIN_RESULT_CHARS`, or a token cap that even the shortest
            marked form of the result exceeds.
    """
    if max_chars is not None and max_chars < MIN_RESULT_CHARS:
        raise ValueError(f"max_chars must be at least {MIN_RESULT_CHARS}, not {max_chars}")
    cut = _cutter(result)
    chars = len(result) if max_chars is None else min(max_chars, len(result))
    candidate = result if chars == len(result) else cut(chars)
    if max_tokens is None:
        return candidate
    return _fit_tokens(result, candidate, chars, max_tokens, as_counter(encoding), cut)


def _fit_tokens(
    result: str,
    candidate: str,
    chars: int,
    max_tokens: int,
    counter: TokenCounter,
    cut: Callable[[int], str],
) -> str:
    """Shrink the character cap in proportion to the token excess until the tokens fit."""
    tokens = counter.count(candidate)
    while tokens > max_tokens:
        smaller = min(chars - 1, math.floor(chars * max_tokens / tokens * 0.97))
        if smaller < MIN_RESULT_CHARS:
            raise ValueError(
                f"max_tokens={max_tokens} is too small: the shortest truncation of this "
                f"result ({MIN_RESULT_CHARS} characters) takes {tokens} tokens"
            )
        chars = smaller
        candidate = cut(chars)
        tokens = counter.count(candidate)
    return candidate


def _cutter(result: str) -> Callable[[int], str]:
    """The cut that suits ``result``: structural for JSON, head and tail for plain text."""
    value = _json_value(result)
    if value is _NOT_JSON:
        return lambda cap: _cut_text(result, cap)
    return lambda cap: _cut_json(value, cap)


# -- plain text ------------------------------------------------------------------------------


def _cut_text(text: str, cap: int) -> str:
    if len(text) <= cap:
        return text
    keep = cap
    for _ in range(3):  # the marker's digit count depends on how much is kept: settle it
        keep = max(0, cap - len(_text_marker(len(text) - keep)))
    head = math.ceil(keep / 2)
    return text[:head] + _text_marker(len(text) - keep) + text[len(text) - (keep - head) :]


def _text_marker(cut: int) -> str:
    return f"\n…[{cut} characters truncated]…\n"


# -- JSON ------------------------------------------------------------------------------------

_NOT_JSON = object()


def _json_value(text: str) -> Any:
    """The parsed JSON value, or `_NOT_JSON` (also for NaN/Infinity, which JSON does not have,
    and for JSON nested deeper than `MAX_DEPTH`: cut as text, not walked by recursion)."""
    try:
        value = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
    except (ValueError, RecursionError):
        return _NOT_JSON
    return _NOT_JSON if _deeper_than(value, MAX_DEPTH) else value


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether `value` nests lists and dicts more than `limit` deep (a loop, not recursion)."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, list | dict):
            if depth > limit:
                return True
            stack.extend((child, depth + 1)
                         for child in (node.values() if isinstance(node, dict) else node))
    return False


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"{text} does not fit a float")  # would come back as Infinity
    return number


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _cut_json(value: Any, cap: int) -> str:
    """The largest `limit` whose shrunk value fits ``cap`` (binary search, each step measured)."""
    best = _dump(_shrink(value, 0))
    if len(best) > cap:
        return _dump(f"…[{len(_dump(value))} characters of JSON truncated]…")
    low, high = 0, max(cap, 1) * ITEMS_PER_LIMIT
    while low < high:
        middle = (low + high + 1) // 2
        text = _dump(_shrink(value, middle))
        if len(text) <= cap:
            low, best = middle, text
        else:
            high = middle - 1
    return best


def _shrink(value: Any, limit: int) -> Any:
    if isinstance(value, str):
        return _shrink_string(value, limit)
    if isinstance(value, list):
        return _shrink_list(value, limit)
    if isinstance(value, dict):
        return _shrink_object(value, limit)
    return value


def _shrink_string(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    head = math.ceil(limit / 2)
    tail = text[len(text) - (limit - head) :] if limit > head else ""
    return f"{text[:head]}…[{len(text) - limit} characters truncated]…{tail}"


def _kept_members(count: int, limit: int) -> tuple[int, int]:
    """How many members to keep from the start and from the end of a container."""
    keep = min(count, limit // ITEMS_PER_LIMIT + 1) if limit else 0
    return math.ceil(keep / 2), keep // 2


def _shrink_list(items: list[Any], limit: int) -> list[Any]:
    head, tail = _kept_members(len(items), limit)
    if head + tail >= len(items):
        return [_shrink(item, limit) for item in items]
    kept = [_shrink(item, limit) for item in items[:head]]
    kept.append(f"…[{len(items) - head - tail} items truncated]…")
    kept.extend(_shrink(item, limit) for item in items[len(items) - tail :])
    return kept


def _shrink_object(members: dict[str, Any], limit: int) -> dict[str, Any]:
    head, tail = _kept_members(len(members), limit)
    if head + tail >= len(members):
        return {key: _shrink(item, limit) for key, item in members.items()}
    keys = list(members)
    shrunk = {key: _shrink(members[key], limit) for key in keys[:head]}
    marker = _MARKER_KEY
    while marker in members:
        marker += "…"
    shrunk[marker] = f"{len(keys) - head - tail} members omitted"
    shrunk.update((key, _shrink(members[key], limit)) for key in keys[len(keys) - tail :])
    return shrunk
