"""`read_stream("anthropic")`: recorded Messages streams read in any grouping give the result
`read_response` gives for the assembled ``Message``; a tool_use cut by max_tokens fails."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from anthropic.types import RawMessageStreamEvent
from hypothesis import assume, given, settings
from hypothesis import strategies as st
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
from toolcalls import ArgumentsDelta, ReasoningDelta, ToolCallEnd, ToolCallFailed, ToolCallStart

STREAMS = sorted((FIXTURES / "anthropic").glob("*.sse"))
IDS = [path.stem for path in STREAMS]
EVENT = TypeAdapter(RawMessageStreamEvent)


def assemble(events: list[dict[str, Any]]) -> tuple[dict[str, Any], list[str]]:
    """The ``Message`` the events make, built here independently of the library, and the ids
    of the tool_use blocks never stopped (left out of it: their input is cut)."""
    message: dict[str, Any] = {}
    blocks: dict[int, dict[str, Any]] = {}
    partial: dict[int, str] = {}
    stopped: set[int] = set()
    for event in events:
        kind = event["type"]
        if kind == "message_start":
            message = copy.deepcopy(event["message"])
        elif kind == "content_block_start":
            blocks[event["index"]] = copy.deepcopy(event["content_block"])
        elif kind == "content_block_delta":
            block, delta = blocks[event["index"]], event["delta"]
            if delta["type"] == "text_delta":
                block["text"] += delta["text"]
            elif delta["type"] == "thinking_delta":
                block["thinking"] += delta["thinking"]
            elif delta["type"] == "signature_delta":
                block["signature"] += delta["signature"]
            elif delta["type"] == "input_json_delta":
                partial[event["index"]] = partial.get(event["index"], "") + delta["partial_json"]
        elif kind == "content_block_stop":
            stopped.add(event["index"])
            if partial.get(event["index"]):
                blocks[event["index"]]["input"] = json.loads(partial[event["index"]])
        elif kind == "message_delta":
            message["stop_reason"] = event["delta"].get("stop_reason")
            message["usage"] = {**message.get("usage", {}), **event.get("usage", {})}
    cut = [b["id"] for i, b in blocks.items() if b["type"] == "tool_use" and i not in stopped]
    message["content"] = [blocks[i] for i in sorted(blocks) if blocks[i].get("id") not in cut]
    return message, cut


def _sdk(event: dict[str, Any]) -> Any:
    try:
        return EVENT.validate_python(event)
    except ValidationError:  # a newer event or block than this SDK knows: as a dict
        return event


@pytest.mark.parametrize("path", STREAMS, ids=IDS)
@pytest.mark.parametrize("fmt", ["auto", None, "hermes"])
def test_a_recorded_stream_reads_as_its_assembled_message(path: Path, fmt: str | None) -> None:
    text = path.read_text(encoding="utf-8")
    events, result = read_all("anthropic", [path.read_bytes()], fmt)
    check_event_promises(events, result)
    message, cut = assemble(sse_json(text))
    whole = toolcalls.read_response(message, "anthropic", format=fmt)
    assert [i.name for i in result.incomplete[len(whole.incomplete):]] == [
        "make_file" for _ in cut]
    truncated = [i for i in result.issues if i.kind == "truncated_call"]
    assert len(truncated) == len(cut)
    assert result.model_copy(update={
        "incomplete": result.incomplete[:len(whole.incomplete)],
        "issues": [i for i in result.issues if i.kind != "truncated_call"]}) == whole
    assert read_all("anthropic", sse_json(text), fmt) == (events, result)
    assert read_all("anthropic", [_sdk(e) for e in sse_json(text)], fmt) == (events, result)


@pytest.mark.parametrize("path", STREAMS, ids=IDS)
@settings(max_examples=40, deadline=None)
@given(cuts=st.lists(st.floats(0, 1), max_size=12), as_bytes=st.booleans(), crlf=st.booleans())
def test_any_split_of_the_sse_text_gives_the_same_events(
    path: Path, cuts: list[float], as_bytes: bool, crlf: bool
) -> None:
    text = path.read_text(encoding="utf-8")
    expected = read_all("anthropic", [text])
    if crlf:
        text = text.replace("\n", "\r\n")
    raw: str | bytes = text.encode() if as_bytes else text
    pieces = list(split_at(raw, [int(cut * len(raw)) for cut in cuts]))  # type: ignore[arg-type]
    assume(not ambiguous_with_lines(pieces))  # see the decoder's docstring
    assert read_all("anthropic", pieces) == expected


def _read(name: str) -> tuple[list[toolcalls.Event], toolcalls.ParseResult]:
    return read_all("anthropic", [(FIXTURES / "anthropic" / name).read_bytes()])


def test_the_tool_use_cut_by_max_tokens_fails() -> None:
    events, result = _read("claude37_tool_use_cut_by_max_tokens.sse")
    assert result.calls == [] and result.finish_reason == "max_tokens"
    failed = [e for e in events if isinstance(e, ToolCallFailed)]
    assert [(e.index, e.incomplete.name) for e in failed] == [(0, "make_file")]
    assert failed[0].incomplete.raw.startswith('{"filename": "taxes.txt"')
    assert [i.kind for i in result.issues] == ["truncated_call"]
    assert result.usage is not None and result.usage["output_tokens"] == 124


def test_a_call_ends_at_its_content_block_stop() -> None:
    events = sse_json((FIXTURES / "anthropic" / "claude_sonnet4_text_and_tool_use.sse")
                      .read_text(encoding="utf-8"))
    parser = toolcalls.read_stream("anthropic")
    for event in events:
        out = parser.feed(event)
        ended = [e for e in out if isinstance(e, ToolCallEnd)]
        assert bool(ended) == (event["type"] == "content_block_stop" and event["index"] == 1)
        if event["type"] == "content_block_start" and event["content_block"]["type"] == "tool_use":
            assert [type(e) for e in out] == [ToolCallStart]
        if event.get("delta", {}).get("type") == "input_json_delta" and event["delta"][
                "partial_json"]:
            assert out == [ArgumentsDelta(0, event["delta"]["partial_json"])]


def test_thinking_streams_as_reasoning_with_its_signature_kept() -> None:
    events, result = _read("claude_sonnet46_thinking_code_execution.sse")
    reasoning = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
    assert reasoning and reasoning == result.reasoning
    assert result.reasoning_blocks is not None
    thinking = [b for b in result.reasoning_blocks if b["type"] == "thinking"]
    assert thinking and all(b["signature"] for b in thinking)


def test_server_tools_are_not_calls() -> None:
    for name in ("constructed_server_tool_use_input_json.sse",
                 "claude_sonnet5_thinking_advisor_server_tool.sse"):
        events, result = _read(name)
        assert result.calls == [] and result.incomplete == []
        assert not [e for e in events if isinstance(e, ToolCallStart)]
        assert [i.kind for i in result.issues] == ["server_tool_call"]


@pytest.mark.parametrize("path", STREAMS, ids=IDS)
def test_lines_without_their_newline_read_as_the_whole_text(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert read_all("anthropic", text.splitlines()) == read_all("anthropic", [text])


def _block_start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def _input(index: int, partial: str) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index,
            "delta": {"type": "input_json_delta", "partial_json": partial}}


def test_a_block_started_again_at_an_open_calls_index_cuts_that_call_off() -> None:
    events, result = read_all("anthropic", [
        {"type": "message_start", "message": {"model": "claude-sonnet-4", "usage": {}}},
        _block_start(0, {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}),
        _input(0, '{"a": 1}'),
        _block_start(0, {"type": "tool_use", "id": "toolu_2", "name": "g", "input": {}}),
        _input(0, '{"b": 2}'),
        {"type": "content_block_stop", "index": 0}])
    check_event_promises(events, result)
    assert [(c.id, c.arguments) for c in result.calls] == [("toolu_2", {"b": 2})]
    assert [(i.name, i.raw) for i in result.incomplete] == [("f", '{"a": 1}')]
    (issue,) = result.issues
    assert issue.kind == "truncated_call" and "toolu_1" in issue.message
    assert "block 0 started again" in issue.message


def test_a_thinking_block_whose_index_starts_again_is_kept() -> None:
    _, result = read_all("anthropic", [
        _block_start(0, {"type": "thinking", "thinking": "first", "signature": ""}),
        _block_start(0, {"type": "thinking", "thinking": "second", "signature": ""}),
        {"type": "content_block_stop", "index": 0}])
    assert [block["thinking"] for block in result.reasoning_blocks or []] == ["first", "second"]
