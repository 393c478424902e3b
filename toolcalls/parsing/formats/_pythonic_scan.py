"""Where a pythonic call list ends, found incrementally, with its shape checked on the way.

A pythonic list has no wrapper: ``[get_weather(city="Paris"), get_time()]`` is a call list,
``[see below]`` or ``[1, 2]`` is prose. `CallScanner` reads the text after a ``[`` (or one bare
call, ``name(...)``) once, never re-reading it, and decides as early as the text allows:
*reject* at the first character that cannot continue a call list (so prose is released at
once), *done* at the ``]`` that closes the list. It checks only the shape (``name(key=value,
...)`` with balanced brackets, Python strings with escapes and triple quotes) and calls hooks
as it passes a call's ``(``, a value and a call's end; `_pythonic_stream.ListStream` uses them
to read the values and emit the calls. Offsets are absolute (the engine's buffer is compacted
between feeds).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..reader import ReaderContext

__all__ = ["CallScanner"]

_WS = re.compile(r"\s*")
_NAME_RUN = re.compile(r"[\w.]+")
_DOTTED = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*")
_KEY = re.compile(r"[^\W\d]\w*")
_PLAIN = re.compile(r"[^()\[\]{}'\",]+")
_STRING_STOP = {"'": re.compile(r"[\\']"), '"': re.compile(r'[\\"]')}
_CLOSERS = {"(": ")", "[": "]", "{": "}"}
MAX_NAME = 200
"""Longer function or argument names are taken for prose (and bound the work of waiting)."""


def is_name_start(ch: str) -> bool:
    return ch.isidentifier()


class CallScanner:
    """Scans one pythonic call list (``bare=False``, starting at its ``[``) or one bare call.

    After `feed`: `verdict` is None (more text needed), ``"done"`` (`end` is just past the
    list) or ``"reject"`` (`resume` is the first character that cannot belong to a call
    list). `calls` holds ``(start, end, name)`` of each complete call; `partial` is the start
    of a call begun but not finished, and `partial_name` its name once read.
    """

    def __init__(self, start: int, *, bare: bool, accept: Callable[[str], bool] | None = None,
                 could_become: Callable[[str], bool] | None = None) -> None:
        self.at = start
        self.bare = bare
        self.accept = accept
        self.could_become = could_become
        self.step = "name" if bare else "open"
        self.verdict: str | None = None
        self.end = start
        self.resume = start
        self.calls: list[tuple[int, int, str]] = []
        self.partial: int | None = start if bare else None
        self.partial_name: str | None = None
        self._stack: list[str] = []
        self._quote = ""
        self._empty = True
        self.key = ""
        """The argument name being read (set at its ``=``)."""
        self.value_start = start
        """Where the value being read starts (just after its ``=``)."""

    def feed(self, ctx: ReaderContext, eof: bool) -> None:
        buf, off = ctx.buf, ctx.off
        while self.verdict is None and self.at - off < len(buf):
            if not getattr(self, f"_{self.step}")(buf, self.at - off, off, eof):
                return

    # -- steps: each returns True to go on, False to wait for more text -----------------------

    def _open(self, buf: str, i: int, off: int, eof: bool) -> bool:
        return self._go("first", off + i + 1)

    def _first(self, buf: str, i: int, off: int, eof: bool) -> bool:
        """After ``[`` or ``,``: a call, or (after a comma) the closing ``]``."""
        j = self._skip_ws(buf, i, off)
        if j < 0:
            return False
        if buf[j] == "]" and self.calls:
            return self._done(off + j + 1)
        if not is_name_start(buf[j]):
            return self._reject(off + j)
        self.partial, self.partial_name = off + j, None
        return self._go("name", off + j)

    def _name(self, buf: str, i: int, off: int, eof: bool) -> bool:
        end = _NAME_RUN.match(buf, i).end()  # type: ignore[union-attr]
        name = buf[i:end]
        if end - i > MAX_NAME:
            return self._reject(off + i)
        if end == len(buf):  # the name may go on (or was cut off by the end of the text)
            if not self.calls and self.could_become and not self.could_become(name):
                return self._reject(off + i)
            return False
        declared = self.calls or self.accept is None or self.accept(name)
        if not (_DOTTED.fullmatch(name) and declared):
            return self._reject(off + i)
        self.partial_name = name
        return self._go("paren", off + end)

    def _paren(self, buf: str, i: int, off: int, eof: bool) -> bool:
        j = self._skip_ws(buf, i, off)
        if j < 0:
            return False
        if buf[j] != "(":
            return self._reject(off + j)
        self._go("args", off + j + 1)
        return self._on_open_call()

    def _args(self, buf: str, i: int, off: int, eof: bool) -> bool:
        """After ``(`` or a comma between arguments: ``key=``, or ``)``."""
        j = self._skip_ws(buf, i, off)
        if j < 0:
            return False
        if buf[j] == ")":
            return self._end_call(off + j + 1)
        key = _KEY.match(buf, j)
        if key is None or key.end() - j > MAX_NAME:
            return self._reject(off + j)
        if key.end() == len(buf) and not eof:
            self.at = off + j
            return False
        self.key = buf[j : key.end()]
        return self._go("equals", off + key.end())

    def _equals(self, buf: str, i: int, off: int, eof: bool) -> bool:
        j = self._skip_ws(buf, i, off)
        if j < 0:
            return False
        if buf[j] != "=":
            return self._reject(off + j)
        self._empty = True
        self.value_start = off + j + 1
        return self._go("value", off + j + 1)

    def _value(self, buf: str, i: int, off: int, eof: bool) -> bool:
        """Skip one value: brackets balanced, strings whole, up to ``,`` or ``)`` at depth 0."""
        j, n = i, len(buf)
        while j < n:
            if self._quote:
                j = self._string(buf, j, eof)
                if j < 0:
                    self.at = off + (-j - 1)
                    return False
                continue
            plain = _PLAIN.match(buf, j)
            if plain:
                self._empty = self._empty and plain.group().isspace()
                j = plain.end()
                continue
            ch = buf[j]
            if ch in "'\"":
                run = 1
                while run < 3 and j + run < n and buf[j + run] == ch:
                    run += 1
                if run < 3 and j + run == n and not eof:
                    self.at = off + j  # a quote or two might still become three
                    return False
                # three quotes open a long string, two are an empty string, one a short string
                self._quote = {1: ch, 2: "", 3: ch * 3}[run]
                self._empty = False
                j += run
            elif ch in _CLOSERS:
                self._stack.append(_CLOSERS[ch])
                self._empty = False
                j += 1
            elif self._stack:  # a closer, or a comma inside brackets
                if ch != "," and self._stack.pop() != ch:
                    return self._reject(off + j)
                j += 1
            elif ch in ",)" and not self._empty:
                if not self._on_value(buf[self.value_start - off : j], self.value_start):
                    return False
                return self._go("args", off + j + 1) if ch == "," else self._end_call(off + j + 1)
            else:
                return self._reject(off + j)
        self.at = off + j
        return False

    def _string(self, buf: str, j: int, eof: bool) -> int:
        """Index after the string's end or an escape; ``-(index + 1)`` to wait at index."""
        quote = self._quote
        stop = _STRING_STOP[quote[0]].search(buf, j)
        if stop is None:
            return -(len(buf) + 1)
        k = stop.start()
        if buf[k] == "\\":
            return k + 2 if k + 1 < len(buf) else -(k + 1)
        if buf.startswith(quote, k):
            self._quote = ""
            return k + len(quote)
        if len(quote) == 3 and len(buf) - k < 3 and quote.startswith(buf[k:]) and not eof:
            return -(k + 1)
        return k + 1

    def _after(self, buf: str, i: int, off: int, eof: bool) -> bool:
        j = self._skip_ws(buf, i, off)
        if j < 0:
            return False
        if buf[j] == ",":
            return self._go("first", off + j + 1)
        return self._done(off + j + 1) if buf[j] == "]" else self._reject(off + j)

    # -- hooks for a subclass that reads what the scanner passes (each returns False to stop) --

    def _on_open_call(self) -> bool:
        """The ``(`` after a call's name (`partial`, `partial_name`) was read."""
        return True

    def _on_value(self, text: str, start: int) -> bool:
        """The value of `key` is ``text`` (starting at `start`), up to its ``,`` or ``)``."""
        return True

    def _on_call_end(self, end: int) -> bool:
        """The call in ``calls[-1]`` is complete."""
        return True

    # -- helpers ------------------------------------------------------------------------------

    def _skip_ws(self, buf: str, i: int, off: int) -> int:
        j = _WS.match(buf, i).end()  # type: ignore[union-attr]
        if j == len(buf):
            self.at = off + j
            return -1
        return j

    def _go(self, step: str, at: int) -> bool:
        self.step, self.at = step, at
        return True

    def _end_call(self, end: int) -> bool:
        assert self.partial is not None and self.partial_name is not None
        self.calls.append((self.partial, end, self.partial_name))
        self.partial = self.partial_name = None
        if not self._on_call_end(end):
            return False
        return self._done(end) if self.bare else self._go("after", end)

    def _done(self, end: int) -> bool:
        self.verdict, self.end, self.at = "done", end, end
        return False

    def _reject(self, at: int) -> bool:
        self.verdict, self.resume = "reject", at
        return False
