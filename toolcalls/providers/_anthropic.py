"""Anthropic Messages (``/v1/messages``).

    tools      [{"name", "description", "input_schema"}]
    calls      {"role": "assistant", "content": [a ``text`` block for any text, then
               {"type": "tool_use", "id", "name", "input"} per call]}
    results    one {"role": "user"} message of {"type": "tool_result", "tool_use_id",
               "content", "is_error"?} blocks, for all the results of a turn
    read back  `toolcalls.tools.from_anthropic`
"""

from __future__ import annotations

from collections.abc import Sequence

from ..parsing._models import ToolCall
from ..tools._importers import from_anthropic
from ..tools._tool import Tool
from ._provider import Message, NativeProvider, ToolResult, as_text

__all__ = ["PROVIDER", "call_messages", "render_tools", "result_messages"]


def render_tools(tools: Sequence[Tool]) -> Message:
    return {"tools": [{"name": tool.name, "description": tool.description,
                       "input_schema": tool.parameters} for tool in tools]}


def call_messages(calls: Sequence[ToolCall], content: str | None) -> list[Message]:
    blocks: list[Message] = [{"type": "text", "text": content}] if content else []
    blocks.extend({"type": "tool_use", "id": call.id, "name": call.name,
                   "input": call.arguments} for call in calls)
    return [{"role": "assistant", "content": blocks}]


def result_messages(results: Sequence[ToolResult]) -> list[Message]:
    blocks = []
    for r in results:
        block: Message = {"type": "tool_result", "tool_use_id": r.call.id,
                          "content": as_text(r.value)}
        if r.is_error:
            block["is_error"] = True
        blocks.append(block)
    return [{"role": "user", "content": blocks}]


PROVIDER = NativeProvider(render_tools, call_messages, result_messages, from_anthropic)
