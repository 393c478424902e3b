"""Parsed calls checked against the declared tools, with messages written for the model.

`validate_arguments(tool, arguments)` lists what is wrong with a call's arguments, and
`check_call(name, arguments, tools)` returns `NotFound` (with the closest names) or
`InvalidArgs`, whose ``message`` is written for the model to correct its own call. Tool lists
are read as `toolcalls.parse` reads them (`toolcalls.tools._read`): once.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .._errors import ToolDefinitionError
from ._importers import import_tools
from ._read import to_tools
from ._schema import argument_problems
from ._tool import Tool

__all__ = [
    "CallProblem",
    "InvalidArgs",
    "NotFound",
    "check_call",
    "closest_names",
    "find_tool",
    "validate_arguments",
]


@dataclass(frozen=True)
class NotFound:
    """The call names no declared tool."""

    name: str
    closest: tuple[str, ...]
    available: tuple[str, ...]

    @property
    def message(self) -> str:
        """What to tell the model."""
        if self.closest:
            options = " or ".join(repr(name) for name in self.closest)
            return f"There is no tool named {self.name!r}. Did you mean {options}?"
        listed = ", ".join(self.available) or "none"
        return f"There is no tool named {self.name!r}. The available tools are: {listed}."


@dataclass(frozen=True)
class InvalidArgs:
    """The call names a tool, but its arguments do not fit the tool's schema."""

    tool: str
    problems: tuple[str, ...]

    @property
    def message(self) -> str:
        """What to tell the model: every problem, then how to proceed."""
        listed = "\n".join(f"- {problem}" for problem in self.problems)
        return (f"The arguments for {self.tool!r} are invalid:\n{listed}\n"
                "Call the tool again with corrected arguments.")


CallProblem = NotFound | InvalidArgs


def validate_arguments(tool: Tool | Mapping[str, Any], arguments: Any) -> list[str]:
    """What is wrong with ``arguments`` for ``tool``, one sentence each; [] when they fit.

    ``tool`` is a `Tool` or one definition in any shape `import_tools` reads (OpenAI,
    Anthropic, MCP, Gemini, bare)."""
    if not isinstance(tool, Tool):
        tool = _one_tool(tool)
    if not isinstance(arguments, Mapping):
        return [f"the arguments must be a JSON object, got {type(arguments).__name__}"]
    return argument_problems(tool.parameters, dict(arguments))


def _one_tool(definition: Mapping[str, Any]) -> Tool:
    tools = import_tools(definition)
    if len(tools) != 1:
        raise ToolDefinitionError(f"expected one tool definition, got {len(tools)} tools")
    return tools[0]


def _as_tools(tools: Iterable[Tool | Mapping[str, Any]]) -> list[Tool]:
    """Tools as `toolcalls.parse` reads them (the same cache: a list given again is not read
    again)."""
    return to_tools(tools)


def find_tool(name: str, tools: Iterable[Tool | Mapping[str, Any]]) -> Tool | None:
    """The tool called ``name`` or carrying it as an alias; ``tools`` as `check_call` takes."""
    return next((tool for tool in _as_tools(tools) if name in tool.all_names()), None)


def closest_names(name: str, canonical: Mapping[str, str]) -> tuple[str, ...]:
    """The (at most three) tool names closest to a misspelt ``name``, best first.

    ``canonical`` maps every name a call may use (names, aliases...) to the tool's name."""
    # 0.75: a typo scores above 0.9, while names that only share a "get_" prefix stay out
    matches = difflib.get_close_matches(name, list(canonical), n=6, cutoff=0.75)
    return tuple(dict.fromkeys(canonical[match] for match in matches))[:3]


def check_call(
    name: str, arguments: Any, tools: Iterable[Tool | Mapping[str, Any]]
) -> CallProblem | None:
    """None when the call is fine, else `NotFound` or `InvalidArgs`.

    ``tools`` is what `toolcalls.parse` takes: `Tool` objects or the raw definitions (OpenAI,
    Anthropic, MCP, Gemini, bare dicts), read once and remembered as `parse` does."""
    declared = _as_tools(tools)
    tool = find_tool(name, declared)
    if tool is None:
        canonical = {known: t.name for t in declared for known in t.all_names()}
        return NotFound(name, closest_names(name, canonical), tuple(t.name for t in declared))
    problems = validate_arguments(tool, arguments)
    return InvalidArgs(tool.name, tuple(problems)) if problems else None
