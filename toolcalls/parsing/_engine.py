"""The streaming engine every format runs on.

The engine reads text in any chunking and never re-reads what it consumed. Outside blocks it
looks for the format's *openers* (``<tool_call>``, ``<think>``, ...), holding back only a tail
that could still become one. At an opener it hands the text to that opener's `Reader`, which
consumes the block and reports, through the `ReaderContext` (`reader`, the API readers are
written against), what each stretch of text is: content, reasoning, markup or part of a call.
Decisions depend only on the text, never on where a chunk ends, so streaming and batch (one
chunk, then `close`) give the same result.

Whitespace just before an accepted opener is markup, and so is whitespace just after a reasoning
block (readers with ``trims_after``). Content keeps everything else, byte for byte.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from ..tools._tool import Tool
from ._build import built
from ._events import Event
from ._models import IncompleteCall, ParseIssue, ParseResult, SegmentKind, ToolCall
from ._text import BLANKS, skip_blanks
from ._turn_end import TurnEnds
from .reader import Openers, Reader, ReaderContext, Status, holdback

if TYPE_CHECKING:
    from .formats._base import Format

__all__ = ["Engine"]

_IN_PLACE_FROM = 1024
"""Held characters from which `Engine._append` extends the buffer in place."""
_COMPACT_FROM = 4096
"""Consumed characters a buffer extended in place may keep before they are dropped."""


_TRIMS_AFTER: Final[dict[type, bool]] = {}


def _trims_after(reader: Reader) -> bool:
    """Whether whitespace after the reader's block is markup: its class's ``trims_after``.

    Looked up once per reader class: `getattr` with a default on a reader without the
    attribute raises and formats an AttributeError inside (~0.5 µs, three times a short Kimi
    K2 parse).
    """
    kind = type(reader)
    trims = _TRIMS_AFTER.get(kind)
    if trims is None:
        trims = _TRIMS_AFTER[kind] = bool(getattr(reader, "trims_after", False))
    return trims


class Engine(ReaderContext):
    """The driving part of a parse: feeds the text, finds openers, runs their readers, holds
    back what may still change, and makes the result. A program sees it through
    `toolcalls.StreamParser` (`stream`), a reader as a `ReaderContext` (`reader`)."""

    def __init__(
        self,
        fmt: Format,
        *,
        tools: Sequence[Tool] = (),
        strict: bool = False,
        thinking: bool = False,
        validate: bool = False,
    ) -> None:
        super().__init__(fmt, tools, strict, validate)
        self._openers = fmt.compiled_openers()
        self._search = _OpenerSearch(self._openers)
        self._blanks = (0, 0)
        """Absolute span of the trailing blanks last held back from content (all blanks)."""
        self._block_start = 0
        self._block_opener_end = 0
        self._after_block = False
        self._closed = False
        self._turn_ends: TurnEnds | None = self._openers.turn_ends
        self._held = ""
        """Text kept out of the buffer: it may be the token that ends the turn (`_turn_end`)."""
        self._held_whole = False
        """Whether `_held` is a whole end-of-turn token (then blanks), not the start of one."""
        self._held_blanks: list[str] = []
        """Blank chunks after a whole held token (a list: no copy of a growing tail)."""
        if thinking:
            self._enter(fmt.reasoning_reader(self), 0, 0)
        else:
            opened = fmt.opened_block(self)
            if opened is not None:
                self._enter(opened, 0, 0)

    # -- StreamParser -----------------------------------------------------------------------

    def feed(self, chunk: str) -> list[Event]:
        """Add text; return the events it made final."""
        if self._closed:
            raise RuntimeError("feed() after close(): start a new stream for a new response")
        turn_ends = self._turn_ends
        if turn_ends is not None and (self._held or turn_ends.may_end(chunk)):
            chunk = self._hold_turn_end(chunk)
        self._append(chunk)
        self._run(eof=False)
        return self._take_events()

    def close(self, last: str = "") -> list[Event]:
        """Mark the end of the text (after `last`, its final piece, if given): flush held
        text, fail any call left open."""
        if self._closed:
            if last:
                raise RuntimeError("close() after close(): start a new stream for a new response")
            return self._take_events()
        self._closed = True
        turn_end = ""
        if self._turn_ends is not None:
            last, turn_end = self._split_turn_end(last)
            if turn_end:
                self._append(last)
                self._run(eof=False)
                last = ""
                if self._closes_with(turn_end):  # a result region it ends: the region's
                    last, turn_end = turn_end, ""
        if last:
            self._append(last)
        self._run(eof=True)
        if turn_end:  # after everything else: the text is read as if it ended before it
            self._append(turn_end)
            self.consume("markup", len(self.buf))
        return self._take_events()

    def closed(self) -> bool:
        """Whether `close` was called."""
        return self._closed

    def fed(self) -> int:
        """How many characters were fed so far (counted here, not on every feed)."""
        held = len(self._held)
        for blanks in self._held_blanks:
            held += len(blanks)
        return self.off + len(self.buf) + held

    def result(self) -> ParseResult:
        """Everything parsed so far (final after `close`)."""
        # The lists are copied: a result taken mid-stream must not grow as the stream goes on.
        return self._result(list(self._calls), list(self._incomplete), list(self._issues),
                            list(self._segments))

    def take_result(self) -> ParseResult:
        """The final result, for a parser used no more (a batch parse): its lists are handed
        over, not copied (4 copies, 2% of a short parse)."""
        if not self._closed:
            raise RuntimeError("take_result() before close(): use result() mid-stream")
        return self._result(self._calls, self._incomplete, self._issues, self._segments)

    def _result(
        self,
        calls: list[ToolCall],
        incomplete: list[IncompleteCall],
        issues: list[ParseIssue],
        segments: list[tuple[SegmentKind, int, int]],
    ) -> ParseResult:
        return built(ParseResult, {
            "format": self.format.name,
            "content": self._content.getvalue(),
            "reasoning": None if self._reasoning is None else self._reasoning.getvalue(),
            "calls": calls,
            "incomplete": incomplete,
            "issues": issues,
            "segments": segments,
            "provider": None,
            "finish_reason": None,
            "usage": None,
            "reasoning_blocks": None,
        })

    def _hold_turn_end(self, chunk: str) -> str:
        """What of the text so far may go to the buffer: all but a tail that may still be the
        token ending the turn, which is held until the text goes on or ends."""
        turn_ends = self._turn_ends
        assert turn_ends is not None
        if self._held_whole and skip_blanks(chunk, 0) == len(chunk):
            self._held_blanks.append(chunk)  # still a token and blanks
            return ""
        text = self._held_text() + chunk if self._held else chunk
        cut, self._held_whole = turn_ends.tail(text)
        if cut == len(text):
            self._held = ""
            return text
        self._held = text[cut:]
        return text[:cut]

    def _split_turn_end(self, last: str) -> tuple[str, str]:
        """The rest of the text, and the end-of-turn token (with blanks) that ends it, if any."""
        assert self._turn_ends is not None
        text = self._held_text() + last if self._held else last
        self._held = ""
        at = self._turn_ends.final_token(text)
        return (text, "") if at < 0 else (text[:at], text[at:])

    def _closes_with(self, turn_end: str) -> bool:
        """Whether the open block ends with the token that ends the text: a tool result
        region (``<|im_system|>`` ... ``<|im_end|>``) is closed by it, not left open."""
        close = getattr(self._reader, "close", None) if self._reader is not None else None
        return isinstance(close, str) and bool(close) and turn_end.startswith(close)

    def _held_text(self) -> str:
        if self._held_blanks:
            self._held += "".join(self._held_blanks)
            self._held_blanks = []
        return self._held

    def _append(self, chunk: str) -> None:
        """Add `chunk` to the buffer without copying a long text a reader holds back.

        Copying the unconsumed text on every feed is quadratic while a reader holds a long
        block (a pythonic call list: 1 MB in 4-character deltas took 9.8 s, now ~1 s). So a
        long held text is extended in place (CPython does that for a string nothing else
        refers to), and consumed text is dropped only once it is half the buffer. A short
        held text is copied, which is cheaper than growing a buffer of consumed text.
        """
        held = len(self.buf) - self.pos
        if held < _IN_PLACE_FROM or (self.pos >= _COMPACT_FROM and self.pos >= held):
            if self._call is not None:  # its text is about to leave the buffer
                self._call.keep_raw(self.buf, self.off, self.pos)
            # The last consumed character stays: `starts_line` looks at it.
            cut = self.pos - 1 if self.pos > 0 else 0
            self.off += cut
            self.buf = self.buf[cut:]
            self.pos -= cut
        buf, self.buf = self.buf, ""  # now `buf` is the only reference to the text
        buf += chunk
        self.buf = buf

    # -- the scan loop ----------------------------------------------------------------------

    def _run(self, eof: bool) -> None:
        while True:
            if self._reader is not None:
                if not self._step_reader(eof):
                    return
            elif not self._scan_text(eof):
                return

    def _step_reader(self, eof: bool) -> bool:
        """Run the active reader; True when scanning should go on."""
        assert self._reader is not None
        status = self._reader.read(self, eof)
        if status is Status.MORE and not eof:
            return False
        if status is Status.REJECT:
            self._reject()
            return True
        if status is Status.MORE:  # the text ended inside the block
            self._truncate()
        elif self._call is not None:  # a reader bug must not lose text
            self.fail_call("malformed_call", "this tool call could not be read")
        self._after_block = _trims_after(self._reader)
        self._reader = None
        return True

    def _scan_text(self, eof: bool) -> bool:
        """Emit content up to the next opener and start its reader; False when out of text."""
        if self._after_block:
            ws_end = skip_blanks(self.buf, self.pos)
            self.consume("markup", ws_end)
            if ws_end == len(self.buf) and not eof:
                return False
            self._after_block = False
        found = self._search.search(self.buf, self.pos, self.off)
        if found is None:
            stop = len(self.buf) if eof else self._text_holdback()
            self._emit_content_until(stop, keep_trailing_ws=not eof)
            return False
        at = found.start()
        if (
            not eof
            and len(self.buf) - at < self._openers.longest  # no copy of a long rest
            and self.buf[at:] in self._openers.longer_prefixes
        ):
            # "<function" may yet be "<function_call>": wait, as one piece would have shown.
            self._emit_content_until(at, keep_trailing_ws=True)
            return False
        self._emit_content_until(at, keep_trailing_ws=True)
        opener = found.group()
        self._enter(self._openers.factories[opener](self, opener), at, len(opener))
        return True

    def _text_holdback(self) -> int:
        return holdback(self.buf, self.pos, self._openers.prefixes, self._openers.longest)

    def _emit_content_until(self, stop: int, *, keep_trailing_ws: bool) -> None:
        """Content up to `stop`; trailing whitespace stays unread (it may precede an opener)."""
        text_end = stop
        if keep_trailing_ws:  # a backward scan: a regex search for it tries every blank (-13%)
            buf, start = self.buf, self.pos
            # Blanks held back before are not walked again: a long run of them, arriving in
            # small deltas, was walked whole on each one (quadratic).
            known_start, known_end = self._blanks[0] - self.off, self._blanks[1] - self.off
            while text_end > start and buf[text_end - 1] in BLANKS:
                text_end -= 1
                if known_start <= text_end < known_end:
                    text_end = max(start, known_start)
            if text_end < stop:
                self._blanks = (self.off + text_end, self.off + stop)
        self.consume("content", text_end)

    def _enter(self, reader: Reader, at: int, opener_length: int) -> None:
        """Start a block at buffer index `at`; whitespace before it waits for the verdict."""
        self._pending = (self.at(), self.buf[self.pos : at])
        self.pos = at
        self._reader = reader
        self._block_start = self.at()
        self._block_opener_end = self._block_start + opener_length

    def _reject(self) -> None:
        reader = self._reader
        assert reader is not None
        self._reader = None
        resume = getattr(reader, "resume", None)
        stop = max(resume if resume is not None else 0, self._block_opener_end)
        self.commit_blanks("content")
        self.consume("content", stop - self.off)

    def _truncate(self) -> None:
        """The text ended inside a block the reader could not finish."""
        if self.pos < len(self.buf) or self._call is not None:
            self.consume("call", len(self.buf))
            self.fail_call("truncated_call", "the text ended inside this tool call")

    def _take_events(self) -> list[Event]:
        events, self._events = self._events, []
        return events


class _OpenerSearch:
    """`Openers.search` over one text, remembering what it learned, so no stretch of the text
    is scanned twice.

    Searching the rest of the text for each opener's first character is linear once; done
    again for every opener found (batch) or every delta (stream), it is quadratic when one of
    those characters never comes (Mistral's valid calls have no ``<``: 1 MB of them took
    seconds). So for each first character this keeps where it next occurs, or up to where it
    does not; and up to where no opener starts at all.
    """

    __slots__ = ("openers", "chars", "clear", "hit", "searched", "scanned")

    def __init__(self, openers: Openers) -> None:
        self.openers = openers
        self.chars = openers.first_chars
        self.clear = [0] * len(self.chars)
        """Absolute offsets: character i is not in the text from the last search up to here."""
        self.hit = [False] * len(self.chars)
        """Whether character i is at ``clear[i]``."""
        self.searched = 0
        """Absolute offset before which no opener starts (from the last search)."""
        self.scanned = 0
        """Characters searched so far, counted for tests: at most a few times the text."""

    def search(self, buf: str, pos: int, off: int) -> re.Match[str] | None:
        """The first opener in ``buf[pos:]``, as ``Openers.pattern.search`` finds it.

        `pos` (absolute: ``off + pos``) never goes back from one call to the next.
        """
        begin = max(pos, self.searched - off)
        first = self._first_char(buf, begin, off)
        if first == len(buf):
            found = None
        else:
            found = self.openers.pattern.search(buf, first)
            self.scanned += (len(buf) if found is None else found.end()) - first
        if found is None:  # an opener cut by the end of the text is searched again
            self.searched = off + max(begin, len(buf) - self.openers.longest + 1)
        return found

    def _first_char(self, buf: str, begin: int, off: int) -> int:
        """The first index from `begin` that holds a first character of an opener (or len)."""
        first = len(buf)
        chars, clear, hit = self.chars, self.clear, self.hit
        for i in range(len(chars)):
            known = clear[i] - off
            if hit[i] and known >= begin:
                at = known
            else:
                start = max(begin, known)
                if start >= first:
                    continue
                at = buf.find(chars[i], start, first)
                self.scanned += (first if at < 0 else at + 1) - start
                if at < 0:
                    clear[i], hit[i] = off + first, False
                    continue
                clear[i], hit[i] = off + at, True
            if at < first:
                first = at
        return first
