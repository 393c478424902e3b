"""The shared reader of XML-parameter calls: Qwen3-Coder, GLM, MiniMax-M2, DeepSeek DSML.

    <function=get_weather>      call open tag, naming the call (a format's grammar reads it)
    <parameter=city>            parameter open tag, naming the argument
    Paris                       the value: raw text, never XML-escaped
    </parameter>                value close
    </function>                 call close

Formats differ in spelling only (`XmlTags`). Markup inside a value is data: a value close tag is
structural only when blanks and then the next structural tag (a parameter, the call close,
another call, a section close) or the end of the text follow it. In every format one newline
("\\n" or "\\r\\n") right after a value's open tag and one right before its close tag are
dropped: models write a multi-line value on lines of its own (as Qwen3-Coder's template does,
and SGLang reads every XML format), so ``<parameter=v>\\nabc\\n</parameter>`` is ``"abc"``;
rendering adds such a newline only where the value itself begins or ends with one
(`_xmlrender`). String values (by the tool's schema, or undeclared) stream as they arrive,
holding back only a first newline until the next character shows, a possible last newline and
a possible partial close tag; other values are typed by the schema once closed (`_coerce`), and
one that does not convert stays its text with an ``invalid_value`` issue. A malformed parameter
is skipped with an issue; the rest of the call and every other call are kept. A call whose close
tag is missing ends where the next call or call section opens (``missing_close_tag``). A call
open tag that cannot be read is prose outside a call section, and inside one an incomplete call
(``malformed_call``) through its close tag, the next call or the section's end; an opener
followed by text its grammar cannot continue (``<｜DSML｜invokeable``, ``<invoke it is``,
``<function=<``; `XmlTags.call_header_start`) is one too, even where the text ends: no call
was cut short there.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from lark import Token, Transformer
from lark.exceptions import LarkError

from ...tools._refs import property_schema
from .._coerce import (
    coerce,
    decode_json_value,
    streams_as_string,
    strip_value_newlines,
)
from .._grammar import load_grammar
from .._json import canonical, string_body
from .._text import TextBuilder, skip_blanks
from ..issues import IssueKind
from ..reader import ReaderContext, Status, holdback
from . import _blocks
from ._phased import PhasedReader

__all__ = [
    "ATTRIBUTES", "END", "OTHER", "WAIT", "AttributeTags", "SectionOpen", "StringStream", "Tag",
    "XmlCallReader", "XmlTags", "grammar_tags", "look_ahead",
]  # fmt: skip

WAIT: Final = "\0wait"
END: Final = "\0end"
OTHER: Final = "\0other"
"""`look_ahead` verdicts: more text needed; only blanks up to the end; something else."""
_HEADER_END_LONGEST = 32  # a header end marker is shorter (LongCat's </longcat_arg_key>: 18):
# searches resume this far back


@dataclass(frozen=True)
class Tag:
    """A structural open tag as a format's grammar reads it: kind "call" or "param"."""

    kind: str
    name: str
    as_json: bool = False
    """The value is JSON whatever the schema says (DSML ``string="false"``)."""
    slip: IssueKind | None = None
    """The kind of issue to report for a model slip recovered in the tag."""


_NO_PARAM = Tag("param", "")
"""The parameter of a call before its first one (one for all: a `Tag` is frozen)."""


