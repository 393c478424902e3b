"""Anthropic Messages (``/v1/messages``): `Anthropic`.

Sent (history):

    tools      [{"name", "description", "input_schema"}]
    calls      {"role": "assistant", "content": [a ``text`` block for any text, then
               {"type": "tool_use", "id", "name", "input"} per call]}
    results    one {"role": "user"} message of {"type": "tool_result", "tool_use_id",
               "content", "is_error"?} blocks, for all the results of a turn; a result with
               images as ``text`` and base64 ``image`` blocks
    read back  `toolcalls.tools.from_anthropic`

Read: a whole ``Message`` in `_response`, a stream in `_stream` (compiled: each event of
`read_stream` passes through it), block by block alike:

    calls      ``tool_use`` blocks: ``id`` kept, ``name``, ``input`` (streamed as
               ``input_json_delta`` pieces; a block never stopped fails, ``truncated_call``)
    text       ``text`` blocks, parsed for calls in the text; ``citations`` not kept
    reasoning  ``thinking`` blocks' text; ``thinking`` (with its ``signature``) and
               ``redacted_thinking`` blocks, and Anthropic's own tool search, kept whole in
               ``reasoning_blocks`` to send back with the turn
    not read   ``server_tool_use`` and ``mcp_tool_use`` (run by Anthropic): a
               ``server_tool_call`` issue; their ``*_tool_result`` blocks; another block type:
               an ``unread_part`` issue
    finish     ``stop_reason``; ``usage`` as it is; ``model``

Written (`_write`: a result as the API returns it, whole and streamed):

    response   {"type": "message", "role": "assistant", "content": [thinking, text and
               tool_use blocks], "stop_reason", "usage"}
    stream     message_start, content_block_start / _delta / _stop per block, message_delta
               (stop_reason, usage), message_stop (`AnthropicStreamWriter`, which writes a
               stream while it is read too)
    wire       ``event: <type>`` and ``data: {json}`` per event
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...parsing._models import ParseResult, ToolCall
from ...tools._importers import from_anthropic
from ...tools._tool import Tool
from .._base import Provider
from .._content import ToolImage, result_parts
from .._fields import Json, NativeRead
from .._messages import Message, ToolResult, as_text
from .._write_options import WriteOptions
from ._response import read_response
from ._stream import AnthropicStream
from ._write import AnthropicStreamWriter, tool_use_block, write_response

__all__ = ["Anthropic", "AnthropicStream", "AnthropicStreamWriter"]


# -- sent -----------------------------------------------------------------------------------------


def _result_block(result: ToolResult) -> Message:
    block: Message = {"type": "tool_result", "tool_use_id": result.call.id,
                      "content": _result_content(result.value)}
    if result.is_error:
        block["is_error"] = True
    return block


def _result_content(value: object) -> str | list[Message]:
    parts = result_parts(value)
    if parts is None:
        return as_text(value)
    return [_content_block(part) for part in parts]


def _content_block(part: str | ToolImage) -> Message:
    if isinstance(part, str):
        return {"type": "text", "text": part}
    return {"type": "image",
            "source": {"type": "base64", "media_type": part.media_type, "data": part.data}}


# -- the provider ---------------------------------------------------------------------------------


class Anthropic(Provider):
    """Anthropic Messages: ``tool_use`` and ``tool_result`` blocks, named SSE events (see the
    module docstring)."""

    name = "anthropic"
    response_keys = ("stop_reason",)
    stream_marks = ("event: message_start", '"type":"message_start"')
    id_prefix = "msg_"
    framing = "sse_named"
    stream_reader = AnthropicStream
    stream_writer = AnthropicStreamWriter

    def is_response(self, data: Mapping[str, Any]) -> bool:
        return data.get("type") == "message" or super().is_response(data)

    def is_error_body(self, data: Mapping[str, Any], error: Any) -> bool:
        return data.get("type") == "error"

    def render_tools(self, tools: Sequence[Tool]) -> Message:
        return {"tools": [{"name": tool.name, "description": tool.description,
                           "input_schema": tool.parameters} for tool in tools]}

    def render_calls(self, calls: Sequence[ToolCall], content: str | None) -> list[Message]:
        blocks: list[Message] = [{"type": "text", "text": content}] if content else []
        blocks.extend(tool_use_block(call) for call in calls)
        return [{"role": "assistant", "content": blocks}]

    def render_results(self, results: Sequence[ToolResult]) -> list[Message]:
        return [{"role": "user", "content": [_result_block(result) for result in results]}]

    def read_tools(self, tools: Any) -> list[Tool]:
        return from_anthropic(tools)

    def read_response(self, data: Json) -> NativeRead:
        return read_response(data)

    def write_response(self, result: ParseResult, options: WriteOptions) -> Message:
        return write_response(result, options)
