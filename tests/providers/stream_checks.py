"""What every `read_stream` test checks: reading a recorded stream in pieces, the events'
own promises, and the pieces of SSE text."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import toolcalls
from toolcalls import ArgumentsDelta, Event, ToolCallEnd, ToolCallFailed, ToolCallStart

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "providers"


def read_all(provider: str, chunks: Iterable[Any], fmt: str | None = "auto"
             ) -> tuple[list[Event], toolcalls.ParseResult]:
    """Every event of `chunks` fed one by one, and the result."""
    parser = toolcalls.read_stream(provider, format=fmt)
    events: list[Event] = []
    for chunk in chunks:
        events += parser.feed(chunk)
    events += parser.close()
    assert parser.closed
    return events, parser.result()


def sse_json(text: str) -> list[dict[str, Any]]:
    """The JSON of each ``data:`` line but ``[DONE]``: the stream's events as dicts."""
    found = []
    for line in text.splitlines():
        if line.startswith("data:") and line[5:].strip() != "[DONE]":
            found.append(json.loads(line[5:]))
    return found


def split_at(text: str, cuts: Iterable[int]) -> Iterator[str]:
    """`text` cut at each of `cuts` (any order, repeats allowed)."""
    start = 0
    for cut in sorted(set(cuts)):
        yield text[start:cut]
        start = cut
    yield text[start:]

def ambiguous_with_lines(pieces: Iterable[str | bytes]) -> bool:
    """Whether a stream cut into `pieces` is one `WireDecoder` documents reading as two lines:
    before any piece holds a line break it reads pieces as ``iter_lines()`` gives them, so a
    piece after the first shaped like a line of its own (a field, an object that decodes) ends
    the line held before it. Which reading is meant cannot be told from the pieces."""
    for number, piece in enumerate(pieces):
        text = piece.decode("utf-8", "ignore") if isinstance(piece, bytes) else piece
        if "\n" in text or "\r" in text:
            return False
        if number and text and _shaped_like_a_line(text.removeprefix("\ufeff")):
            return True
    return False


def _shaped_like_a_line(text: str) -> bool:
    if text.startswith(("data:", "event:", "id:", "retry:")):
        return True
    try:
        return text.startswith("{") and isinstance(json.loads(text), dict)
    except ValueError:
        return False



def check_event_promises(events: list[Event], result: toolcalls.ParseResult) -> None:
    """Each call starts once and then ends (under the id and source it started with) or fails
    once; the fragments of a call that ends concatenate to JSON equal to its arguments; the
    ended calls are the result's calls."""
    fragments: dict[int, list[str]] = {}
    started: dict[int, ToolCallStart] = {}
    ended = []
    for event in events:
        if isinstance(event, ToolCallStart):
            assert event.index not in fragments
            fragments[event.index] = []
            started[event.index] = event
        elif isinstance(event, ArgumentsDelta):
            fragments[event.index].append(event.fragment)
        elif isinstance(event, ToolCallEnd):
            assert json.loads("".join(fragments.pop(event.index))) == event.call.arguments
            assert event.call.id == started[event.index].id, "a call ends under another id"
            assert event.call.source == started[event.index].source, "its source changed"
            ended.append(event.call)
        elif isinstance(event, ToolCallFailed) and event.index is not None:
            fragments.pop(event.index)
    assert fragments == {}, "a call started but never ended nor failed"
    assert sorted(ended, key=lambda c: c.id) == sorted(result.calls, key=lambda c: c.id)
    failed = [e.incomplete for e in events if isinstance(e, ToolCallFailed)]
    assert sorted(failed, key=repr) == sorted(result.incomplete, key=repr)