@dataclass(frozen=True)
class XmlTags:
    """How one format spells its structural tags."""

    call_open: str
    call_close: str
    param_open: str
    param_close: str
    parse_tag: Callable[[str], Tag | None]
    """Reads a whole open tag (opener to header end), or None when it is no tag."""
    call_header_end: re.Pattern[str] = re.compile(">")
    param_header_end: re.Pattern[str] = re.compile(">")
    header_chars: re.Pattern[str] = re.compile(r"[^\n]*")
    """What may stand between an opener and its header end. Streamed, a header is given up as
    soon as its text stops fitting, so a whole one must fit too; every prefix of a fitting
    text must fit (or batch and stream would disagree)."""
    call_header_chars: re.Pattern[str] | None = None
    """`header_chars` for the call's open tag, where it differs from a parameter's."""
    call_header_start: re.Pattern[str] | None = None
    """What a call's open tag cut short (its end not come yet) may hold after the opener: text
    the tag grammar can still continue, so that ``<｜DSML｜invokeable`` at the end of the text
    is no call cut short. Every prefix of a tag the grammar reads must fit. A whole tag is
    judged by the grammar itself (this is not checked on every call: a regex costs)."""
    call_example: str = ""
    """The call's open tag as the template writes it, ``NAME`` for the name (for messages)."""
    value_open: str = ""
    """A marker between the parameter tag and its value (GLM ``<arg_value>``)."""
    section_closes: tuple[str, ...] = ()
    """Closers of the section that wraps calls; empty when calls stand alone."""
    section_opens: tuple[str, ...] = ()
    """Openers of that section: one where a tag was expected ends the call without its close
    tags (``missing_close_tag``), and the next section begins."""
    escaped_gaps: tuple[str, ...] = ()
    """Escaped blanks some model writes between tags (GLM-4.6: a literal ``\\n``)."""
    repair: Callable[[str], str | None] | None = None
    """The format's fix for a value that did not convert (an escaping slip)."""
    max_header: int = 256
    # Derived once, in __post_init__ (functools.cached_property takes a lock in Python on
    # every read: 5% of a short Qwen3-Coder parse went to reading `gap`).
    gap: re.Pattern[str] = field(init=False, repr=False, compare=False)
    """Blanks (and escaped blanks) between tags."""
    escape_starts: str = field(init=False, repr=False, compare=False)
    """The characters an escaped blank can start with (none for most formats)."""
    body_markers: tuple[str, ...] = field(init=False, repr=False, compare=False)
    """What may follow a call's open tag or a value's close tag."""
    skip_to: tuple[re.Pattern[str], frozenset[str]] = field(init=False, repr=False, compare=False)
    """Where skipping malformed text stops (a pattern and the prefixes to hold back)."""

    def __post_init__(self) -> None:
        body_markers = (
            self.param_open, self.call_close, self.call_open, *self.section_closes,
            *self.section_opens,
        )  # fmt: skip
        markers = sorted({self.param_close, *body_markers}, key=len, reverse=True)
        if max(map(len, (*markers, self.value_open, *self.escaped_gaps))) >= _MARKER_BOUND:
            raise ValueError(f"a marker of {self.call_open!r} is too long for look_ahead")
        escaped = "".join("|" + re.escape(e) for e in self.escaped_gaps)
        derived = {
            "gap": re.compile(rf"(?:[ \t\r\n]{escaped})*"),
            "escape_starts": "".join(e[0] for e in self.escaped_gaps),
            "body_markers": body_markers,
            "skip_to": (re.compile("|".join(map(re.escape, markers))), _prefixes(*markers)),
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)  # frozen: set once, here


@functools.cache  # asked for on every delta inside a value
def _prefixes(*markers: str) -> frozenset[str]:
    return frozenset(m[:i] for m in markers for i in range(1, len(m)))


_MARKER_BOUND: Final = 64
"""Longer than any marker (XmlTags checks): from this many characters on, none is cut off."""


def look_ahead(
    buf: str, at: int, tags: XmlTags, markers: tuple[str, ...], eof: bool
) -> tuple[str, int]:
    """After the blanks at `at`: the marker that follows, or WAIT, END or OTHER; and where."""
    # Blanks without the gap regex, which was a fifth of this: most tags follow the last
    # directly or after a newline. Only a format with escaped gaps needs the regex, at one.
    i = skip_blanks(buf, at)
    if tags.escape_starts and i < len(buf) and buf[i] in tags.escape_starts:
        i = tags.gap.match(buf, i).end()  # type: ignore[union-attr]
    if i >= len(buf):
        return (END if eof else WAIT), i
    for marker in markers:  # a loop, not next(generator): this runs for every tag (-5%)
        if buf.startswith(marker, i):
            return marker, i
    if not eof and len(buf) - i < _MARKER_BOUND:  # the text may end inside a marker
        rest = buf[i:]
        if any(m.startswith(rest) for m in (*markers, *tags.escaped_gaps)):
            return WAIT, i
    return OTHER, i


def _escaped_gap(tags: XmlTags, buf: str, start: int, end: int) -> bool:
    """Whether the gap ``buf[start:end]`` holds an escaped blank (GLM-4.6's literal ``\\n``).

    A loop without a slice where the format has none: this runs at every tag."""
    for escaped in tags.escaped_gaps:
        if buf.find(escaped, start, end) >= 0:
            return True
    return False


