"""Anthropic Messages written back (`toolcalls.providers.anthropic._write`), checked with the
anthropic SDK: its types, its stream accumulator and its SSE decoder."""

from __future__ import annotations

import pytest
from anthropic._streaming import SSEDecoder
from anthropic.lib.streaming._messages import accumulate_event
from anthropic.types import Message, RawMessageStreamEvent
from pydantic import TypeAdapter
from written import FULL, OPTIONS, RESULTS, arguments

from toolcalls.parsing._models import ParseResult
from toolcalls.providers import stream_text, write_response, write_stream

EVENT: TypeAdapter[RawMessageStreamEvent] = TypeAdapter(RawMessageStreamEvent)


def _read(message: Message) -> tuple[str, str | None, list[tuple[str, str, object]], str | None]:
    text = "".join(b.text for b in message.content if b.type == "text")
    thinking = [b.thinking for b in message.content if b.type == "thinking"]
    calls = [(b.id, b.name, b.input) for b in message.content if b.type == "tool_use"]
    return text, (thinking[0] if thinking else None), calls, message.stop_reason


@pytest.mark.parametrize("name", RESULTS)
def test_the_response_is_a_message_with_the_result(name: str) -> None:
    result: ParseResult = RESULTS[name]
    message = Message.model_validate(write_response(result, "anthropic", **OPTIONS))
    assert (message.id, message.model, message.role) == ("resp_1", "m-1", "assistant")
    assert _read(message) == (result.content, result.reasoning, arguments(result.calls),
                              "tool_use" if result.calls else "end_turn")


@pytest.mark.parametrize("name", RESULTS)
def test_the_stream_assembles_in_the_sdk_to_the_response(name: str) -> None:
    snapshot = None
    buffers: dict[int, bytes] = {}
    for event in write_stream(RESULTS[name], "anthropic", **OPTIONS):
        snapshot = accumulate_event(event=EVENT.validate_python(event),
                                    current_snapshot=snapshot, json_bufs=buffers)
    assert snapshot is not None
    whole = Message.model_validate(write_response(RESULTS[name], "anthropic", **OPTIONS))
    assert _read(Message.model_validate(snapshot.to_dict())) == _read(whole)


def test_the_stream_opens_each_block_empty_and_fills_it_with_one_delta() -> None:
    events = write_stream(FULL, "anthropic", **OPTIONS)
    assert [e["type"] for e in events] == (
        ["message_start"]
        + ["content_block_start", "content_block_delta", "content_block_stop"] * 4
        + ["message_delta", "message_stop"])
    deltas = [e["delta"]["type"] for e in events if e["type"] == "content_block_delta"]
    assert deltas == ["thinking_delta", "text_delta", "input_json_delta", "input_json_delta"]
    tool_starts = [e["content_block"] for e in events
                   if e["type"] == "content_block_start" and e["index"] >= 2]
    assert [b["input"] for b in tool_starts] == [{}, {}]


def test_the_wire_is_named_sse_events() -> None:
    events = write_stream(FULL, "anthropic", **OPTIONS)
    decoded = list(SSEDecoder().iter_bytes(iter([stream_text(events, "anthropic").encode()])))
    assert [(e.event, e.json()) for e in decoded] == [(e["type"], e) for e in events]
