"""Gemini: a result written as ``generateContent`` returns it (item 3 of the responses issue).

    response   {"candidates": [{"index": 0, "content": {"role": "model", "parts": [a
               ``thought`` text part, a text part, a ``functionCall`` part per call]},
               "finishReason": "STOP"}], "usageMetadata", "modelVersion", "responseId"}
    stream     ``streamGenerateContent`` chunks: one per part, each a whole
               GenerateContentResponse (Gemini sends a call whole, never in fragments); the
               last one has the finishReason and usage
    wire       ``data: {json}`` events (``?alt=sse``), as the API, with CRLF line ends

Gemini says "STOP" whether or not the model called a tool; a result cut off is "MAX_TOKENS",
one filtered "SAFETY". Unknown token counts are written 0. The call's id is written in
``functionCall.id`` (the API fills it only on Vertex; the field is part of its schema).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..parsing._models import ParseResult
from ._provider import Message
from ._wire import FinishKind, ResponseWriter, WriteOptions, dumps

__all__ = ["WRITER", "write_response", "write_stream"]

_FINISH_REASONS: dict[FinishKind, str] = {
    "stop": "STOP", "length": "MAX_TOKENS", "tool_calls": "STOP", "content_filter": "SAFETY",
}


def _usage(options: WriteOptions) -> Message:
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
    return parts


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


def _wire(chunks: Sequence[Message]) -> str:
    return "".join(f"data: {dumps(chunk)}\r\n\r\n" for chunk in chunks)


WRITER = ResponseWriter(write_response, write_stream, _wire)
