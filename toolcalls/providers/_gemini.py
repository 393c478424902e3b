"""Gemini (``generateContent``): declarations with an OpenAPI-subset schema (see
`toolcalls.tools.gemini_schema`), calls and results as parts.

    tools      [{"functionDeclarations": [{"name", "description", "parameters"?}]}]
    calls      {"role": "model", "parts": [a ``text`` part for any text, then
               {"functionCall": {"id", "name", "args"}} per call]}
    results    one {"role": "user"} message of {"functionResponse": {"id", "name",
               "response"}} parts, for all the results of a turn
    read back  `toolcalls.tools.from_gemini`
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..parsing._models import ToolCall
from ..tools._gemini import gemini_schema
from ..tools._importers import from_gemini
from ..tools._tool import Tool
from ._provider import Message, NativeProvider, ToolResult

__all__ = ["PROVIDER", "call_messages", "render_tools", "result_messages"]


def render_tools(tools: Sequence[Tool]) -> Message:
    return {"tools": [{"functionDeclarations": [_declaration(t) for t in tools]}]}


def _declaration(tool: Tool) -> Message:
    declaration: Message = {"name": tool.name, "description": tool.description}
    # Gemini rejects an OBJECT without properties: a tool without arguments sends no schema.
    if tool.parameters.get("properties"):
        declaration["parameters"] = gemini_schema(tool.parameters)
    return declaration


def call_messages(calls: Sequence[ToolCall], content: str | None) -> list[Message]:
    parts: list[Message] = [{"text": content}] if content else []
    parts.extend({"functionCall": {"id": call.id, "name": call.name, "args": call.arguments}}
                 for call in calls)
    return [{"role": "model", "parts": parts}]


def result_messages(results: Sequence[ToolResult]) -> list[Message]:
    return [{"role": "user", "parts": [
        {"functionResponse": {"id": r.call.id, "name": r.call.name,
                              "response": _response(r)}}
        for r in results]}]


def _response(result: ToolResult) -> Message:
    """Gemini wants an object: a non-object result goes under ``result`` (or ``error``)."""
    if result.is_error:
        return {"error": result.value}
    if isinstance(result.value, Mapping):
        return dict(result.value)
    return {"result": result.value}


PROVIDER = NativeProvider(render_tools, call_messages, result_messages, from_gemini)
