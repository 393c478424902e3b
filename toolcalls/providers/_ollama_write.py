"""Ollama ``/api/chat``: a result written as the API returns it (item 3 of the responses issue).

    response   {"model", "created_at", "message": {"role": "assistant", "content",
               "thinking"?, "tool_calls"?}, "done": true, "done_reason": "stop"}
    stream     NDJSON chunks with ``"done": false``: the thinking, the content, then a
               chunk per call (Ollama sends each call whole, its arguments an object);
               a last chunk with an empty message and ``"done": true`` (written by
               `_ollama_emit`, which writes a stream while it is read)
    wire       one JSON object a line

Ollama says "stop" whether or not the model called a tool ("length" for a result cut off),
and its calls carry no ids: the ids of the `ParseResult` are not written. Token counts, when
known, are on the last chunk (``prompt_eval_count``, ``eval_count``); the counters and
durations of a result read from Ollama go back as they came.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from ..parsing._models import ParseResult
from ._provider import Message
from ._wire import ResponseWriter, WriteOptions, ndjson

__all__ = ["WRITER", "write_response", "write_stream"]

# The counters of a final chunk: Ollama's usage, written back as they came.
_COUNTERS = ("total_duration", "load_duration", "prompt_eval_count", "prompt_eval_duration",
             "eval_count", "eval_duration")


def _calls(result: ParseResult) -> list[Message]:
    return [{"function": {"name": call.name, "arguments": call.arguments}}
            for call in result.calls]


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
            chunk.update((key, value) for key, value in own.items() if key in _COUNTERS)
        elif tokens is not None:
            chunk["prompt_eval_count"], chunk["eval_count"] = tokens.input, tokens.output
    return chunk


def write_response(result: ParseResult, options: WriteOptions) -> Message:
    message: Message = {"content": result.content}
    if result.reasoning:
        message["thinking"] = result.reasoning
    if result.calls:
        message["tool_calls"] = _calls(result)
    return _chunk(options, message, done=True)


def write_stream(result: ParseResult, options: WriteOptions) -> list[Message]:
    # The one path that writes a stream: the stream writer, fed the whole result.
    from ._emit import write_result  # imported here: it builds on this module's chunks

    return write_result(result, "ollama", options)


def _wire(chunks: Sequence[Message]) -> str:
    return ndjson(chunks)


WRITER = ResponseWriter(write_response, write_stream, _wire)
