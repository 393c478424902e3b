"""`read_stream("openai_responses")`: recorded Responses streams read in any grouping give the
result `read_response` gives for the stream's own ``response.completed`` response."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from openai.types.responses import ResponseStreamEvent
from pydantic import TypeAdapter, ValidationError
from stream_checks import (
    FIXTURES,
    ambiguous_with_lines,
    check_event_promises,
    read_all,
    split_at,
    sse_json,
)

import toolcalls
from toolcalls import ReasoningDelta, ToolCallEnd, ToolCallFailed

STREAMS = sorted((FIXTURES / "openai_responses").glob("*.sse"))
IDS = [path.stem for path in STREAMS]
EVENT = TypeAdapter(ResponseStreamEvent)


def _without_ids(result: toolcalls.ParseResult) -> dict[str, Any]:
    """The result, but the reasoning items' ids (OpenRouter's completed response renames them)."""
    dumped = result.model_dump()
    for block in dumped["reasoning_blocks"] or []:
        block.pop("id", None)
    return dumped


def _sdk(event: dict[str, Any]) -> Any:
    try:
        return EVENT.validate_python(event)
    except ValidationError:  # recorded before a field this SDK requires: as a dict
        return event


@pytest.mark.parametrize("path", STREAMS, ids=IDS)
@pytest.mark.parametrize("fmt", ["auto", None, "hermes"])
def test_a_recorded_stream_reads_as_its_completed_response(path: Path, fmt: str | None) -> None:
    events = sse_json(path.read_text(encoding="utf-8"))
    streamed, result = read_all("openai_responses", [path.read_bytes()], fmt)
    check_event_promises(streamed, result)
    completed = [e["response"] for e in events if e["type"] == "response.completed"]
    whole = toolcalls.read_response(completed[0], "openai_responses", format=fmt)
    assert _without_ids(result) == _without_ids(whole)
    assert read_all("openai_responses", events, fmt) == (streamed, result)
    sdk = [_sdk(event) for event in events]
    assert any(not isinstance(event, dict) for event in sdk)
    assert read_all("openai_responses", sdk, fmt) == (streamed, result)


@pytest.mark.parametrize("path", STREAMS, ids=IDS)
@settings(max_examples=40, deadline=None)
@given(cuts=st.lists(st.floats(0, 1), max_size=12), as_bytes=st.booleans())
def test_any_split_of_the_sse_text_gives_the_same_events(
    path: Path, cuts: list[float], as_bytes: bool
) -> None:
    text = path.read_text(encoding="utf-8")
    expected = read_all("openai_responses", [text])
    raw: str | bytes = text.encode() if as_bytes else text
    pieces = list(split_at(raw, [int(cut * len(raw)) for cut in cuts]))  # type: ignore[arg-type]
    assume(not ambiguous_with_lines(pieces))  # see the decoder's docstring
    assert read_all("openai_responses", pieces) == expected


def test_a_call_ends_at_its_item_done_and_fails_without_it() -> None:
    events = sse_json((FIXTURES / "openai_responses" / "gpt4o_function_call.sse")
                      .read_text(encoding="utf-8"))
    done = next(i for i, e in enumerate(events) if e["type"] == "response.output_item.done")
    parser = toolcalls.read_stream("openai_responses")
    before = [out for event in events[:done] for out in parser.feed(event)]
    assert not [e for e in before if isinstance(e, ToolCallEnd)]
    assert [type(e) for e in parser.feed(events[done])] == [ToolCallEnd]
    streamed, result = read_all("openai_responses", events[:done])
    assert [e.index for e in streamed if isinstance(e, ToolCallFailed)] == [0]
    assert result.calls == [] and [i.kind for i in result.issues] == ["truncated_call"]


def test_summary_parts_stream_as_the_reasoning_read_response_joins() -> None:
    item = {"type": "reasoning", "id": "rs_1", "summary": [
        {"type": "summary_text", "text": "First."}, {"type": "summary_text", "text": "Then."}]}
    events: list[dict[str, Any]] = [
        {"type": "response.output_item.added", "output_index": 0,
         "item": {"type": "reasoning", "id": "rs_1", "summary": []}}]
    for number, text in enumerate(("First.", "Then.")):
        events.append({"type": "response.reasoning_summary_part.added", "output_index": 0,
                       "item_id": "rs_1", "summary_index": number,
                       "part": {"type": "summary_text", "text": ""}})
        events.append({"type": "response.reasoning_summary_text.delta", "output_index": 0,
                       "item_id": "rs_1", "summary_index": number, "delta": text})
    events.append({"type": "response.output_item.done", "output_index": 0, "item": item})
    streamed, result = read_all("openai_responses", events)
    whole = toolcalls.read_response({"object": "response", "output": [item]}, "openai_responses")
    assert result.reasoning == whole.reasoning == "First.\n\nThen."
    assert "".join(e.text for e in streamed if isinstance(e, ReasoningDelta)) == result.reasoning
    assert result.reasoning_blocks == [item]


def _added(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.added", "output_index": index, "item": item}


def _done(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.done", "output_index": index, "item": item}


def test_an_item_added_again_at_an_open_calls_index_cuts_that_call_off() -> None:
    first = {"type": "function_call", "call_id": "call_a", "name": "f", "arguments": ""}
    second = {"type": "function_call", "call_id": "call_b", "name": "g", "arguments": ""}
    events, result = read_all("openai_responses", [
        _added(0, first),
        {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": "{}"},
        _added(0, second),
        {"type": "response.function_call_arguments.delta", "output_index": 0,
         "delta": '{"b": 2}'},
        _done(0, {**second, "arguments": '{"b": 2}'})])
    check_event_promises(events, result)
    assert [(c.id, c.arguments) for c in result.calls] == [("call_b", {"b": 2})]
    assert [(i.name, i.raw) for i in result.incomplete] == [("f", "{}")]
    (issue,) = result.issues
    assert issue.kind == "truncated_call" and "call_a" in issue.message


def test_a_message_whose_index_had_streamed_text_is_read_from_its_done_item() -> None:
    message = {"type": "message", "role": "assistant", "content": []}
    whole = {**message, "content": [{"type": "output_text", "text": " second"}]}
    _, result = read_all("openai_responses", [
        _added(0, message),
        {"type": "response.output_text.delta", "output_index": 0, "delta": "first"},
        _done(0, {**message, "content": [{"type": "output_text", "text": "first"}]}),
        _added(0, message), _done(0, whole)], None)
    assert result.content == "first second"


def test_a_done_item_of_another_call_at_an_open_calls_index_is_read_as_its_own() -> None:
    first = {"type": "function_call", "call_id": "call_a", "name": "f", "arguments": ""}
    other = {"type": "function_call", "call_id": "call_b", "name": "g", "arguments": '{"b": 2}'}
    events, result = read_all("openai_responses", [
        _added(0, first),
        {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": "{"},
        _done(0, other)])
    check_event_promises(events, result)
    assert [(c.id, c.arguments) for c in result.calls] == [("call_b", {"b": 2})]
    assert [(i.name, i.raw) for i in result.incomplete] == [("f", "{")]
    assert [i.kind for i in result.issues] == ["truncated_call"]
