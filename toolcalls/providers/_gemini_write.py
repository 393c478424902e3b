"""Gemini: a result written as ``generateContent`` returns it (item 3 of the responses issue).

    response   {"candidates": [{"index": 0, "content": {"role": "model", "parts": [a
               ``thought`` text part, a text part, a ``functionCall`` part per call]},
               "finishReason": "STOP"}], "usageMetadata", "modelVersion", "responseId"}
    stream     ``streamGenerateContent`` chunks: one per part, each a whole
               GenerateContentResponse (Gemini sends a call whole, never in fragments); the
               last one has the finishReason and usage
    wire       ``data: {json}`` events (``?alt=sse``), as the API, with CRLF line ends

Gemini says "STOP" whether or not the model called a tool. The call's id is written in
``functionCall.id`` (the API fills it only on Vertex; the field is part of its schema).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..parsing._models import ParseResult
from ._provider import Message
from ._wire import ResponseWriter, WriteOptions, dumps

__all__ = ["WRITER", "write_response", "write_stream"]

_USAGE: Message = {"promptTokenCount": 0, "candidatesTokenCount": 0, "totalTokenCount": 0}


def _parts(result: ParseResult) -> list[Message]:
    parts: list[Message] = []
    if result.reasoning:
        parts.append({"text": result.reasoning, "thought": True})
    if result.content:
        parts.append({"text": result.content})
    parts.extend({"functionCall": {"id": call.id, "name": call.name, "args": call.arguments}}
                 for call in result.calls)
    return parts


def _response(options: WriteOptions, parts: list[Message], last: bool) -> Message:
    candidate: Message = {"index": 0, "content": {"role": "model", "parts": parts}}
    response: Message = {"candidates": [candidate], "modelVersion": options.model,
                         "responseId": options.id}
    if last:
        candidate["finishReason"] = "STOP"
        response["usageMetadata"] = dict(_USAGE)
    return response


def write_response(result: ParseResult, options: WriteOptions) -> Message:
    return _response(options, _parts(result), last=True)


def write_stream(result: ParseResult, options: WriteOptions) -> list[Message]:
    parts = _parts(result) or [{"text": ""}]
    return [_response(options, [part], last=i == len(parts) - 1) for i, part in enumerate(parts)]


def _wire(chunks: Sequence[Message]) -> str:
    return "".join(f"data: {dumps(chunk)}\r\n\r\n" for chunk in chunks)


WRITER = ResponseWriter(write_response, write_stream, _wire)