class XmlCallReader(PhasedReader):
    """Reads one call, from its open tag (`ctx.pos`) to its close tag, phase by phase."""

    openings: tuple[str, ...] = ()
    """What else may follow the call's open tag (handled by `_other`)."""

    def __init__(self, tags: XmlTags, opener: str) -> None:
        self.tags, self.opener = tags, opener
        self.phase = "header"
        self.scan_from = 0  # absolute offset where a search that waits for text resumes
        self.name, self.start = "", 0
        self.arguments: dict[str, Any] = {}
        self.opened = False  # "{" emitted
        self.param = _NO_PARAM
        self.schema: dict[str, Any] | None = None  # the param's, once its value starts
        self.raw = TextBuilder()  # the value's text, held about once however long
        self.stream: StringStream | None = None
        self.escaped_gap = False
        self.broken = False  # a call whose open tag could not be read, inside a call section

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        status = super().read(ctx, eof)
        if status is Status.MORE and eof and self.broken:
            # Cut short too, but what the model got wrong is the open tag: report that.
            ctx.consume("call", len(ctx.buf))
            self._fail_broken(ctx)
            return Status.DONE
        return status

    # -- phases: each returns a Status, or None after moving on ------------------------------

    def _header(self, ctx: ReaderContext, eof: bool) -> Status | None:
        chars = self.tags.call_header_chars or self.tags.header_chars
        end = self._find_header(ctx, self.tags.call_header_end, len(self.opener), chars)
        if end is None:
            may_come = self._header_may_come(ctx, self.opener, chars, self.tags.call_header_start)
            return Status.MORE if may_come else self._broken_header(ctx)
        tag = self.tags.parse_tag(ctx.buf[ctx.pos : end])
        if tag is None or tag.kind != "call":
            return self._broken_header(ctx)
        marker, _ = look_ahead(ctx.buf, end, self.tags, self.tags.body_markers + self.openings, eof)
        # Prose may mention an open tag; inside a call section, though, text after a good
        # header is a malformed body: the call is read and the text skipped with an issue.
        if marker == OTHER and ctx.section is None:
            return Status.REJECT
        if marker == WAIT:
            return Status.MORE
        self.start, self.name = ctx.at(), tag.name
        ctx.consume("call", end)
        ctx.start_call(tag.name)
        if tag.slip is not None:
            self._issue(ctx, tag.slip, "a slip in the call's open tag was recovered")
        if self.tags.section_closes and ctx.section is None:
            self._issue(ctx, "missing_section_open", "a call outside its block, read anyway")
        self.phase = "body"
        return None

    def _broken_header(self, ctx: ReaderContext) -> Status | None:
        """An open tag that cannot be read: prose outside a call section. Inside one, a call
        the model got wrong: its text is read as a call's (so its values' close tags are data)
        and the call fails with an issue, as DeepSeek V3 treats a header that names no tool."""
        if ctx.section is None:
            return Status.REJECT
        self.start, self.broken = ctx.at(), True
        ctx.consume("call", ctx.pos + len(self.opener))
        self.scan_from, self.phase = ctx.at(), "skip"  # to the next structural tag
        return None

    def _fail_broken(self, ctx: ReaderContext) -> None:
        expected = self.tags.call_example or f"{self.tags.call_open}..."
        ctx.fail_call("malformed_call", f"the call's open tag is unreadable; expected {expected}")
        self.phase = "after"

    def _body(self, ctx: ReaderContext, eof: bool) -> Status | None:
        tags = self.tags
        marker, at = look_ahead(ctx.buf, ctx.pos, tags, tags.body_markers, eof)
        self.escaped_gap |= _escaped_gap(tags, ctx.buf, ctx.pos, at)
        ctx.consume("call", at)
        if marker in (WAIT, END):
            return Status.MORE
        if marker == OTHER:
            return self._other(ctx)
        if marker == tags.param_open:
            self.phase = "param"
            return None
        if marker == tags.call_close:
            ctx.consume("call", at + len(marker))
        else:  # another call or the section close follows
            self._issue(ctx, "missing_close_tag", f"the call ends without {tags.call_close!r}")
        self._end(ctx)
        return None

    def _param(self, ctx: ReaderContext, eof: bool) -> Status | None:
        tags = self.tags
        end = self._find_header(ctx, tags.param_header_end, len(tags.param_open), tags.header_chars)
        if end is None and self._header_may_come(ctx, tags.param_open, tags.header_chars):
            return Status.MORE
        tag = tags.parse_tag(ctx.buf[ctx.pos : end]) if end is not None else None
        if tag is None or tag.kind != "param":
            self._issue(ctx, "malformed_parameter", "a parameter tag could not be read; skipped")
            self.scan_from, self.phase = ctx.at() + 1, "skip"
            return None
        ctx.consume("call", end)  # type: ignore[arg-type]
        self.param = tag
        if not tags.value_open:
            self._start_value(ctx)
        else:
            self.phase = "value_open"
        return None

    def _value_open(self, ctx: ReaderContext, eof: bool) -> Status | None:
        marker, at = look_ahead(ctx.buf, ctx.pos, self.tags, (self.tags.value_open,), eof)
        if marker == WAIT:
            return Status.MORE
        self.escaped_gap |= _escaped_gap(self.tags, ctx.buf, ctx.pos, at)
        if marker == self.tags.value_open:
            ctx.consume("call", at + len(marker))
        else:  # the value follows the key without its open tag: it starts after the gap
            ctx.consume("call", at)
            self._issue(ctx, "missing_value_open", f"a value without {self.tags.value_open!r}")
        self._start_value(ctx)
        return None

    def _value(self, ctx: ReaderContext, eof: bool) -> Status | None:
        buf, close = ctx.buf, self.tags.param_close
        i = max(ctx.pos, self.scan_from - ctx.off)
        while (found := buf.find(close, i)) >= 0:
            marker, _ = look_ahead(buf, found + len(close), self.tags, self.tags.body_markers, eof)
            if marker != OTHER:
                self._take(ctx, found)
                self.scan_from = ctx.at()
                if marker == WAIT:
                    return Status.MORE
                ctx.consume("call", found + len(close))
                self._finish_value(ctx)
                return None
            i = found + 1
        self._take(ctx, len(buf) if eof else holdback(buf, i, _prefixes(close), len(close)))
        self.scan_from = ctx.at()
        return Status.MORE

    def _skip(self, ctx: ReaderContext, eof: bool) -> Status | None:
        """Skip malformed text up to the next structural tag (through a value close)."""
        found = self._search(ctx, *self.tags.skip_to, eof)
        if found is None:
            return Status.MORE
        if found.group() == self.tags.param_close:
            ctx.consume("call", found.end())
        self.phase = "body"
        return None

    def _after(self, ctx: ReaderContext, eof: bool) -> Status | None:
        """After a call: read the section close, or note that the text ends without it.
        (Other text leaves the section open: prose may stand between calls.)"""
        closes = self.tags.section_closes
        if not closes:
            return Status.DONE
        marker, at = look_ahead(ctx.buf, ctx.pos, self.tags, closes, eof)
        if marker == WAIT:
            return Status.MORE
        if marker in closes:
            ctx.consume("markup", at + len(marker))
            ctx.section = None
        elif marker == END and ctx.section is not None:
            at_end = (ctx.at(), ctx.at())
            ctx.issue("missing_close_tag", f"the calls end without {ctx.section!r}", at_end)
            ctx.section = None
        return Status.DONE

    # -- hooks and helpers -------------------------------------------------------------------

    def _other(self, ctx: ReaderContext) -> Status | None:
        """Text that is no structural tag where one was expected: skipped with an issue."""
        self._issue(ctx, "unexpected_text", "text between parameters was skipped")
        self.scan_from, self.phase = ctx.at() + 1, "skip"
        return None

    def _start_value(self, ctx: ReaderContext) -> None:
        key, self.raw, self.stream = self.param.name, TextBuilder(), None
        self.schema = schema = self._schema(ctx)
        if key not in self.arguments and not self.param.as_json and streams_as_string(schema):
            separator = self._separator()  # always: `opened` says a value was read
            if ctx.emits:  # a batch parse makes no events: no JSON to build
                ctx.arguments(separator + canonical(key) + ': "')
            self.stream = StringStream()
        self.phase = "value"

    def _find_header(
        self, ctx: ReaderContext, end: re.Pattern[str], skip: int, chars: re.Pattern[str]
    ) -> int | None:
        start = ctx.pos + skip
        # Never past the longest header (a lookahead end may look one character further): an
        # opener repeated without its header end searched the whole rest of the text each time.
        stop = start + self.tags.max_header + _HEADER_END_LONGEST
        found = end.search(ctx.buf, max(start, self.scan_from - ctx.off), stop)
        if found is None or found.end() - start > self.tags.max_header:
            self.scan_from = ctx.at(max(start, len(ctx.buf) - _HEADER_END_LONGEST))
            return None
        if chars.fullmatch(ctx.buf, start, found.start()) is None:
            return None  # streamed, this text was turned away before its end came (batch = stream)
        self.scan_from = 0
        return found.end()

    def _header_may_come(
        self, ctx: ReaderContext, opener: str, chars: re.Pattern[str],
        start: re.Pattern[str] | None = None,
    ) -> bool:
        """Can the text after an opener still become its header (at the end: a cut one)?"""
        begin = ctx.pos + len(opener)
        fits = len(ctx.buf) - begin <= self.tags.max_header  # checked first: no copy of the rest
        if not fits or chars.fullmatch(ctx.buf, begin) is None:
            return False
        return start is None or start.fullmatch(ctx.buf, begin) is not None

    def _take(self, ctx: ReaderContext, stop: int) -> None:
        """Add ``buf[pos:stop]`` to the value, streaming it when it is a string."""
        piece = ctx.buf[ctx.pos : stop]
        if piece:
            self.raw.append(piece)
            ctx.consume("call", stop)
            if self.stream is not None and ctx.emits:  # a batch parse skips the JSON (-8%)
                ctx.arguments(self.stream.feed(piece))

    def _finish_value(self, ctx: ReaderContext) -> None:
        key = self.param.name
        text = strip_value_newlines(self._value_text())  # passed on, not kept: freed once sliced
        if self.stream is not None:
            if ctx.emits:
                ctx.arguments(self.stream.finish(text) + '"')
            self.arguments[key] = text
        elif key in self.arguments:
            self._issue(ctx, "duplicate_parameter", f"{key!r} was given twice; the first is kept")
        else:
            value = self._convert(ctx, text, self.schema)
            separator = self._separator()
            if ctx.emits:
                ctx.arguments(separator + canonical(key) + ": " + canonical(value))
            self.arguments[key] = value
        self.scan_from, self.phase = 0, "body"

    def _value_text(self) -> str:
        """The whole value's text; the reader lets go of it."""
        return self.raw.take()

    def _convert(self, ctx: ReaderContext, text: str, schema: dict[str, Any] | None) -> Any:
        if self.param.as_json:
            value, problem = decode_json_value(text)
            if problem is not None and streams_as_string(schema):
                return text
        else:
            value, problem = coerce(text, schema)
        fixed = self.tags.repair(text) if problem and self.tags.repair else None
        if fixed is not None and coerce(fixed, schema)[1] is None:
            self._issue(ctx, "escaped_value", f"{self.param.name!r} was escaped twice; unescaped")
            return coerce(fixed, schema)[0]
        if problem is not None:
            self._issue(ctx, "invalid_value", f"{self.param.name!r}: {problem}; kept as text")
        return value

    def _end(self, ctx: ReaderContext, arguments: dict[str, Any] | None = None) -> None:
        """Close the call (with `arguments` already streamed, or those read here)."""
        if self.broken:
            self._fail_broken(ctx)
            return
        if arguments is None:
            ctx.arguments("}" if self.opened else "{}")
        if self.escaped_gap:
            self._issue(ctx, "escaped_newline", "a literal \\n between tags was read as a newline")
        ctx.end_call(self.arguments if arguments is None else arguments)
        self.phase = "after"

    def _separator(self) -> str:
        separator = ", " if self.opened else "{"
        self.opened = True
        return separator

    def _schema(self, ctx: ReaderContext) -> dict[str, Any] | None:
        """The schema of the parameter being read (looked up where its value starts)."""
        tool = ctx.tool(self.name)
        return property_schema(tool.parameters, self.param.name) if tool is not None else None

    def _search(
        self, ctx: ReaderContext, pattern: re.Pattern[str], prefixes: frozenset[str], eof: bool
    ) -> re.Match[str] | None:
        """Consume up to `pattern`'s next match (returned), or up to what may begin one."""
        start = max(ctx.pos, self.scan_from - ctx.off)
        found = pattern.search(ctx.buf, start)
        if found is not None or eof:
            stop = found.start() if found is not None else len(ctx.buf)
        else:
            stop = holdback(ctx.buf, start, prefixes, max(map(len, prefixes), default=1))
        ctx.consume("call", stop)
        self.scan_from = 0 if found else ctx.at()
        return found

    def _issue(self, ctx: ReaderContext, kind: IssueKind, message: str) -> None:
        ctx.issue(kind, message, (self.start, ctx.at()))


