"""Pythonic calls read as they arrive (`_pythonic_stream`): string values stream, the rest waits.

The streaming reader decodes string literals piece by piece, so an escape, a CR LF or a run of
quotes may be split across deltas anywhere. Whatever the split, the value must be what Python
reads from the literal, and the stream must end where the whole-text parse does.
"""

from __future__ import annotations

import ast
import json

from helpers import checked
from hypothesis import given
from hypothesis import strategies as st

import toolcalls
from toolcalls import ArgumentsDelta, ToolCallStart

ATOMS = [
    "a", "é", " ", ",", ")", "]", "(", "=", '"', "'", '""', "''", "\n", "\r", "\r\n",
    "\\", "\\n", "\\x41", "\\x4", "\\u00e9", "\\U0001D11E", "\\N{BULLET}", "\\N{", "\\101",
    "\\7", "\\q", "\\\r\n", "\\\n", "\\'", '\\"',
]
literals = st.tuples(
    st.sampled_from(["", "r", "u", "R"]),
    st.sampled_from(['"', "'", '"""', "'''"]),
    st.lists(st.sampled_from(ATOMS), max_size=6).map("".join),
)


def _python_reads(literal: str) -> object:
    """What Python makes of the literal, or None where Python refuses it."""
    try:
        return ast.literal_eval(literal)
    except (SyntaxError, ValueError):
        return None


@given(literals)
def test_a_string_value_streams_to_what_the_whole_text_reads(literal: tuple[str, str, str]) -> None:
    prefix, quote, body = literal
    text = f"[f(a=1, s={prefix}{quote}{body}{quote}, b=[1])]"
    result = checked("pythonic", text)  # every chunking, events folded, lossless
    # Python refuses line ends in a short string (models write them; we read them as text)
    # and translates CRs in source, so only the rest is compared with Python directly.
    if result.calls and "\r" not in body and ("\n" not in body or len(quote) == 3):
        expected = _python_reads(prefix + quote + body + quote)
        if expected is not None:
            assert result.calls[0].arguments["s"] == expected


def test_a_long_string_value_is_emitted_while_it_arrives() -> None:
    parser = toolcalls.stream("pythonic")
    events = parser.feed('Sure. [search(query="')
    for _ in range(250):
        events += parser.feed("abcd")
    assert any(isinstance(event, ToolCallStart) for event in events)
    fragments = "".join(e.fragment for e in events if isinstance(e, ArgumentsDelta))
    assert fragments.startswith('{"query": "')
    assert fragments.count("abcd") == 250  # nothing of the open string is held back
    events += parser.feed('", limit=3)]')
    events += parser.close()
    fragments = "".join(e.fragment for e in events if isinstance(e, ArgumentsDelta))
    assert json.loads(fragments) == {"query": "abcd" * 250, "limit": 3}


def test_a_non_string_value_is_emitted_only_once_it_is_complete() -> None:
    parser = toolcalls.stream("pythonic")
    events = parser.feed('[f(s="x", n=12')
    fragments = "".join(e.fragment for e in events if isinstance(e, ArgumentsDelta))
    assert "12" not in fragments  # 12 could still become 123
    events = parser.feed("3)]") + parser.close()
    fragments += "".join(e.fragment for e in events if isinstance(e, ArgumentsDelta))
    assert json.loads(fragments) == {"s": "x", "n": 123}


def test_an_error_after_a_string_streamed_fails_only_that_call() -> None:
    result = checked("pythonic", '[f(a=1), g(b="x" + "y"), h()]')
    assert [call.name for call in result.calls] == ["f"]
    assert [call.name for call in result.incomplete] == ["g"]
    assert [issue.kind for issue in result.issues] == ["malformed_call"]
    assert result.content == '+ "y"), h()]'
