"""OpenAI Responses (``/v1/responses``): `OpenAIResponses`. Every call and result is an item of
its own; streams are named SSE events.

Sent (history):

    tools      [{"type": "function", "name", "description", "parameters", "strict": false}]
    calls      a ``message`` item for any text, then {"type": "function_call", "call_id",
               "name", "arguments"} per call, the arguments as a JSON string
    results    {"type": "function_call_output", "call_id", "output"}, one item per call; a
               result with images as ``input_text`` and ``input_image`` parts (data URLs).
               The API has no error flag: say it in the output
    read back  `toolcalls.tools.from_openai` (which reads the flat function shape too)

Read: a whole ``Response`` in `_response` (calls, text, reasoning, finish and usage, item by
item in ``output``; OpenAI's own tools, tool search and the built-in tools' actions), a stream
in `_stream` (compiled: each event of `read_stream` passes through it).

Written (a result as the API returns it, in `_write`):

    response   {"object": "response", "status": "completed", "output": [a ``reasoning`` item,
               a ``message`` item with one ``output_text`` part, a ``function_call`` item per
               call]}; ``"status": "incomplete"`` and its ``incomplete_details.reason`` for a
               result cut off or filtered
    stream     ``response.*`` events with a ``sequence_number`` each (`ResponsesStreamWriter`,
               which writes a stream while it is read too): response.created and
               response.in_progress, each item added, filled by its deltas and done, then
               response.completed (or response.incomplete) with the whole response
    wire       ``event: <type>`` and ``data: {json}`` per event
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...parsing._models import ParseResult, ToolCall
from ...tools._importers import from_openai
from ...tools._tool import Tool
from .._base import Provider
from .._content import ToolImage, result_parts
from .._fields import Json, NativeRead
from .._messages import Message, ToolResult, as_text
from .._write_options import WriteOptions
from ..openai_chat import function
from ._response import read_response
from ._stream import ResponsesStream
from ._write import ResponsesStreamWriter, write_response

__all__ = ["OpenAIResponses"]


# -- sent -----------------------------------------------------------------------------------------


def _output(value: object) -> str | list[Message]:
    """A result's ``output``: its text, or its text and image parts."""
    parts = result_parts(value)
    if parts is None:
        return as_text(value)
    return [_input_part(part) for part in parts]


def _input_part(part: str | ToolImage) -> Message:
    if isinstance(part, str):
        return {"type": "input_text", "text": part}
    return {"type": "input_image", "image_url": part.data_url()}


# -- the provider ---------------------------------------------------------------------------------


class OpenAIResponses(Provider):
    """The Responses API: ``function_call`` and ``function_call_output`` items, named SSE
    events (see the module docstring)."""

    name = "openai_responses"
    stream_marks = ("event: response.", '"type":"response.')
    id_prefix = "resp_"
    framing = "sse_named"
    stream_reader = ResponsesStream
    stream_writer = ResponsesStreamWriter

    def is_response(self, data: Mapping[str, Any]) -> bool:
        return data.get("object") == "response" or isinstance(data.get("output"), list)

    def render_tools(self, tools: Sequence[Tool]) -> Message:
        # strict is sent explicitly: a schema that is not strict-compatible is then accepted.
        return {"tools": [{"type": "function", **function(tool), "strict": False}
                          for tool in tools]}

    def render_calls(self, calls: Sequence[ToolCall], content: str | None) -> list[Message]:
        items: list[Message] = []
        if content:
            items.append({"type": "message", "role": "assistant",
                          "content": [{"type": "output_text", "text": content}]})
        items.extend({"type": "function_call", "call_id": call.id, "name": call.name,
                      "arguments": call.arguments_json()} for call in calls)
        return items

    def render_results(self, results: Sequence[ToolResult]) -> list[Message]:
        return [{"type": "function_call_output", "call_id": r.call.id,
                 "output": _output(r.value)} for r in results]

    def read_tools(self, tools: Any) -> list[Tool]:
        return from_openai(tools)

    def read_response(self, data: Json) -> NativeRead:
        return read_response(data)

    def write_response(self, result: ParseResult, options: WriteOptions) -> Message:
        return write_response(result, options)
