"""The top-level functions: thin wrappers over the `Format` a name resolves to."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeAlias

from ._registry import detect_parsed, get_format

if TYPE_CHECKING:  # pydantic costs ~150 ms to import: it loads on the first parse, not here
    from ._engine import Engine
    from ._models import ParseResult, Tool
    from .formats._base import Format

__all__ = ["parse", "stream", "to_tools"]

ToolsLike: TypeAlias = "Iterable[Tool | Mapping[str, Any]] | None"


_RECENT_TOOLS: dict[str, tuple[Tool, ...]] = {}
"""Tool lists given as JSON data, by their JSON text: the same definitions are passed with
every response, and checking them (schemas included) costs ~40 short parses."""
_RECENT_LIMIT = 32


def to_tools(tools: ToolsLike) -> list[Tool]:
    """Tools from any shape `toolcalls.import_tools` reads (OpenAI, Anthropic, Gemini, MCP,
    bare definitions, Python functions or `Tool` objects); the one reader of tool lists."""
    if tools is None:  # the common case loads nothing more
        return []
    if isinstance(tools, list | tuple) and _all_tools(tools):
        return list(tools)  # already read (`Tool` is frozen): 0.3 µs instead of ~10
    key = _json_text(tools)
    known = _RECENT_TOOLS.get(key) if key is not None else None
    if known is not None:
        return list(known)
    from ._tools import import_tools  # on first use: it brings schema validation along

    imported = import_tools(tools)
    if key is not None:
        if len(_RECENT_TOOLS) >= _RECENT_LIMIT:
            _RECENT_TOOLS.pop(next(iter(_RECENT_TOOLS)), None)  # the oldest
        _RECENT_TOOLS[key] = tuple(imported)  # `Tool` is frozen: safe to hand out again
    return imported


def _all_tools(items: list[Any] | tuple[Any, ...]) -> bool:
    from ._models import Tool  # loaded already whenever a `Tool` exists

    return all(type(item) is Tool for item in items)


def _json_text(tools: object) -> str | None:
    """`tools` as JSON text (its key order kept: it is the order rendered), or None when it
    holds anything but JSON data (functions, `Tool` objects)."""
    if not isinstance(tools, list | tuple | Mapping):
        return None
    try:
        return json.dumps(tools, ensure_ascii=False)
    except (TypeError, ValueError):
        return None


def parse(
    text: str,
    format: str | Format = "auto",  # noqa: A002 - the concept is called "format" everywhere
    *,
    tools: ToolsLike = None,
    strict: bool = False,
    thinking: bool = False,
) -> ParseResult:
    """Parse one model response.

    Args:
        text: the model's output, special tokens included.
        format: a format name, alias or model id, ``"auto"`` to detect it, or a `Format`.
            Where none is detected, the result's format is ``"none"``: no calls, the text
            is content (reasoning aside).
        tools: the tools offered to the model; enables name checks and typed arguments.
        strict: raise a `ParseError` for malformed output instead of recording an issue.
        thinking: the prompt opened a reasoning block, so the text starts inside it.
    """
    if not isinstance(text, str):
        raise TypeError(f"parse() needs the response text as str, not {type(text).__name__}")
    declared = to_tools(tools)
    if format == "auto":
        found, result = detect_parsed(text, declared)
        if result is not None and not strict and not thinking:
            return result  # detection parsed it already, with these options
        format = found or _no_format()
    return get_format(format).parse(text, tools=declared, strict=strict, thinking=thinking)


def _no_format() -> Format:
    from .formats._plain import NoFormat

    return NoFormat()


def stream(
    format: str | Format,  # noqa: A002
    *,
    tools: ToolsLike = None,
    strict: bool = False,
    thinking: bool = False,
) -> Engine:
    """A `StreamParser` for one response: ``feed(chunk)``, ``close()``, then ``result()``."""
    return get_format(format).stream(tools=to_tools(tools), strict=strict, thinking=thinking)
