"""OpenAI Responses (``/v1/responses``): every call and result is an input item of its own.

    tools      [{"type": "function", "name", "description", "parameters", "strict": false}]
    calls      a ``message`` item for any text, then {"type": "function_call", "call_id",
               "name", "arguments"} per call, the arguments as a JSON string
    results    {"type": "function_call_output", "call_id", "output"}, one item per call
    read back  `toolcalls.tools.from_openai` (which reads the flat function shape too)
"""

from __future__ import annotations

from collections.abc import Sequence

from ..parsing._models import ToolCall
from ..tools._importers import from_openai
from ..tools._tool import Tool
from ._openai_chat import function
from ._provider import Message, NativeProvider, ToolResult, as_text

__all__ = ["PROVIDER", "call_messages", "render_tools", "result_messages"]


def render_tools(tools: Sequence[Tool]) -> Message:
    # strict is sent explicitly: a schema that is not strict-compatible is then accepted as is.
    return {"tools": [{"type": "function", **function(tool), "strict": False} for tool in tools]}


def call_messages(calls: Sequence[ToolCall], content: str | None) -> list[Message]:
    items: list[Message] = []
    if content:
        items.append({"type": "message", "role": "assistant",
                      "content": [{"type": "output_text", "text": content}]})
    items.extend({"type": "function_call", "call_id": call.id, "name": call.name,
                  "arguments": call.arguments_json()} for call in calls)
    return items


def result_messages(results: Sequence[ToolResult]) -> list[Message]:
    return [{"type": "function_call_output", "call_id": r.call.id, "output": as_text(r.value)}
            for r in results]


PROVIDER = NativeProvider(render_tools, call_messages, result_messages, from_openai)
