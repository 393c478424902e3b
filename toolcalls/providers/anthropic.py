"""Anthropic Messages (``/v1/messages``) as one `Provider`.

Its shapes are still written and read by the modules it names (`_anthropic`: tools, history and
responses; `_anthropic_stream`: the stream reader; `_anthropic_write`, `_anthropic_emit`: the
response and the stream written); they fold into this module when it is converted
(docs/adding-a-provider.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..parsing._models import ParseResult, ToolCall
from ..tools._importers import from_anthropic
from ..tools._tool import Tool
from . import _anthropic, _anthropic_write
from ._anthropic_emit import MessagesStreamWriter
from ._anthropic_stream import AnthropicStream
from ._base import Provider
from ._fields import Json, NativeRead
from ._messages import Message, ToolResult
from ._write_options import WriteOptions

__all__ = ["Anthropic"]


class Anthropic(Provider):
    """Anthropic Messages: ``tool_use`` and ``tool_result`` blocks, named SSE events."""

    name = "anthropic"
    response_keys = ("stop_reason",)
    stream_marks = ("event: message_start", '"type":"message_start"')
    id_prefix = "msg_"
    framing = "sse_named"
    stream_reader = AnthropicStream
    stream_writer = MessagesStreamWriter

    def is_response(self, data: Mapping[str, Any]) -> bool:
        return data.get("type") == "message" or super().is_response(data)

    def is_error_body(self, data: Mapping[str, Any], error: Any) -> bool:
        return data.get("type") == "error"

    def render_tools(self, tools: Sequence[Tool]) -> Message:
        return _anthropic.render_tools(tools)

    def render_calls(self, calls: Sequence[ToolCall], content: str | None) -> list[Message]:
        return _anthropic.call_messages(calls, content)

    def render_results(self, results: Sequence[ToolResult]) -> list[Message]:
        return _anthropic.result_messages(results)

    def read_tools(self, tools: Any) -> list[Tool]:
        return from_anthropic(tools)

    def read_response(self, data: Json) -> NativeRead:
        return _anthropic.read_response(data)

    def write_response(self, result: ParseResult, options: WriteOptions) -> Message:
        return _anthropic_write.write_response(result, options)
