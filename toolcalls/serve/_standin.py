"""Stand-in until _emit lands: a minimal `toolcalls.providers._emit` (the signatures of the
shared design), so the server runs and is tested before it is merged. Delete this module once
it is on main."""

# stand-in until _emit lands

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..parsing._events import Event, ReasoningDelta, TextDelta, ToolCallEnd
from ..providers._wire import dumps

Message = dict[str, Any]


class StreamWriter:
    def __init__(self, *, model: str, id: str | None = None, created: int | None = None,  # noqa: A002
                 call_id: Callable[[int, str], str] | None = None) -> None:
        self.model, self.id, self.created = model, id or "toolcalls-0", created or 0
        self.calls = 0

    def start(self) -> list[Message]:
        raise NotImplementedError

    def feed(self, event: Event) -> list[Message]:
        raise NotImplementedError

    def finish(self, finish_reason: str | None = None,
               usage: Mapping[str, Any] | None = None) -> list[Message]:
        raise NotImplementedError

    def fail(self, message: str, *, kind: str = "api_error") -> list[Message]:
        raise NotImplementedError


class _ChatWriter(StreamWriter):
    def _chunk(self, delta: Message, finish: str | None = None) -> Message:
        return {"id": self.id, "object": "chat.completion.chunk", "created": self.created,
                "model": self.model, "choices": [{"index": 0, "delta": delta,
                                                  "finish_reason": finish}]}

    def start(self) -> list[Message]:
        return [self._chunk({"role": "assistant", "content": ""})]

    def feed(self, event: Event) -> list[Message]:
        if isinstance(event, TextDelta):
            return [self._chunk({"content": event.text})]
        if isinstance(event, ReasoningDelta):
            return [self._chunk({"reasoning_content": event.text})]
        if isinstance(event, ToolCallEnd):
            call, index = event.call, self.calls
            self.calls += 1
            return [self._chunk({"tool_calls": [{"index": index, "id": call.id,
                                                 "type": "function", "function": {
                                                     "name": call.name,
                                                     "arguments": call.arguments_json()}}]})]
        return []

    def finish(self, finish_reason: str | None = None,
               usage: Mapping[str, Any] | None = None) -> list[Message]:
        reason = "tool_calls" if self.calls else (finish_reason or "stop")
        chunks = [self._chunk({}, reason)]
        if usage:
            chunks.append({**self._chunk({}), "choices": [], "usage": dict(usage)})
        return chunks

    def fail(self, message: str, *, kind: str = "api_error") -> list[Message]:
        return [{"error": {"message": message, "type": kind, "code": None}}]


class _MessagesWriter(StreamWriter):
    _open: str | None = None
    _index = 0

    def start(self) -> list[Message]:
        return [{"type": "message_start", "message": {
            "id": self.id, "type": "message", "role": "assistant", "model": self.model,
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 0, "output_tokens": 0}}}]

    def _close(self) -> list[Message]:
        if self._open is None:
            return []
        self._open = None
        self._index += 1
        return [{"type": "content_block_stop", "index": self._index - 1}]

    def _text(self, kind: str, text: str) -> list[Message]:
        out: list[Message] = []
        if self._open != kind:
            out += self._close()
            block = {"type": "text", "text": ""} if kind == "text" else {
                "type": "thinking", "thinking": "", "signature": ""}
            out.append({"type": "content_block_start", "index": self._index,
                        "content_block": block})
            self._open = kind
        delta = ({"type": "text_delta", "text": text} if kind == "text"
                 else {"type": "thinking_delta", "thinking": text})
        out.append({"type": "content_block_delta", "index": self._index, "delta": delta})
        return out

    def feed(self, event: Event) -> list[Message]:
        if isinstance(event, TextDelta):
            return self._text("text", event.text)
        if isinstance(event, ReasoningDelta):
            return self._text("thinking", event.text)
        if isinstance(event, ToolCallEnd):
            self.calls += 1
            call, out = event.call, self._close()
            out.append({"type": "content_block_start", "index": self._index, "content_block": {
                "type": "tool_use", "id": call.id, "name": call.name, "input": {}}})
            out.append({"type": "content_block_delta", "index": self._index, "delta": {
                "type": "input_json_delta", "partial_json": call.arguments_json()}})
            self._open = "tool"
            return out + self._close()
        return []

    def finish(self, finish_reason: str | None = None,
               usage: Mapping[str, Any] | None = None) -> list[Message]:
        reason = "tool_use" if self.calls else {"length": "max_tokens"}.get(
            finish_reason or "", "end_turn")
        tokens = {"output_tokens": (usage or {}).get("completion_tokens", 0)}
        return self._close() + [
            {"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": None},
             "usage": tokens}, {"type": "message_stop"}]

    def fail(self, message: str, *, kind: str = "api_error") -> list[Message]:
        return [{"type": "error", "error": {"type": kind, "message": message}}]


def stream_writer(provider: str, **options: Any) -> StreamWriter:
    return {"openai": _ChatWriter, "anthropic": _MessagesWriter}[provider](**options)


def wire_message(provider: str, message: Message) -> str:
    if provider == "anthropic":
        return f"event: {message['type']}\ndata: {dumps(message)}\n\n"
    return f"data: {dumps(message)}\n\n"


def wire_done(provider: str) -> str:
    return "data: [DONE]\n\n" if provider == "openai" else ""
