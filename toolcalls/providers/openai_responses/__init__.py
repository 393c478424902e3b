"""The OpenAI Responses API (``/v1/responses``) as one `Provider`.

Its shapes are still written and read by the modules it names (`_openai_responses`: tools,
history and responses; `_openai_responses_stream`: the stream reader; `_openai_responses_write`,
`_openai_responses_emit`: the response and the stream written); they fold into this module when
it is converted (docs/adding-a-provider.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...parsing._models import ParseResult, ToolCall
from ...tools._importers import from_openai
from ...tools._tool import Tool
from .._base import Provider
from .._fields import Json, NativeRead
from .._messages import Message, ToolResult
from .._write_options import WriteOptions
from . import _response, _write
from ._emit import ResponsesStreamWriter
from ._stream import ResponsesStream

__all__ = ["OpenAIResponses"]


class OpenAIResponses(Provider):
    """The Responses API: ``function_call`` and ``function_call_output`` items, named SSE
    events."""

    name = "openai_responses"
    stream_marks = ("event: response.", '"type":"response.')
    id_prefix = "resp_"
    framing = "sse_named"
    stream_reader = ResponsesStream
    stream_writer = ResponsesStreamWriter

    def is_response(self, data: Mapping[str, Any]) -> bool:
        return data.get("object") == "response" or isinstance(data.get("output"), list)

    def render_tools(self, tools: Sequence[Tool]) -> Message:
        return _response.render_tools(tools)

    def render_calls(self, calls: Sequence[ToolCall], content: str | None) -> list[Message]:
        return _response.call_messages(calls, content)

    def render_results(self, results: Sequence[ToolResult]) -> list[Message]:
        return _response.result_messages(results)

    def read_tools(self, tools: Any) -> list[Tool]:
        return from_openai(tools)

    def read_response(self, data: Json) -> NativeRead:
        return _response.read_response(data)

    def write_response(self, result: ParseResult, options: WriteOptions) -> Message:
        return _write.write_response(result, options)
