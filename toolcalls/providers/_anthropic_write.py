"""Anthropic Messages: a result written as the API returns it (item 3 of the responses issue).

    response   {"type": "message", "role": "assistant", "content": [a ``thinking`` block,
               a ``text`` block, a ``tool_use`` block per call], "stop_reason", "usage"}
    stream     message_start, then per block content_block_start, one content_block_delta
               (thinking_delta, text_delta or input_json_delta) and content_block_stop;
               message_delta with the stop_reason and the usage, message_stop (written by
               `_anthropic_emit`, which writes a stream while it is read, too)
    wire       ``event: <type>`` and ``data: {json}`` per event

The stop_reason is "tool_use" when there are calls, else the result's own in Anthropic's
words ("end_turn", "max_tokens", "refusal"). The thinking and redacted_thinking blocks of a
result read from Anthropic (its ``reasoning_blocks``) are written as they came, signatures and
all (streamed with a signature_delta), so the turn can be sent back; other reasoning is one
thinking block with an empty signature (fine for a client that reads it; Anthropic refuses it
sent back). Usage read from Anthropic is written as it came; else the counts, 0 when unknown.
"""

from __future__ import annotations

import json

from ..parsing._models import ParseResult
from ._messages import Message
from ._write_options import FinishKind, WriteOptions, reasoning_blocks

__all__ = ["write_response"]

_STOP_REASONS: dict[FinishKind, str] = {
    "stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use",
    "content_filter": "refusal",
}


def _stop_reason(result: ParseResult, options: WriteOptions) -> str:
    return _STOP_REASONS[options.finish(bool(result.calls))]


def _usage(options: WriteOptions) -> Message:
    if (own := options.own_usage("anthropic")) is not None:
        return dict(own)
    tokens = options.tokens()
    if tokens is None:
        return {"input_tokens": 0, "output_tokens": 0}
    return {"input_tokens": tokens.input, "output_tokens": tokens.output}


def _blocks(result: ParseResult) -> list[Message]:
    blocks = reasoning_blocks(result, "thinking", "redacted_thinking")
    if result.reasoning and not blocks:
        blocks.append({"type": "thinking", "thinking": result.reasoning, "signature": ""})
    if result.content:
        blocks.append({"type": "text", "text": result.content})
    blocks.extend({"type": "tool_use", "id": call.id, "name": call.name,
                   "input": call.arguments} for call in result.calls)
    return blocks


def _message(options: WriteOptions, content: list[Message], stop_reason: str | None) -> Message:
    return {"id": options.id, "type": "message", "role": "assistant", "model": options.model,
            "content": content, "stop_reason": stop_reason, "stop_sequence": None,
            "usage": _usage(options)}


def write_response(result: ParseResult, options: WriteOptions) -> Message:
    return _message(options, _blocks(result), _stop_reason(result, options))



def _opened(block: Message) -> tuple[Message, list[Message]]:
    """A block as content_block_start opens it (empty), and the deltas that fill it."""
    if block["type"] == "thinking":
        deltas = [{"type": "thinking_delta", "thinking": block["thinking"]}]
        if block.get("signature"):
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
        return {"type": "thinking", "thinking": "", "signature": ""}, deltas
    if block["type"] == "redacted_thinking":  # opaque: it comes whole in its start
        return block, []
    if block["type"] == "text":
        return {"type": "text", "text": ""}, [{"type": "text_delta", "text": block["text"]}]
    opened = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
    arguments = json.dumps(block["input"], ensure_ascii=False)
    return opened, [{"type": "input_json_delta", "partial_json": arguments}]
