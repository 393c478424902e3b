"""A pythonic call list read as it arrives: calls start once certain, strings stream.

`ListStream` is `CallScanner` (the shape of the list) plus what is emitted on the way:

* The list is *committed* (its first call started) when the first call's first string value
  opens, or when the first call is complete and a ``,`` or ``]`` follows it. Before that the
  text is held, and any shape or value error gives the text back as content, as a batch
  reading of the whole list did. A value the grammar refuses before the commit marks the
  list *doomed*: it is scanned to its end and then given back whole.
* After the commit, a later call starts at its ``(``; string values stream as decoded
  fragments (`StringLiteral`); other values (numbers, ``True``, lists, dicts...) are read by
  the grammar ``pythonic.lark`` once their ``,`` or ``)`` comes, and emitted whole. An error
  after the commit fails the open call (``malformed_call``) at the error; the text after it
  is scanned again as content. Batch reading runs the same code, so both agree.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .._json import canonical, string_body
from .._text import TextBuilder
from ..reader import ReaderContext
from ._pythonic_body import PythonicSyntaxError, decode_string_literal, parse_pythonic_calls
from ._pythonic_scan import CallScanner

__all__ = ["ListStream", "StringLiteral"]

_QUOTES = "'\""
_PREFIXES = "rRuU"
_OCTAL = "01234567"
_ESCAPE_SIZE = {"x": 4, "u": 6, "U": 10}
_SIMPLE_ESCAPES = {
    "\\n": "\n", "\\t": "\t", "\\r": "\r", "\\\\": "\\", "\\'": "'", '\\"': '"',
    "\\a": "\a", "\\b": "\b", "\\f": "\f", "\\v": "\v", "\\\n": "",
}
"""The one-character escapes of Python string literals, and the line continuation."""
_MAX_ESCAPE = 200
"""A ``\\N{...}`` longer than this is no character name."""
_STOP = {q: re.compile(f"[\\\\\\r{q}\\x00\\ud800-\\udfff]") for q in _QUOTES}


class StringLiteral:
    """Decodes the body of one Python string literal (after its opening quotes) as it comes.

    `feed` returns ``(decoded, index)``: the text decoded from ``buf[i:index]``; `closed`
    says the closing quotes were read. It waits (returns early) where the next characters
    decide: an escape, a CR, or a quote that may begin the closing three. Escapes are decoded
    by `decode_string_literal`, so they mean exactly what the batch reading made of them.
    """

    def __init__(self, quote: str, raw: bool) -> None:
        self.quote = quote
        self.raw = raw
        self.closed = False

    def feed(self, buf: str, i: int, eof: bool) -> tuple[str, int]:
        out: list[str] = []
        stop_at = _STOP[self.quote[0]]
        n = len(buf)
        while i < n:
            stop = stop_at.search(buf, i)
            k = n if stop is None else stop.start()
            out.append(buf[i:k])
            if stop is None:
                return "".join(out), n
            size, text = self._special(buf, k, eof)
            if size == 0:
                return "".join(out), k
            out.append(text)
            i = k + size
            if self.closed:
                break
        return "".join(out), i

    def _special(self, buf: str, k: int, eof: bool) -> tuple[int, str]:
        """Size and text of what starts at ``buf[k]``; size 0 to wait for more."""
        ch, rest = buf[k], len(buf) - k
        if ch in _QUOTES:
            if buf.startswith(self.quote, k):
                self.closed = True
                return len(self.quote), ""
            if rest < len(self.quote) and self.quote.startswith(buf[k:]) and not eof:
                return 0, ""
            return 1, ch
        if ch == "\r":
            if rest < 2 and not eof:
                return 0, ""
            return (2 if buf.startswith("\r\n", k) else 1), "\n"
        if ch == "\\":
            return self._escape(buf, k, eof)
        raise PythonicSyntaxError("invalid character in string literal", k)

    def _escape(self, buf: str, k: int, eof: bool) -> tuple[int, str]:
        size = _raw_escape_size(buf, k, eof) if self.raw else _escape_size(buf, k, eof)
        if size == 0 or k + size > len(buf):
            return 0, ""
        text = buf[k : k + size]
        if self.raw:  # a raw string keeps its backslashes; only line ends are translated
            return size, "\\" + text[1:].replace("\r\n", "\n").replace("\r", "\n")
        simple = _SIMPLE_ESCAPES.get(text) if size == 2 else None
        if simple is not None:  # as Python reads it, without compiling a literal (~5 us each)
            return size, simple
        return size, decode_string_literal('"' + text + '"', k)


def _raw_escape_size(buf: str, k: int, eof: bool) -> int:
    """In a raw string a backslash only keeps the next character (a CR LF counts as one)."""
    if k + 1 >= len(buf) or (buf[k + 1] == "\r" and k + 2 >= len(buf) and not eof):
        return 0
    return 3 if buf.startswith("\r\n", k + 1) else 2


def _escape_size(buf: str, k: int, eof: bool) -> int:
    """Length of the escape at ``buf[k]`` (a backslash); 0 while more text could change it."""
    n = len(buf)
    if k + 1 >= n:
        return 0
    kind = buf[k + 1]
    if kind in _ESCAPE_SIZE:
        return _ESCAPE_SIZE[kind]
    if kind == "N" and k + 2 >= n:
        return 0 if not eof else 2
    if kind == "N" and buf[k + 2] == "{":
        close = buf.find("}", k + 3, k + _MAX_ESCAPE)
        if close >= 0:
            return close + 1 - k
        return 0 if n < k + _MAX_ESCAPE and not eof else 3
    if kind in _OCTAL:
        j = k + 1
        while j < n and j < k + 4 and buf[j] in _OCTAL:
            j += 1
        return 0 if j == n and j < k + 4 and not eof else j - k
    if kind == "\r":
        if k + 2 >= n and not eof:
            return 0
        return 3 if buf.startswith("\n", k + 2) else 2
    return 2


def read_value(text: str) -> Any:
    """One argument value (not a string literal) as the grammar reads it."""
    return parse_pythonic_calls(f"f(v={text})")[0][1]["v"]


class ListStream(CallScanner):
    """`CallScanner` that emits the calls it passes through the engine (see the module doc).

    ``verdict`` may also be ``"fail"`` after the commit: ``resume`` is where the error is and
    ``problem`` says what it is.
    """

    def __init__(self, start: int, *, bare: bool, rename: Callable[[str], str],
                 accept: Callable[[str], bool] | None = None,
                 could_become: Callable[[str], bool] | None = None) -> None:
        super().__init__(start, bare=bare, accept=accept, could_become=could_become)
        self.rename = rename
        self.committed = False
        self.doomed = False
        self.started = False
        """Whether the call being read has had its ToolCallStart."""
        self.problem = ""
        self.arguments: dict[str, Any] = {}
        self._opened = False
        self._lit: StringLiteral | None = None
        self._value_text = TextBuilder()
        self._ctx: ReaderContext | None = None

    def feed(self, ctx: ReaderContext, eof: bool) -> None:
        self._ctx = ctx
        super().feed(ctx, eof)
        if self.committed and self.started and self.verdict is None:
            # What was read of the open call, but not a value still held (it is read whole).
            read = self.value_start if self.step == "value" else self.at
            ctx.consume("call", read - ctx.off)

    # -- commit and emission -----------------------------------------------------------------

    def _context(self) -> ReaderContext:
        assert self._ctx is not None
        return self._ctx

    def _start(self, upto: int) -> None:
        """Start the call at `partial` (its text read up to `upto`)."""
        ctx = self._context()
        assert self.partial is not None and self.partial_name is not None
        self.markup_before(self.partial)
        ctx.consume("call", upto - ctx.off)
        ctx.start_call(self.rename(self.partial_name))
        self.started, self.committed = True, True

    def _commit_open_call(self, upto: int) -> None:
        """Commit the list inside its first call: what was held is emitted now."""
        held, self.arguments = self.arguments, {}
        self._start(upto)
        for key, value in held.items():
            self._emit_pair(key, value)

    def _emit(self, fragment: str) -> None:
        if self._context().emits:
            self._context().arguments(fragment)

    def _separator(self) -> str:
        separator = ", " if self._opened else "{"
        self._opened = True
        return separator

    def _emit_pair(self, key: str, value: Any) -> None:
        self.arguments[key] = value
        if self._context().emits:
            self._emit(self._separator() + canonical(key) + ": " + canonical(value))

    def _finish_call(self, end: int) -> None:
        ctx = self._context()
        ctx.consume("call", end - ctx.off)
        if self._opened:
            self._emit("}")
        ctx.end_call(self.arguments)
        self.arguments, self._opened, self.started = {}, False, False

    def markup_before(self, start: int) -> None:
        """The list's brackets and commas are markup; a bare call's marker is part of it."""
        if not self.bare:
            self._context().consume("markup", start - self._context().off)

    def _fail(self, at: int, problem: str) -> bool:
        self.verdict, self.resume, self.problem = "fail", at, problem
        return False

    # -- hooks --------------------------------------------------------------------------------

    def _on_open_call(self) -> bool:
        if self.committed:
            self._start(self.at)
        return True

    def _on_value(self, text: str, start: int) -> bool:
        if self.doomed:
            return True
        try:
            if self.key in self.arguments:
                raise PythonicSyntaxError(f"repeated argument {self.key!r}", start)
            value = read_value(text)
        except PythonicSyntaxError as exc:
            if not self.committed:
                self.doomed = True
                return True
            return self._fail(start, exc.reason)
        if self.committed:
            self._emit_pair(self.key, value)
        else:
            self.arguments[self.key] = value
        return True

    def _on_call_end(self, end: int) -> bool:
        if self.committed:
            self._finish_call(end)
        elif self.bare and not self.doomed:
            self.commit_first_call()
        return True

    def _after(self, buf: str, i: int, off: int, eof: bool) -> bool:
        go_on = super()._after(buf, i, off, eof)
        if not self.committed and not self.doomed and self.verdict != "reject":
            if self.step == "first" or self.verdict == "done":
                self.commit_first_call()
        return go_on

    def commit_first_call(self) -> None:
        """Emit the complete first call, held until now."""
        end = self.calls[0][1]
        self.partial, self.partial_name = self.calls[0][0], self.calls[0][2]
        self._commit_open_call(end)
        self.partial = self.partial_name = None
        self._finish_call(end)

    # -- string values ------------------------------------------------------------------------

    def _value(self, buf: str, i: int, off: int, eof: bool) -> bool:
        if not (self._empty and not self._stack and not self._quote and not self.doomed):
            return super()._value(buf, i, off, eof)
        j = self._skip_ws(buf, i, off)
        if j < 0:
            return False
        opened = self._open_literal(buf, j, off, eof)
        if opened is None:
            return super()._value(buf, j, off, eof)
        if not opened:
            return False
        if self.key in self.arguments:
            return self._fail(off + j, f"repeated argument {self.key!r}")
        if not self.committed:
            self._commit_open_call(self.at)
        if self._context().emits:  # a batch parse makes no events: no JSON to build
            self._emit(self._separator() + canonical(self.key) + ': "')
        return True

    def _open_literal(self, buf: str, j: int, off: int, eof: bool) -> bool | None:
        """Open the string literal at `j`: True, False to wait, None if none starts there."""
        prefix = 1 if buf[j] in _PREFIXES else 0
        if j + prefix >= len(buf):
            if eof:
                return None
            self.at = off + j
            return False
        ch = buf[j + prefix]
        if ch not in _QUOTES:
            return None
        run, n = 1, len(buf)
        while run < 3 and j + prefix + run < n and buf[j + prefix + run] == ch:
            run += 1
        if run < 3 and j + prefix + run == n and not eof:
            self.at = off + j
            return False
        quote = {1: ch, 2: "", 3: ch * 3}[run]
        self._lit = StringLiteral(quote, raw=buf[j] in "rR") if quote else None
        self._go("literal_step" if quote else "after_literal", off + j + prefix + run)
        return True

    def _literal_step(self, buf: str, i: int, off: int, eof: bool) -> bool:
        literal = self._lit
        assert literal is not None
        try:
            text, j = literal.feed(buf, i, eof)
        except PythonicSyntaxError as exc:
            return self._fail(off + exc.pos, exc.reason)
        if text:
            self._value_text.append(text)
            if self._context().emits:
                self._emit(string_body(text))
        if literal.closed:
            return self._go("after_literal", off + j)
        self.at = off + j
        return False

    def _after_literal(self, buf: str, i: int, off: int, eof: bool) -> bool:
        """After a string literal: ``,``, ``)`` or another literal (they are joined)."""
        j = self._skip_ws(buf, i, off)
        if j < 0:
            return False
        if buf[j] in ",)":
            self._emit('"')
            self.arguments[self.key] = self._value_text.take()
            if buf[j] == ",":
                return self._go("args", off + j + 1)
            return self._end_call(off + j + 1)
        opened = self._open_literal(buf, j, off, eof)
        if opened is None:
            return self._fail(off + j, f"unexpected {buf[j]!r} after a string")
        return opened
