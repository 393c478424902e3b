"""What every response writer shares: its options, and the two ways streams go on the wire.

A writer (`_openai_chat_write`, `_openai_responses_write`, `_anthropic_write`,
`_gemini_write`, `_ollama_write`) turns a `ParseResult` into one provider API's response and
into its stream; `_write` looks the provider up. Streams are lists of JSON objects, one per
chunk or event; `sse` and `ndjson` put them on the wire as the API does.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..parsing._models import ParseResult
from ._provider import Message

__all__ = ["ResponseWriter", "WriteOptions", "dumps", "ndjson", "sse"]

@dataclass(frozen=True)
class WriteOptions:
    """What a response says besides the result: the model, its id, when it was made."""

    model: str = "toolcalls"
    id: str = "toolcalls-0"
    """The response's id (each provider's prefix is not added: ids are opaque to clients)."""
    created: int = field(default_factory=lambda: int(time.time()))


@dataclass(frozen=True)
class ResponseWriter:
    """How one provider API writes a result: whole, as a stream, and that stream on the wire."""

    response: Callable[[ParseResult, WriteOptions], Message]
    stream: Callable[[ParseResult, WriteOptions], list[Message]]
    wire: Callable[[Sequence[Message]], str]


def dumps(value: Any) -> str:
    """Compact JSON, non-ASCII kept, as the APIs send it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def sse(events: Iterable[Message], *, named: bool, done: bool = False) -> str:
    """Server-sent events: ``data: {json}`` and a blank line per event; ``named`` streams
    (Anthropic, Responses) put the event's ``type`` on an ``event:`` line first; ``done``
    (Chat Completions) ends with ``data: [DONE]``."""
    lines = [(f"event: {event['type']}\n" if named else "") + f"data: {dumps(event)}\n\n"
             for event in events]
    if done:
        lines.append("data: [DONE]\n\n")
    return "".join(lines)


def ndjson(chunks: Iterable[Message]) -> str:
    """Newline-delimited JSON, one chunk a line (Ollama's ``/api/chat``)."""
    return "".join(dumps(chunk) + "\n" for chunk in chunks)
