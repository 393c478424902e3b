"""`read_stream("ollama")`: the ``/api/chat`` NDJSON streams read in any grouping give the
result `read_response` gives for the assembled ``ChatResponse``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from ollama import ChatResponse
from stream_checks import FIXTURES, ambiguous_with_lines, check_event_promises, read_all, split_at

import toolcalls

STREAMS = sorted((FIXTURES / "ollama").glob("*.ndjson"))
IDS = [path.stem for path in STREAMS]


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def assemble(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """The last line, its message holding every line's content, thinking and calls."""
    whole = dict(lines[-1])
    message: dict[str, Any] = {"role": "assistant", "content": "", "thinking": "",
                               "tool_calls": []}
    for line in lines:
        part = line.get("message", {})
        message["content"] += part.get("content") or ""
        message["thinking"] += part.get("thinking") or ""
        message["tool_calls"] += part.get("tool_calls") or []
    whole["message"] = message
    return whole


@pytest.mark.parametrize("path", STREAMS, ids=IDS)
@pytest.mark.parametrize("fmt", ["auto", None, "hermes"])
def test_a_stream_reads_as_its_assembled_response(path: Path, fmt: str | None) -> None:
    lines = _lines(path)
    events, result = read_all("ollama", [path.read_bytes()], fmt)
    check_event_promises(events, result)
    assert result == toolcalls.read_response(assemble(lines), "ollama", format=fmt)
    assert read_all("ollama", lines, fmt) == (events, result)
    sdk = [ChatResponse.model_validate(line) for line in lines]
    assert read_all("ollama", sdk, fmt) == (events, result)


@pytest.mark.parametrize("path", STREAMS, ids=IDS)
@settings(max_examples=30, deadline=None)
@given(cuts=st.lists(st.floats(0, 1), max_size=12), as_bytes=st.booleans())
def test_any_split_of_the_ndjson_gives_the_same_events(
    path: Path, cuts: list[float], as_bytes: bool
) -> None:
    text = path.read_text(encoding="utf-8")
    expected = read_all("ollama", [text])
    raw: str | bytes = text.encode() if as_bytes else text
    pieces = list(split_at(raw, [int(cut * len(raw)) for cut in cuts]))  # type: ignore[arg-type]
    assume(not ambiguous_with_lines(pieces))  # see the decoder's docstring
    assert read_all("ollama", pieces) == expected


@pytest.mark.parametrize("path", STREAMS, ids=IDS)
def test_lines_without_their_newline_read_as_the_whole_text(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert read_all("ollama", text.splitlines()) == read_all("ollama", [text])
