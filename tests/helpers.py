"""Shared checks: losslessness, streaming in chunks, event folding."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Coroutine
from typing import Any, TypeVar

import toolcalls
from toolcalls import (
    ArgumentsDelta,
    ParseResult,
    ReasoningDelta,
    TextDelta,
    ToolCallEnd,
    ToolCallFailed,
    ToolCallStart,
)
from toolcalls.testing import split_at

__all__ = ["assert_events_consistent", "assert_lossless", "checked", "random_chunks",
           "run_on_own_loop", "split_at", "stream_chunks"]


T = TypeVar("T")


def assert_lossless(text: str, result: ParseResult) -> None:
    """The segments tile the text, and content/reasoning are exactly their segments' text."""
    position = 0
    for kind, start, end in result.segments:
        assert start == position and end > start, (kind, start, end, position)
        position = end
    assert position == len(text), f"segments end at {position}, text has {len(text)}"
    pieces: dict[str, list[str]] = {"content": [], "reasoning": []}
    for kind, start, end in result.segments:
        if kind in pieces:
            pieces[kind].append(text[start:end])
    assert "".join(pieces["content"]) == result.content
    assert "".join(pieces["reasoning"]) == (result.reasoning or "")
    for call in result.calls:
        assert (("call", *call.span)) in result.segments
    for incomplete in result.incomplete:
        assert text[incomplete.span[0] : incomplete.span[1]] == incomplete.raw


def stream_chunks(fmt: str, chunks: list[str], **options: Any) -> tuple[list[Any], ParseResult]:
    parser = toolcalls.stream(fmt, **options)
    events: list[Any] = []
    for chunk in chunks:
        events.extend(parser.feed(chunk))
    events.extend(parser.close())
    return events, parser.result()


def random_chunks(text: str, seed: int) -> list[str]:
    rng = random.Random(seed)
    cuts = [rng.randrange(len(text) + 1) for _ in range(rng.randrange(1, 12))] if text else []
    return split_at(text, cuts)


def assert_events_consistent(events: list[Any], result: ParseResult) -> None:
    """Events fold to the result: text, reasoning, and per-call argument JSON."""
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert text == result.content
    reasoning = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
    assert reasoning == (result.reasoning or "")
    started: dict[int, str] = {}
    fragments: dict[int, list[str]] = {}
    ended = []
    for event in events:
        if isinstance(event, ToolCallStart):
            assert event.index not in started, "a call index was announced twice"
            started[event.index] = event.id
            fragments[event.index] = []
        elif isinstance(event, ArgumentsDelta):
            assert event.index in started and event.index not in ended
            fragments[event.index].append(event.fragment)
        elif isinstance(event, ToolCallEnd):
            assert event.call.id == started[event.index], "the id changed after the start"
            joined = "".join(fragments[event.index])
            assert json.loads(joined) == event.call.arguments, joined
            ended.append(event.index)
        elif isinstance(event, ToolCallFailed) and event.index is not None:
            ended.append(event.index)
    assert [e.call for e in events if isinstance(e, ToolCallEnd)] == result.calls
    failed = [e.incomplete for e in events if isinstance(e, ToolCallFailed)]
    assert failed == result.incomplete


def checked(fmt: str, text: str, **options: Any) -> ParseResult:
    """The batch result, after checking that it is lossless and that every chunking (one
    character at a time, every 2-way split) streams to it with consistent events."""
    batch = toolcalls.parse(text, fmt, **options)
    assert_lossless(text, batch)
    chunkings = [list(text)] + [[text[:cut], text[cut:]] for cut in range(1, len(text))]
    for chunks in chunkings:
        events, streamed = stream_chunks(fmt, chunks, **options)
        assert streamed == batch, chunks
        assert_events_consistent(events, streamed)
        failed = [event for event in events if isinstance(event, ToolCallFailed)]
        assert [event.incomplete for event in failed] == batch.incomplete
    return batch


def run_on_own_loop(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run `coroutine` on a loop of its own, closed after. Not `asyncio.run`: that replaces the
    main thread's current loop (one a library made with `get_event_loop()`), which is then
    collected unclosed, a ResourceWarning pytest turns into an error at the session's end."""
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(coroutine)
    finally:
        loop.close()
