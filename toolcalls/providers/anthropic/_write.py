"""Anthropic Messages written: a result as the API returns it (`write_response`: a whole
``Message``) and as it streams it (`AnthropicStreamWriter`: stream events, written while the
result is read too), both from the same block shapes. One block streams at a time, so what
comes while a live call's block is open is held until it closes.

    response   {"type": "message", "role": "assistant", "content": [a ``thinking`` block,
               a ``text`` block, a ``tool_use`` block per call], "stop_reason", "usage"}
    stream     message_start, then per block content_block_start, one content_block_delta
               (thinking_delta, text_delta or input_json_delta) and content_block_stop;
               message_delta with the stop_reason and the usage, message_stop

The stop_reason is "tool_use" when there are calls, else the result's own in Anthropic's
words ("end_turn", "max_tokens", "refusal"). The thinking and redacted_thinking blocks of a
result read from Anthropic (its ``reasoning_blocks``) are written as they came, signatures and
all (streamed with a signature_delta), so the turn can be sent back; other reasoning is one
thinking block with an empty signature (fine for a client that reads it; Anthropic refuses it
sent back). Usage read from Anthropic is written as it came; else the counts, 0 when unknown.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ...parsing._events import (
    ArgumentsDelta,
    Event,
    ToolCallEnd,
    ToolCallFailed,
    ToolCallStart,
)
from ...parsing._models import ParseResult, ToolCall
from .._messages import Message
from .._stream_writer import CallId, CallsMode, StreamWriter
from .._write_options import FinishKind, WriteOptions, reasoning_blocks

__all__ = ["AnthropicStreamWriter", "tool_use_block", "write_response"]

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
    blocks.extend(tool_use_block(call) for call in result.calls)
    return blocks


def tool_use_block(call: ToolCall) -> Message:
    """A call as a ``tool_use`` block: in a response, and in the history (`render_calls`)."""
    return {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}


def _message(options: WriteOptions, content: list[Message], stop_reason: str | None) -> Message:
    return {"id": options.id, "type": "message", "role": "assistant", "model": options.model,
            "content": content, "stop_reason": stop_reason, "stop_sequence": None,
            "usage": _usage(options)}


def write_response(result: ParseResult, options: WriteOptions) -> Message:
    """`result` as a whole ``Message``."""
    return _message(options, _blocks(result), _stop_reason(result, options))


# -- streamed -------------------------------------------------------------------------------------


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


class AnthropicStreamWriter(StreamWriter):
    """Anthropic Messages stream events, written event by event. message_start (its usage 0
    until the end is known), then blocks: text and thinking deltas go to the open block of
    their kind (a new block when the kind changes), a call is a tool_use block opened, filled
    with its arguments and closed at once (live: opened at its start, an input_json_delta per
    fragment, closed at its end; what comes meanwhile is held, as one block streams at a
    time); message_delta (stop_reason, the usage) and message_stop."""

    provider = "anthropic"
    id_prefix = "msg_"
    live_calls = True

    def __init__(self, *, model: str, id: str | None = None,  # noqa: A002 - the API's word
                 created: int | None = None, call_id: CallId | None = None,
                 calls: CallsMode = "whole") -> None:
        super().__init__(model=model, id=id, created=created, call_id=call_id, calls=calls)
        self._blocks = 0
        """Blocks opened so far: the next block's index."""
        self._open_kind = ""
        """The type of the block still open ("text", "thinking", "tool_use"), or ""."""
        self._holder: int | None = None
        """The event index of the live call whose block is open, if any."""
        self._held: list[Event] = []
        """Events that came while a live call's block was open (not its own), in order."""

    def feed(self, event: Event) -> list[Message]:
        out = self._open()
        if self._holder is None or _call_index(event) == self._holder:
            self._feed_event(event, out)
            if self._holder is None and self._held:
                self._release(out)
        else:
            self._held.append(event)
        return out

    def _feed_event(self, event: Event, out: list[Message]) -> None:
        super()._feed_event(event, out)
        if self._open_kind != "tool_use":
            self._holder = None
        elif isinstance(event, ToolCallStart):
            self._holder = event.index

    def _release(self, out: list[Message]) -> None:
        """The held events written in order, up to the next live call that opens a block
        (its own events pass the others still held: they are written when it ends)."""
        at = 0
        while at < len(self._held):
            event = self._held[at]
            if self._holder is not None and _call_index(event) != self._holder:
                at += 1
                continue
            del self._held[at]
            holder = self._holder
            self._feed_event(event, out)
            if holder is not None and self._holder is None:
                at = 0

    def _opening(self) -> list[Message]:
        return [{"type": "message_start",
                 "message": _message(self._options, [], None)}]

    def _text(self, text: str, out: list[Message]) -> None:
        self._delta("text", {"type": "text_delta", "text": text}, out)

    def _reasoning(self, text: str, out: list[Message]) -> None:
        self._delta("thinking", {"type": "thinking_delta", "thinking": text}, out)

    def _delta(self, kind: str, delta: Message, out: list[Message]) -> None:
        if self._open_kind != kind:
            self._close_block(out)
            start: Message = ({"type": "text", "text": ""} if kind == "text"
                              else {"type": "thinking", "thinking": "", "signature": ""})
            out.append({"type": "content_block_start", "index": self._blocks,
                        "content_block": start})
            self._blocks += 1
            self._open_kind = kind
        out.append({"type": "content_block_delta", "index": self._blocks - 1, "delta": delta})

    def _result_reasoning(self, result: ParseResult, out: list[Message]) -> None:
        # Thinking blocks read from Anthropic go back as they came, signatures and all.
        blocks = reasoning_blocks(result, "thinking", "redacted_thinking")
        if not blocks:
            super()._result_reasoning(result, out)
        for block in blocks:
            self._whole_block(block, out)

    def _call(self, index: int, call: ToolCall, out: list[Message]) -> None:
        self._whole_block(tool_use_block(call), out)

    def _call_start(self, index: int, ident: str, name: str, out: list[Message]) -> None:
        self._close_block(out)
        out.append({"type": "content_block_start", "index": self._blocks, "content_block": {
            "type": "tool_use", "id": ident, "name": name, "input": {}}})
        self._blocks += 1
        self._open_kind = "tool_use"

    def _call_arguments(self, index: int, fragment: str, out: list[Message]) -> None:
        out.append({"type": "content_block_delta", "index": self._blocks - 1,
                    "delta": {"type": "input_json_delta", "partial_json": fragment}})

    def _call_end(self, index: int, call: ToolCall, out: list[Message]) -> None:
        self._close_block(out)

    def _call_failed(self, index: int, out: list[Message]) -> None:
        self._open_kind = ""  # never closed: no client reads it as a complete call

    def _whole_block(self, block: Message, out: list[Message]) -> None:
        self._close_block(out)
        index = self._blocks
        self._blocks += 1
        start, deltas = _opened(block)
        out.append({"type": "content_block_start", "index": index, "content_block": start})
        out.extend({"type": "content_block_delta", "index": index, "delta": delta}
                   for delta in deltas)
        out.append({"type": "content_block_stop", "index": index})

    def _close_block(self, out: list[Message]) -> None:
        if self._open_kind:
            out.append({"type": "content_block_stop", "index": self._blocks - 1})
            self._open_kind = ""

    def _closing(self, options: WriteOptions, out: list[Message]) -> None:
        while self._held:  # a live call still open at the end: left open, what waited written
            self._call_failed(-1, out)
            self._holder = None
            self._release(out)
        if self._open_kind == "tool_use":
            self._call_failed(-1, out)
        self._close_block(out)
        stop_reason = _STOP_REASONS[options.finish(self.tool_turn)]
        usage = _usage(options)
        if self._options.usage is not None:  # message_start said it all but the output count
            usage = {"output_tokens": usage["output_tokens"]}
        # else message_start said 0, not known yet: the whole usage now (a client merges
        # message_delta's usage into message_start's, as the API sends it today).
        out.append({"type": "message_delta",
                    "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                    "usage": usage})
        out.append({"type": "message_stop"})

    def _error(self, message: str, kind: str) -> Message:
        return {"type": "error", "error": {"type": kind, "message": message}}

    def _own_usage(self, usage: Mapping[str, Any]) -> bool:
        return "input_tokens" in usage and "total_tokens" not in usage  # not Responses'


def _call_index(event: Event) -> int | None:
    """The call an event belongs to, by its index; None for text and reasoning."""
    if isinstance(event, ToolCallStart | ArgumentsDelta | ToolCallEnd | ToolCallFailed):
        return event.index
    return None
