"""The streaming engine every format runs on.

The engine reads text in any chunking and never re-reads what it consumed. Outside blocks it
looks for the format's *openers* (``<tool_call>``, ``<think>``, ...), holding back only a tail
that could still become one. At an opener it hands the text to that opener's `Reader`, which
consumes the block and reports, through the engine, what each stretch of text is: content,
reasoning, markup or part of a call. Decisions depend only on the text, never on where a chunk
ends, so streaming and batch (one chunk, then `close`) give the same result.

Whitespace just before an accepted opener is markup, and so is whitespace just after a reasoning
block (readers with ``trims_after``). Content keeps everything else, byte for byte.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Callable, Iterable, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeVar

from .._errors import IncompleteToolCallError, InvalidArgumentsError, ParseError, UnknownToolError
from ..tools._tool import Tool
from ._events import (
    ArgumentsDelta,
    Event,
    ReasoningDelta,
    TextDelta,
    ToolCallEnd,
    ToolCallFailed,
    ToolCallStart,
)
from ._json import canonical
from ._models import IncompleteCall, ParseIssue, ParseResult, SegmentKind, ToolCall
from ._text import BLANKS, TextBuilder, skip_blanks
from ._turn_end import TurnEnds

if TYPE_CHECKING:
    from pydantic import BaseModel

    from .formats._base import Format

__all__ = ["Engine", "Reader", "Status", "holdback"]

_IN_PLACE_FROM = 1024
"""Held characters from which `Engine._append` extends the buffer in place."""
_COMPACT_FROM = 4096
"""Consumed characters a buffer extended in place may keep before they are dropped."""


class Status(Enum):
    """What a reader tells the engine after a step."""

    MORE = "more"
    """Consumed what it could; call again with more text (or at the end)."""
    DONE = "done"
    """The block is over; the engine resumes scanning at `pos`."""
    REJECT = "reject"
    """Not a block after all: the opener is content. Scanning resumes at the reader's
    ``resume`` attribute (an absolute offset) when it has one, else just after the opener."""


class Reader(Protocol):
    """Reads one block (a call, a section of calls, a reasoning span) from the engine buffer."""

    def read(self, ctx: Engine, eof: bool) -> Status: ...


ReaderFactory = Callable[["Engine", str], Reader]
"""Called with the engine and the opener that matched; `ctx.pos` is at the opener."""


def holdback(buf: str, start: int, prefixes: frozenset[str], longest: int) -> int:
    """Index where a tail of ``buf[start:]`` that could begin a marker starts (or len)."""
    end = len(buf)
    # One regex search over the last `longest` characters: twice as fast as trying each tail
    # size (this runs on every delta; a sixth of streaming a long Qwen3-Coder value).
    found = _tail_pattern(prefixes).search(buf, max(start, end - longest))
    return end if found is None else found.start()


@functools.lru_cache(maxsize=256)
def _tail_pattern(prefixes: frozenset[str]) -> re.Pattern[str]:
    """Matches a string of `prefixes` that runs to the end of the text."""
    ordered = sorted(prefixes, key=len, reverse=True)
    return re.compile("(?:" + "|".join(map(re.escape, ordered)) + r")\Z")


_Model = TypeVar("_Model", bound="BaseModel")
# Final: compiled, a final module name is read from a C static, not looked up in the module's
# dict on every use (five lookups per `built`, two `built` per short parse).
_new: Final = object.__new__
_set_slot: Final = object.__setattr__


def built(model: type[_Model], fields: dict[str, Any]) -> _Model:
    """An instance of `model` from `fields` the parser made itself, already of their types.

    The engine builds every `ToolCall`, `ParseResult`, `IncompleteCall` and `ParseIssue` from
    values it typed itself (str, int spans, dicts decoded from JSON), so validating them again
    is wasted work: this is what pydantic's `model_construct` does, without its Python loop
    over defaults (0.8 instead of 1.5 µs for a `ToolCall` validated, 2.0 with `model_construct`;
    a short parse makes two). `fields` must name every field; it becomes the instance's dict.
    tests/parsing/test_models.py checks that the result is indistinguishable from a validated one.
    """
    instance: _Model = _new(model)  # pydantic models have no __new__ of their own
    _set_slot(instance, "__dict__", fields)
    _set_slot(instance, "__pydantic_fields_set__", set(fields))
    _set_slot(instance, "__pydantic_extra__", None)
    _set_slot(instance, "__pydantic_private__", None)
    return instance


# The events a stream makes one of per delta, made without their dataclass __init__: a Python
# frame that sets each frozen field through object.__setattr__ (340-430 ns, a fifth of streaming
# a long Hermes value in 4-character deltas). The slots are set directly instead, as __init__
# sets them; tests/parsing/test_events.py checks the events are equal, alike and frozen all the same.
_set_text: Final = TextDelta.__dict__["text"].__set__
_set_text_kind: Final = TextDelta.__dict__["kind"].__set__
_set_reasoning: Final = ReasoningDelta.__dict__["text"].__set__
_set_reasoning_kind: Final = ReasoningDelta.__dict__["kind"].__set__
_set_index: Final = ArgumentsDelta.__dict__["index"].__set__
_set_fragment: Final = ArgumentsDelta.__dict__["fragment"].__set__
_set_fragment_kind: Final = ArgumentsDelta.__dict__["kind"].__set__


def _text_delta(text: str) -> TextDelta:
    event: TextDelta = _new(TextDelta)
    _set_text(event, text)
    _set_text_kind(event, "text")
    return event


def _reasoning_delta(text: str) -> ReasoningDelta:
    event: ReasoningDelta = _new(ReasoningDelta)
    _set_reasoning(event, text)
    _set_reasoning_kind(event, "reasoning")
    return event


def _arguments_delta(index: int, fragment: str) -> ArgumentsDelta:
    event: ArgumentsDelta = _new(ArgumentsDelta)
    _set_index(event, index)
    _set_fragment(event, fragment)
    _set_fragment_kind(event, "arguments_delta")
    return event


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


_LAST_TOOLS: Final[list[tuple[tuple[Tool, ...], dict[str, Tool]]]] = [((), {})]
"""The tools of the last parse and their table by name, for `_tool_table`."""


def _tool_table(tools: Sequence[Tool]) -> dict[str, Tool]:
    """The tools by name. A server passes the same tools with every response, so the table of
    the last ones is reused while they are the very same objects (a `Tool` is frozen; a list
    that changed since gets a new table): a table for 4 tools cost 2% of a short parse."""
    given = tuple(tools)
    last, table = _LAST_TOOLS[0]
    if not _same_objects(given, last):
        table = {tool.name: tool for tool in given}
        _LAST_TOOLS[0] = (given, table)  # one assignment: another thread sees old or new
    return table


def _same_objects(a: tuple[Tool, ...], b: tuple[Tool, ...]) -> bool:
    if len(a) != len(b):
        return False
    for i in range(len(a)):  # not zip(..., strict=True): compiled, a call with keywords
        if a[i] is not b[i]:
            return False
    return True


_ISSUE_ERRORS: dict[str, type[ParseError]] = {
    "truncated_call": IncompleteToolCallError,
    "invalid_arguments": InvalidArgumentsError,
    "unknown_tool": UnknownToolError,
}


class Engine:
    """The `StreamParser` of every format: ``feed(chunk)``, ``close()``, ``result()``."""

    def __init__(
        self,
        fmt: Format,
        *,
        tools: Sequence[Tool] = (),
        strict: bool = False,
        thinking: bool = False,
    ) -> None:
        self.format = fmt
        self.emits = True
        """Whether to make events: a batch parse wants only the result, and building the
        events (argument fragments re-serialized as JSON) is a fifth of its time."""
        self.tools = _tool_table(tools)
        """The declared tools by name (read only: the table may be shared, see `_tool_table`)."""
        self.strict = strict
        self.buf = ""
        self.pos = 0
        """Index in `buf` of the first character not yet accounted for."""
        self.off = 0
        """Absolute offset of ``buf[0]`` in the whole text."""
        self._openers = fmt.compiled_openers()
        self._search = _OpenerSearch(self._openers)
        self._blanks = (0, 0)
        """Absolute span of the trailing blanks last held back from content (all blanks)."""
        self._absent: dict[str, tuple[int, int, bool]] = {}
        """What `find` learned per marker: (start, stop, found), see there."""
        self._reader: Reader | None = None
        self._block_start = 0
        self._block_opener_end = 0
        self._pending: tuple[int, str] = (0, "")  # whitespace held before an opener
        self._after_block = False
        self._closed = False
        self._events: list[Event] = []
        self._content = TextBuilder()
        self._reasoning: TextBuilder | None = None
        self._calls: list[ToolCall] = []
        self._incomplete: list[IncompleteCall] = []
        self._issues: list[ParseIssue] = []
        self._segments: list[tuple[SegmentKind, int, int]] = []
        self._call: _OpenCall | None = None
        self._next_index = 0
        self.section: str | None = None
        """The closer of the section of calls the text is in (set by section readers)."""
        self._turn_ends: TurnEnds | None = self._openers.turn_ends
        self._held = ""
        """Text kept out of the buffer: it may be the token that ends the turn (`_turn_end`)."""
        self._held_whole = False
        """Whether `_held` is a whole end-of-turn token (then blanks), not the start of one."""
        self._held_blanks: list[str] = []
        """Blank chunks after a whole held token (a list: no copy of a growing tail)."""
        if thinking:
            self._enter(fmt.reasoning_reader(self), 0, 0)

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

    def _commit_pending(self, kind: SegmentKind) -> None:
        """Decide the whitespace held before the opener, once the block is accepted or not."""
        start, text = self._pending
        if text:
            self._segment(kind, start, start + len(text))
            if kind == "content":
                self._add_content(text)
            elif kind == "reasoning":
                self._add_reasoning(text)
        self._pending = (0, "")

    def _reject(self) -> None:
        reader = self._reader
        assert reader is not None
        self._reader = None
        resume = getattr(reader, "resume", None)
        stop = max(resume if resume is not None else 0, self._block_opener_end)
        self._commit_pending("content")
        self.consume("content", stop - self.off)

    def _truncate(self) -> None:
        """The text ended inside a block the reader could not finish."""
        if self.pos < len(self.buf) or self._call is not None:
            self.consume("call", len(self.buf))
            self.fail_call("truncated_call", "the text ended inside this tool call")

    # -- what readers call ------------------------------------------------------------------

    def consume(self, kind: SegmentKind, stop: int) -> None:
        """Account for ``buf[pos:stop]`` as `kind` and move past it."""
        if stop <= self.pos:
            return
        if self._pending[1] and self._reader is not None:
            # Blanks before a rejected opener inside reasoning are reasoning (`hold_blanks`).
            self._commit_pending(kind if kind == "content" or kind == "reasoning" else "markup")
        start = self.off + self.pos
        if kind == "call":  # its text is kept only if the call fails (`_OpenCall.keep_raw`)
            if self._call is None:
                self._call = _OpenCall(start)
            self.pos = stop
            return
        text = self.buf[self.pos : stop]
        self.pos = stop
        self._segment(kind, start, self.off + stop)
        if kind == "content":
            self._add_content(text)
        elif kind == "reasoning":
            self._add_reasoning(text)

    def hold_blanks(self, stop: int) -> None:
        """Hold the blanks ``buf[pos:stop]`` before a marker a reader is about to try, as the
        engine holds them before an opener: the first thing the marker's reader consumes
        decides them (markup before an accepted block, else the kind consumed)."""
        self._pending = (self.at(), self.buf[self.pos : stop])
        self.pos = stop

    def starts_line(self) -> bool:
        """Whether the block just entered starts a line, as chat templates and Markdown write
        the blocks they open: at the start of the text, after a line break, or right after a
        tag or token (``>``, ``]``) or a block, with only spaces or tabs between. Prose that
        names a tag in a sentence has a word before it. Asked by a reader on its first read,
        before it consumes anything: it reads the one character before the blanks held, which
        `_append` keeps only until the next chunk."""
        start, blanks = self._pending
        if "\n" in blanks or "\r" in blanks:
            return True
        index = start - self.off - 1
        # A blank there was not held (content never ends in one): it followed a block.
        return index < 0 or self.buf[index] in " \t\r\n>]"

    def open_reasoning(self) -> None:
        """Note that the text has a reasoning part, even if it stays empty."""
        if self._reasoning is None:
            self._reasoning = TextBuilder()

    def start_call(self, name: str, call_id: str | None = None) -> int:
        """Announce a call whose name is final; returns its index."""
        call = self._require_call()
        index = self._next_index
        self._next_index += 1
        call.index, call.name = index, name
        call.id = call_id or f"call_{index}"
        if self.emits:
            self._events.append(ToolCallStart(index, call.id, name))
        return index

    def arguments(self, fragment: str) -> None:
        """Stream the next piece of the open call's arguments (canonical JSON text)."""
        call = self._call
        if fragment and self.emits and call is not None and call.index is not None:
            call.streamed = True
            self._events.append(_arguments_delta(call.index, fragment))

    def end_call(self, arguments: dict[str, Any]) -> ToolCall:
        """The open call is complete and may be run."""
        call = self._require_call()
        if call.index is None or call.name is None:
            raise RuntimeError("end_call() before start_call(): the reader must name the call")
        if self.emits and not call.streamed:  # nothing streamed: the stream still says "{}"
            self.arguments(canonical(arguments))
        span = (call.start, self.at())
        fields = {"id": call.id, "name": call.name, "arguments": arguments, "span": span}
        done = built(ToolCall, fields)
        self._calls.append(done)
        self._segment("call", span[0], span[1])  # no *span: compiled, a star call is 10x slower
        self._check_name(call.name, span)
        if self.emits:
            self._events.append(ToolCallEnd(call.index, done))
        self._call = None
        return done

    def fail_call(self, kind: str, message: str) -> None:
        """The open call cannot be completed: it becomes an incomplete call with an issue."""
        call = self._require_call()
        span = (call.start, self.at())
        call.keep_raw(self.buf, self.off, self.pos)
        fields = {"name": call.name, "raw": call.raw_text(), "span": span}
        failed = built(IncompleteCall, fields)
        self._incomplete.append(failed)
        self._segment("incomplete", span[0], span[1])
        self._check_name(call.name, span)
        self._call = None
        if self.emits:
            self._events.append(ToolCallFailed(call.index, failed))
        self.issue(kind, message, span)

    def issue(self, kind: str, message: str, span: tuple[int, int]) -> None:
        """Record a problem; in strict mode, raise it."""
        self._issues.append(built(ParseIssue, {"kind": kind, "message": message, "span": span}))
        if self.strict:
            error = _ISSUE_ERRORS.get(kind, ParseError)
            raise error(f"{self.format.name}: {message} at {span}", kind=kind, span=span)

    def call_count(self) -> int:
        """How many calls were read so far, complete or not."""
        return len(self._calls) + len(self._incomplete)

    def find(self, marker: str, start: int) -> int:
        """``buf.find(marker, start)``, remembering where `marker` is absent.

        Readers that search the rest of the text for a closing marker may be started again
        and again (an opener repeated and never closed, each rejected at the end): each such
        search resumes where the last one stopped instead of scanning the same text again.
        """
        at = self.off + start
        known = self._absent.get(marker)
        if known is not None and known[0] <= at <= known[1]:
            if known[2]:
                return known[1] - self.off
            begin = known[1]  # not at or after known[0], up to here
        else:
            known, begin = (at, at, False), at
        found = self.buf.find(marker, begin - self.off)
        self._search.scanned += (len(self.buf) if found < 0 else found) - (begin - self.off)
        if found >= 0:
            self._absent[marker] = (known[0], self.off + found, True)
            return found
        rest = max(begin, self.off + len(self.buf) - len(marker) + 1)
        self._absent[marker] = (known[0], rest, False)
        return -1

    def tool(self, name: str | None) -> Tool | None:
        return self.tools.get(name) if name is not None else None

    def known_tool(self, name: str) -> bool:
        """For wrapper-less formats: is this a declared tool (any name counts without tools)?"""
        return not self.tools or name in self.tools

    def at(self, index: int | None = None) -> int:
        """Absolute offset of a buffer index (default: `pos`)."""
        return self.off + (self.pos if index is None else index)

    # -- internals ----------------------------------------------------------------------------

    def _require_call(self) -> _OpenCall:
        if self._call is None:
            self._call = _OpenCall(self.at())
        return self._call

    def _check_name(self, name: str | None, span: tuple[int, int]) -> None:
        if self.tools and name is not None and name not in self.tools:
            self.issue("unknown_tool", self._unknown_tool_message(name), span)

    def _unknown_tool_message(self, name: str) -> str:
        close = difflib.get_close_matches(name, list(self.tools), n=1, cutoff=0.0)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        return f"the model called {name!r}, which is not a declared tool{hint}"

    def _add_reasoning(self, text: str) -> None:
        if self._reasoning is None:
            self._reasoning = TextBuilder()
        self._reasoning.append(text)
        if self.emits:
            self._events.append(_reasoning_delta(text))

    def _add_content(self, text: str) -> None:
        if text:
            self._content.append(text)
            if self.emits:
                self._events.append(_text_delta(text))

    def _segment(self, kind: SegmentKind, start: int, end: int) -> None:
        if start >= end:
            return
        if self._segments and self._segments[-1][0] == kind and kind != "call":
            last = self._segments[-1]
            if last[2] == start:
                self._segments[-1] = (kind, last[1], end)
                return
        self._segments.append((kind, start, end))

    def _take_events(self) -> list[Event]:
        events, self._events = self._events, []
        return events


