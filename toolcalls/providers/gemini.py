"""Gemini (``generateContent``, ``streamGenerateContent``) as one `Provider`.

Its shapes are still written and read by the modules it names (`_gemini`: tools, history and
responses; `_gemini_stream`: the stream reader; `_gemini_write`, `_gemini_emit`: the
response and the stream written); they fold into this module when it is converted
(docs/adding-a-provider.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..parsing._models import ParseResult, ToolCall
from ..tools._importers import from_gemini
from ..tools._tool import Tool
from . import _gemini, _gemini_write
from ._base import Provider
from ._fields import Json, NativeRead
from ._gemini_emit import GeminiStreamWriter
from ._gemini_stream import GeminiStream
from ._messages import Message, ToolResult
from ._write_options import WriteOptions

__all__ = ["Gemini"]


class Gemini(Provider):
    """Gemini: ``functionCall`` and ``functionResponse`` parts, SSE with CRLF line ends."""

    name = "gemini"
    response_keys = ("candidates", "usageMetadata", "usage_metadata")
    stream_marks = ('"candidates"',)
    framing = "sse_crlf"
    stream_reader = GeminiStream
    stream_writer = GeminiStreamWriter

    def is_error_body(self, data: Mapping[str, Any], error: Any) -> bool:
        return isinstance(error, Mapping) and "status" in error

    def render_tools(self, tools: Sequence[Tool]) -> Message:
        return _gemini.render_tools(tools)

    def render_calls(self, calls: Sequence[ToolCall], content: str | None) -> list[Message]:
        return _gemini.call_messages(calls, content)

    def render_results(self, results: Sequence[ToolResult]) -> list[Message]:
        return _gemini.result_messages(results)

    def read_tools(self, tools: Any) -> list[Tool]:
        return from_gemini(tools)

    def read_response(self, data: Json) -> NativeRead:
        return _gemini.read_response(data)

    def write_response(self, result: ParseResult, options: WriteOptions) -> Message:
        return _gemini_write.write_response(result, options)

    def write_stream(self, result: ParseResult, options: WriteOptions) -> list[Message]:
        # Gemini's own: one chunk per part (its stream writer is for events as they come).
        return _gemini_write.write_stream(result, options)
