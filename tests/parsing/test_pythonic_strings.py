"""String values of pythonic calls read exactly as Python reads them (`_pythonic_body`).

Plain bodies are taken as they are, without asking Python; this checks that shortcut against
``ast.literal_eval`` on the characters where the two could part: raw newlines and carriage
returns, NUL, lone surrogates, tabs, quotes of the other kind, non-ASCII.
"""

from __future__ import annotations

import ast

import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolcalls
from toolcalls.parsing.formats._pythonic_body import PythonicSyntaxError, parse_pythonic_calls

CHARACTERS = ["a", " ", "\t", "\n", "\r", "\x00", "\ud800", "\udfff", "é", "𝄞", "'", "\x0c"]
bodies = st.text(st.sampled_from(CHARACTERS), max_size=12)


@given(bodies)
@pytest.mark.parametrize("quote", ['"', '"""'])
def test_a_string_value_is_what_python_reads(quote: str, body: str) -> None:
    try:
        expected: object = ast.literal_eval('"""' + body + '"""')  # short strings: newlines ok
    except (SyntaxError, ValueError):
        expected = PythonicSyntaxError
    try:
        got: object = parse_pythonic_calls(f"[f(a={quote}{body}{quote})]")[0][1]["a"]
    except PythonicSyntaxError:
        got = PythonicSyntaxError
    assert got == expected


def test_the_escapes_read_without_python_are_what_python_reads() -> None:
    from toolcalls.parsing.formats._pythonic_stream import _SIMPLE_ESCAPES

    for escape, meaning in _SIMPLE_ESCAPES.items():
        assert ast.literal_eval('"' + escape + '"') == meaning, escape
        streamed = toolcalls.stream("pythonic")
        for char in f'[f(a="x{escape}y")]':
            streamed.feed(char)
        streamed.close()
        assert streamed.result().calls[0].arguments == {"a": "x" + meaning + "y"}, escape
