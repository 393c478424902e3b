"""Anthropic Messages streamed while it is read (`_stream_writer.StreamWriter`): stream events, the
shapes of `_anthropic_write`; one block streams at a time, so what comes while a live call's
block is open is held until it closes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..parsing._events import (
    ArgumentsDelta,
    Event,
    ToolCallEnd,
    ToolCallFailed,
    ToolCallStart,
)
from ..parsing._models import ParseResult, ToolCall
from . import _anthropic_write
from ._messages import Message
from ._stream_writer import CallId, CallsMode, StreamWriter
from ._write_options import WriteOptions, reasoning_blocks

__all__ = ["MessagesStreamWriter"]


class MessagesStreamWriter(StreamWriter):
    """Anthropic Messages: stream events (`_anthropic_write`). message_start (its usage 0
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
                 "message": _anthropic_write._message(self._options, [], None)}]

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
        self._whole_block({"type": "tool_use", "id": call.id, "name": call.name,
                           "input": call.arguments}, out)

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
        start, deltas = _anthropic_write._opened(block)
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
        stop_reason = _anthropic_write._STOP_REASONS[options.finish(self.tool_turn)]
        usage = _anthropic_write._usage(options)
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
