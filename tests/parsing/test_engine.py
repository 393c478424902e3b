"""The engine's text handling: long streams, the held-back tail, the opener search.

The golden and property texts are a few hundred characters; the buffer only drops consumed text
once thousands of characters have gone by, so long texts are checked here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import assert_events_consistent, assert_lossless, random_chunks, stream_chunks
from hypothesis import given
from hypothesis import strategies as st

import toolcalls
from toolcalls.parsing._engine import Engine, _OpenerSearch
from toolcalls.parsing.reader import Openers, holdback

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
FORMATS = toolcalls.list_formats()


def _long_text(fmt: str) -> str:
    """The format's golden responses, repeated between stretches of prose: > 12,000 chars.

    Unclosed calls among them hold back all the text after them, across many feeds."""
    responses = [p.read_text() for p in sorted((FIXTURES / fmt).glob("*.txt"))]
    prose = "Here is some prose that mentions nothing special. " * 20
    text = ""
    while len(text) < 12_000:
        text += "\n\n".join([prose, *responses, prose])
    return text


@pytest.mark.parametrize("fmt", FORMATS)
def test_long_streams_in_small_deltas_give_the_batch_result(fmt: str) -> None:
    text = _long_text(fmt)
    batch = toolcalls.parse(text, fmt)
    assert_lossless(text, batch)
    for chunks in ([text[i : i + 7] for i in range(0, len(text), 7)], random_chunks(text, 3)):
        events, streamed = stream_chunks(fmt, chunks)
        assert streamed == batch
        assert_events_consistent(events, streamed)


def _tail_by_definition(buf: str, start: int, prefixes: frozenset[str], longest: int) -> int:
    """The longest tail of ``buf[start:]`` (at most `longest` chars) that is in `prefixes`."""
    for size in range(min(longest, len(buf) - start), 0, -1):
        if buf[len(buf) - size :] in prefixes:
            return len(buf) - size
    return len(buf)


MARKERS = ["</parameter>", "<tool_call>", "```", "<｜tool▁call▁end｜>", "\n</x>", "[TOOL_CALLS]"]
pieces = st.sampled_from(["a", "<", "/", "`", "\n", "</par", "<｜tool", "[TOOL", "x>", " "])


@given(st.lists(st.sampled_from(MARKERS), max_size=3), st.lists(pieces, max_size=10),
       st.integers(0, 40))
def test_holdback_keeps_exactly_the_tail_that_may_begin_a_marker(
    markers: list[str], parts: list[str], start: int
) -> None:
    buf = "".join(parts)
    start = min(start, len(buf))
    prefixes = frozenset(m[:size] for m in markers for size in range(1, len(m)))
    longest = max((len(m) for m in markers), default=1)
    expected = _tail_by_definition(buf, start, prefixes, longest)
    assert holdback(buf, start, prefixes, longest) == expected


@pytest.mark.parametrize("fmt", FORMATS)
def test_opener_search_finds_what_the_opener_regex_finds(fmt: str) -> None:
    openers: Openers = toolcalls.get_format(fmt).compiled_openers()
    markers = sorted(openers.factories)

    @given(st.lists(st.one_of(st.sampled_from(markers), st.text(max_size=6)), max_size=8),
           st.integers(0, 80))
    def check(parts: list[str], pos: int) -> None:
        buf = "".join(parts)
        pos = min(pos, len(buf))
        found, expected = openers.search(buf, pos), openers.pattern.search(buf, pos)
        assert (found and found.span()) == (expected and expected.span())

    check()


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_opener_search_that_remembers_finds_what_the_regex_finds(fmt: str) -> None:
    """`_OpenerSearch` keeps what it learned between searches (where each first character is
    or is not, where no opener starts); on a text that grows and a position that only moves
    on, with the consumed text dropped now and then, it finds what a fresh regex search finds."""
    openers: Openers = toolcalls.get_format(fmt).compiled_openers()
    markers = sorted(openers.factories)

    @given(st.lists(st.one_of(st.sampled_from(markers), st.text(max_size=6)), max_size=8),
           st.lists(st.tuples(st.integers(0, 12), st.integers(0, 8), st.booleans()), max_size=12))
    def check(parts: list[str], steps: list[tuple[int, int, bool]]) -> None:
        text = "".join(parts)
        search, off, pos, end = _OpenerSearch(openers), 0, 0, 0
        for grow, advance, drop in steps:
            end = min(len(text), end + grow)
            pos = min(end, pos + advance)
            if drop:  # the engine drops consumed text: buffer indexes shift, offsets do not
                off = pos
            buf = text[off:end]
            found = search.search(buf, pos - off, off)
            expected = openers.pattern.search(buf, pos - off)
            assert (found and found.span()) == (expected and expected.span())
            if found is not None:
                pos = min(end, off + found.start())

    check()


def _scanned(fmt: str, text: str, delta: int | None) -> int:
    """Characters the engine searched for openers and closing markers, parsing `text` whole
    (`delta` None) or streaming it in `delta`-character pieces."""
    parser = Engine(toolcalls.get_format(fmt))
    for start in range(0, len(text), delta or len(text)):
        parser.feed(text[start : start + (delta or len(text))])
    parser.close()
    return parser._search.scanned + parser._found_scanned


@pytest.mark.parametrize(
    ("fmt", "text", "delta"),
    [
        ("hermes", "a" + " " * 8000, 4),  # blanks held before a possible opener, each delta
        ("gpt_oss", "a" + "\n" * 8000, 4),
        ("mistral", '[TOOL_CALLS]f[ARGS]{"a": 1}\n' * 400, None),  # no "<" or "`" in the text
        ("pythonic", '[f(a="b")]\n' * 800, None),
        ("hermes", "<tool_response>x\n" * 500, None),  # closing markers that never come
        ("kimi_k2", "<|im_system|>" * 600, None),
        ("deepseek_v3", "<｜tool▁output▁begin｜>x" * 400, 4),
    ],
    ids=["blanks", "newlines", "mistral_calls", "pythonic_calls", "results", "im_system",
         "outputs"],
)
def test_no_text_is_searched_for_markers_again_and_again(fmt: str, text: str, delta: int | None,
                                                         ) -> None:
    """Linear time, checked without a clock: the characters searched for openers and closing
    markers stay within a few times the text, whole or streamed (each of these was quadratic:
    the search rescanned the rest of the text per opener or per delta). bench/complexity.py
    measures the time itself."""
    assert _scanned(fmt, text, delta) <= 4 * len(text)


def test_a_reader_holding_a_long_block_across_many_feeds_keeps_every_offset() -> None:
    """A pythonic list is held whole until it parses: 20,000 chars arrive while it is open."""
    long_value = "x" * 20_000
    text = "Intro. " * 800 + f'[write_file(path="a.txt", content="{long_value}")] Done. ' * 2
    batch = toolcalls.parse(text, "pythonic")
    assert [call.arguments["content"] for call in batch.calls] == [long_value, long_value]
    events, streamed = stream_chunks("pythonic", re.findall(r".{1,5}", text, re.S))
    assert streamed == batch
    assert_events_consistent(events, streamed)


def test_the_final_result_of_a_batch_parse_owns_its_lists() -> None:
    """`take_result` hands the parser's lists over instead of copying them: only after `close`,
    and the result equals the copied `result()`."""
    fmt = toolcalls.get_format("hermes")
    parser = Engine(fmt)
    parser.feed('<tool_call>{"name": "f", "arguments": {}}</tool_call>')
    with pytest.raises(RuntimeError, match="before close"):
        parser.take_result()
    parser.close()
    assert parser.take_result() == parser.result()
    assert [call.name for call in parser.take_result().calls] == ["f"]


def test_a_tool_list_changed_between_parses_is_read_again() -> None:
    """The engine reuses the last tools' table by name only while the list holds the very same
    `Tool` objects: a tool added, removed or replaced in the same list counts at once."""
    text = '<tool_call>{"name": "g", "arguments": {}}</tool_call>'
    tools = toolcalls.to_tools([{"name": "f", "parameters": {"type": "object"}}])
    assert [i.kind for i in toolcalls.parse(text, "hermes", tools=tools).issues] == ["unknown_tool"]
    tools.append(toolcalls.to_tools([{"name": "g", "parameters": {"type": "object"}}])[0])
    fmt = toolcalls.get_format("hermes")
    assert fmt.parse(text, tools=tools).issues == []
    tools[1] = toolcalls.to_tools([{"name": "h", "parameters": {"type": "object"}}])[0]
    assert [i.kind for i in fmt.parse(text, tools=tools).issues] == ["unknown_tool"]
    assert fmt.parse(text, tools=()).issues == []
