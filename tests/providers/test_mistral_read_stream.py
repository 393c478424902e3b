"""`read_stream("mistral")`: Mistral's recorded and constructed streams, read in any grouping
and as the SDK's objects, give what `read_response` gives for the assembled response."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from mistralai.client.models import CompletionChunk, CompletionEvent
from stream_checks import (
    FIXTURES,
    ambiguous_with_lines,
    check_event_promises,
    read_all,
    split_at,
    sse_json,
)

import toolcalls
from toolcalls.cli._main import main

STREAMS = sorted((FIXTURES / "mistral").glob("*.sse"))
IDS = [path.stem for path in STREAMS]


def assemble(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """The whole response the chunks make: the thinking and the text joined, the calls."""
    thinking, text, calls = "", "", []
    for chunk in chunks:
        delta = chunk["choices"][0]["delta"]
        content = delta.get("content")
        if isinstance(content, str):
            text += content
        for part in content if isinstance(content, list) else []:
            thinking += "".join(piece["text"] for piece in part["thinking"])
        calls += delta.get("tool_calls") or []
    content_chunks: list[Any] = [{"type": "thinking", "thinking": [
        {"type": "text", "text": thinking}]}] if thinking else []
    message = {"role": "assistant", "tool_calls": calls or None,
               "content": [*content_chunks, {"type": "text", "text": text}] if thinking else text}
    last = chunks[-1]
    return {"id": last["id"], "object": "chat.completion", "model": last["model"],
            "created": last["created"], "usage": last["usage"],
            "choices": [{"index": 0, "message": message,
                         "finish_reason": last["choices"][0]["finish_reason"]}]}


@pytest.mark.parametrize("path", STREAMS, ids=IDS)
@pytest.mark.parametrize("fmt", ["auto", None])
def test_a_stream_reads_as_its_assembled_response(path: Path, fmt: str | None) -> None:
    chunks = sse_json(path.read_text(encoding="utf-8"))
    events, result = read_all("mistral", [path.read_bytes()], fmt)
    check_event_promises(events, result)
    assert result == toolcalls.read_response(assemble(chunks), "mistral", format=fmt)
    assert read_all("mistral", chunks, fmt) == (events, result)
    sdk = [CompletionChunk.model_validate(chunk) for chunk in chunks]
    assert read_all("mistral", sdk, fmt) == (events, result)
    wrapped = [CompletionEvent(data=chunk) for chunk in sdk]  # as client.chat.stream yields
    assert read_all("mistral", wrapped, fmt) == (events, result)


def test_the_streamed_thinking_is_the_reasoning() -> None:
    _, result = read_all("mistral", [(FIXTURES / "mistral" / "magistral_medium_thinking.sse")
                                     .read_text(encoding="utf-8")])
    assert result.reasoning is not None and result.reasoning.startswith("Okay, the user")
    assert result.content.startswith("To cross the street") or result.content
    assert result.issues == [] and result.finish_reason == "stop"


def test_a_call_whole_in_its_finishing_chunk_ends_there() -> None:
    events, result = read_all("mistral", [(FIXTURES / "mistral" /
                                           "constructed_tool_call_stream.sse").read_bytes()])
    assert [(c.id, c.name, c.arguments) for c in result.calls] == [
        ("uKCZB9XEy", "CodeRetriever", {"file": "main.rs"})]
    assert result.usage == {"prompt_tokens": 388, "total_tokens": 401, "completion_tokens": 13}


def test_an_error_event_in_mistrals_shape_fails_the_open_call() -> None:
    start = {"id": "a", "model": "m", "choices": [{"index": 0, "delta": {"tool_calls": [
        {"id": "abcdefghi", "function": {"name": "f", "arguments": '{"x": 1'}, "index": 0}]},
        "finish_reason": None}]}
    error = {"object": "error", "message": "overloaded", "type": "service_tier_capacity_exceeded",
             "param": None, "code": "3505"}
    _, result = read_all("mistral", [start, error])
    assert result.calls == [] and result.finish_reason == "error"
    assert [issue.kind for issue in result.issues] == ["provider_error", "truncated_call"]


@pytest.mark.parametrize("path", STREAMS, ids=IDS)
@settings(max_examples=20, deadline=None)
@given(cuts=st.lists(st.floats(0, 1), max_size=12), as_bytes=st.booleans())
def test_any_split_of_the_sse_gives_the_same_events(
    path: Path, cuts: list[float], as_bytes: bool
) -> None:
    text = path.read_text(encoding="utf-8")
    expected = read_all("mistral", [text])
    raw: str | bytes = text.encode() if as_bytes else text
    pieces = list(split_at(raw, [int(cut * len(raw)) for cut in cuts]))  # type: ignore[arg-type]
    assume(not ambiguous_with_lines(pieces))  # see the decoder's docstring
    assert read_all("mistral", pieces) == expected


def test_the_cli_reads_a_captured_stream_as_mistrals_when_told(
    capsys: pytest.CaptureFixture[str]
) -> None:
    saved = FIXTURES / "mistral" / "magistral_medium_thinking.sse"
    assert main(["read", str(saved), "--provider", "mistral"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads(read_all("mistral", [saved.read_text(encoding="utf-8")])[1]
                                 .model_dump_json())
    assert printed["provider"] == "mistral" and printed["reasoning"]
