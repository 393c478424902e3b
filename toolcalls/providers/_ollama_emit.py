"""Ollama ``/api/chat`` streamed while it is read (`_emit.StreamWriter`): NDJSON chunks, the
shapes of `_ollama_write`.

Nothing opens the stream. Each thinking or content delta is a chunk with ``"done": false``;
each call a chunk of its own with the call whole (Ollama sends calls whole, without ids); the
end is a chunk with an empty message, ``"done": true``, the done_reason and the counts. An
error is Ollama's ``{"error": "message"}`` line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..parsing._models import ToolCall
from . import _ollama_write as written
from ._emit import StreamWriter
from ._provider import Message
from ._wire import WriteOptions

__all__ = ["OllamaStreamWriter"]


class OllamaStreamWriter(StreamWriter):
    """``/api/chat`` chunks (see the module docstring)."""

    provider = "ollama"

    def _message(self, message: Message, out: list[Message]) -> None:
        out.append(written._chunk(self._options, message, done=False))

    def _opening(self) -> list[Message]:
        return []

    def _text(self, text: str, out: list[Message]) -> None:
        self._message({"content": text}, out)

    def _reasoning(self, text: str, out: list[Message]) -> None:
        self._message({"thinking": text}, out)

    def _call(self, index: int, call: ToolCall, out: list[Message]) -> None:
        self._message({"tool_calls": [{"function": {"name": call.name,
                                                    "arguments": call.arguments}}]}, out)

    def _closing(self, options: WriteOptions, out: list[Message]) -> None:
        out.append(written._chunk(options, {}, done=True))

    def _error(self, message: str, kind: str) -> Message:
        return {"error": message}

    def _own_usage(self, usage: Mapping[str, Any]) -> bool:
        return "eval_count" in usage
