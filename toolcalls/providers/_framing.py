"""How a stream's chunks go on the wire: server-sent events or NDJSON, as each API frames them.

A provider names its framing (`Provider.framing`) and what ends its stream (`Provider.stream_end`,
``data: [DONE]`` for Chat Completions); `Provider.wire` writes chunks with the framer named here.
Every framer writes JSON compact with non-ASCII kept (`dumps`), as the APIs send it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final, Literal

__all__ = ["FRAMERS", "Framing", "dumps", "ndjson", "sse", "sse_crlf", "sse_named"]

Framing = Literal["sse", "sse_named", "sse_crlf", "ndjson"]
"""``sse``: ``data:`` lines (Chat Completions); ``sse_named``: each event's ``type`` on an
``event:`` line first (Anthropic, Responses); ``sse_crlf``: ``data:`` lines ended by CRLF
(Gemini); ``ndjson``: one JSON object a line (Ollama ``/api/chat``)."""

# One encoder made once: json.dumps with options builds a new JSONEncoder per call, a few
# microseconds per chunk streamed.
_encode: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def dumps(value: Any) -> str:
    """Compact JSON, non-ASCII kept, as the APIs send it."""
    return _encode(value)


def sse(events: Iterable[Mapping[str, Any]]) -> str:
    """Server-sent events: ``data: {json}`` and a blank line per event."""
    return "".join([f"data: {_encode(event)}\n\n" for event in events])


def sse_named(events: Iterable[Mapping[str, Any]]) -> str:
    """Server-sent events whose ``type`` goes on an ``event:`` line before its ``data:``."""
    return "".join([f"event: {event['type']}\ndata: {_encode(event)}\n\n" for event in events])


def sse_crlf(events: Iterable[Mapping[str, Any]]) -> str:
    """Server-sent events with CRLF line ends, as Gemini's ``alt=sse`` sends them."""
    return "".join([f"data: {_encode(event)}\r\n\r\n" for event in events])


def ndjson(chunks: Iterable[Mapping[str, Any]]) -> str:
    """Newline-delimited JSON, one chunk a line."""
    return "".join([_encode(chunk) + "\n" for chunk in chunks])


FRAMERS: Final[Mapping[Framing, Callable[[Iterable[Mapping[str, Any]]], str]]] = {
    "sse": sse, "sse_named": sse_named, "sse_crlf": sse_crlf, "ndjson": ndjson}
"""Each framing's writer, by its name."""
