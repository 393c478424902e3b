"""Stream writers with ``calls="live"`` (`toolcalls.providers._stream_writer`): a call written
at its
start, its arguments as they come; a call that fails after it started left open."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from corpus import load_cases
from test_stream_writer import (
    FAILED,
    SDK_READ,
    WRITTEN,
    _call,
    _deltas,
    _read_back,
    _sdk_seen,
    _seen,
    _whole,
    _wire,
    _write,
)
from written import OPTIONS

import toolcalls
from toolcalls import (
    ArgumentsDelta,
    Event,
    TextDelta,
    ToolCallEnd,
    ToolCallFailed,
    ToolCallStart,
)
from toolcalls.parsing._models import ParseResult
from toolcalls.providers import stream_writer, write_response


def _corpus_events() -> list[tuple[str, list[Event], ParseResult]]:
    """Every corpus row's text streamed in random pieces through its format's parser."""
    rng = random.Random(15)
    streamed = []
    for case in load_cases():
        parser = toolcalls.stream(case.format, **case.options())
        events: list[Event] = []
        start = 0
        while start < len(case.text):
            size = rng.randint(1, 24)
            events += parser.feed(case.text[start:start + size])
            start += size
        events += parser.close()
        streamed.append((case.id, events, parser.result()))
    return streamed


CORPUS = _corpus_events()


def _started_call_failed(events: list[Event]) -> bool:
    return any(isinstance(e, ToolCallFailed) and e.index is not None for e in events)


def _in_start_order(result: ParseResult, events: list[Event]) -> ParseResult:
    """`result` with its calls in the order they started (the order live calls are written)."""
    ended = {event.index: event.call for event in events if isinstance(event, ToolCallEnd)}
    order = [event.index for event in events
             if isinstance(event, ToolCallStart) and event.index in ended]
    assert sorted(ended.values(), key=repr) == sorted(result.calls, key=repr)
    return result.model_copy(update={"calls": [ended[index] for index in order]})


def _expected_by_sdk(result: ParseResult, provider: str) -> tuple[str, list[Any], str | None]:
    whole = write_response(result, provider, **OPTIONS)
    if provider == "openai":
        message = whole["choices"][0]["message"]
        return (message["content"] or "",
                [(c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))
                 for c in message.get("tool_calls", [])], whole["choices"][0]["finish_reason"])
    return ("".join(b["text"] for b in whole["content"] if b["type"] == "text"),
            [(b["id"], b["name"], b["input"]) for b in whole["content"] if b["type"] == "tool_use"],
            whole["stop_reason"])


def test_few_corpus_rows_have_a_call_that_fails_after_it_started() -> None:
    failed = [row for row, events, _ in CORPUS if _started_call_failed(events)]
    with_calls = [row for row, _, result in CORPUS if result.calls or result.incomplete]
    # measured: 27 of the 521 rows with calls (random pieces, seed 15), mostly cut at the end
    assert 0 < len(failed) < len(with_calls) // 10, (len(failed), len(with_calls))


@pytest.mark.parametrize("provider", SDK_READ)
def test_the_sdk_assembles_every_live_corpus_stream_to_the_whole_answer(provider: str) -> None:
    """Every row where no started call fails: what the SDK assembles from the live stream is
    the whole response written for the result (content, calls with ids and arguments, why the
    turn ended)."""
    checked = 0
    for row, events, result in CORPUS:
        if _started_call_failed(events):
            continue
        body = _wire(_write(events, provider, calls="live"), provider)
        expected = _expected_by_sdk(_in_start_order(result, events), provider)
        assert _sdk_seen(provider, body) == expected, row
        checked += 1
    assert checked > 650  # of the 702 rows: all but the 27 above


@pytest.mark.parametrize("provider", WRITTEN)
def test_live_corpus_streams_read_back_as_the_whole_response(provider: str) -> None:
    """(The APIs whose calls come whole write them whole in live mode too.)"""
    for row, events, result in CORPUS:
        if not _started_call_failed(events):
            chunks = _write(events, provider, calls="live")
            whole = _whole(_in_start_order(result, events), provider)
            assert _seen(_read_back(chunks, provider)) == _seen(whole), row


# --- what goes out when ---------------------------------------------------------------------------

def test_chat_a_call_goes_out_at_its_start_and_each_fragment_at_once() -> None:
    writer = stream_writer("openai", calls="live", **OPTIONS)
    writer.start()
    started = writer.feed(ToolCallStart(0, "call_0", "get_weather"))
    assert [d["tool_calls"][0] for d in _deltas(started)] == [
        {"index": 0, "id": "call_0", "type": "function",
         "function": {"name": "get_weather", "arguments": ""}}]
    fragments = [writer.feed(ArgumentsDelta(0, part)) for part in ('{"location": "Pa', 'ris"}')]
    assert [_deltas(f)[0]["tool_calls"] for f in fragments] == [
        [{"index": 0, "function": {"arguments": '{"location": "Pa'}}],
        [{"index": 0, "function": {"arguments": 'ris"}'}}]]
    assert writer.feed(ToolCallEnd(0, _call("call_0", location="Paris"))) == []
    assert [call.id for call in writer.calls] == ["call_0"]


def test_a_live_call_whose_arguments_never_streamed_gets_them_at_its_end() -> None:
    writer = stream_writer("openai", calls="live", **OPTIONS)
    writer.feed(ToolCallStart(0, "call_0", "get_weather"))
    ended = writer.feed(ToolCallEnd(0, _call("call_0", location="Paris")))
    assert _deltas(ended) == [{"tool_calls": [
        {"index": 0, "function": {"arguments": '{"location": "Paris"}'}}]}]


def test_messages_a_call_is_a_block_open_while_it_streams() -> None:
    writer = stream_writer("anthropic", calls="live", **OPTIONS)
    writer.start()
    assert [e["type"] for e in writer.feed(TextDelta("Hi"))] == [
        "content_block_start", "content_block_delta"]
    started = writer.feed(ToolCallStart(0, "call_0", "get_weather"))
    assert started == [{"type": "content_block_stop", "index": 0},
                       {"type": "content_block_start", "index": 1, "content_block": {
                           "type": "tool_use", "id": "call_0", "name": "get_weather",
                           "input": {}}}]
    assert writer.feed(ArgumentsDelta(0, '{"location": ')) == [
        {"type": "content_block_delta", "index": 1,
         "delta": {"type": "input_json_delta", "partial_json": '{"location": '}}]
    assert writer.feed(TextDelta(" meanwhile")) == []  # held: one block streams at a time
    assert writer.feed(ToolCallStart(1, "call_1", "get_time")) == []
    assert writer.feed(ArgumentsDelta(1, "{}")) == []
    assert [e["type"] for e in writer.feed(ArgumentsDelta(0, '"Paris"}'))] == [
        "content_block_delta"]
    ended = writer.feed(ToolCallEnd(0, _call("call_0", location="Paris")))
    assert [(e["type"], e["index"]) for e in ended] == [
        ("content_block_stop", 1),
        ("content_block_start", 2), ("content_block_delta", 2),  # the text held
        ("content_block_stop", 2), ("content_block_start", 3),  # the second call opens...
        ("content_block_delta", 3)]  # ...with what it had so far; it is open still
    assert [(e["type"], e["index"]) for e in writer.feed(ToolCallEnd(1, _call(
        "call_1", "get_time")))] == [("content_block_stop", 3)]
    assert [e["type"] for e in writer.finish()] == ["message_delta", "message_stop"]


def test_messages_text_held_behind_a_call_still_open_at_the_end_is_written() -> None:
    events: list[Event] = [ToolCallStart(0, "call_0", "f"), ArgumentsDelta(0, '{"a": '),
                           TextDelta("after")]
    chunks = _write(events, "anthropic", "length", calls="live")
    assert [(c["type"], c.get("index")) for c in chunks] == [
        ("message_start", None), ("content_block_start", 0), ("content_block_delta", 0),
        ("content_block_start", 1), ("content_block_delta", 1), ("content_block_stop", 1),
        ("message_delta", None), ("message_stop", None)]
    assert chunks[-2]["delta"]["stop_reason"] == "max_tokens"


# --- a call that fails after it started ---------------------------------------------------------

CUT: list[Event] = [TextDelta("Let me check."), ToolCallStart(0, "call_0", "get_weather"),
                    ArgumentsDelta(0, '{"location": "Pa'), FAILED]


@pytest.mark.parametrize("provider", SDK_READ)
def test_a_live_call_that_fails_stays_open_and_the_finish_is_the_upstreams(
        provider: str) -> None:
    chunks = _write(CUT, provider, finish_reason="length", calls="live")
    if provider == "anthropic":
        assert ("content_block_start", 1) in [(c["type"], c.get("index")) for c in chunks]
        assert ("content_block_stop", 1) not in [(c["type"], c.get("index")) for c in chunks]
    body = _wire(chunks, provider)
    content, calls, finish = _sdk_seen_lenient(provider, body)
    assert content == "Let me check."
    assert finish == ("length" if provider == "openai" else "max_tokens")
    assert calls == [("call_0", "get_weather")]  # seen, half written: never as a complete turn


@pytest.mark.parametrize("provider", SDK_READ)
def test_a_live_call_that_fails_is_not_counted_as_a_call(provider: str) -> None:
    """The upstream said "stop" (the model closed the call badly): the turn ends as it said,
    not as a tool-calls turn, even with a call that did complete after it."""
    chunks = _write(CUT, provider, finish_reason="stop", calls="live")
    assert _sdk_seen_lenient(provider, _wire(chunks, provider))[2] == (
        "stop" if provider == "openai" else "end_turn")
    done: list[Event] = [ToolCallStart(1, "call_1", "get_time"),
                         ToolCallEnd(1, _call("call_1", "get_time"))]
    chunks = _write([*CUT, *done], provider, finish_reason="stop", calls="live")
    _, calls, finish = _sdk_seen_lenient(provider, _wire(chunks, provider))
    assert finish == ("stop" if provider == "openai" else "end_turn")
    assert calls == [("call_0", "get_weather"), ("call_1", "get_time")]
    finish = _sdk_seen_lenient(provider, _wire(_write(done, provider, "stop", calls="live"),
                                               provider))[2]
    assert finish == ("tool_calls" if provider == "openai" else "tool_use")


def _sdk_seen_lenient(provider: str, body: str) -> tuple[str, list[tuple[str, str]], Any]:
    """What the SDK assembles, calls as (id, name) (a half call's arguments are no JSON)."""
    from test_stream_writer import _anthropic_sdk_reads, _openai_sdk_reads

    if provider == "openai":
        choice = _openai_sdk_reads(body).choices[0]
        return (choice.message.content or "",
                [(c.id, c.function.name) for c in choice.message.tool_calls or []],
                choice.finish_reason)
    message = _anthropic_sdk_reads(body)
    return ("".join(b.text for b in message.content if b.type == "text"),
            [(b.id, b.name) for b in message.content if b.type == "tool_use"],
            message.stop_reason)


def test_fail_leaves_a_live_call_open() -> None:
    writer = stream_writer("anthropic", calls="live", **OPTIONS)
    chunks = writer.feed(ToolCallStart(0, "call_0", "get_weather"))
    chunks += writer.feed(ArgumentsDelta(0, '{"loc'))
    chunks += writer.fail("upstream gone")
    assert "content_block_stop" not in json.dumps(chunks)


@pytest.mark.parametrize("provider", ["openai_responses", "gemini", "ollama"])
def test_the_apis_without_live_calls_write_them_whole(provider: str) -> None:
    writer = stream_writer(provider, calls="live", **OPTIONS)
    writer.start()
    assert writer.feed(ToolCallStart(0, "call_0", "get_weather")) == []
    assert writer.feed(ArgumentsDelta(0, '{"location": "Paris"}')) == []
    chunks = writer.feed(ToolCallEnd(0, _call("call_0", location="Paris")))
    assert "Paris" in json.dumps(chunks)
    assert writer.feed(ToolCallStart(1, "call_1", "get_weather")) == []
    assert writer.feed(FAILED) == []


def test_an_unknown_calls_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="calls: expected 'live' or 'whole'"):
        stream_writer("openai", calls="partial", **OPTIONS)
