"""Tools a format cannot call: their name or a parameter's does not survive its reader.

A grammar (or structural tag) writes each tool's name and parameter names where the format's
template puts them; a name its reader does not read back there (``resolve-library-id`` in a
pythonic list, ``a b`` after Mistral's ``[TOOL_CALLS]``, ``ns:tool`` in Kimi's
``functions.NAME:0``) would make every call of that tool unreadable. Rather than write such a
grammar, `check_tools` refuses the tool, checking each name against the reader itself: the
format's `render_calls` writes a call of the tool, and `parse` must read back the same name and
argument names with no issue.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._errors import ToolDefinitionError
from ..parsing._api import parse
from ..parsing._models import ToolCall
from ..parsing.formats._base import Format
from ..tools._tool import Tool
from ._region import properties_of

__all__ = ["check_tools"]


def check_tools(fmt: Format, tools: Sequence[Tool]) -> None:
    """Raises `ToolDefinitionError` for the first tool whose call ``fmt``'s reader would not
    read back: its name or a parameter's name cannot stand where the format writes it."""
    for tool in tools:
        why = _unreadable(fmt, tool)
        if why is not None:
            rule = fmt.tool_name_rule
            raise ToolDefinitionError(
                f"tool {tool.name!r} cannot be called in the {fmt.name} format: {why}"
                + (f"; the {fmt.name} reader reads {rule}" if rule else "")
                + ". Rename the tool or the parameter for this format."
            )


def _unreadable(fmt: Format, tool: Tool) -> str | None:
    """Why ``fmt``'s reader does not read a call of ``tool`` back, or None when it does."""
    listed, _ = properties_of(tool)
    arguments = {name: "x" for name, _ in listed}
    call = ToolCall(id="call_1", name=tool.name, arguments=arguments, source="native")
    try:
        written = fmt.render_calls([call])
    except ValueError as exc:  # the renderer's own check (an XML tag, a keyword argument)
        return str(exc)
    result = parse(written, fmt)
    read = [(found.name, found.arguments) for found in result.calls]
    if read == [(tool.name, arguments)] and not result.issues and not result.incomplete:
        return None
    if result.issues:
        return f"its reader reads {written!r} with an issue ({result.issues[0].message})"
    if not read:
        return f"its reader reads {written!r} as text, no call"
    return f"its reader reads {written!r} as a call of {read[0][0]!r} with {read[0][1]!r}"
