"""OpenAI Chat Completions: a result written as the API returns it (item 3 of the responses issue).

    response   {"object": "chat.completion", "choices": [{"index": 0, "message": {"role":
               "assistant", "content", "reasoning_content"?, "tool_calls"?}, "finish_reason"}]}
    stream     "chat.completion.chunk"s: the role, reasoning, content, then per call a delta
               with its index, id, name and empty arguments and one with the arguments; the
               finish_reason in a last chunk of its own (written by `_openai_chat_emit`,
               which writes a stream while it is read, too)
    wire       ``data: {json}`` events, ending ``data: [DONE]``

The finish_reason is "tool_calls" when there are calls, else the result's own in OpenAI's
words ("stop", "length", "content_filter"); token usage, when known, is in the response and
in a last chunk with no choices (as with ``stream_options.include_usage``): as it came when the
result was read from this API, else the counts. Reasoning goes in
``reasoning_content`` (DeepSeek, vLLM, SGLang); OpenAI itself returns none. OpenRouter's
``reasoning_details`` of a result read from it (its ``reasoning_blocks``) are written back as
they came, beside it. Incomplete calls
have no field: they are not written (the content is the text without them, as `parse()` gives).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..parsing._models import ParseResult
from ._provider import Message
from ._wire import ResponseWriter, WriteOptions, reasoning_blocks, sse

# OpenRouter's reasoning_details types (its normalized reasoning, signatures included).
_DETAILS = ("reasoning.text", "reasoning.summary", "reasoning.encrypted")

__all__ = ["WRITER", "write_response", "write_stream"]


def _reasoning(result: ParseResult) -> Message:
    reasoning: Message = {}
    if result.reasoning:
        reasoning["reasoning_content"] = result.reasoning
    if details := reasoning_blocks(result, *_DETAILS):
        reasoning["reasoning_details"] = details
    return reasoning


def _usage(options: WriteOptions) -> Message | None:
    if (own := options.own_usage("openai")) is not None:
        return dict(own)
    tokens = options.tokens()
    if tokens is None:
        return None
    return {"prompt_tokens": tokens.input, "completion_tokens": tokens.output,
            "total_tokens": tokens.total}


def write_response(result: ParseResult, options: WriteOptions) -> Message:
    message: Message = {"role": "assistant", "content": result.content or None}
    message.update(_reasoning(result))
    if result.calls:
        message["tool_calls"] = result.tool_calls()
    response: Message = {
        "id": options.id, "object": "chat.completion", "created": options.created,
        "model": options.model,
        "choices": [{"index": 0, "message": message, "logprobs": None,
                     "finish_reason": options.finish(bool(result.calls))}]}
    usage = _usage(options)
    if usage is not None:
        response["usage"] = usage
    return response


def write_stream(result: ParseResult, options: WriteOptions) -> list[Message]:
    # The one path that writes a stream: the stream writer, fed the whole result.
    from ._emit import write_result  # imported here: it builds on this module's chunks

    return write_result(result, "openai", options)


def _chunk(options: WriteOptions, delta: Message, finish_reason: str | None) -> Message:
    return {"id": options.id, "object": "chat.completion.chunk", "created": options.created,
            "model": options.model,
            "choices": [{"index": 0, "delta": delta, "logprobs": None,
                         "finish_reason": finish_reason}]}


def _wire(chunks: Sequence[Message]) -> str:
    return sse(chunks, named=False, done=True)


WRITER = ResponseWriter(write_response, write_stream, _wire, "chatcmpl-")
