"""Ollama's native chat API (``/api/chat``): OpenAI's tools, its own history shapes.

    tools      as OpenAI Chat Completions
    calls      {"role": "assistant", "content", "tool_calls": [{"function": {"name",
               "arguments"}}]}, the arguments as an object, no call ids
    results    {"role": "tool", "tool_name", "content"}, one message per call
    read back  `toolcalls.tools.from_openai`
"""

from __future__ import annotations

from collections.abc import Sequence

from ..parsing._models import ToolCall
from ..tools._importers import from_openai
from . import _openai_chat
from ._provider import Message, NativeProvider, ToolResult, as_text

__all__ = ["PROVIDER", "call_messages", "render_tools", "result_messages"]

render_tools = _openai_chat.render_tools


def call_messages(calls: Sequence[ToolCall], content: str | None) -> list[Message]:
    return [{
        "role": "assistant",
        "content": content or "",
        "tool_calls": [{"function": {"name": call.name, "arguments": call.arguments}}
                       for call in calls],
    }]


def result_messages(results: Sequence[ToolResult]) -> list[Message]:
    return [{"role": "tool", "tool_name": r.call.name, "content": as_text(r.value)}
            for r in results]


PROVIDER = NativeProvider(render_tools, call_messages, result_messages, from_openai)
