"""`_text`: the text builder every reader holds text in, and the blank skipper of the parse path."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolcalls.parsing._text import TextBuilder, skip_blanks

BLANK_RUN = re.compile(r"[ \t\r\n]*")
texts = st.text(st.sampled_from([" ", "\t", "\r", "\n", "\u00a0", "\x0b", "\x0c", "a", "{", "<"]))


@given(texts, st.integers(0, 40))
def test_skip_blanks_is_the_blank_regex(text: str, i: int) -> None:
    """Only space, tab, CR and LF are blanks (not NBSP, VT or FF), from any index, past the
    end included."""
    assert skip_blanks(text, i) == BLANK_RUN.match(text, i).end()  # type: ignore[union-attr]


@pytest.mark.parametrize("run", range(10))
@pytest.mark.parametrize("after", ["", "x", "\u00a0"])
def test_skip_blanks_walks_short_runs_and_hands_long_ones_on(run: int, after: str) -> None:
    """Runs shorter and longer than the walked part end at the same place as the regex's."""
    text = "ab" + " \n\t\r" * 3
    text = "ab" + text[2 : 2 + run] + after
    assert skip_blanks(text, 2) == 2 + run
    assert skip_blanks(text, 2 + run) == 2 + run


@given(st.lists(st.text(max_size=5), max_size=200))
def test_a_builder_holds_its_pieces_in_order(pieces: list[str]) -> None:
    builder = TextBuilder()
    for k, piece in enumerate(pieces):
        builder.append(piece)
        if k % 50 == 0:
            assert builder.getvalue() == "".join(pieces[: k + 1])
    assert builder.take() == "".join(pieces)
    assert builder.getvalue() == ""