class StringStream:
    """A string value's JSON text as it arrives, minus what the final value may drop: the
    newline after the open tag (held until the next character shows) and a last newline."""

    def __init__(self) -> None:
        self.started, self.held, self.sent = False, "", 0

    def feed(self, piece: str) -> str:
        text = self.held + piece
        if not self.started:
            if text in ("", "\r"):
                self.held = text
                return ""
            text = text[2:] if text.startswith("\r\n") else text[1:] if text[:1] == "\n" else text
            self.started = True
        keep = 2 if text.endswith("\r\n") else 1 if text.endswith(("\n", "\r")) else 0
        self.held, out = text[len(text) - keep :], text[: len(text) - keep]
        self.sent += len(out)
        return string_body(out)

    def finish(self, value: str) -> str:
        """The rest of the final (newline-stripped) value, which the text sent begins."""
        return string_body(value[self.sent :])


class SectionOpen(_blocks.SectionOpen):
    """A section opener (see `_blocks`); at the end of the text, one followed only by blanks or
    by part of a call opener is a call cut short, not content."""

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        status = super().read(ctx, eof)
        if status is Status.REJECT and eof:
            after = skip_blanks(ctx.buf, ctx.pos + len(self.opener))
            ahead = self.ahead(ctx.buf, after)
            if any(marker.startswith(ahead) for marker in self.next_markers):
                return Status.MORE
        return status


