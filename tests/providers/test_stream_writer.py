"""Stream writers (`toolcalls.providers._stream_writer`): events written on as a provider API
streams
them, read back by `read_stream` and by the openai and anthropic SDKs themselves."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest
from corpus import load_cases
from hypothesis import given
from hypothesis import strategies as st
from provider_rows import FIXTURES, FOLDER_OF_PROVIDER, PROVIDER_OF_FOLDER
from test_recorded import EVENT as SDK_EVENT
from test_recorded import validate
from test_response_writer import _results as any_result
from written import OPTIONS, RESULTS

import toolcalls
from toolcalls import (
    ArgumentsDelta,
    Event,
    ReasoningDelta,
    TextDelta,
    ToolCallEnd,
    ToolCallFailed,
    ToolCallStart,
)
from toolcalls.parsing._models import IncompleteCall, ParseResult, ToolCall
from toolcalls.providers import (
    PROVIDERS,
    StreamWriter,
    stream_text,
    stream_writer,
    wire_done,
    wire_message,
    write_response,
    write_stream,
)
from toolcalls.providers._write_options import finish_kind

STREAMS = sorted([*FIXTURES.glob("*/*.sse"), *FIXTURES.glob("*/*.ndjson")])
WRITTEN = list(PROVIDERS)
"""The APIs with a stream writer: all of them."""
SDK_READ = ["openai", "anthropic"]
"""The APIs whose SDKs the proxy's clients use, fed the bytes written."""


def _write(events: Iterable[Event], provider: str, finish_reason: str | None = None,
           usage: Any = None, **options: Any) -> list[dict[str, Any]]:
    writer = stream_writer(provider, **{**OPTIONS, **options})
    chunks = writer.start()
    for event in events:
        chunks += writer.feed(event)
    return chunks + writer.finish(finish_reason, usage)


def _read_back(chunks: Iterable[Any], provider: str) -> ParseResult:
    reader = toolcalls.read_stream(provider)
    for chunk in chunks:
        reader.feed(chunk)
    reader.close()
    return reader.result()


def _seen(result: ParseResult) -> tuple[str, str | None, list[tuple[str, str, Any]]]:
    keep_ids = result.provider != "ollama"  # Ollama's calls carry no ids
    return (result.content, result.reasoning,
            [(call.id if keep_ids else "", call.name, call.arguments) for call in result.calls])


def _whole(result: ParseResult, provider: str) -> ParseResult:
    """What a client reads from the whole response written for `result`."""
    return toolcalls.read_response(write_response(result, provider, **OPTIONS), provider)


def _in_completion_order(result: ParseResult, events: Sequence[Event]) -> ParseResult:
    """`result` with its calls in the order their ToolCallEnd came (the order a stream writes
    them; a whole response puts native calls before text calls)."""
    ended = [event.call for event in events if isinstance(event, ToolCallEnd)]
    assert sorted(ended, key=repr) == sorted(result.calls, key=repr)
    return result.model_copy(update={"calls": ended})


def _read_recorded(path: Path) -> tuple[list[Event], ParseResult]:
    reader = toolcalls.read_stream(PROVIDER_OF_FOLDER[path.parent.name], format="auto")
    events = reader.feed(path.read_bytes())
    events += reader.close()
    return events, reader.result()


# --- what is written reads back as the whole response -------------------------------------------

