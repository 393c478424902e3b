"""Gemini streamed while it is read (`_stream_writer.StreamWriter`): ``streamGenerateContent``
chunks, the shapes of `_gemini_write`.

Nothing opens the stream. Each text or reasoning delta is a chunk with one part (a ``thought``
part for reasoning), each call a chunk with its ``functionCall`` whole, as Gemini sends them;
the end is a chunk with an empty text part, the finishReason and the usage (Gemini, too, ends
with a chunk of its own at times). An error is the API's ``{"error": {"code", "message",
"status"}}``.

`write_stream` for Gemini is not built on this writer: its whole-result stream puts the
finishReason on the last part's chunk (what a writer that learns of the end only at `finish`
cannot do without holding the last part back), and gives thought signatures back on the part
they came on, which only the whole result has.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..parsing._models import ToolCall
from . import _gemini_write as written
from ._messages import Message
from ._stream_writer import StreamWriter
from ._write_options import WriteOptions

__all__ = ["GeminiStreamWriter"]

# An error's kind (Anthropic's words, which the proxy uses) as Gemini's status and HTTP code.
_STATUSES: Mapping[str, tuple[int, str]] = {
    "api_error": (500, "INTERNAL"), "overloaded_error": (503, "UNAVAILABLE"),
    "timeout_error": (504, "DEADLINE_EXCEEDED"), "invalid_request_error": (400,
                                                                           "INVALID_ARGUMENT"),
}


class GeminiStreamWriter(StreamWriter):
    """``GenerateContentResponse`` chunks (see the module docstring)."""

    provider = "gemini"

    def _part(self, part: Message, out: list[Message]) -> None:
        out.append(written._response(self._options, [part], None))

    def _opening(self) -> list[Message]:
        return []

    def _text(self, text: str, out: list[Message]) -> None:
        self._part({"text": text}, out)

    def _reasoning(self, text: str, out: list[Message]) -> None:
        self._part({"text": text, "thought": True}, out)

    def _call(self, index: int, call: ToolCall, out: list[Message]) -> None:
        self._part({"functionCall": {"id": call.id, "name": call.name,
                                     "args": call.arguments}}, out)

    def _closing(self, options: WriteOptions, out: list[Message]) -> None:
        out.append(written._response(options, [{"text": ""}],
                                     options.finish(bool(self.calls))))

    def _error(self, message: str, kind: str) -> Message:
        code, status = _STATUSES.get(kind, (500, kind))
        return {"error": {"code": code, "message": message, "status": status}}

    def _own_usage(self, usage: Mapping[str, Any]) -> bool:
        return "promptTokenCount" in usage
