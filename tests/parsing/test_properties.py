"""Properties every format must hold, on arbitrary text and on mutated real outputs."""

from __future__ import annotations

import pytest
from corpus import load_cases
from helpers import assert_events_consistent, assert_lossless, stream_chunks
from hypothesis import given
from hypothesis import strategies as st

import toolcalls
from toolcalls.testing import chunkings, mutations, strings

FORMATS = toolcalls.list_formats()
CASES = load_cases()
SAMPLES: dict[str, list[str]] = {f: [c.text for c in CASES if c.format == f] for f in FORMATS}


def _markers(fmt: str) -> list[str]:
    return sorted(toolcalls.get_format(fmt).compiled_openers().factories, key=len)


def texts_for(fmt: str) -> st.SearchStrategy[str]:
    """Arbitrary text, texts built from the format's own markup, and mutated real outputs."""
    samples = SAMPLES.get(fmt) or ["hello"]
    mutated = st.sampled_from(samples).flatmap(lambda sample: mutations(sample, format=fmt))
    return st.one_of(st.text(max_size=60), strings(fmt, max_pieces=12), mutated,
                     st.sampled_from(samples))


def chunked(fmt: str) -> st.SearchStrategy[tuple[str, list[str]]]:
    """A text of `texts_for`, and a way a stream cuts it."""
    return texts_for(fmt).flatmap(lambda text: chunkings(text).map(lambda cut: (text, cut)))


@pytest.mark.parametrize("fmt", FORMATS)
def test_parse_never_raises_and_loses_nothing(fmt: str) -> None:
    @given(texts_for(fmt))
    def check(text: str) -> None:
        result = toolcalls.parse(text, fmt)
        assert_lossless(text, result)

    check()


@pytest.mark.parametrize("fmt", FORMATS)
def test_any_chunking_streams_to_the_batch_result(fmt: str) -> None:
    @given(chunked(fmt))
    def check(drawn: tuple[str, list[str]]) -> None:
        text, chunks = drawn
        batch = toolcalls.parse(text, fmt)
        events, streamed = stream_chunks(fmt, chunks)
        assert streamed == batch
        assert_events_consistent(events, streamed)

    check()


@pytest.mark.parametrize("fmt", FORMATS)
def test_one_char_deltas_equal_batch_on_real_outputs(fmt: str) -> None:
    for text in SAMPLES.get(fmt, [])[:40]:
        events, streamed = stream_chunks(fmt, list(text))
        assert streamed == toolcalls.parse(text, fmt)
        assert_events_consistent(events, streamed)


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_call_marker_leaks_into_text_deltas_of_clean_outputs(fmt: str) -> None:
    """Where the corpus expects calls and no marker in the content, none reaches TextDelta."""
    openers = [m for m in _markers(fmt) if len(m) > 2]
    for case in (c for c in CASES if c.format == fmt and c.row.get("kind") == "valid"):
        expected_content = case.row["expected"].get("content") or ""
        if any(m in expected_content for m in openers):
            continue
        events, result = stream_chunks(fmt, list(case.text), **case.options())
        if not result.calls:
            continue
        text = "".join(e.text for e in events if isinstance(e, toolcalls.TextDelta))
        leaked = [m for m in openers if m in text]
        assert not leaked, (case.id, leaked)

