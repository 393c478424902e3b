"""The shared reader of JSON-bodied calls: ``opener [header header_end] JSON [close...]``.

Most formats wrap a JSON value in markers: Hermes ``<tool_call>{"name", "arguments"}</tool_call>``
(an *envelope* holding the name), Kimi K2 ``<|tool_call_begin|>functions.f:0
<|tool_call_argument_begin|>{...}<|tool_call_end|>`` (a *header* holding the name, then the
arguments). `JsonCall` describes one such shape; `JsonCallReader` reads it incrementally,
streaming the arguments as they arrive.

A malformed body never loses text: the call becomes an incomplete call whose span runs to the
closing marker, with an ``invalid_arguments`` issue. So does JSON that arguments cannot hold
(NaN, ``1e400``, a lone surrogate escape, deep nesting: `toolcalls.parsing._json`). An envelope's
``"arguments": null`` or ``""`` means no arguments, as a missing key does: ``{}``, no issue.
An envelope member other than the name, the arguments and ``"id"`` is not read: an
``unexpected_text`` issue names it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from .._json import JsonReader, canonical, loads
from .._text import skip_blanks
from ..reader import ReaderContext, Status, holdback
from ._phased import PhasedReader

__all__ = [
    "Header", "JsonCall", "JsonCallReader", "ARGUMENT_KEYS", "ENVELOPE_KEYS", "first_present",
    "id_before_name",
]

ARGUMENT_KEYS: Final = ("arguments", "parameters")
"""Where an envelope holds the arguments, in order of preference."""
ENVELOPE_KEYS: Final = frozenset(ARGUMENT_KEYS)


class Header:
    """What a header says about the call.

    A plain class, not a dataclass: compiled, a dataclass keeps the interpreted __init__ the
    dataclasses module writes (one per call, 1% of a short DeepSeek parse).
    """

    __slots__ = ("name", "call_id")

    def __init__(self, name: str, call_id: str | None = None) -> None:
        self.name = name
        self.call_id = call_id

    def __repr__(self) -> str:
        return f"Header({self.name!r}, {self.call_id!r})"


@dataclass(frozen=True)
class JsonCall:
    """The shape of one JSON-bodied call."""

    close: tuple[str, ...] = ()
    """Markers that must follow the JSON, in order (whitespace allowed before each)."""
    header_end: str | None = None
    """The marker ending a header between the opener and the JSON; None: no header."""
    parse_header: Callable[[str], Header | None] | None = None
    envelope: bool = False
    """The JSON is ``{"name": ..., "arguments": {...}}`` rather than the arguments alone."""
    tentative: bool = False
    """Reject (the opener is content) unless a JSON object follows: for common words."""
    name: str | None = None
    """A name fixed by the opener itself (rare)."""
    max_header: int = 256
    slip: str | None = None
    """A known model slip this shape recovers: reported as a ``recovered_slip`` issue."""
    terminators: tuple[str, ...] = ()
    """Openers of the next call: one that comes where a close marker was expected ends the call
    there (``missing_close_tag``); a malformed body fails at one that comes right where it stops
    being JSON or at the start of a later line (not at the close tag, which may be the next
    call's). The next call is read from it."""


class JsonCallReader(PhasedReader):
    """Reads one call of a `JsonCall` shape; `ctx.pos` starts at the opener."""

    def __init__(self, shape: JsonCall, opener: str) -> None:
        self.shape = shape
        self.opener = opener
        self.phase = "header" if shape.header_end else "body"
        self.header: Header | None = Header(shape.name) if shape.name else None
        self.json = JsonReader(ENVELOPE_KEYS if shape.envelope else None)
        self.pending: list[str] = []  # fragments read before the name was known
        self.closes_seen = 0
        self.scan_from: int | None = None  # absolute offset to resume a marker search
        self.committed = False
        self.broke_at_next_call: bool | None = None  # decided once a body turns out malformed

    # -- phases: each returns a Status, or None after moving to the next phase ---------------

    def _header(self, ctx: ReaderContext, eof: bool) -> Status | None:
        assert self.shape.header_end is not None and self.shape.parse_header is not None
        start = ctx.pos + len(self.opener)
        end = ctx.buf.find(self.shape.header_end, start)
        if end < 0:
            too_long = len(ctx.buf) - start > self.shape.max_header
            return Status.REJECT if eof or too_long else Status.MORE
        header = self.shape.parse_header(ctx.buf[start:end])
        if header is None:
            return Status.REJECT
        self.header = header
        self._commit(ctx, end + len(self.shape.header_end))
        self.phase = "body"
        return None

    def _body(self, ctx: ReaderContext, eof: bool) -> Status | None:
        if not self.committed:
            first = skip_blanks(ctx.buf, ctx.pos + len(self.opener))
            if first >= len(ctx.buf):
                return Status.REJECT if eof else Status.MORE
            if self.shape.tentative and ctx.buf[first] != "{":
                return Status.REJECT
            self._commit(ctx, ctx.pos + len(self.opener))
        reader = self.json
        reader.emits = ctx.emits
        end = reader.feed(ctx.buf, ctx.pos, eof)
        self._announce(ctx)
        if reader.error is not None:
            if self.committed:  # search for the close from where the JSON broke, in any chunking
                ctx.consume("call", reader.error[0])
            return self._malformed(ctx, reader.error[1], reader.error[0])
        ctx.consume("call", end)
        if not reader.done:
            return Status.MORE
        return self._body_done(ctx)

    def _close(self, ctx: ReaderContext, eof: bool) -> Status | None:
        close = self.shape.close
        while self.closes_seen < len(close):
            marker = close[self.closes_seen]
            at = skip_blanks(ctx.buf, ctx.pos)
            if ctx.buf.startswith(marker, at):
                ctx.consume("call", at + len(marker))
                self.closes_seen += 1
                continue
            ahead = ctx.buf[at : at + self._lookahead(marker)]
            if not eof and _may_begin(ahead, marker, self.shape.terminators):
                return Status.MORE
            if (eof and not ahead) or ahead.startswith(self.shape.terminators):
                ctx.issue("missing_close_tag", f"the call ends without {marker!r}", self._span(ctx))
                break
            ctx.issue("unexpected_text", f"expected {marker!r} after the arguments",
                      (ctx.at(at), ctx.at(at + 1)))
            self.phase = "skip_then_end"
            return None
        return self._finish(ctx)

    def _skip_then_end(self, ctx: ReaderContext, eof: bool) -> Status | None:
        if self.shape.terminators:  # the text may run on into the next call, without the close
            next_call = self._skip_to_next_call(ctx, eof)
            if next_call is None:
                return Status.MORE
            if next_call:
                ctx.issue("missing_close_tag", f"the call ends without {self.shape.close[-1]!r}",
                          self._span(ctx))
                return self._finish(ctx)
        if not self._skip_to_close(ctx, eof):
            return Status.MORE
        return self._finish(ctx)

    def _skip_then_fail(self, ctx: ReaderContext, eof: bool) -> Status | None:
        if self.broke_at_next_call is None and self.shape.terminators:
            ctx.consume("call", skip_blanks(ctx.buf, ctx.pos))
            ahead = ctx.buf[ctx.pos : ctx.pos + self._lookahead("")]
            if not eof and _may_begin(ahead, "", self.shape.terminators):
                return Status.MORE
            self.broke_at_next_call = ahead.startswith(self.shape.terminators)
        if not self.broke_at_next_call:
            if self.shape.terminators:  # a line that begins the next call ends this one
                # With no close marker, nothing but the next call's opener ends the body,
                # wherever it stands; failing that, the end of the text.
                closed = bool(self.shape.close)
                next_call = self._skip_to_next_call(ctx, eof, line_start=closed)
                if next_call is None:
                    return Status.MORE
                self.broke_at_next_call = next_call
                if not next_call and not closed:
                    ctx.consume("call", len(ctx.buf))
            if not self.broke_at_next_call and not self._skip_to_close(ctx, eof):
                return Status.MORE
        ctx.fail_call("invalid_arguments", self.failure)
        return Status.DONE

    # -- helpers -------------------------------------------------------------------------------

    def _commit(self, ctx: ReaderContext, upto: int) -> None:
        self.committed = True
        start = ctx.at()
        ctx.consume("call", upto)
        if self.shape.slip is not None:
            ctx.issue("recovered_slip", self.shape.slip, (start, ctx.at()))
        if self.header is not None and not self.shape.envelope:
            ctx.start_call(self.header.name, self.header.call_id)

    def _announce(self, ctx: ReaderContext) -> None:
        """Start the call as soon as its name is known; pass on argument fragments."""
        fragments = self.json.take_fragments()
        if self.header is None:
            name = self.json.members.get("name")
            if not isinstance(name, str):
                self.pending.extend(fragments)
                return
            self.header = Header(name, id_before_name(self.json.members))
            ctx.start_call(name, self.header.call_id)
            fragments = self.pending + fragments
            self.pending = []
        for fragment in fragments:
            ctx.arguments(fragment)

    def _body_done(self, ctx: ReaderContext) -> Status | None:
        value = self.json.value
        if self.shape.envelope:
            arguments, problem = self._envelope_arguments(ctx, value)
        else:
            arguments, problem = value, None if isinstance(value, dict) else "not a JSON object"
        if problem is not None:
            return self._malformed(ctx, problem, None)
        self.arguments = arguments
        self.phase = "close"
        return None

    def _envelope_arguments(self, ctx: ReaderContext, value: Any) -> tuple[Any, str | None]:
        members = self.json.members  # a repeated key counts once, as the stream read it
        if not isinstance(value, dict) or not isinstance(members.get("name"), str):
            return None, 'expected {"name": ..., "arguments": {...}}'
        key = self.json.emitted_key or first_present(ARGUMENT_KEYS, members)
        if len(members) > (1 if key is None else 2):  # more than name and arguments
            self._unknown_members(ctx, members, key)
        if key is None:
            return {}, None  # a call without arguments: a tool that takes none
        arguments = members[key]
        if arguments is None or arguments == "":
            arguments = {}  # as if the key were missing (what a template writes for no arguments)
        if key == "parameters":
            ctx.issue("parameters_key", 'the model wrote "parameters" instead of "arguments"',
                      self._span(ctx))
        if isinstance(arguments, str):
            arguments = self._decode_string_arguments(ctx, arguments)
        if not isinstance(arguments, dict):
            return None, f'"{key}" is not a JSON object'
        return arguments, None

    def _unknown_members(self, ctx: ReaderContext, members: dict[str, Any],
                         key: str | None) -> None:
        """Members of an envelope that are neither its name, its arguments nor its id are not
        read (``{"name": "f", "": {}}``, found by fuzzing): said, not silently dropped."""
        for member in members:
            if member != "name" and member != key and member != "id":
                ctx.issue("unexpected_text", f"the call's member {member!r} is not its name, "
                          "arguments or id: not read", self._span(ctx))

    def _decode_string_arguments(self, ctx: ReaderContext, text: str) -> Any:
        """Arguments sent as a JSON string: decode them (a known slip), and stream them now."""
        try:
            decoded = loads(text)
        except ValueError:
            return text
        if isinstance(decoded, dict):
            ctx.issue("arguments_as_string", "the arguments were a JSON string, decoded",
                      self._span(ctx))
            if ctx.emits:
                ctx.arguments(canonical(decoded))
        return decoded

    def _finish(self, ctx: ReaderContext) -> Status:
        ctx.end_call(self.arguments)
        return Status.DONE

    def _malformed(self, ctx: ReaderContext, problem: str, at: int | None) -> Status | None:
        if not self.committed:
            return Status.REJECT
        self.failure = f"the arguments are not valid JSON ({problem})"
        if at is not None:
            self.failure += f" at offset {ctx.at(at)}"
        self.phase = "skip_then_fail"
        return None

    def _skip_to_close(self, ctx: ReaderContext, eof: bool) -> bool:
        """Consume up to and including the last close marker; False while it may still come."""
        if not self.shape.close:
            return True
        marker = self.shape.close[-1]
        start = max(ctx.pos, (self.scan_from or 0) - ctx.off)
        found = ctx.buf.find(marker, start)
        if found >= 0:
            ctx.consume("call", found + len(marker))
            return True
        if eof:
            ctx.consume("call", len(ctx.buf))
            return True
        keep = holdback(ctx.buf, start, frozenset(marker[:i] for i in range(1, len(marker))),
                        len(marker))
        self.scan_from = ctx.at(keep)
        ctx.consume("call", keep)
        return False

    def _skip_to_next_call(
        self, ctx: ReaderContext, eof: bool, line_start: bool = False
    ) -> bool | None:
        """Consume up to a terminator that comes before the last close marker (with
        `line_start`, one that begins a line): True once there, False where the close marker
        (or the end of the text) comes first, None while unknown."""
        close = self.shape.close[-1] if self.shape.close else ""
        start = max(ctx.pos, (self.scan_from or 0) - ctx.off)
        found = ctx.buf.find(close, start) if close else -1  # no close: the next call or the end
        limit = len(ctx.buf) if found < 0 else found
        first = -1
        if line_start:
            line = _next_call_lines(self.shape.terminators)[0].search(ctx.buf, start, limit)
            first = -1 if line is None else line.start()
        else:
            for terminator in self.shape.terminators:
                at = ctx.buf.find(terminator, start, limit)
                if at >= 0 and (first < 0 or at < first):
                    first = limit = at
        if first >= 0:
            ctx.consume("call", first)
            self.scan_from = None
            return True
        if found >= 0 or eof:
            return False
        if line_start:  # hold back a last line that may still begin the next call
            keep = holdback(ctx.buf, start, _prefixes((close,)), len(close))
            back = len(ctx.buf) - _LINE_BLANKS - self._lookahead(close) - 1
            tail = _next_call_lines(self.shape.terminators)[1].search(ctx.buf, max(start, back))
            keep = keep if tail is None else min(keep, tail.start())
        else:
            ends = (close, *self.shape.terminators)
            keep = holdback(ctx.buf, start, _prefixes(ends), self._lookahead(close))
        self.scan_from = ctx.at(keep)
        ctx.consume("call", keep)
        return None

    def _lookahead(self, marker: str) -> int:
        """How much text to look at for `marker` or a terminator."""
        longest = len(marker)
        for terminator in self.shape.terminators:  # a loop: max(map(...)) compiles slower
            longest = max(longest, len(terminator))
        return longest

    def _span(self, ctx: ReaderContext) -> tuple[int, int]:
        return (ctx.call_start(), ctx.at())


@functools.cache
def _prefixes(markers: tuple[str, ...]) -> frozenset[str]:
    return frozenset(m[:i] for m in markers for i in range(1, len(m)))


_LINE_BLANKS: Final = 64
"""The most blanks a line may begin with before the next call's opener (bounded, so a stream
holds back a bounded tail, as the batch search looks at a bounded line start)."""


@functools.cache
def _next_call_lines(terminators: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A line that begins with one of `terminators`, and the end of a text that may begin one."""
    blanks = rf"\n[ \t]{{0,{_LINE_BLANKS}}}"
    ordered = sorted(_prefixes(terminators), key=len, reverse=True)
    begun = "|".join(map(re.escape, ordered))
    return (
        re.compile(blanks + "(?:" + "|".join(map(re.escape, terminators)) + ")"),
        re.compile(blanks + "(?:" + begun + r")?\Z"),
    )


def _may_begin(ahead: str, marker: str, terminators: tuple[str, ...]) -> bool:
    """Whether the text `ahead` (cut by the end of the buffer) may begin `marker` or one of
    `terminators`."""
    if marker.startswith(ahead):
        return True
    for terminator in terminators:
        if terminator.startswith(ahead):
            return True
    return False


def id_before_name(members: dict[str, Any]) -> str | None:
    """The model's call id, only if it came before the name: a later one would arrive after
    `ToolCallStart` when streamed, and ids are assigned once."""
    if "id" not in members:  # as most envelopes: no list of the keys to make
        return None
    keys = list(members)
    if keys.index("id") > keys.index("name"):
        return None
    value = members["id"]
    return value if isinstance(value, str) and value else None


def first_present(keys: tuple[str, ...], members: dict[str, Any]) -> str | None:
    """The first of `keys` that `members` has (a loop: a generator costs more, once a call)."""
    for key in keys:
        if key in members:
            return key
    return None
