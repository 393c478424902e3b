"""THE API format readers are written against.

A format (``formats/``) names the *openers* that start its blocks (``<tool_call>``, ``<think>``,
...), each with a `ReaderFactory`. When the engine meets an opener it makes a `Reader` and
calls its ``read(ctx, eof)`` with the `ReaderContext` until the reader answers `Status.DONE`
(the block is over) or `Status.REJECT` (not a block after all: the opener is content).

A reader sees the text in ``ctx.buf`` from ``ctx.pos`` on (``ctx.off`` is the absolute offset of
``buf[0]``: spans are absolute, see `ReaderContext.at`). It accounts for every character with
`ReaderContext.consume` (content, reasoning, markup or part of a call), announces a call with
`start_call`, streams its arguments with `arguments`, and ends it with `end_call` or
`fail_call`. Problems go to `issue`, with a kind from `toolcalls.parsing.issues`. A reader
that cannot decide yet returns `Status.MORE` without consuming what it is unsure of (see
`holdback`): it is called again with more text, or with ``eof=True`` at the end. Decisions must
depend only on the text, never on where a chunk ends: streaming and batch give the same result.

Readers use this module and nothing else of the engine: tests/parsing/test_reader.py checks
that no module in ``formats/`` imports the engine or touches a private name of the context.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Callable, Iterable, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any, Final, Protocol

from .._errors import ParseError
from ..tools._schema import argument_issues
from ..tools._tool import Tool, check_unique_names
from ._build import arguments_delta, built, reasoning_delta, text_delta
from ._events import Event, ToolCallEnd, ToolCallFailed, ToolCallStart
from ._json import canonical
from ._models import IncompleteCall, ParseIssue, SegmentKind, ToolCall
from ._text import TextBuilder
from ._turn_end import TurnEnds
from .issues import INFORMATIONAL, ISSUE_ERRORS, IssueKind

if TYPE_CHECKING:
    from .formats._base import Format

__all__ = ["Openers", "Reader", "ReaderContext", "ReaderFactory", "Status", "holdback"]


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
    """Reads one block (a call, a section of calls, a reasoning span) from the context's buffer.

    Optional attributes the engine reads: ``trims_after`` (class attribute: blanks after the
    block are markup), ``resume`` (see `Status.REJECT`), ``close`` (the marker that ends a
    tool-result region, which may be the token ending the turn).
    """

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        """Consume what can be decided of ``ctx.buf[ctx.pos:]``; say whether the block is over."""
        ...


ReaderFactory = Callable[["ReaderContext", str], Reader]
"""Called with the context and the opener that matched; `ctx.pos` is at the opener."""


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


def _prefixes(markers: Iterable[str]) -> Iterable[str]:
    for marker in markers:
        for size in range(1, len(marker)):
            yield marker[:size]


_LAST_TOOLS: Final[list[tuple[tuple[Tool, ...], dict[str, Tool]]]] = [((), {})]
"""The tools of the last parse and their table by name (aliases too), for `_tool_table`."""


def _tool_table(tools: Sequence[Tool]) -> dict[str, Tool]:
    """The tools by name and by alias (`Tool.aliases`). A server passes the same tools with
    every response, so the table of the last ones is reused while they are the very same
    objects (a `Tool` is frozen; a list that changed since gets a new table): a table for 4
    tools cost 2% of a short parse."""
    given = tuple(tools)
    last, table = _LAST_TOOLS[0]
    if not _same_objects(given, last):
        table = {tool.name: tool for tool in given}
        if len(table) < len(given):  # two tools of one name: which would a call run?
            check_unique_names(given)
        for tool in given:  # an alias names its tool too, unless a tool has it as its name
            for alias in tool.aliases:
                table.setdefault(alias, tool)
        _LAST_TOOLS[0] = (given, table)  # one assignment: another thread sees old or new
    return table


def _same_objects(a: tuple[Tool, ...], b: tuple[Tool, ...]) -> bool:
    if len(a) != len(b):
        return False
    for i in range(len(a)):  # not zip(..., strict=True): compiled, a call with keywords
        if a[i] is not b[i]:
            return False
    return True


class ReaderContext:
    """What a reader sees of the parse: the text, and the calls to account for it.

    A concrete class, not a `typing.Protocol`: readers call it millions of times, and compiled
    with mypyc a call on a concrete class is a native call, through a Protocol a Python one.
    The engine (`toolcalls.parsing._engine.Engine`) is this class plus the loop that drives
    the readers; a reader uses only the public attributes and methods below.
    """

    def __init__(
        self, fmt: Format, tools: Sequence[Tool], strict: bool, validate: bool = False
    ) -> None:
        self.format = fmt
        """The `Format` being parsed."""
        self.emits = True
        """Whether to make events: a batch parse wants only the result, and building the
        events (argument fragments re-serialized as JSON) is a fifth of its time. A reader
        may skip work that only feeds `arguments` when this is False."""
        self.tools = _tool_table(tools)
        """The declared tools by name and alias (read only: the table may be shared, see
        `_tool_table`)."""
        self.strict = strict
        """Whether an issue raises (`issue`)."""
        self.validate = validate
        """Whether a complete call's arguments are checked against its tool's schema."""
        self.buf = ""
        """The text not yet let go of; readers read it, never write it."""
        self.pos = 0
        """Index in `buf` of the first character not yet accounted for."""
        self.off = 0
        """Absolute offset of ``buf[0]`` in the whole text."""
        self.section: str | None = None
        """The closer of the section of calls the text is in (set by section readers)."""
        self.quoted: list[tuple[int, int]] = []
        """Absolute spans the format reads as tool results (`formats._results`): data, never
        calls. Detection keeps another format from reading a call inside one."""
        # What follows is the engine's: readers never touch it.
        self._reader: Reader | None = None
        """The reader of the open block (None outside blocks), set by the engine."""
        self._pending: tuple[int, str] = (0, "")  # whitespace held before an opener
        self._absent: dict[str, tuple[int, int, bool]] = {}
        """What `find` learned per marker: (start, stop, found), see there."""
        self._found_scanned = 0
        """Characters `find` searched, counted for tests (with the engine's opener search)."""
        self._events: list[Event] = []
        self._content = TextBuilder()
        self._reasoning: TextBuilder | None = None
        self._calls: list[ToolCall] = []
        self._incomplete: list[IncompleteCall] = []
        self._issues: list[ParseIssue] = []
        self._segments: list[tuple[SegmentKind, int, int]] = []
        self._call: _OpenCall | None = None
        self._next_index = 0
        self._released_calls = 0
        """Calls let go of by `release` (still counted by `call_count`)."""

    # -- reading the text ---------------------------------------------------------------------

    def at(self, index: int | None = None) -> int:
        """Absolute offset of a buffer index (default: `pos`)."""
        return self.off + (self.pos if index is None else index)

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
        self._found_scanned += (len(self.buf) if found < 0 else found) - (begin - self.off)
        if found >= 0:
            self._absent[marker] = (known[0], self.off + found, True)
            return found
        rest = max(begin, self.off + len(self.buf) - len(marker) + 1)
        self._absent[marker] = (known[0], rest, False)
        return -1

    def starts_line(self) -> bool:
        """Whether the block just entered starts a line, as chat templates and Markdown write
        the blocks they open: at the start of the text, after a line break, or right after a
        tag or token (``>``, ``]``) or a block, with only spaces or tabs between. Prose that
        names a tag in a sentence has a word before it. Asked by a reader on its first read,
        before it consumes anything: it reads the one character before the blanks held, which
        the engine keeps only until the next chunk."""
        start, blanks = self._pending
        if "\n" in blanks or "\r" in blanks:
            return True
        index = start - self.off - 1
        # A blank there was not held (content never ends in one): it followed a block.
        return index < 0 or self.buf[index] in " \t\r\n>]"

    def tool(self, name: str | None) -> Tool | None:
        """The declared tool named `name` (None: no such tool, or no name)."""
        return self.tools.get(name) if name is not None else None

    def known_tool(self, name: str) -> bool:
        """For wrapper-less formats: is this a declared tool (any name counts without tools)?"""
        return not self.tools or name in self.tools

    def call_count(self) -> int:
        """How many calls were read so far, complete or not."""
        return len(self._calls) + len(self._incomplete) + self._released_calls

    def release(self) -> None:
        """Let go of the content, reasoning, calls and spans given as events so far: the
        result holds only what is read after (issues stay). For a reader whose events are
        passed on as they come (the proxy): memory then bounded by what is still open."""
        self._released_calls += len(self._calls) + len(self._incomplete)
        self._content = TextBuilder()
        if self._reasoning is not None:
            self._reasoning = TextBuilder()
        self._calls = []
        self._incomplete = []
        self._segments = []

    def call_start(self) -> int:
        """Absolute offset where the open call began (`at` when no call is open)."""
        call = self._call
        return call.start if call is not None else self.at()

    # -- accounting for the text ----------------------------------------------------------------

    def consume(self, kind: SegmentKind, stop: int) -> None:
        """Account for ``buf[pos:stop]`` as `kind` and move past it."""
        if stop <= self.pos:
            return
        if self._pending[1] and self._reader is not None:
            # Blanks before a rejected opener inside reasoning are reasoning (`hold_blanks`).
            self.commit_blanks(kind if kind == "content" or kind == "reasoning" else "markup")
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

    def commit_blanks(self, kind: SegmentKind) -> None:
        """Decide now that the blanks held before the block (see `hold_blanks`) are `kind`:
        by default the block's first `consume` makes them markup."""
        start, text = self._pending
        if text:
            self._segment(kind, start, start + len(text))
            if kind == "content":
                self._add_content(text)
            elif kind == "reasoning":
                self._add_reasoning(text)
        self._pending = (0, "")

    def open_reasoning(self) -> None:
        """Note that the text has a reasoning part, even if it stays empty."""
        if self._reasoning is None:
            self._reasoning = TextBuilder()

    # -- calls ------------------------------------------------------------------------------------

    def start_call(self, name: str, call_id: str | None = None) -> int:
        """Announce a call whose name is final; returns its index."""
        call = self._require_call()
        index = self._next_index
        self._next_index += 1
        tool = self.tools.get(name) if self.tools else None
        if tool is not None and tool.name != name:  # an alias: the call carries the tool's name
            call.alias = name
            name = tool.name
        call.index, call.name = index, name
        call.id = call_id or f"call_{index}"
        if self.emits:
            self._events.append(ToolCallStart(index, call.id, name, source="text"))
        return index

    def arguments(self, fragment: str) -> None:
        """Stream the next piece of the open call's arguments (canonical JSON text)."""
        call = self._call
        if fragment and self.emits and call is not None and call.index is not None:
            call.streamed = True
            self._events.append(arguments_delta(call.index, fragment))

    def end_call(self, arguments: dict[str, Any]) -> ToolCall:
        """The open call is complete and may be run."""
        call = self._require_call()
        if call.index is None or call.name is None:
            raise RuntimeError("end_call() before start_call(): the reader must name the call")
        if self.emits and not call.streamed:  # nothing streamed: the stream still says "{}"
            self.arguments(canonical(arguments))
        span = (call.start, self.at())
        fields = {"id": call.id, "name": call.name, "arguments": arguments, "span": span,
                  "source": "text"}
        done = built(ToolCall, fields)
        self._calls.append(done)
        self._segment("call", span[0], span[1])  # no *span: compiled, a star call is 10x slower
        self._check_name(call.name, span)
        if call.alias is not None:
            self._alias_used(call.alias, call.name, span)
        if self.validate:  # jsonschema (interpreted): only when asked, never on the default path
            self._validate(call.name, arguments, span)
        if self.emits:
            self._events.append(ToolCallEnd(call.index, done))
        self._call = None
        return done

    def fail_call(self, kind: IssueKind, message: str) -> None:
        """The open call cannot be completed: it becomes an incomplete call with an issue."""
        call = self._require_call()
        span = (call.start, self.at())
        call.keep_raw(self.buf, self.off, self.pos)
        fields = {"name": call.name, "raw": call.raw_text(), "span": span, "source": "text"}
        failed = built(IncompleteCall, fields)
        self._incomplete.append(failed)
        self._segment("incomplete", span[0], span[1])
        self._check_name(call.name, span)
        self._call = None
        if self.emits:
            self._events.append(ToolCallFailed(call.index, failed))
        if call.alias is not None and call.name is not None:
            self._alias_used(call.alias, call.name, span)
        self.issue(kind, message, span)

    def issue(self, kind: IssueKind, message: str, span: tuple[int, int]) -> None:
        """Record a problem (`kind` from `toolcalls.parsing.issues`); in strict mode, raise it."""
        self._issues.append(built(ParseIssue, {"kind": kind, "message": message, "span": span}))
        if self.strict and kind not in INFORMATIONAL:
            error = ISSUE_ERRORS.get(kind, ParseError)
            raise error(f"{self.format.name}: {message} at {span}", kind=kind, span=span)

    # -- internals --------------------------------------------------------------------------------

    def _require_call(self) -> _OpenCall:
        if self._call is None:
            self._call = _OpenCall(self.at())
        return self._call

    def _check_name(self, name: str | None, span: tuple[int, int]) -> None:
        if self.tools and name is not None and name not in self.tools:
            self.issue("unknown_tool", self._unknown_tool_message(name), span)

    def _alias_used(self, alias: str, name: str, span: tuple[int, int]) -> None:
        self.issue("alias_used", f"the model called {alias!r}, an alias of {name!r}: "
                   f"read as a call to {name!r}", span)

    def _validate(self, name: str, arguments: dict[str, Any], span: tuple[int, int]) -> None:
        """Report what in a complete call's arguments its tool's schema rejects."""
        tool = self.tools.get(name)
        if tool is None:  # an undeclared tool: `unknown_tool` said so already
            return
        for kind, problem in argument_issues(tool.parameters, arguments):
            self.issue(kind, f"the arguments for {name!r}: {problem}; call {name!r} again "
                       "with corrected arguments", span)

    def _unknown_tool_message(self, name: str) -> str:
        close = difflib.get_close_matches(name, list(self.tools), n=1, cutoff=0.0)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        return f"the model called {name!r}, which is not a declared tool{hint}"

    def _add_reasoning(self, text: str) -> None:
        if self._reasoning is None:
            self._reasoning = TextBuilder()
        self._reasoning.append(text)
        if self.emits:
            self._events.append(reasoning_delta(text))

    def _add_content(self, text: str) -> None:
        if text:
            self._content.append(text)
            if self.emits:
                self._events.append(text_delta(text))

    def _segment(self, kind: SegmentKind, start: int, end: int) -> None:
        if start >= end:
            return
        if self._segments and self._segments[-1][0] == kind and kind != "call":
            last = self._segments[-1]
            if last[2] == start:
                self._segments[-1] = (kind, last[1], end)
                return
        self._segments.append((kind, start, end))


class _OpenCall:
    """A call between its first character and its end or failure."""

    __slots__ = ("start", "raw", "kept", "index", "name", "id", "streamed", "alias")

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
        self.alias: str | None = None
        """The alias the model named the tool by (`Tool.aliases`), when it did."""

    def keep_raw(self, buf: str, off: int, pos: int) -> None:
        """Add the call's text from `kept` up to buffer index `pos` to `raw`."""
        if off + pos > self.kept:
            if self.raw is None:
                self.raw = TextBuilder()
            self.raw.append(buf[self.kept - off : pos])
            self.kept = off + pos

    def raw_text(self) -> str:
        """The call's text kept so far."""
        return "" if self.raw is None else self.raw.getvalue()
