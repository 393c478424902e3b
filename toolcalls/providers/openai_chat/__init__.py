"""OpenAI Chat Completions (``/v1/chat/completions``, and every compatible server): `OpenAIChat`.

Sent (history):

    tools      [{"type": "function", "function": {"name", "description", "parameters"}}]
    calls      {"role": "assistant", "content", "tool_calls": [{"id", "type": "function",
                "function": {"name", "arguments"}}]}, the arguments as a JSON string
    results    {"role": "tool", "tool_call_id", "content"}, one message per call. The API has
               no error flag (say it in the content) and takes only text in a tool message: a
               result with images is refused (send them in a user message, or use the
               Responses API)
    read back  `toolcalls.tools.from_openai`

Read: a whole response in `_response`, a stream in `_stream` (compiled: each chunk of
`read_stream` passes through it). The compatible servers that differ in small ways are read
here too: DeepSeek's and vLLM's ``reasoning_content``, OpenRouter's ``reasoning`` and
``reasoning_details`` (kept as ``reasoning_blocks``).

Written (a result as the API returns it):

    response   {"object": "chat.completion", "choices": [{"index": 0, "message": {"role":
               "assistant", "content", "reasoning_content"?, "tool_calls"?}, "finish_reason"}]}
    stream     "chat.completion.chunk"s (`ChatStreamWriter`, which writes a stream while it is
               read too): the role chunk with content null (as OpenAI's first chunk of a turn
               with calls), reasoning, content, then per call a chunk with its index, id, name
               and empty arguments and one with the arguments (live: each fragment in a chunk
               of its own); the finish_reason in a chunk of its own, the usage in a last one
               with no choices
    wire       ``data: {json}`` events, ending ``data: [DONE]``

The finish_reason is "tool_calls" when there are calls, else the result's own in OpenAI's
words ("stop", "length", "content_filter"); token usage, when known, is in the response and
in a last chunk with no choices (as with ``stream_options.include_usage``): as it came when the
result was read from this API, else the counts. Reasoning goes in ``reasoning_content``
(DeepSeek, vLLM, SGLang); OpenAI itself returns none. OpenRouter's ``reasoning_details`` of a
result read from it (its ``reasoning_blocks``) are written back as they came, beside it.
Incomplete calls have no field: they are not written (the content is the text without them, as
`parse()` gives).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...parsing._models import ParseResult, ToolCall
from ...tools._importers import from_openai
from ...tools._tool import Tool
from .._base import Provider
from .._content import result_parts
from .._fields import Json, NativeRead
from .._messages import Message, ToolResult, as_text
from .._stream_writer import StreamWriter
from .._write_options import WriteOptions, reasoning_blocks
from ._response import read_response
from ._stream import ChatStream

__all__ = ["ChatStreamWriter", "OpenAIChat", "function", "render_tools"]

# OpenRouter's reasoning_details types (its normalized reasoning, signatures included).
_DETAILS = ("reasoning.text", "reasoning.summary", "reasoning.encrypted")


# -- sent -----------------------------------------------------------------------------------------


def render_tools(tools: Sequence[Tool]) -> Message:
    """The ``tools`` field (Ollama's ``/api/chat`` takes the same)."""
    return {"tools": [{"type": "function", "function": function(tool)} for tool in tools]}


def function(tool: Tool) -> Message:
    """The function object both OpenAI APIs declare a tool with."""
    return {"name": tool.name, "description": tool.description, "parameters": tool.parameters}


def _result_text(result: ToolResult) -> str:
    if result_parts(result.value) is not None:
        raise ValueError("OpenAI Chat Completions takes only text in a tool message: send the"
                         " images in a user message after it, or use 'openai_responses'")
    return as_text(result.value)


# -- written --------------------------------------------------------------------------------------


def _reasoning(result: ParseResult) -> Message:
    reasoning: Message = {}
    if result.reasoning:
        reasoning["reasoning_content"] = result.reasoning
    if details := reasoning_blocks(result, *_DETAILS):
        reasoning["reasoning_details"] = details
    return reasoning


def _usage(options: WriteOptions, provider: str) -> Message | None:
    """The usage as `provider` (this API, or a subclass's) writes it: its own as it came."""
    if (own := options.own_usage(provider)) is not None:
        return dict(own)
    tokens = options.tokens()
    if tokens is None:
        return None
    return {"prompt_tokens": tokens.input, "completion_tokens": tokens.output,
            "total_tokens": tokens.total}


def _chunk(options: WriteOptions, delta: Message, finish_reason: str | None) -> Message:
    return {"id": options.id, "object": "chat.completion.chunk", "created": options.created,
            "model": options.model,
            "choices": [{"index": 0, "delta": delta, "logprobs": None,
                         "finish_reason": finish_reason}]}


class ChatStreamWriter(StreamWriter):
    """``chat.completion.chunk``s, written event by event (see the module docstring)."""

    provider = "openai"
    id_prefix = "chatcmpl-"
    live_calls = True

    def _chunk(self, delta: Message, finish_reason: str | None = None) -> Message:
        return _chunk(self._options, delta, finish_reason)

    def _opening(self) -> list[Message]:
        return [self._chunk({"role": "assistant", "content": None})]

    def _text(self, text: str, out: list[Message]) -> None:
        out.append(self._chunk({"content": text}))

    def _reasoning(self, text: str, out: list[Message]) -> None:
        out.append(self._chunk({"reasoning_content": text}))

    def _result_reasoning(self, result: ParseResult, out: list[Message]) -> None:
        # The text and OpenRouter's reasoning_details, as they came, in one delta.
        if reasoning := _reasoning(result):
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
        usage = _usage(options, self.provider)
        if usage is not None:
            out.append({**self._chunk({}), "choices": [], "usage": usage})

    def _error(self, message: str, kind: str) -> Message:
        return {"error": {"message": message, "type": kind, "param": None, "code": None}}

    def _own_usage(self, usage: Mapping[str, Any]) -> bool:
        # All three counts, which the SDK requires: a server's partial usage becomes counts.
        return all(key in usage for key in ("prompt_tokens", "completion_tokens", "total_tokens"))


# -- the provider ---------------------------------------------------------------------------------


class OpenAIChat(Provider):
    """OpenAI Chat Completions and the servers compatible with it (see the module docstring)."""

    name = "openai"
    response_keys = ("choices",)
    stream_marks = ("chat.completion.chunk",)
    id_prefix = "chatcmpl-"
    framing = "sse"
    stream_end = "data: [DONE]\n\n"
    stream_reader = ChatStream
    stream_writer = ChatStreamWriter

    def is_error_body(self, data: Mapping[str, Any], error: Any) -> bool:
        return True  # the fallback: last in the registry's ERROR_DETECTION

    def render_tools(self, tools: Sequence[Tool]) -> Message:
        return render_tools(tools)

    def render_calls(self, calls: Sequence[ToolCall], content: str | None) -> list[Message]:
        return [{
            "role": "assistant",
            "content": content,
            "tool_calls": [{"id": call.id, "type": "function",
                            "function": {"name": call.name, "arguments": call.arguments_json()}}
                           for call in calls],
        }]

    def render_results(self, results: Sequence[ToolResult]) -> list[Message]:
        return [{"role": "tool", "tool_call_id": r.call.id, "content": _result_text(r)}
                for r in results]

    def read_tools(self, tools: Any) -> list[Tool]:
        return from_openai(tools)

    def read_response(self, data: Json) -> NativeRead:
        return read_response(data)

    def write_response(self, result: ParseResult, options: WriteOptions) -> Message:
        message: Message = {"role": "assistant", "content": result.content or None}
        message.update(_reasoning(result))
        if result.calls:
            message["tool_calls"] = result.tool_calls()
        response: Message = {
            "id": options.id, "object": "chat.completion", "created": options.created,
            "model": options.model,
            "choices": [{"index": 0, "message": message, "logprobs": None,
                         "finish_reason": options.finish(bool(result.calls))}]}
        usage = _usage(options, self.name)
        if usage is not None:
            response["usage"] = usage
        return response
