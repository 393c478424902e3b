"""Gemini (``generateContent``, ``streamGenerateContent``): `Gemini`. Declarations with an
OpenAPI-subset schema (see `toolcalls.tools.gemini_schema`), calls and results as parts.

Sent (history):

    tools      [{"functionDeclarations": [{"name", "description", "parameters"?}]}]
    calls      {"role": "model", "parts": [a ``text`` part for any text, then
               {"functionCall": {"id", "name", "args"}} per call]}
    results    one {"role": "user"} message of {"functionResponse": {"id", "name",
               "response"}} parts, for all the results of a turn; an error under
               ``response.error``; a result with images has its text under ``response.result``
               and the images as ``parts`` of the function response (``inlineData``; Gemini 3
               models read them, older ones do not)
    read back  `toolcalls.tools.from_gemini`

Read: a whole response in `_response`, a stream in `_stream` (compiled: each chunk of
`read_stream` passes through it), both from ``candidates[0].content.parts`` in order: calls
(``functionCall`` parts, whole, or with their arguments streamed in ``partialArgs`` pieces,
which `_arguments` writes as JSON text), text, reasoning (``thought`` parts; the parts that
carry a ``thoughtSignature`` kept as ``reasoning_blocks``), ``finishReason``,
``usageMetadata``, ``modelVersion``; code Gemini runs itself, further candidates and parts of
other kinds are issues.

Written (a result as the API returns it):

    response   {"candidates": [{"index": 0, "content": {"role": "model", "parts": [a
               ``thought`` text part, a text part, a ``functionCall`` part per call]},
               "finishReason": "STOP"}], "usageMetadata", "modelVersion", "responseId"}
    stream     ``streamGenerateContent`` chunks, each a whole GenerateContentResponse with one
               part (Gemini sends a call whole, never in fragments). A whole result
               (`Gemini.write_stream`): one chunk per part, the last with the finishReason and
               usage. Written while it is read (`GeminiStreamWriter`): nothing opens the
               stream; a chunk per text or reasoning delta and per call; the end is a chunk
               with an empty text part, the finishReason and the usage (Gemini, too, ends with
               a chunk of its own at times). An error is the API's ``{"error": {"code",
               "message", "status"}}``
    wire       ``data: {json}`` events (``?alt=sse``), as the API, with CRLF line ends

Gemini says "STOP" whether or not the model called a tool; a result cut off is "MAX_TOKENS",
one filtered "SAFETY". Usage metadata read from Gemini is written as it came; else the counts,
0 when unknown. A result read from Gemini keeps the parts that carry a ``thoughtSignature``
(its ``reasoning_blocks``): the signature goes back on the written part it came on (the call of
the same name and arguments; a thought or text part on the first part of its kind), since
Gemini wants it on the same part. The call's id is written in ``functionCall.id`` (the API
fills it only on Vertex; the field is part of its schema).

The whole-result stream is not built on the stream writer (`Provider.write_stream`'s default):
it puts the finishReason on the last part's chunk (what a writer that learns of the end only at
its close cannot do without holding the last part back), and gives thought signatures back on
the part they came on, which only the whole result has.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from typing import Any

from ...parsing._models import ParseResult, ToolCall
from ...tools._gemini import gemini_schema
from ...tools._importers import from_gemini
from ...tools._tool import Tool
from .._base import Provider
from .._content import result_parts, texts
from .._fields import Json, NativeRead
from .._messages import Message, ToolResult
from .._stream_writer import StreamWriter
from .._write_options import FinishKind, WriteOptions, reasoning_blocks
from ._response import read_response
from ._stream import GeminiStream

__all__ = ["Gemini", "GeminiStreamWriter"]


# -- sent -----------------------------------------------------------------------------------------


def _declaration(tool: Tool) -> Message:
    declaration: Message = {"name": tool.name, "description": tool.description}
    # Gemini rejects an OBJECT without properties: a tool without arguments sends no schema.
    if tool.parameters.get("properties"):
        declaration["parameters"] = gemini_schema(tool.parameters)
    return declaration


def _function_call(call: ToolCall) -> Message:
    return {"functionCall": {"id": call.id, "name": call.name, "args": call.arguments}}


def _function_response(result: ToolResult) -> Message:
    parts = result_parts(result.value)
    if parts is None:
        return {"id": result.call.id, "name": result.call.name,
                "response": _response_value(result.value, result.is_error)}
    return {"id": result.call.id, "name": result.call.name,
            "response": _response_value(texts(parts), result.is_error),
            "parts": [{"inlineData": {"mimeType": part.media_type, "data": part.data}}
                      for part in parts if not isinstance(part, str)]}


def _response_value(value: object, is_error: bool) -> Message:
    """Gemini wants an object: a non-object result goes under ``result`` (or ``error``)."""
    if is_error:
        return {"error": value}
    if isinstance(value, Mapping):
        return dict(value)
    return {"result": value}


# -- written --------------------------------------------------------------------------------------

_FINISH_REASONS: dict[FinishKind, str] = {
    "stop": "STOP", "length": "MAX_TOKENS", "tool_calls": "STOP", "content_filter": "SAFETY",
}

# An error's kind (Anthropic's words, which the proxy uses) as Gemini's status and HTTP code.
_STATUSES: Mapping[str, tuple[int, str]] = {
    "api_error": (500, "INTERNAL"), "overloaded_error": (503, "UNAVAILABLE"),
    "timeout_error": (504, "DEADLINE_EXCEEDED"), "invalid_request_error": (400,
                                                                           "INVALID_ARGUMENT"),
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
    parts.extend(_function_call(call) for call in result.calls)
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


class GeminiStreamWriter(StreamWriter):
    """``GenerateContentResponse`` chunks, written event by event (see the module docstring)."""

    provider = "gemini"

    def _part(self, part: Message, out: list[Message]) -> None:
        out.append(_response(self._options, [part], None))

    def _opening(self) -> list[Message]:
        return []

    def _text(self, text: str, out: list[Message]) -> None:
        self._part({"text": text}, out)

    def _reasoning(self, text: str, out: list[Message]) -> None:
        self._part({"text": text, "thought": True}, out)

    def _call(self, index: int, call: ToolCall, out: list[Message]) -> None:
        self._part(_function_call(call), out)

    def _closing(self, options: WriteOptions, out: list[Message]) -> None:
        out.append(_response(options, [{"text": ""}], options.finish(bool(self.calls))))

    def _error(self, message: str, kind: str) -> Message:
        code, status = _STATUSES.get(kind, (500, kind))
        return {"error": {"code": code, "message": message, "status": status}}

    def _own_usage(self, usage: Mapping[str, Any]) -> bool:
        return "promptTokenCount" in usage


# -- the provider ---------------------------------------------------------------------------------


class Gemini(Provider):
    """Gemini: ``functionCall`` and ``functionResponse`` parts, SSE with CRLF line ends (see the
    module docstring)."""

    name = "gemini"
    response_keys = ("candidates", "usageMetadata", "usage_metadata")
    stream_marks = ('"candidates"',)
    framing = "sse_crlf"
    stream_reader = GeminiStream
    stream_writer = GeminiStreamWriter

    def is_error_body(self, data: Mapping[str, Any], error: Any) -> bool:
        return isinstance(error, Mapping) and "status" in error

    def render_tools(self, tools: Sequence[Tool]) -> Message:
        return {"tools": [{"functionDeclarations": [_declaration(t) for t in tools]}]}

    def render_calls(self, calls: Sequence[ToolCall], content: str | None) -> list[Message]:
        parts: list[Message] = [{"text": content}] if content else []
        parts.extend(_function_call(call) for call in calls)
        return [{"role": "model", "parts": parts}]

    def render_results(self, results: Sequence[ToolResult]) -> list[Message]:
        return [{"role": "user", "parts": [{"functionResponse": _function_response(r)}
                                           for r in results]}]

    def read_tools(self, tools: Any) -> list[Tool]:
        return from_gemini(tools)

    def read_response(self, data: Json) -> NativeRead:
        return read_response(data)

    def write_response(self, result: ParseResult, options: WriteOptions) -> Message:
        return _response(options, _parts(result), options.finish(bool(result.calls)))

    def write_stream(self, result: ParseResult, options: WriteOptions) -> list[Message]:
        # One chunk per part, the finish on the last (see the module docstring).
        parts = _parts(result) or [{"text": ""}]
        finish = options.finish(bool(result.calls))
        return [_response(options, [part], finish if i == len(parts) - 1 else None)
                for i, part in enumerate(parts)]