# The attributes of an open tag as the attribute grammars read them (minimax_m2.lark,
# deepseek_dsml.lark): NAME = VALUE, a value quoted or not (an unquoted one taken whole, as
# the lexer does, so a run of letters is read one way only: no backtracking). Whole ones, then
# the beginning of one: every prefix of a text that fits fits too, as `XmlTags` requires.
_BLANKS = r"[ \t\r]*"
_NAME = r"[A-Za-z_][\w\-:]*"
_UNQUOTED = r"[^\s\"'<>=]+(?![^\s\"'<>=])"
_WHOLE = rf"{_NAME}{_BLANKS}={_BLANKS}(?:\"[^\"\n]*\"|'[^'\n]*'|{_UNQUOTED}){_BLANKS}"
_BEGUN = rf"{_NAME}{_BLANKS}(?:={_BLANKS}(?:\"[^\"\n]*|'[^'\n]*|{_UNQUOTED})?)?"
ATTRIBUTES: Final = rf"(?:{_WHOLE})*(?:{_BEGUN})?"
"""What may follow a tag name and its blanks: attributes, the last one maybe begun."""


class AttributeTags(Transformer[Token, "Tag | None"]):
    """Reads ``<invoke name="f">`` and ``<parameter name="k" string="false">`` trees."""

    def attribute(self, children: list[Token]) -> tuple[str, str]:
        value = str(children[1])
        return str(children[0]), value[1:-1] if value[:1] in "\"'" else value

    def call_tag(self, children: list[Any]) -> Tag | None:
        return _attribute_tag("call", children)

    def param_tag(self, children: list[Any]) -> Tag | None:
        return _attribute_tag("param", children)


def _attribute_tag(kind: str, children: list[Any]) -> Tag | None:
    attributes: dict[str, str] = dict(c for c in children if isinstance(c, tuple))
    name = attributes.get("name", "")
    return Tag(kind, name, as_json=attributes.get("string") == "false") if name else None


def grammar_tags(
    grammar: str, transformer: Transformer[Token, Any]
) -> Callable[[str], Tag | None]:
    """The memoized reader of open tags by ``grammars/<grammar>.lark``."""

    @functools.lru_cache(maxsize=1024)
    def parse_tag(text: str) -> Tag | None:
        try:
            tag = load_grammar(grammar, transformer=transformer).parse(text)
        except LarkError:
            return None
        return tag if isinstance(tag, Tag) and tag.name else None

    return parse_tag
