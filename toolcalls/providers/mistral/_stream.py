"""Mistral's chat completions streamed: `MistralStream`, the stream reader of `Mistral` (a
compiled module: each chunk of `read_stream` passes through it), and the readers of Mistral's
own parts that a whole response shares (thinking chunks, the error body)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._fields import NativeRead, brief, is_obj, items
from ..openai_chat._stream import ChatStream

__all__ = ["MistralStream", "is_error_body", "is_thinking", "thinking_texts"]


def is_error_body(data: Mapping[str, Any]) -> bool:
    """Whether `data` is Mistral's error body (``"object": "error"``, no ``error`` field)."""
    return data.get("object") == "error" and not data.get("error")


def thinking_texts(chunk: Mapping[str, Any], read: NativeRead) -> list[Any]:
    """The texts nested in a thinking chunk; what is nested that is not text is an issue."""
    texts = []
    for part in items(read, chunk.get("thinking"), "a thinking chunk's thinking"):
        if is_obj(part) and part.get("type", "text") == "text" and "text" in part:
            texts.append(part.get("text"))
        else:
            kind = brief(part.get("type")) if is_obj(part) else type(part).__name__
            read.issue("unread_part", f"a part of type {kind} in a thinking chunk is not text: "
                                      "not read")
    return texts

def is_thinking(chunk: Any) -> bool:
    """Whether a content chunk is a thinking chunk (Magistral's reasoning)."""
    return is_obj(chunk) and chunk.get("type") == "thinking"

class MistralStream(ChatStream):
    """Reads Mistral's ``chat.completion.chunk`` events: OpenAI's reader, with thinking chunks
    read as reasoning and Mistral's error body read as an error (see the module docstring)."""

    def _read(self, data: Mapping[str, Any]) -> None:
        event = data.get("data")
        if is_obj(event) and "choices" not in data:  # the SDK's CompletionEvent: its chunk
            data = event
        if is_error_body(data):
            self._provider_error(dict(data))
            return
        super()._read(data)

    def _read_delta(self, delta: Mapping[str, Any]) -> None:
        content = delta.get("content")
        if isinstance(content, list) and any(is_thinking(chunk) for chunk in content):
            kept = []
            for chunk in content:
                if is_thinking(chunk):
                    for text in thinking_texts(chunk, self._native):
                        self._think(text)
                else:
                    kept.append(chunk)
            delta = {**delta, "content": kept}
        super()._read_delta(delta)
