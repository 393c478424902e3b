"""End-of-turn tokens at the end of a response: markup, never content.

A chat template ends an assistant turn with a special token (``<|im_end|>``,
``<｜end▁of▁sentence｜>``, ``<|eot_id|>``, ``</s>``...); a server that does not strip special
tokens leaves it at the end of the text. The rule: one of the format's end-of-turn tokens
(`Format.turn_ends`) that ends the text, followed by nothing but blanks, is markup, and the rest
of the text is read exactly as if it were not there: a call left open before it is the call the
text ends in, an answer before it is the answer. Anywhere else the token is read as any other
text (a token quoted in prose stays content): only at the end is it certainly the end of a turn.

The engine keeps such a tail out of its buffer until the text goes on or ends (`TurnEnds`), so
no reader ever sees it and every chunking gives the batch result.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from ._text import BLANKS

__all__ = ["TurnEnds"]

_WALK: Final = 8
"""Trailing blanks walked one by one before `str.rstrip` takes the rest of a run."""


class TurnEnds:
    """A format's end-of-turn tokens, compiled: finds the tail of a text that may end the turn."""

    def __init__(self, tokens: Iterable[str]) -> None:
        self.tokens = tuple(sorted(set(tokens), key=len, reverse=True))
        self.longest = len(self.tokens[0])
        self.first_chars = "".join(sorted({token[0] for token in self.tokens}))
        self.last_chars = "".join(sorted({token[-1] for token in self.tokens}))
        prefixes = {token[:size] for token in self.tokens for size in range(1, len(token))}
        ordered = sorted(prefixes, key=len, reverse=True)
        self._partial = re.compile("(?:" + "|".join(map(re.escape, ordered)) + r")\Z")

    def final_token(self, text: str) -> int:
        """Where a token followed by nothing but blanks ends `text` starts; -1 if none does."""
        end = _before_trailing_blanks(text)
        for token in self.tokens:
            if text.endswith(token, 0, end):
                return end - len(token)
        return -1

    def may_end(self, text: str) -> bool:
        """Whether `text` may end with (the start of) a token: False for most deltas, which
        end in no blank after a token's last character and hold no token's first character
        near their end (a few C calls: this runs on every feed)."""
        size = len(text)
        if size == 0:
            return False
        if text[size - 1] in BLANKS:  # a whole token then blanks, if a token's end precedes
            end = size - 1
            stop = size - _WALK if size > _WALK else 0
            while end > stop and text[end - 1] in BLANKS:
                end -= 1
            return end == stop or text[end - 1] in self.last_chars
        start = size - self.longest if size > self.longest else 0
        if len(self.first_chars) == 1:  # every format's tokens start alike ("<" or "[")
            return text.find(self.first_chars, start) >= 0
        return any(text.find(char, start) >= 0 for char in self.first_chars)

    def tail(self, text: str) -> tuple[int, bool]:
        """Where the part of `text` that may still end the turn starts (``len(text)``: none),
        and whether it is a whole token (then blanks), not the start of one."""
        at = self.final_token(text)
        if at >= 0:
            return at, True
        if text and text[len(text) - 1] in BLANKS:  # no token begins with blanks at its end
            return len(text), False
        found = self._partial.search(text, max(0, len(text) - self.longest))
        return (len(text), False) if found is None else (found.start(), False)


def _before_trailing_blanks(text: str) -> int:
    end = len(text)
    stop = max(0, end - _WALK)
    while end > stop and text[end - 1] in BLANKS:
        end -= 1
    if end == stop and end > 0:  # a long run: rstrip scans it in C (it copies only then)
        end = len(text.rstrip(BLANKS))
    return end
