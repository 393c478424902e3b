"""Gemini: a result written as ``generateContent`` returns it (item 3 of the responses issue).

    response   {"candidates": [{"index": 0, "content": {"role": "model", "parts": [a
               ``thought`` text part, a text part, a ``functionCall`` part per call]},
               "finishReason": "STOP"}], "usageMetadata", "modelVersion", "responseId"}
    stream     ``streamGenerateContent`` chunks: one per part, each a whole
               GenerateContentResponse (Gemini sends a call whole, never in fragments); the
               last one has the finishReason and usage
    wire       ``data: {json}`` events (``?alt=sse``), as the API, with CRLF line ends

Gemini says "STOP" whether or not the model called a tool; a result cut off is "MAX_TOKENS",
one filtered "SAFETY". Usage metadata read from Gemini is written as it came; else the counts,
0 when unknown. A result read from Gemini keeps the
parts that carry a ``thoughtSignature`` (its ``reasoning_blocks``): the signature goes back on
the written part it came on (the call of the same name and arguments; a thought or text part on
the first part of its kind), since Gemini wants it on the same part. The call's id is written in
``functionCall.id`` (the API fills it only on Vertex; the field is part of its schema).
"""

from __future__ import annotations

import base64
from typing import Any

from ..parsing._models import ParseResult
from ._messages import Message
from ._write_options import FinishKind, WriteOptions, reasoning_blocks

__all__ = ["write_response", "write_stream"]

_FINISH_REASONS: dict[FinishKind, str] = {
    "stop": "STOP", "length": "MAX_TOKENS", "tool_calls": "STOP", "content_filter": "SAFETY",
}


def _usage(options: WriteOptions) -> Message:
    own = options.own_usage("gemini")
    if own is not None and all("_" not in key for key in own):  # the wire's camelCase
        return dict(own)
    tokens = options.tokens()
    counts = (0, 0, 0) if tokens is None else (tokens.input, tokens.output, tokens.total)
    return dict(zip(("promptTokenCount", "candidatesTokenCount", "totalTokenCount"), counts,
                    strict=True))


def _parts(result: ParseResult) -> list[Message]:
    parts: list[Message] = []
    if result.reasoning:
        parts.append({"text": result.reasoning, "thought": True})
    if result.content:
        parts.append({"text": result.content})
    parts.extend({"functionCall": {"id": call.id, "name": call.name, "args": call.arguments}}
                 for call in result.calls)
    _sign(parts, [b for b in reasoning_blocks(result) if _signature(b)])
    return parts


def _sign(parts: list[Message], signed: list[Message]) -> None:
    """Put each kept signature back on the written part it came on."""
    for block in signed:
        part = next((p for p in parts if "thoughtSignature" not in p and _same(p, block)), None)
        if part is None:
            continue
        part["thoughtSignature"] = _signature(block)
        kept_call = block.get("functionCall") or block.get("function_call")
        if isinstance(kept_call, dict) and "id" not in kept_call:
            # Gemini gave the call no id (the reader made one up): the part goes back as it came
            del part["functionCall"]["id"]


def _same(part: Message, block: Message) -> bool:
    call = block.get("functionCall") or block.get("function_call")
    if isinstance(call, dict):
        written = part.get("functionCall")
        return written is not None and (written["name"], written["args"]) == (
            call.get("name"), call.get("args") or {})
    return "text" in part and bool(part.get("thought")) == bool(block.get("thought"))


def _signature(block: Message) -> Any:
    signature = block.get("thoughtSignature") or block.get("thought_signature")
    if isinstance(signature, bytes):  # as the SDK dumps it: the wire has base64
        return base64.b64encode(signature).decode("ascii")
    return signature


def _response(options: WriteOptions, parts: list[Message], finish: FinishKind | None
              ) -> Message:
    """One response; the last one of a stream (or the whole one) says why it ``finish``ed."""
    candidate: Message = {"index": 0, "content": {"role": "model", "parts": parts}}
    response: Message = {"candidates": [candidate], "modelVersion": options.model,
                         "responseId": options.id}
    if finish is not None:
        candidate["finishReason"] = _FINISH_REASONS[finish]
        response["usageMetadata"] = _usage(options)
    return response


def write_response(result: ParseResult, options: WriteOptions) -> Message:
    return _response(options, _parts(result), options.finish(bool(result.calls)))


def write_stream(result: ParseResult, options: WriteOptions) -> list[Message]:
    parts = _parts(result) or [{"text": ""}]
    finish = options.finish(bool(result.calls))
    return [_response(options, [part], finish if i == len(parts) - 1 else None)
            for i, part in enumerate(parts)]
