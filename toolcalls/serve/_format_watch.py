"""Telling the user that a model writes another format than the one configured for it.

When the format the proxy parses a model's text in (``--format``, ``--model-format``) is not
the one the model writes, its calls come back as text and nothing fails. So each answer that
was parsed in a configured format and gave no call is watched (`FormatWatch`): where its text
holds markup of another format (a marker of a registered format that is not ordinary text),
`toolcalls.detect` names the format, and one warning per model says what to configure.

Cheap where nothing is wrong: a text is only searched for markers, and `detect` runs only on
the part of a text from its first marker on (at most `KEPT` characters, so a stream's memory
does not grow with it), once per answer at most; a model warned about is not watched again.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable
from typing import Final

from ..parsing._events import Event, TextDelta, ToolCallEnd
from ..parsing._registry import detect, get_format, list_formats
from ..parsing.formats._base import Format

__all__ = ["FormatWatch", "markers"]

log = logging.getLogger("toolcalls.serve")

KEPT: Final = 4096
"""Characters of text kept from the first marker on, for `detect`."""
MAX_MODELS: Final = 1024
"""Models remembered as warned about (a client names any model: the set stays bounded)."""
_MARKUP_CHARS: Final = "<[|｜"
_MARKUP_CHAR: Final = re.compile("[<\\[|｜]").search
_warned: set[str] = set()


@functools.cache
def markers() -> tuple[str, ...]:
    """Every registered format's markers that ordinary text does not hold (not a ``"name"``
    key or a fenced block): those that start with ``<``, ``[`` or ``|``. (That leaves out
    DeepSeek V3's ``function<｜tool▁sep｜>``, which its ``<｜tool▁calls▁begin｜>`` precedes; and
    a search for markers that all start with one of a few characters is fast: the regex
    engine skips to those characters.)"""
    return tuple(sorted({sign for name in list_formats()
                         for sign in type(get_format(name)).signatures
                         if sign[:1] in _MARKUP_CHARS}))


class FormatWatch:
    """One answer's watch: fed its text and calls (`see`, or `see_answer` for a whole one),
    then `done`, which warns if the text held another format's markup and no call was read."""

    def __init__(self, model: str, parsed_in: Format | str | None) -> None:
        self.model = model
        self.format = parsed_in if isinstance(parsed_in, Format) else None
        self.active = self.format is not None and model not in _warned
        self.tail = ""  # the end of the text so far: a marker split across two pieces
        self.kept: str | None = None  # the text from the first marker on
        self.called = False

    def see(self, event: Event) -> None:
        """One event of the answer, as read."""
        if not self.active:
            return
        if isinstance(event, ToolCallEnd):
            self.called = True
        elif isinstance(event, TextDelta):
            self._text(event.text)

    def see_answer(self, text: str, calls: int) -> None:
        """A whole answer: its text and how many calls were read; then `done`."""
        if self.active:
            self.called = calls > 0
            self._text(text)
            self.done()

    def done(self) -> None:
        """The answer ended: warn once for this model if it writes another format."""
        if not self.active or self.called or self.kept is None or self.format is None:
            return
        self.active = False
        written = detect(self.kept)
        if written is None or written == self.format.name:
            return
        if len(_warned) < MAX_MODELS:
            _warned.add(self.model)
        log.warning("model %r writes %s markup, but its answers are parsed as %s, so its "
                    "calls come back as text: configure --model-format '%s=%s'", self.model,
                    written, self.format.name, self.model, written)

    def _text(self, piece: str) -> None:
        if self.kept is not None:
            self.kept += piece[:KEPT - len(self.kept)]
            return
        if not self.tail and _MARKUP_CHAR(piece) is None:  # the usual piece: nothing to do
            return
        text = self.tail + piece
        found = _marker_search()(text)
        if found is not None:
            self.kept = text[found.start():][:KEPT]
            return
        # what may be the start of a marker the next piece ends (each starts with a markup
        # character)
        end = text[-_longest_marker():]
        start = _MARKUP_CHAR(end)
        self.tail = end[start.start():] if start is not None else ""


@functools.cache
def _marker_search() -> Callable[[str], re.Match[str] | None]:
    return re.compile("|".join(map(re.escape, markers()))).search


@functools.cache
def _longest_marker() -> int:
    return max(map(len, markers()))
