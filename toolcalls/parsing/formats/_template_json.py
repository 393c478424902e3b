"""JSON as chat templates write it, for the render methods of the formats.

Chat templates run under transformers, whose ``tojson`` filter is
``json.dumps(value, ensure_ascii=False, indent=indent)``: keys in their given order, ``", "`` and
``": "`` separators, no HTML escaping (jinja2's own ``tojson`` sorts keys and escapes ``<``,
which no inference server does). Tools reach the templates in OpenAI's shape, with
``name``, ``description``, ``parameters`` in that order.
"""

from __future__ import annotations

import json
from typing import Any

from ...tools._tool import Tool

__all__ = ["bare_tool", "openai_tool", "tojson"]


def tojson(value: Any, indent: int | None = None, *, ensure_ascii: bool = False) -> str:
    """The ``tojson`` filter of transformers' chat-template environment (`ensure_ascii`: as
    a template that asks for it writes, Reka's)."""
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent)


def bare_tool(tool: Tool) -> dict[str, Any]:
    """``{"name", "description", "parameters"}``: the function object of a tool."""
    return {"name": tool.name, "description": tool.description, "parameters": tool.parameters}


def openai_tool(tool: Tool) -> dict[str, Any]:
    """``{"type": "function", "function": {...}}``: a tool as servers hand it to templates."""
    return {"type": "function", "function": bare_tool(tool)}
