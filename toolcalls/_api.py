"""The top-level functions: thin wrappers over the `Format` a name resolves to."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeAlias

from ._errors import ToolDefinitionError
from ._registry import detect, get_format

if TYPE_CHECKING:  # pydantic costs ~150 ms to import: it loads on the first parse, not here
    from ._engine import Engine
    from ._models import ParseResult, Tool
    from .formats._base import Format

__all__ = ["parse", "stream", "to_tools"]

ToolsLike: TypeAlias = "Iterable[Tool | Mapping[str, Any]] | None"


def to_tools(tools: ToolsLike) -> list[Tool]:
    """Tools from OpenAI, Anthropic, MCP or bare definitions (or `Tool` objects)."""
    from pydantic import ValidationError

    from ._models import Tool

    if tools is None:
        return []
    if isinstance(tools, Mapping):
        nested = tools.get("tools")
        if not isinstance(nested, list):
            raise ToolDefinitionError("expected a list of tools or {'tools': [...]}")
        tools = nested
    out: list[Tool] = []
    for position, tool in enumerate(tools):
        try:
            out.append(tool if isinstance(tool, Tool) else Tool.model_validate(tool))
        except ValidationError as error:
            first = error.errors()[0]
            raise ToolDefinitionError(
                f"tool #{position} is not a tool definition ({first['msg']} at "
                f"{'.'.join(str(p) for p in first['loc']) or 'top level'}); expected an OpenAI, "
                "Anthropic or MCP tool or {'name', 'description', 'parameters'}"
            ) from None
    return out


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
        format = detect(text, declared) or _no_format()
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
