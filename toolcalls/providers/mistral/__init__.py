"""Mistral's chat completions API (``POST /v1/chat/completions`` on api.mistral.ai): `Mistral`.

Chat Completions with Mistral's own differences, built on `OpenAIChat` (what is not said here
is as there). The shapes are the ``mistralai`` SDK's (``mistralai.client.models``). A folder,
though small: `Mistral` and `MistralStreamWriter` subclass classes of ``openai_chat/__init__.py``,
which is interpreted, so they stay interpreted here (mypyc miscompiles ``super()`` in a compiled
class whose base is interpreted: it skips that base); the stream reader, on every chunk, is
compiled in `_stream`.

Sent (history):

    tools      as OpenAI Chat Completions (``Tool``, ``Function``)
    calls      {"role": "assistant", "content", "tool_calls": [{"id", "type": "function",
               "function": {"name", "arguments"}, "index"}]} (``AssistantMessage``), the
               arguments as a JSON string
    results    {"role": "tool", "tool_call_id", "name", "content"} (``ToolMessage``), one
               message per call; no error flag (say it in the content); a result with images
               is refused (send them in a user message after it, as pydantic-ai does)
    ids        Mistral takes only call ids of 9 letters and digits (``D681PevKs``) and answers
               400 to any other: an id of that form is sent as it is, any other (``call_0``,
               another API's ``toolu_...``) as 9 letters and digits derived from it
               (`mistral_id`), the same in the calls and their results, so they still pair
    read back  `toolcalls.tools.from_openai`

Read (``ChatCompletionResponse``; streamed, ``CompletionChunk``s, or the SDK's
``CompletionEvent``s that wrap them, as ``client.chat.stream`` yields them):

    calls      as OpenAI's: ``message.tool_calls[*]``, ``function.arguments`` a JSON string
               or an object (the SDK allows both); streamed, a call usually comes whole in one
               chunk with its ``index`` (read as OpenAI fragments: it ends at the chunk that
               carries ``finish_reason``, Mistral's own chunk)
    text       ``content``: a string, or a list of chunks whose ``text`` chunks are the text
    reasoning  the ``thinking`` chunks of ``content`` (Magistral, and the models with
               ``reasoning_effort``): the ``text`` chunks nested in each; their ``signature``
               is not kept
    finish     ``finish_reason``: ``stop``, ``length``, ``model_length`` (the context window
               is full), ``tool_calls``, ``error``; ``usage`` as it came (``prompt_tokens``,
               ``completion_tokens``, ``total_tokens``, and Mistral's extra counts such as
               ``num_cached_tokens`` and ``prompt_tokens_details``)
    errors     Mistral's error body, ``{"object": "error", "message", "type", "param",
               "code"}`` (no ``error`` field), whole or as a stream event: a
               ``provider_error`` issue, as any provider's ``{"error": ...}``
    other      content chunks that are neither text nor thinking (``image_url``,
               ``reference``, ``document_url``...), and chunks nested in a thinking chunk
               that are not text (``reference``, ``tool_reference``): an ``unread_part`` issue
               each

Written:

    response   {"id", "object": "chat.completion", "created", "model", "choices": [{"index":
               0, "message": {"role": "assistant", "content", "tool_calls"?}, "finish_reason"}],
               "usage"}: ``content`` a string, or, with reasoning, a thinking chunk and a text
               chunk; ``usage`` always (the SDK requires it: 0 where the counts are unknown)
    stream     ``chat.completion.chunk``s as Mistral streams them (`MistralStreamWriter`): the
               role chunk with content "", reasoning as thinking chunks, content, then a chunk
               per call, each whole with its ``index`` (calls are never streamed in pieces);
               the finish_reason and the usage in the last chunk, together
    wire       ``data: {json}`` events, ending ``data: [DONE]``
    ids        the result's call ids as they are (a result read from Mistral has Mistral's)

Detection: a Mistral response or stream has the shape, the ``object`` names and the framing of
OpenAI's, and nothing in every one of them tells it apart (its response ids are bare hex, its
call ids 9 characters, its thinking chunks come only from some models): detection keeps
calling it "openai", whose reader reads its calls, text and usage; name ``provider="mistral"``
to read its thinking chunks as reasoning and its error body.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ...parsing._models import ParseResult, ToolCall
from .._content import result_parts
from .._fields import Json, NativeRead, is_obj, obj
from .._messages import Message, ToolResult, as_text
from .._write_options import WriteOptions
from ..openai_chat import ChatStreamWriter, OpenAIChat
from ._stream import MistralStream, is_error_body, is_thinking, thinking_texts

__all__ = ["Mistral", "MistralStream", "MistralStreamWriter", "mistral_id"]

_ID: Final = re.compile(r"[A-Za-z0-9]{9}")
"""The call ids Mistral takes."""
_ALPHABET: Final = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

def mistral_id(ident: str) -> str:
    """A call id as Mistral takes it: `ident` where it is 9 letters and digits, else 9 derived
    from it (a hash: the same id always gives the same, two ids almost never one)."""
    if _ID.fullmatch(ident):
        return ident
    digest = hashlib.sha256(ident.encode("utf-8", "surrogatepass")).digest()
    number = int.from_bytes(digest[:8], "big")
    letters = []
    for _ in range(9):
        number, digit = divmod(number, len(_ALPHABET))
        letters.append(_ALPHABET[digit])
    return "".join(letters)

# -- read -----------------------------------------------------------------------------------------


def _without_thinking(data: Json, thinking: list[Mapping[str, Any]]) -> Json:
    """`data` with the thinking chunks taken out of the first choice's content (into
    `thinking`), so the OpenAI reader reads the rest; any other shape as it is."""
    choices = data.get("choices")
    if not (isinstance(choices, list) and choices and is_obj(choices[0])):
        return data
    message = choices[0].get("message")
    content = message.get("content") if is_obj(message) else None
    if not (isinstance(content, list) and any(is_thinking(chunk) for chunk in content)):
        return data
    thinking.extend(chunk for chunk in content if is_thinking(chunk))
    kept = [chunk for chunk in content if not is_thinking(chunk)]
    choice = {**choices[0], "message": {**obj(message), "content": kept}}
    return {**data, "choices": [choice, *choices[1:]]}

# -- written --------------------------------------------------------------------------------------


def _thinking(text: str) -> Message:
    return {"type": "thinking", "thinking": [{"type": "text", "text": text}]}


def _usage(options: WriteOptions, provider: str) -> Message:
    """Usage as Mistral writes it (required in a response): its own as it came, else the
    counts, 0 where unknown."""
    if (own := options.own_usage(provider)) is not None:
        return dict(own)
    tokens = options.tokens()
    counts = (0, 0) if tokens is None else (tokens.input, tokens.output)
    return {"prompt_tokens": counts[0], "completion_tokens": counts[1],
            "total_tokens": sum(counts)}


def _tool_call(index: int, call: ToolCall) -> Message:
    return {"id": call.id, "type": "function",
            "function": {"name": call.name, "arguments": call.arguments_json()},
            "index": index}


class MistralStreamWriter(ChatStreamWriter):
    """Mistral's ``chat.completion.chunk``s, written event by event: OpenAI's, with the role
    chunk's content "", reasoning as thinking chunks, each call whole in one chunk, and the
    finish reason with the usage in the last chunk (see the module docstring)."""

    provider = "mistral"
    id_prefix = ""
    live_calls = False  # Mistral sends each call whole

    def _opening(self) -> list[Message]:
        return [self._chunk({"role": "assistant", "content": ""})]

    def _reasoning(self, text: str, out: list[Message]) -> None:
        out.append(self._chunk({"content": [_thinking(text)]}))

    def _result_reasoning(self, result: ParseResult, out: list[Message]) -> None:
        if result.reasoning:
            self._reasoning(result.reasoning, out)

    def _call(self, index: int, call: ToolCall, out: list[Message]) -> None:
        out.append(self._chunk({"tool_calls": [_tool_call(index, call)]}))

    def _closing(self, options: WriteOptions, out: list[Message]) -> None:
        last = self._chunk({"content": ""}, options.finish(self.tool_turn))
        last["usage"] = _usage(options, self.provider)
        out.append(last)

    def _error(self, message: str, kind: str) -> Message:
        return {"object": "error", "message": message, "type": kind, "param": None,
                "code": None}


# -- the provider ---------------------------------------------------------------------------------


class Mistral(OpenAIChat):
    """Mistral's chat completions (see the module docstring): OpenAI Chat's reader and writer,
    with thinking chunks, object arguments, 9-character call ids, Mistral's error body, usage
    always written and calls streamed whole."""

    name = "mistral"
    # response_keys and stream_marks are OpenAI's, which a Mistral response shares: the
    # registry's detection orders leave "mistral" out, so it is named, never detected.
    id_prefix = ""  # Mistral's response ids are bare hex
    stream_reader = MistralStream
    stream_writer = MistralStreamWriter

    def is_error_body(self, data: Mapping[str, Any], error: Any) -> bool:
        return False  # its error body has no ``error`` field: named, never detected

    def render_calls(self, calls: Sequence[ToolCall], content: str | None) -> list[Message]:
        return [{"role": "assistant", "content": content,
                 "tool_calls": [_tool_call(index, call.model_copy(update={
                     "id": mistral_id(call.id)})) for index, call in enumerate(calls)]}]

    def render_results(self, results: Sequence[ToolResult]) -> list[Message]:
        return [{"role": "tool", "tool_call_id": mistral_id(result.call.id),
                 "name": result.call.name, "content": _result_text(result)}
                for result in results]

    def read_response(self, data: Json) -> NativeRead:
        if is_error_body(data):
            read = NativeRead()
            read.error(data)
            return read
        thinking: list[Mapping[str, Any]] = []
        read = super().read_response(_without_thinking(data, thinking))
        for chunk in thinking:
            for text in thinking_texts(chunk, read):
                read.think(text)
        return read

    def write_response(self, result: ParseResult, options: WriteOptions) -> Message:
        content: str | list[Message] = result.content
        if result.reasoning:
            content = [_thinking(result.reasoning), *([{"type": "text", "text": result.content}]
                                                      if result.content else [])]
        message: Message = {"role": "assistant", "content": content}
        if result.calls:
            message["tool_calls"] = [_tool_call(index, call)
                                     for index, call in enumerate(result.calls)]
        return {"id": options.id, "object": "chat.completion", "created": options.created,
                "model": options.model,
                "choices": [{"index": 0, "message": message,
                             "finish_reason": options.finish(bool(result.calls))}],
                "usage": _usage(options, self.name)}


def _result_text(result: ToolResult) -> str:
    if result_parts(result.value) is not None:
        raise ValueError("Mistral takes only text in a tool message: send the images in a user "
                         "message after it")
    return as_text(result.value)
