"""`read_stream("gemini")`: recorded Gemini streams read in any grouping give the result
`read_response` gives for the assembled ``GenerateContentResponse`` (the parts joined)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from google.genai.types import GenerateContentResponse
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from stream_checks import (
    FIXTURES,
    ambiguous_with_lines,
    check_event_promises,
    read_all,
    split_at,
    sse_json,
)

import toolcalls
from toolcalls import ToolCallEnd, ToolCallStart

STREAMS = sorted((FIXTURES / "gemini").glob("*.sse"))
IDS = [path.stem for path in STREAMS]


def assemble(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """One response holding every chunk's parts in order, the last finish reason and usage."""
    whole: dict[str, Any] = {"candidates": [{"content": {"role": "model", "parts": []}}]}
    for chunk in chunks:
        for key in ("modelVersion", "usageMetadata"):
            if key in chunk:
                whole[key] = chunk[key]
        candidate = chunk["candidates"][0]
        whole["candidates"][0]["content"]["parts"] += copy.deepcopy(
            candidate.get("content", {}).get("parts", []))
        if "finishReason" in candidate:
            whole["candidates"][0]["finishReason"] = candidate["finishReason"]
    return whole


@pytest.mark.parametrize("path", STREAMS, ids=IDS)
@pytest.mark.parametrize("fmt", ["auto", None, "hermes"])
def test_a_recorded_stream_reads_as_its_assembled_response(path: Path, fmt: str | None) -> None:
    chunks = sse_json(path.read_text(encoding="utf-8"))
    events, result = read_all("gemini", [path.read_bytes()], fmt)
    check_event_promises(events, result)
    assert result == toolcalls.read_response(assemble(chunks), "gemini", format=fmt)
    assert read_all("gemini", chunks, fmt) == (events, result)
    # The SDK's objects: the same, signatures too (it holds them as bytes and dumps them
    # base64url-encoded; they are kept in standard base64, as the API sends them).
    sdk = [GenerateContentResponse.model_validate(chunk) for chunk in chunks]
    assert read_all("gemini", sdk, fmt) == (events, result)


@pytest.mark.parametrize("path", STREAMS, ids=IDS)
@settings(max_examples=30, deadline=None)
@given(cuts=st.lists(st.floats(0, 1), max_size=12), as_bytes=st.booleans())
def test_any_split_of_the_sse_text_gives_the_same_events(
    path: Path, cuts: list[float], as_bytes: bool
) -> None:
    text = path.read_text(encoding="utf-8")
    expected = read_all("gemini", [text])
    raw: str | bytes = text.encode() if as_bytes else text
    pieces = list(split_at(raw, [int(cut * len(raw)) for cut in cuts]))  # type: ignore[arg-type]
    assume(not ambiguous_with_lines(pieces))  # see the decoder's docstring
    assert read_all("gemini", pieces) == expected


def test_a_function_call_part_starts_and_ends_in_its_chunk() -> None:
    path = FIXTURES / "gemini" / "gemini3pro_function_call_thought_signature.sse"
    chunks = sse_json(path.read_text(encoding="utf-8"))
    parser = toolcalls.read_stream("gemini")
    kinds = [type(e) for e in parser.feed(chunks[0])]
    assert kinds[0] is ToolCallStart and kinds[-1] is ToolCallEnd
    parser.feed(chunks[1])
    parser.close()
    blocks = parser.result().reasoning_blocks
    assert blocks and "functionCall" in blocks[0] and blocks[0]["thoughtSignature"]


def test_the_text_of_a_part_that_also_holds_a_call_streams_before_it() -> None:
    chunks = [{"candidates": [{"content": {"role": "model", "parts": [
        {"text": "Checking. ", "functionCall": {"name": "f", "args": {"a": 1}}}]}}]},
        {"candidates": [{"content": {"role": "model", "parts": [
            {"text": "Done.", "thought": True, "functionCall": {"name": "g", "args": {}}}]},
            "finishReason": "STOP"}]}]
    events, result = read_all("gemini", chunks, None)
    check_event_promises(events, result)
    assert result == toolcalls.read_response(assemble(chunks), "gemini", format=None)
    assert result.content == "Checking. " and result.reasoning == "Done."
    assert [type(e).__name__ for e in events][:2] == ["TextDelta", "ToolCallStart"]
    assert [c.name for c in result.calls] == ["f", "g"]
