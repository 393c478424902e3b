"""Ollama's native chat API (``/api/chat``): OpenAI's tools, its own history shapes.

    tools      as OpenAI Chat Completions
    calls      {"role": "assistant", "content", "tool_calls": [{"function": {"name",
               "arguments"}}]}, the arguments as an object, no call ids
    results    {"role": "tool", "tool_name", "content"}, one message per call; a result with
               images has its text in ``content`` and the base64 images in ``images``. The API
               has no error flag: say it in the content
    read back  `toolcalls.tools.from_openai`

Reading a response (`read_response`: the ``ChatResponse`` of ``/api/chat`` with ``stream:
false``; Ollama's ``/v1`` is read as OpenAI):

    calls      ``message.tool_calls[*].function``: ``name``, ``arguments`` taken as the object
               they are (JSON text decoded, as OpenAI's); an ``id`` where a server gives one,
               else ``call_<n>``
    text       ``message.content``, parsed for calls in the text
    reasoning  ``message.thinking``
    finish     ``done_reason``; ``usage`` gathers the counters Ollama sends at the top level
               (``prompt_eval_count``, ``eval_count`` and the durations) where there are any;
               ``model`` names the format for ``format="auto"``
"""

from __future__ import annotations

from collections.abc import Sequence

from ..parsing._models import ToolCall
from ..tools._importers import from_openai
from . import _openai_chat
from ._content import ToolImage, result_parts, texts
from ._provider import Message, NativeProvider, ToolResult, as_text
from ._reading import Json, NativeRead, brief, is_obj, items, member, string

__all__ = ["PROVIDER", "call_messages", "read_response", "render_tools", "result_messages"]

render_tools = _openai_chat.render_tools


def call_messages(calls: Sequence[ToolCall], content: str | None) -> list[Message]:
    return [{
        "role": "assistant",
        "content": content or "",
        "tool_calls": [{"function": {"name": call.name, "arguments": call.arguments}}
                       for call in calls],
    }]


def result_messages(results: Sequence[ToolResult]) -> list[Message]:
    return [_result_message(r) for r in results]


def _result_message(result: ToolResult) -> Message:
    message: Message = {"role": "tool", "tool_name": result.call.name}
    parts = result_parts(result.value)
    if parts is None:
        return {**message, "content": as_text(result.value)}
    images = [part.data for part in parts if isinstance(part, ToolImage)]
    return {**message, "content": texts(parts), "images": images}


PROVIDER = NativeProvider(render_tools, call_messages, result_messages, from_openai)


# -- reading responses ---------------------------------------------------------------------------

_USAGE_KEYS = ("prompt_eval_count", "eval_count", "total_duration", "load_duration",
               "prompt_eval_duration", "eval_duration")
"""The counters of a final ``/api/chat`` line: Ollama's usage, at the top level."""


def read_response(data: Json) -> NativeRead:
    """The pieces of an ``/api/chat`` response (see the module docstring)."""
    usage = {key: data[key] for key in _USAGE_KEYS if data.get(key) is not None}
    read = NativeRead(model=string(data.get("model")),
                      finish_reason=string(data.get("done_reason")), usage=usage or None,
                      calls_after_text=True)
    message = member(read, data.get("message"), "message")
    for call in items(read, message.get("tool_calls"), "message.tool_calls"):
        if is_obj(call):
            function = member(read, call.get("function"), "a tool call's function")
            read.call(call.get("id"), function.get("name"), function.get("arguments"))
        else:
            read.issue("malformed_call", f"a tool_calls entry is not an object: {brief(call)}")
    read.say(message.get("content"))
    read.think(message.get("thinking"))
    return read
