"""OpenAI Chat Completions streamed while it is read (`_emit.StreamWriter`):
``chat.completion.chunk``s, the shapes of `_openai_chat_write`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..parsing._models import ParseResult, ToolCall
from . import _openai_chat_write
from ._emit import StreamWriter
from ._provider import Message
from ._wire import WriteOptions

__all__ = ["ChatStreamWriter"]


class ChatStreamWriter(StreamWriter):
    """OpenAI Chat Completions: ``chat.completion.chunk``s (`_openai_chat_write`). The role
    chunk has content null (as OpenAI's first chunk of a turn with calls; text deltas add to
    it); a call is a chunk with its id, type and name, then its arguments (whole, or live
    each fragment in a chunk of its own); the finish_reason in a chunk of its own, the usage
    in a last one with no choices."""

    provider = "openai"
    id_prefix = "chatcmpl-"
    live_calls = True

    def _chunk(self, delta: Message, finish_reason: str | None = None) -> Message:
        return _openai_chat_write._chunk(self._options, delta, finish_reason)

    def _opening(self) -> list[Message]:
        return [self._chunk({"role": "assistant", "content": None})]

    def _text(self, text: str, out: list[Message]) -> None:
        out.append(self._chunk({"content": text}))

    def _reasoning(self, text: str, out: list[Message]) -> None:
        out.append(self._chunk({"reasoning_content": text}))

    def _result_reasoning(self, result: ParseResult, out: list[Message]) -> None:
        # The text and OpenRouter's reasoning_details, as they came, in one delta.
        if reasoning := _openai_chat_write._reasoning(result):
            out.append(self._chunk(reasoning))

    def _call(self, index: int, call: ToolCall, out: list[Message]) -> None:
        self._call_start(index, call.id, call.name, out)
        self._call_arguments(index, call.arguments_json(), out)

    def _call_start(self, index: int, ident: str, name: str, out: list[Message]) -> None:
        out.append(self._chunk({"tool_calls": [
            {"index": index, "id": ident, "type": "function",
             "function": {"name": name, "arguments": ""}}]}))

    def _call_arguments(self, index: int, fragment: str, out: list[Message]) -> None:
        out.append(self._chunk({"tool_calls": [
            {"index": index, "function": {"arguments": fragment}}]}))

    def _closing(self, options: WriteOptions, out: list[Message]) -> None:
        out.append(self._chunk({}, options.finish(self.tool_turn)))
        usage = _openai_chat_write._usage(options)
        if usage is not None:
            out.append({**self._chunk({}), "choices": [], "usage": usage})

    def _error(self, message: str, kind: str) -> Message:
        return {"error": {"message": message, "type": kind, "param": None, "code": None}}

    def _own_usage(self, usage: Mapping[str, Any]) -> bool:
        # All three counts, which the SDK requires: a server's partial usage becomes counts.
        return all(key in usage for key in ("prompt_tokens", "completion_tokens", "total_tokens"))
