"""OpenAI Chat Completions (``/v1/chat/completions``).

    tools      [{"type": "function", "function": {"name", "description", "parameters"}}]
    calls      {"role": "assistant", "content", "tool_calls": [{"id", "type": "function",
                "function": {"name", "arguments"}}]}, the arguments as a JSON string
    results    {"role": "tool", "tool_call_id", "content"}, one message per call
    read back  `toolcalls.tools.from_openai`
"""

from __future__ import annotations

from collections.abc import Sequence

from ..parsing._models import ToolCall
from ..tools._importers import from_openai
from ..tools._tool import Tool
from ._provider import Message, NativeProvider, ToolResult, as_text

__all__ = ["PROVIDER", "call_messages", "function", "render_tools", "result_messages"]


def render_tools(tools: Sequence[Tool]) -> Message:
    return {"tools": [{"type": "function", "function": function(tool)} for tool in tools]}


def function(tool: Tool) -> Message:
    """The function object both OpenAI APIs declare a tool with."""
    return {"name": tool.name, "description": tool.description, "parameters": tool.parameters}


def call_messages(calls: Sequence[ToolCall], content: str | None) -> list[Message]:
    return [{
        "role": "assistant",
        "content": content,
        "tool_calls": [{"id": call.id, "type": "function",
                        "function": {"name": call.name, "arguments": call.arguments_json()}}
                       for call in calls],
    }]


def result_messages(results: Sequence[ToolResult]) -> list[Message]:
    return [{"role": "tool", "tool_call_id": r.call.id, "content": as_text(r.value)}
            for r in results]


PROVIDER = NativeProvider(render_tools, call_messages, result_messages, from_openai)