@pytest.mark.parametrize("provider", WRITTEN)
@pytest.mark.parametrize("path", STREAMS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_recorded_stream_written_on_reads_back_as_the_whole_response(
        path: Path, provider: str) -> None:
    events, result = _read_recorded(path)
    result = _in_completion_order(result, events)
    chunks = _write(events, provider, result.finish_reason, result.usage)
    for chunk in chunks:  # usage passed on as it came may lack a field the SDK added since
        validate(FOLDER_OF_PROVIDER[provider], SDK_EVENT[FOLDER_OF_PROVIDER[provider]], chunk)
    assert _seen(_read_back(chunks, provider)) == _seen(_whole(result, provider))
    assert _seen(_read_back([stream_text(chunks, provider)], provider)) == _seen(
        _whole(result, provider))


@pytest.mark.parametrize("provider", WRITTEN)
def test_corpus_outputs_streamed_and_written_on_read_back_as_the_whole_response(
        provider: str) -> None:
    """Every corpus row's text streamed in random pieces through the format's parser, its
    events written on: the same content, reasoning and calls as the whole result written."""
    rng = random.Random(15)
    for case in load_cases():
        parser = toolcalls.stream(case.format, **case.options())
        text = case.text
        events: list[Event] = []
        start = 0
        while start < len(text):
            size = rng.randint(1, 24)
            events += parser.feed(text[start:start + size])
            start += size
        events += parser.close()
        result = _in_completion_order(parser.result(), events)
        chunks = _write(events, provider)
        assert _seen(_read_back(chunks, provider)) == _seen(_whole(result, provider)), case.id


@pytest.mark.parametrize("provider", [p for p in WRITTEN if p != "gemini"])
@pytest.mark.parametrize("name", RESULTS)
def test_write_stream_is_the_writer_fed_the_whole_result(provider: str, name: str) -> None:
    """(Gemini's whole stream puts the finishReason on its last part: see providers.gemini.)"""
    result = RESULTS[name]
    events: list[Event] = []
    if result.reasoning:
        events.append(ReasoningDelta(result.reasoning))
    events.append(TextDelta(result.content))
    events += [ToolCallEnd(index, call) for index, call in enumerate(result.calls)]
    assert _write(events, provider) == write_stream(result, provider, **OPTIONS)


# --- calls: held whole, failed ones never written, renamed, numbered as they complete -----------

def _call(ident: str, name: str = "get_weather", **arguments: Any) -> ToolCall:
    return ToolCall(id=ident, name=name, arguments=arguments, span=(0, 0))


def _deltas(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [chunk["choices"][0]["delta"] for chunk in chunks if chunk.get("choices")]


def test_a_call_is_held_until_it_ends_then_written_whole() -> None:
    writer = stream_writer("openai", **OPTIONS)
    writer.start()
    assert writer.feed(ToolCallStart(0, "call_0", "get_weather")) == []
    assert writer.feed(ArgumentsDelta(0, '{"location": "Pa')) == []
    assert writer.feed(TextDelta("meanwhile")) != []  # text is not held
    assert writer.feed(ArgumentsDelta(0, 'ris"}')) == []
    chunks = writer.feed(ToolCallEnd(0, _call("call_0", location="Paris")))
    assert [delta["tool_calls"][0] for delta in _deltas(chunks)] == [
        {"index": 0, "id": "call_0", "type": "function",
         "function": {"name": "get_weather", "arguments": ""}},
        {"index": 0, "function": {"arguments": '{"location": "Paris"}'}}]
    assert [call.id for call in writer.calls] == ["call_0"]


FAILED = ToolCallFailed(0, IncompleteCall(name="get_weather", raw='{"location": "Pa',
                                          span=(0, 16)))


@pytest.mark.parametrize("provider", WRITTEN)
def test_a_failed_call_is_never_written_and_the_turn_is_no_call(provider: str) -> None:
    events: list[Event] = [TextDelta("Let me check."), ToolCallStart(0, "call_0", "get_weather"),
                           ArgumentsDelta(0, '{"location": "Pa'), FAILED]
    chunks = _write(events, provider, finish_reason="tool_calls")
    read = _read_back(chunks, provider)
    assert (read.calls, read.incomplete, read.content) == ([], [], "Let me check.")
    assert finish_kind(read.finish_reason) == "stop"
    assert "get_weather" not in json.dumps(chunks)


@pytest.mark.parametrize("provider", WRITTEN)
def test_a_call_cut_off_in_a_recorded_stream_is_not_written(provider: str) -> None:
    events, result = _read_recorded(FIXTURES / "anthropic" /
                                    "claude37_tool_use_cut_by_max_tokens.sse")
    assert any(isinstance(event, ToolCallFailed) for event in events) and result.incomplete
    chunks = _write(events, provider, result.finish_reason, result.usage)
    read = _read_back(chunks, provider)
    assert read.calls == [] and read.incomplete == []
    assert finish_kind(read.finish_reason) == "length"


@pytest.mark.parametrize("provider", WRITTEN)
def test_calls_are_numbered_as_they_complete_under_the_ids_call_id_gives(provider: str) -> None:
    events: list[Event] = [
        ToolCallStart(0, "call_0", "a"), ToolCallStart(1, "call_1", "b"),
        ToolCallEnd(1, _call("call_1", "b")), ToolCallStart(2, "x", "c"), FAILED,
        ToolCallEnd(2, _call("x", "c", n=1))]
    chunks = _write(events, provider, call_id=lambda index, ident: f"new_{index}_{ident}")
    read = _read_back(chunks, provider)
    ids = ["new_0_call_1", "new_1_x"] if provider != "ollama" else ["call_0", "call_1"]
    assert [(c.id, c.name, c.arguments) for c in read.calls] == [
        (ids[0], "b", {}), (ids[1], "c", {"n": 1})]
    if provider == "openai":
        indices = [d["tool_calls"][0]["index"] for d in _deltas(chunks) if "tool_calls" in d]
        assert indices == [0, 0, 1, 1]


# --- the opening, the end, usage, errors ----------------------------------------------------------

def test_text_and_reasoning_stream_at_once_into_blocks_of_their_kind() -> None:
    writer = stream_writer("anthropic", **OPTIONS)
    assert [e["type"] for e in writer.start()] == ["message_start"]
    assert [e["type"] for e in writer.feed(ReasoningDelta("hm"))] == [
        "content_block_start", "content_block_delta"]
    assert [e["type"] for e in writer.feed(ReasoningDelta(", yes"))] == ["content_block_delta"]
    assert [(e["type"], e["index"]) for e in writer.feed(TextDelta("Hi"))] == [
        ("content_block_stop", 0), ("content_block_start", 1), ("content_block_delta", 1)]
    assert writer.feed(TextDelta("")) == []
    assert [e["type"] for e in writer.finish()] == [
        "content_block_stop", "message_delta", "message_stop"]
    assert writer.ended


def test_start_is_implied_and_given_once() -> None:
    writer = stream_writer("openai", **OPTIONS)
    chunks = writer.feed(TextDelta("Hi"))
    assert [_deltas([c])[0] for c in chunks] == [{"role": "assistant", "content": None},
                                                 {"content": "Hi"}]
    assert writer.start() == []


@pytest.mark.parametrize("provider", SDK_READ)
def test_usage_in_the_apis_own_shape_passes_through_and_another_as_counts(
        provider: str) -> None:
    chat = {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10,
            "prompt_tokens_details": {"cached_tokens": 2}}
    messages = {"input_tokens": 7, "output_tokens": 3, "cache_read_input_tokens": 2}
    for usage, own in [(chat, provider == "openai"), (messages, provider == "anthropic")]:
        read = _read_back(_write([TextDelta("x")], provider, "stop", usage), provider)
        counts = ({"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
                  if provider == "openai" else {"input_tokens": 7, "output_tokens": 3})
        assert read.usage == (usage if own else counts)


@pytest.mark.parametrize("provider", SDK_READ)
def test_fail_ends_the_stream_with_the_apis_error_and_closes_nothing(provider: str) -> None:
    writer = stream_writer(provider, **OPTIONS)
    chunks = writer.feed(TextDelta("Partial"))
    chunks += writer.feed(ToolCallStart(0, "call_0", "get_weather"))
    error = writer.fail("upstream closed the stream", kind="overloaded_error")
    assert error == ([{"error": {"message": "upstream closed the stream",
                                 "type": "overloaded_error", "param": None, "code": None}}]
                     if provider == "openai" else
                     [{"type": "error", "error": {"type": "overloaded_error",
                                                  "message": "upstream closed the stream"}}])
    assert "content_block_stop" not in json.dumps(chunks + error)
    assert writer.ended and writer.fail("again") == []
    with pytest.raises(RuntimeError, match="ended"):
        writer.feed(TextDelta("more"))
    with pytest.raises(RuntimeError, match="ended"):
        writer.finish()


def test_the_writer_is_chosen_by_provider_and_ids_are_fresh() -> None:
    first, second = stream_writer("openai", model="m"), stream_writer("openai", model="m")
    assert isinstance(first, StreamWriter) and first.id.startswith("chatcmpl-")
    assert first.id != second.id
    assert stream_writer("anthropic", model="m").id.startswith("msg_")
    with pytest.raises(ValueError, match="unknown provider 'cohere'.*anthropic"):
        stream_writer("cohere", model="m")


def test_one_chunk_on_the_wire_is_what_stream_text_writes_for_it() -> None:
    for provider in WRITTEN:
        chunks = _write([ReasoningDelta("hm"), TextDelta("Hi"), ToolCallEnd(0, _call("c"))],
                        provider, "stop", {"prompt_tokens": 1, "completion_tokens": 2})
        wire = "".join(wire_message(provider, chunk) for chunk in chunks) + wire_done(provider)
        assert wire == stream_text(chunks, provider)
    assert wire_message("anthropic", {"type": "error", "error": {}}).startswith("event: error\n")
    assert wire_message("openai", {"error": {}}) == 'data: {"error":{}}\n\n'
    assert wire_message("ollama", {"done": True}) == '{"done":true}\n'
    assert wire_done("anthropic") == ""


def test_chunks_on_the_wire_together_are_what_stream_text_writes_for_them() -> None:
    # the proxy writes all one upstream read gives at once: the same bytes, non-ASCII kept
    from toolcalls.providers._stream_writer import wire_messages

    for provider in WRITTEN:
        chunks = _write([TextDelta("Grüße, \u2028 \"x\" 🌍\n"), ToolCallEnd(0, _call("c"))],
                        provider, "stop", {"prompt_tokens": 1, "completion_tokens": 2})
        assert wire_messages(provider, chunks) + wire_done(provider) == stream_text(chunks,
                                                                                    provider)
        assert wire_messages(provider, chunks) == "".join(
            wire_message(provider, chunk) for chunk in chunks)
    assert wire_messages("openai", []) == ""


# --- the real SDKs reading the bytes written, over a fake HTTP transport ------------------------

def _serving(body: str, http: Any) -> Any:
    """A client of the ``http`` package (httpx, or the httpx2 newer anthropic SDKs use) whose
    every request is answered with ``body`` as server-sent events."""

    def answer(request: Any) -> Any:
        return http.Response(200, headers={"content-type": "text/event-stream"},
                             content=body.encode())

    return http.Client(transport=http.MockTransport(answer))


def _http_of(sdk_base_client: Any) -> Any:
    return getattr(sdk_base_client, "httpx2", None) or sdk_base_client.httpx


def _wire(chunks: list[dict[str, Any]], provider: str, *, done: bool = True) -> str:
    return "".join(wire_message(provider, chunk) for chunk in chunks) + (
        wire_done(provider) if done else "")


def _openai_sdk_reads(body: str) -> Any:
    """The completion the openai SDK assembles (its own stream state, as its ``.stream()``
    helper, which refuses to finish a turn cut by length) from the chunks it decodes."""
    import openai
    import openai._base_client
    from openai.lib.streaming.chat import ChatCompletionStreamState

    client = openai.OpenAI(api_key="-", base_url="http://proxy.test/v1",
                           http_client=_serving(body, _http_of(openai._base_client)))
    state: ChatCompletionStreamState[None] = ChatCompletionStreamState()
    for chunk in client.chat.completions.create(
            model="m-1", messages=[{"role": "user", "content": "?"}], stream=True):
        state.handle_chunk(chunk)
    return state.current_completion_snapshot


def _anthropic_sdk_reads(body: str) -> Any:
    import anthropic
    import anthropic._base_client

    client = anthropic.Anthropic(api_key="-", base_url="http://proxy.test",
                                 http_client=_serving(body, _http_of(anthropic._base_client)))
    with client.messages.stream(model="m-1", max_tokens=100,
                                messages=[{"role": "user", "content": "?"}]) as stream:
        return stream.get_final_message()


def _sdk_seen(provider: str, body: str) -> tuple[str, list[tuple[str, str, Any]], str | None]:
    """Content, calls and why the turn ended, as the provider's SDK assembles the stream."""
    if provider == "openai":
        choice = _openai_sdk_reads(body).choices[0]
        calls = [(c.id, c.function.name, json.loads(c.function.arguments))
                 for c in choice.message.tool_calls or []]
        return choice.message.content or "", calls, choice.finish_reason
    message = _anthropic_sdk_reads(body)
    text = "".join(block.text for block in message.content if block.type == "text")
    calls = [(b.id, b.name, b.input) for b in message.content if b.type == "tool_use"]
    return text, calls, message.stop_reason


@pytest.mark.parametrize("provider", SDK_READ)
@pytest.mark.parametrize("path", STREAMS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_the_sdk_assembles_a_written_stream_to_the_whole_response(
        path: Path, provider: str) -> None:
    events, result = _read_recorded(path)
    result = _in_completion_order(result, events)
    body = _wire(_write(events, provider, result.finish_reason, result.usage), provider)
    whole = write_response(result, provider, **OPTIONS)
    if provider == "openai":
        message = whole["choices"][0]["message"]
        expected = (message["content"] or "",
                    [(c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))
                     for c in message.get("tool_calls", [])],
                    whole["choices"][0]["finish_reason"])
    else:
        expected = ("".join(b["text"] for b in whole["content"] if b["type"] == "text"),
                    [(b["id"], b["name"], b["input"]) for b in whole["content"]
                     if b["type"] == "tool_use"], whole["stop_reason"])
    assert _sdk_seen(provider, body) == expected


def test_the_sdks_read_usage_from_the_end_of_a_written_stream() -> None:
    chat = {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
    events = [TextDelta("Hi")]
    completion = _openai_sdk_reads(_wire(_write(events, "openai", "stop", chat), "openai"))
    assert completion.usage.model_dump(exclude_none=True) == chat
    message = _anthropic_sdk_reads(_wire(_write(events, "anthropic", "stop", chat), "anthropic"))
    assert (message.usage.input_tokens, message.usage.output_tokens) == (7, 3)


@pytest.mark.parametrize("provider", SDK_READ)
def test_the_sdk_raises_the_error_that_ends_a_failed_stream(provider: str) -> None:
    import anthropic
    import openai

    writer = stream_writer(provider, **OPTIONS)
    chunks = writer.feed(TextDelta("Partial"))
    chunks += writer.feed(ToolCallStart(0, "call_0", "get_weather"))
    chunks += writer.fail("upstream closed the stream mid-response")
    error = openai.APIError if provider == "openai" else anthropic.APIStatusError
    with pytest.raises(error, match="upstream closed the stream mid-response"):
        _sdk_seen(provider, _wire(chunks, provider, done=False))


# --- every API: text and reasoning interleaved with calls ---------------------------------------

INTERLEAVED: list[Event] = [
    ReasoningDelta("Two "), ReasoningDelta("cities."), TextDelta("Checking"), TextDelta(" both."),
    ToolCallStart(0, "call_0", "get_weather"), ToolCallEnd(0, _call("call_0", location="Paris")),
    TextDelta(" And"), ReasoningDelta(" Also Zürich."), TextDelta(" Zürich."),
    ToolCallEnd(1, _call("call_1", location="Zürich"))]


@pytest.mark.parametrize("provider", WRITTEN)
def test_interleaved_text_reasoning_and_calls_read_back_in_full(provider: str) -> None:
    chunks = _write(INTERLEAVED, provider, "stop", {"prompt_tokens": 5, "completion_tokens": 9})
    for read in (_read_back(chunks, provider), _read_back([stream_text(chunks, provider)],
                                                          provider)):
        assert (read.content, read.reasoning) == ("Checking both. And Zürich.",
                                                  "Two cities. Also Zürich.")
        assert [(c.name, c.arguments) for c in read.calls] == [
            ("get_weather", {"location": "Paris"}), ("get_weather", {"location": "Zürich"})]
        assert finish_kind(read.finish_reason) in ("tool_calls", "stop")  # Gemini, Ollama: stop
    for chunk in chunks:
        validate(FOLDER_OF_PROVIDER[provider], SDK_EVENT[FOLDER_OF_PROVIDER[provider]], chunk)


def test_responses_events_go_through_the_sdk_stream_state_to_the_completed_response() -> None:
    from openai import omit
    from openai.lib.streaming.responses import ResponseStreamState
    from openai.types.responses import ResponseStreamEvent
    from pydantic import TypeAdapter

    adapter: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)
    state: ResponseStreamState[None] = ResponseStreamState(input_tools=[], text_format=omit)
    events = _write(INTERLEAVED, "openai_responses")
    for event in events:
        state.handle_event(adapter.validate_python(event))
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    completed = events[-1]["response"]
    assert [item["type"] for item in completed["output"]] == [
        "reasoning", "message", "function_call", "message", "reasoning", "message",
        "function_call"]
    assert len({item["id"] for item in completed["output"]}) == 7
    done = [e["item"] for e in events if e["type"] == "response.output_item.done"]
    assert done == completed["output"]


@pytest.mark.parametrize(("provider", "error"), [
    ("openai_responses", {"type": "error", "code": "api_error", "message": "gone",
                          "param": None, "sequence_number": 5}),
    ("gemini", {"error": {"code": 500, "message": "gone", "status": "INTERNAL"}}),
    ("ollama", {"error": "gone"})])
def test_the_other_apis_fail_with_their_own_error(provider: str, error: dict[str, Any]) -> None:
    writer = stream_writer(provider, **OPTIONS)
    writer.feed(TextDelta("Partial"))
    assert writer.fail("gone") == [error]


# --- any result, any split of its text into deltas, calls anywhere between them -----------------

@st.composite
def _streamed(draw: st.DrawFn) -> tuple[ParseResult, list[Event]]:
    """A result and events that give it: its reasoning and content split anywhere, its calls
    completing anywhere between the pieces (in order)."""
    result = draw(any_result())

    def pieces(text: str | None) -> list[str]:
        cuts = sorted(draw(st.lists(st.integers(0, len(text or "")), max_size=4)))
        return [(text or "")[a:b] for a, b in zip([0, *cuts], [*cuts, len(text or "")],
                                                  strict=True)]

    deltas: list[Event] = [ReasoningDelta(p) for p in pieces(result.reasoning)]
    deltas += [TextDelta(p) for p in pieces(result.content)]
    count = len(result.calls)
    places = sorted(draw(st.lists(st.integers(0, len(deltas)), min_size=count,
                                  max_size=count)))
    events: list[Event] = []
    for at in range(len(deltas) + 1):
        events += [ToolCallEnd(index, call) for index, call in enumerate(result.calls)
                   if places[index] == at]
        events += deltas[at:at + 1]
    return result, events


@pytest.mark.parametrize("provider", WRITTEN)
@given(streamed=_streamed())
def test_any_result_streamed_in_any_pieces_reads_back_as_written_whole(
        provider: str, streamed: tuple[ParseResult, list[Event]]) -> None:
    result, events = streamed
    chunks = _write(events, provider)
    read, whole = _read_back(chunks, provider), _whole(result, provider)
    assert [(c.name, c.arguments) for c in read.calls] == [
        (c.name, c.arguments) for c in whole.calls]
    assert (read.content, read.reasoning or None) == (whole.content, whole.reasoning or None)
