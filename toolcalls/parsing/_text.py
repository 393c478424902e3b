"""Text that arrives in many small pieces, held about once."""

from __future__ import annotations

import re
from typing import Final

__all__ = ["BLANKS", "TextBuilder", "skip_blanks"]

BLANKS: Final = " \t\r\n"
"""The blanks between markup (JSON's whitespace too)."""
_BLANK_RUN = re.compile(r"[ \t\r\n]*")
_WALK: Final = 4
"""Blanks `skip_blanks` walks before it hands the rest of a run to the regex."""


def skip_blanks(text: str, i: int) -> int:
    """The index of the first character at or after `i` that is no blank (or the end).

    Blanks between markup mostly come one or two at a time (a newline, a space): those are
    walked, which compiled costs a few ns a character against ~150 ns for the regex call
    (a short Hermes parse asked the regex twice, 5% of its time). A longer run (indentation,
    hostile input) goes to the regex, whose cost per character is lower.
    """
    walk_end = min(len(text), i + _WALK)
    while i < walk_end:
        if text[i] not in BLANKS:
            return i
        i += 1
    if i == len(text):
        return i
    return _BLANK_RUN.match(text, i).end()  # type: ignore[union-attr]  # `*` always matches


_FOLD_PIECES = 64
"""Pieces after which they are added to the text (one-character pieces stay cheap)."""


class TextBuilder:
    """Pieces of text folded, every `_FOLD_PIECES`, into one str that grows in place.

    A list of pieces costs a pointer and an object header per piece (in 4-character deltas,
    fifteen times the text itself), and joining it at the end held the text twice. CPython
    extends a str that nothing else refers to, so here a long text is held once: streaming a
    100 MB response peaked at ~16× its size with lists, 1.8× with this (bench/resources.py).
    """

    __slots__ = ("_pieces", "_text")

    def __init__(self) -> None:
        self._text = ""
        self._pieces: list[str] = []

    def append(self, piece: str) -> None:
        self._pieces.append(piece)
        if len(self._pieces) >= _FOLD_PIECES:
            self._fold()

    def getvalue(self) -> str:
        """The text so far."""
        self._fold()
        return self._text

    def take(self) -> str:
        """The text so far; the builder lets go of it and starts empty."""
        self._fold()
        text, self._text = self._text, ""
        return text

    def _fold(self) -> None:
        if self._pieces:
            text, self._text = self._text, ""
            text += "".join(self._pieces)  # in place: `text` is the only reference
            self._pieces.clear()
            self._text = text
