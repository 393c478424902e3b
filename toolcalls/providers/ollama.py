"""Ollama's native chat API (``/api/chat``): `Ollama`. OpenAI's tools, its own history shapes,
NDJSON streams. (Ollama's ``/v1`` is OpenAI Chat Completions: read and write it as "openai".)

Sent (history):

    tools      as OpenAI Chat Completions
    calls      {"role": "assistant", "content", "tool_calls": [{"function": {"name",
               "arguments"}}]}, the arguments as an object, no call ids
    results    {"role": "tool", "tool_name", "content"}, one message per call; a result with
               images has its text in ``content`` and the base64 images in ``images``. The API
               has no error flag: say it in the content
    read back  `toolcalls.tools.from_openai`

Read (the ``ChatResponse`` of ``/api/chat`` with ``stream: false``; streamed, one a line):

    calls      ``message.tool_calls[*].function``: ``name``, ``arguments`` taken as the object
               they are (JSON text decoded, as OpenAI's); an ``id`` where a server gives one,
               else ``call_<n>``. Streamed, calls come whole: `ToolCallStart`, one
               `ArgumentsDelta` (canonical JSON) and `ToolCallEnd` at once
    text       ``message.content`` (pieces, streamed), parsed for calls in the text
    reasoning  ``message.thinking``
    finish     ``done_reason`` (the ``done: true`` line, streamed); ``usage`` gathers the
               counters Ollama sends at the top level (``prompt_eval_count``, ``eval_count`` and
               the durations) where there are any; ``model`` names the format for
               ``format="auto"``

Written:

    response   {"model", "created_at", "message": {"role": "assistant", "content",
               "thinking"?, "tool_calls"?}, "done": true, "done_reason": "stop"}
    stream     NDJSON chunks with ``"done": false`` (`OllamaStreamWriter`): the thinking, the
               content, then a chunk per call (each whole, its arguments an object); nothing
               opens the stream; a last chunk with an empty message, ``"done": true``, the
               done_reason and the counts. An error is Ollama's ``{"error": "message"}`` line
    wire       one JSON object a line

Ollama says "stop" whether or not the model called a tool ("length" for a result cut off),
and its calls carry no ids: the ids of the `ParseResult` are not written. Token counts, when
known, are on the last chunk (``prompt_eval_count``, ``eval_count``); the counters and
durations of a result read from Ollama go back as they came.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from ..parsing._models import ParseResult, ToolCall
from ..tools._importers import from_openai
from ..tools._tool import Tool
from ._base import Provider
from ._content import ToolImage, result_parts, texts
from ._fields import Json, NativeRead, brief, is_obj, items, member, string
from ._messages import Message, ToolResult, as_text
from ._stream_reader import NativeStreamCall, ProviderStream
from ._stream_writer import StreamWriter
from ._write_options import WriteOptions
from .openai_chat import render_tools

__all__ = ["Ollama", "OllamaStream", "OllamaStreamWriter"]

USAGE_KEYS = ("prompt_eval_count", "eval_count", "total_duration", "load_duration",
              "prompt_eval_duration", "eval_duration")
"""The counters of a final ``/api/chat`` line: Ollama's usage, at the top level (read and
written back as they came)."""


def _usage(data: Mapping[str, Any]) -> dict[str, Any]:
    return {key: data[key] for key in USAGE_KEYS if data.get(key) is not None}


def _call(call: ToolCall) -> Message:
    return {"function": {"name": call.name, "arguments": call.arguments}}


# -- read -----------------------------------------------------------------------------------------


class OllamaStream(ProviderStream):
    """Reads ``/api/chat`` stream lines (see the module docstring)."""

    def _read_event(self, data: Mapping[str, Any]) -> None:
        native = self._native
        if native.model is None:
            native.model = string(data.get("model"))
        message = member(native, data.get("message"), "message")
        self._think(message.get("thinking"))
        content = message.get("content")
        if isinstance(content, str) and content:
            self._text(content)
        for call in items(native, message.get("tool_calls"), "message.tool_calls"):
            if not is_obj(call):
                native.issue("malformed_call",
                             f"a tool_calls entry is not an object: {brief(call)}")
            else:
                function = member(native, call.get("function"), "a tool call's function")
                streamed = NativeStreamCall(string(call.get("id")), string(function.get("name")))
                self._start(streamed)
                self._end(streamed, function.get("arguments"), raw=False)
        reason = string(data.get("done_reason"))
        if reason:
            native.finish_reason = reason
        usage = _usage(data)
        if usage:
            native.usage = usage


# -- written --------------------------------------------------------------------------------------


def _chunk(options: WriteOptions, message: Message, done: bool) -> Message:
    chunk: Message = {
        "model": options.model,
        "created_at": datetime.fromtimestamp(options.created, UTC).isoformat().replace(
            "+00:00", "Z"),
        "message": {"role": "assistant", "content": "", **message},
        "done": done,
    }
    if done:
        chunk["done_reason"] = "length" if options.finish(False) == "length" else "stop"
        own, tokens = options.own_usage("ollama"), options.tokens()
        if own is not None:
            chunk.update((key, value) for key, value in own.items() if key in USAGE_KEYS)
        elif tokens is not None:
            chunk["prompt_eval_count"], chunk["eval_count"] = tokens.input, tokens.output
    return chunk


class OllamaStreamWriter(StreamWriter):
    """``/api/chat`` chunks, written event by event (see the module docstring)."""

    provider = "ollama"

    def _message(self, message: Message, out: list[Message]) -> None:
        out.append(_chunk(self._options, message, done=False))

    def _opening(self) -> list[Message]:
        return []

    def _text(self, text: str, out: list[Message]) -> None:
        self._message({"content": text}, out)

    def _reasoning(self, text: str, out: list[Message]) -> None:
        self._message({"thinking": text}, out)

    def _call(self, index: int, call: ToolCall, out: list[Message]) -> None:
        self._message({"tool_calls": [_call(call)]}, out)

    def _closing(self, options: WriteOptions, out: list[Message]) -> None:
        out.append(_chunk(options, {}, done=True))

    def _error(self, message: str, kind: str) -> Message:
        return {"error": message}

    def _own_usage(self, usage: Mapping[str, Any]) -> bool:
        return "eval_count" in usage


# -- the provider ---------------------------------------------------------------------------------


class Ollama(Provider):
    """Ollama's ``/api/chat`` (see the module docstring)."""

    name = "ollama"
    stream_marks = ('"done":',)
    framing = "ndjson"
    stream_reader = OllamaStream
    stream_writer = OllamaStreamWriter

    def is_response(self, data: Mapping[str, Any]) -> bool:
        return isinstance(data.get("message"), Mapping)

    def is_error_body(self, data: Mapping[str, Any], error: Any) -> bool:
        return isinstance(error, str)

    def render_tools(self, tools: Sequence[Tool]) -> Message:
        return render_tools(tools)

    def render_calls(self, calls: Sequence[ToolCall], content: str | None) -> list[Message]:
        return [{"role": "assistant", "content": content or "",
                 "tool_calls": [_call(call) for call in calls]}]

    def render_results(self, results: Sequence[ToolResult]) -> list[Message]:
        return [_result_message(result) for result in results]

    def read_tools(self, tools: Any) -> list[Tool]:
        return from_openai(tools)

    def read_response(self, data: Json) -> NativeRead:
        read = NativeRead(model=string(data.get("model")),
                          finish_reason=string(data.get("done_reason")),
                          usage=_usage(data) or None, calls_after_text=True)
        message = member(read, data.get("message"), "message")
        for call in items(read, message.get("tool_calls"), "message.tool_calls"):
            if is_obj(call):
                function = member(read, call.get("function"), "a tool call's function")
                read.call(call.get("id"), function.get("name"), function.get("arguments"))
            else:
                read.issue("malformed_call",
                           f"a tool_calls entry is not an object: {brief(call)}")
        read.say(message.get("content"))
        read.think(message.get("thinking"))
        return read

    def write_response(self, result: ParseResult, options: WriteOptions) -> Message:
        message: Message = {"content": result.content}
        if result.reasoning:
            message["thinking"] = result.reasoning
        if result.calls:
            message["tool_calls"] = [_call(call) for call in result.calls]
        return _chunk(options, message, done=True)


def _result_message(result: ToolResult) -> Message:
    message: Message = {"role": "tool", "tool_name": result.call.name}
    parts = result_parts(result.value)
    if parts is None:
        return {**message, "content": as_text(result.value)}
    images = [part.data for part in parts if isinstance(part, ToolImage)]
    return {**message, "content": texts(parts), "images": images}