class _OpenCall:
    """A call between its first character and its end or failure."""

    __slots__ = ("start", "raw", "kept", "index", "name", "id", "streamed")

    def __init__(self, start: int) -> None:
        self.start = start
        self.raw: TextBuilder | None = None
        """The call's text, needed only if it fails (`IncompleteCall.raw`); collected from
        the buffer just before the buffer lets go of it, so a call that completes (every
        call of a batch parse) never copies its text: -6% on a short Qwen3-Coder parse."""
        self.kept = start
        """Absolute offset up to which `raw` holds the text."""
        self.index: int | None = None
        self.name: str | None = None
        self.id = ""
        self.streamed = False

    def keep_raw(self, buf: str, off: int, pos: int) -> None:
        """Add the call's text from `kept` up to buffer index `pos` to `raw`."""
        if off + pos > self.kept:
            if self.raw is None:
                self.raw = TextBuilder()
            self.raw.append(buf[self.kept - off : pos])
            self.kept = off + pos

    def raw_text(self) -> str:
        return "" if self.raw is None else self.raw.getvalue()


class Openers:
    """The compiled opener table of a format: one regex, its prefixes, and reader factories."""

    def __init__(self, factories: dict[str, ReaderFactory], turn_ends: Sequence[str] = ()) -> None:
        ordered = sorted(factories, key=len, reverse=True)
        self.factories = factories
        self.turn_ends = TurnEnds(turn_ends) if turn_ends else None
        """The format's end-of-turn tokens (`_turn_end`), kept here: one lookup per parse."""
        self.pattern = re.compile("|".join(re.escape(marker) for marker in ordered))
        self.first_chars = tuple(sorted({marker[0] for marker in factories}))
        self.prefixes = frozenset(_prefixes(factories))
        self.longest = max((len(m) for m in factories), default=1)
        # Proper prefixes of a longer opener that are themselves openers or extend one.
        self.longer_prefixes = frozenset(
            p for p in self.prefixes if any(p.startswith(m) for m in factories)
        )

    def search(self, buf: str, pos: int) -> re.Match[str] | None:
        """The first opener in ``buf[pos:]``, as ``pattern.search`` finds it.

        `str.find` first jumps to a character that can start one: the regex alone tries the
        alternation at every position, 6-8 ns a character. On 6 KB of prose that is 45 µs
        against 0.8; on the 100 characters before a short response's call, 0.7 µs, more than
        decoding the call's JSON.
        """
        first = len(buf)
        for char in self.first_chars:
            at = buf.find(char, pos, first)
            if at >= 0:
                first = at
        return self.pattern.search(buf, first) if first < len(buf) else None


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


def _prefixes(markers: Iterable[str]) -> Iterable[str]:
    for marker in markers:
        for size in range(1, len(marker)):
            yield marker[:size]
