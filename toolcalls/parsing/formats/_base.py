"""The `Format` contract: what one wire format supplies to the engine.

A format is a small class: metadata (name, aliases, model ids), the openers that start its
blocks (each with a `Reader` factory), its reasoning tags, and an example. Batch parsing is
defined once, here, as streaming the whole text in one piece, so the two cannot disagree.

Tags named in prose. A model explaining its protocol writes the tags in sentences; the call it
makes next must still be a call. Each rule is decided from the text as it arrives, never by
waiting for the end of the text, so the stream neither stalls nor differs from the batch:

* Reasoning. A reasoning tag that opens the response (only blanks before it, or the prompt
  opened it: ``thinking=True``) starts *the* reasoning: up to its end tag or the end of the
  text, calls inside included (a rehearsed call is not a call). A reasoning tag anywhere else
  (after content, a call or a closed block: ``Use the <think> tag to reason.``) may never
  close, so the first call its reader accepts ends the block: the text before stays reasoning,
  the call is read, with a ``reasoning_ended_by_call`` issue (an end tag after it is then a
  stray one). A block that closes before any call is reasoning as usual (interleaved
  thinking). Kimi K2 reads calls inside every reasoning block (`kimi_k2`).
* Code fences. As in Markdown, a fence (three backticks) opens a code block (call markup
  quoted inside is content, with a ``call_in_code_fence`` issue) at the start of a line or
  right after a tag or a block; mid-line only when a language tag (or nothing) and a line break
  follow it (```` Action: ```json ````, Command R). ``Wrap code in ``` fences.`` is prose.
  A fence that opens a block and never closes runs to the end of the text: the end is the only
  place that could tell, and a quoted call must not run.
* Tool-result tags: see `_results` (a block only at the start of a line or after a tag; call
  markup inside a block reported with ``call_in_tool_result``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar, Final

from mypy_extensions import mypyc_attr

from ...tools._tool import Tool
from .._models import ParseResult, ToolCall
from .._text import skip_blanks
from .._turn_end import TurnEnds
from ..reader import Openers, Reader, ReaderContext, ReaderFactory, Status, holdback
from ..stream import StreamParser, parse_whole
from ._results import is_result_opener

if TYPE_CHECKING:
    from ._regions import CallShape

__all__ = [
    "CODE_FENCE",
    "CodeFenceReader",
    "Format",
    "MidTextReasoningReader",
    "ReasoningReader",
    "reasoning_opener",
]

CODE_FENCE = "```"


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled, Ollama.with_prefix still subclasses it
class Format:
    """One tool-call wire format. Subclasses set the class attributes and `call_openers`."""

    name: ClassVar[str]
    """Registry name: public API, lowercase snake_case."""
    aliases: ClassVar[tuple[str, ...]] = ()
    model_prefixes: ClassVar[tuple[str, ...]] = ()
    """Model ids (or their prefixes) that speak this format, such as ``Qwen/Qwen3-Coder``."""
    reasoning_tags: ClassVar[tuple[str, str] | None] = ("<think>", "</think>")
    signatures: ClassVar[tuple[str, ...]] = ()
    """Marker strings whose presence identifies the format (for `detect`)."""
    example: ClassVar[str] = ""
    """A complete model response with one call, shown by ``toolcalls formats``."""
    code_fence: ClassVar[str | None] = CODE_FENCE
    """Markdown fence: call markup quoted inside one is content, not a call (None: no fences)."""
    turn_ends: ClassVar[tuple[str, ...]] = ()
    """The tokens the model's chat template ends an assistant turn with: markup when they end
    the text (see `toolcalls.parsing._turn_end`)."""
    bare_calls: ClassVar[bool] = False
    """Calls may stand with no markup at all (a JSON object, a Python call list): `detect`
    gives the format a score when the text names a declared tool."""
    calls_in_reasoning: ClassVar[bool] = False
    """Calls inside a reasoning block are read as calls (with a ``call_in_reasoning`` issue),
    as Kimi K2 Thinking calls tools while it reasons; otherwise a call rehearsed in the
    response's own reasoning is reasoning."""

    # -- obligations: what the format declares so that the tests, the benchmarks and the docs
    # find it from the registry alone (tests/parsing/test_format_contract.py checks each one).
    # None of these is read while parsing. Its files go by its registry name: golden pairs in
    # fixtures/<name>/ (<case>.txt, <case>.json), corpus rows in fixtures/corpus/<name>.jsonl,
    # and, optionally, the model's chat template in fixtures/render/<name>/template.jinja.
    # Generated from these: the README's Formats table (`python tests/generate.py`).

    models: ClassVar[str] = ""
    """The models that speak the format, for people: the README's Formats table (Markdown,
    one line, such as ``Qwen3-Coder, Qwen3.5``). Required."""
    wire: ClassVar[str] = ""
    """One call as it looks on the wire, shortened: the README's Formats table (Markdown, one
    line, such as ```` `<tool_call><function=f>…</function></tool_call>` ````). Required."""
    grammars: ClassVar[tuple[str, ...]] = ()
    """The ``toolcalls/parsing/grammars/<name>.lark`` files the format reads with (names
    without ``.lark``). Each must build as LALR with ``strict=True`` (no conflict, no
    shadowed terminal), and every grammar file must be declared by some format."""
    body_wrapper: ClassVar[tuple[str, str] | None] = None
    """What goes before and after the inside of one call block to make a whole response, for
    corpus rows with ``"scope": "tool_call_body"`` (the source's unit under test added the
    markers, so we add them too). Required when the format's corpus has such rows."""
    no_corpus_reason: ClassVar[str] = ""
    """Why ``fixtures/corpus/<name>.jsonl`` has no rows for the format (no third-party parser
    test suite exists), or ``""`` when it has: a format has corpus rows or says why not."""
    refused_values: ClassVar[tuple[str, ...]] = ()
    """String values `render_calls` must refuse (ValueError) because the format writes values
    raw between tags and cannot write these unambiguously: its value close tag followed by the
    next structural tag. Non-empty exactly for the formats that write string values raw (the
    XML-parameter family: qwen3_coder, glm45...); the tests of that family iterate over the
    formats that declare some. Each must also misread when written raw, as a template would."""
    result_tags: ClassVar[tuple[str, str] | None] = None
    """The tag pair a chat template wraps a tool result in (``<tool_response>``,
    ``</tool_response>``), read as a result block only at the start of a line or right after a
    tag (`_results`); None when the format's results are no such tag pair."""
    result_region_end: ClassVar[str | None] = None
    """The special token that ends a tool-result region (``<｜tool▁output▁end｜>``,
    ``<|eot_id|>``): a result may forge it to smuggle a call, so the tests write it inside
    one; None when the format's results are no special-token region."""

    # -- constrained decoding (`toolcalls.decoding`) and the proxy (`toolcalls serve`): how
    # the format writes calls and results, each built from the markers its reader uses.

    call_region: ClassVar[CallShape | None] = None
    """How the format writes its calls (a shape of `_regions`), from which
    `toolcalls.decoding.grammar` builds its whole-response grammar. A format has one or says why not
    (`no_call_region_reason`)."""
    no_call_region_reason: ClassVar[str] = ""
    """Why the format has no `call_region` (no whole-response grammar), or ``""`` when it has."""
    structural_tag_markers: ClassVar[tuple[str, str, str] | None] = None
    """For `toolcalls.decoding.structural_tag`, when the arguments are one JSON object between fixed
    strings: the trigger, the begin (a `str.format` template of ``{name}`` and
    ``{name_json}``, braces doubled) and the end of one call. None: no such tag."""
    xgrammar_style: ClassVar[str | None] = None
    """The xgrammar (0.2.8+) ``json_schema`` content style that writes the format's parameters
    (``qwen_xml``...), for a `XmlParameterCalls` region: a structural tag of the current shape."""
    tool_name_rule: ClassVar[str] = ""
    """What the reader reads as a tool name, where one short rule says it (pythonic's Python
    names): added to the error for a tool the format cannot call."""
    result_run: ClassVar[tuple[str, str, str]] = ("", "\n", "")
    """How the chat template (fixtures/render/<name>/template.jinja) writes the results that
    answer one assistant turn, each written by `render_result`: before the first, between two,
    after the last. The proxy's prompt mode joins them into one user message so."""

    def call_openers(self) -> dict[str, ReaderFactory]:
        """Markers that open a call block, each with the factory of its reader."""
        raise NotImplementedError

    def compiled_openers(self) -> Openers:
        return _compiled_openers(type(self))  # type: ignore[arg-type]  # classes are hashable

    def call_markers(self) -> Openers:
        """The markers of `call_openers` that open calls, not tool results (`_results`)."""
        return _call_markers(type(self))  # type: ignore[arg-type]  # classes are hashable

    def result_markers(self) -> tuple[str, ...]:
        """The markers of `call_openers` that open tool results (`_results`), not calls."""
        return _result_markers(type(self))  # type: ignore[arg-type]  # classes are hashable

    def quoted_calls(self) -> re.Pattern[str] | None:
        """The opening markers of calls, to notice a call quoted where it is not run (a tool
        result): `call_markers` without closing tags and one-character markers (``{``, ``[``),
        which any data holds."""
        return _quoted_calls(type(self))  # type: ignore[arg-type]  # classes are hashable

    def compiled_turn_ends(self) -> TurnEnds | None:
        return self.compiled_openers().turn_ends

    def openers(self) -> dict[str, ReaderFactory]:
        table = dict(self.call_openers())
        if self.reasoning_tags is not None:
            start, end = self.reasoning_tags
            table[start] = reasoning_opener(end)
            # A reasoning end with no start: the prompt opened the block (see `thinking`).
            table.setdefault(end, _StrayReasoningEnd)
        if self.code_fence is not None:
            quoted = Openers(dict(table))
            table.setdefault(self.code_fence, lambda ctx, opener: CodeFenceReader(opener, quoted))
        return table

    def reasoning_reader(self, ctx: ReaderContext) -> Reader:
        """The reader for text that starts inside reasoning (``thinking=True``)."""
        if self.reasoning_tags is None:
            raise ValueError(f"format {self.name!r} has no reasoning block to start in")
        start, end = self.reasoning_tags
        return ReasoningReader("", end, restated=start)

    def opened_block(self, ctx: ReaderContext) -> Reader | None:
        """The reader for text that starts inside a block the prompt opened (Functionary
        v3.2's prompt ends with ``>>>``, so a response starts with its recipient line), or None:
        the text starts as content. A reader that rejects leaves the text to the usual scan."""
        return None

    def stream(
        self, *, tools: Sequence[Tool] = (), strict: bool = False, thinking: bool = False,
        validate: bool = False,
    ) -> StreamParser:
        """A parser for one response arriving in pieces."""
        return StreamParser(self, tools=tools, strict=strict, thinking=thinking, validate=validate)

    def parse(
        self, text: str, *, tools: Sequence[Tool] = (), strict: bool = False,
        thinking: bool = False, validate: bool = False,
    ) -> ParseResult:
        """Parse a whole response: exactly what streaming it in one piece gives."""
        # The options are passed by position, not as **options: packing and unpacking them
        # was 5% of a short parse. No `StreamParser` either: a batch parse makes no events.
        return parse_whole(self, text, tools, strict, thinking, validate)

    # -- prompt rendering: the same format written back (see tests/parsing/test_roundtrip.py) --

    def render_tools(self, tools: Sequence[Tool]) -> str:
        """The tools section the model's own chat template writes into the system prompt."""
        raise NotImplementedError(f"format {self.name!r} does not render tools yet")

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        """An assistant turn as the model writes it: `content`, then `calls` in wire format.

        Parsing the result gives `content` and the calls (names and arguments) back.
        """
        raise NotImplementedError(f"format {self.name!r} does not render calls yet")

    def render_result(self, call: ToolCall, result: str) -> str:
        """A tool's result as the chat template writes it into the history of the next turn."""
        raise NotImplementedError(f"format {self.name!r} does not render results yet")

    @classmethod
    def detect(cls, text: str) -> float:
        """How sure we are (0 to 1) that `text` is in this format."""
        hits = sum(1 for marker in cls.signatures if marker in text)
        return min(1.0, hits / 2) if hits else 0.0

    def __repr__(self) -> str:
        return f"<toolcalls format {self.name!r}>"


@functools.cache
def _compiled_openers(cls: type[Format]) -> Openers:
    return Openers(cls().openers(), cls.turn_ends)


@functools.cache
def _call_markers(cls: type[Format]) -> Openers:
    table = cls().call_openers()
    return Openers({m: f for m, f in table.items() if not is_result_opener(f)})


@functools.cache
def _result_markers(cls: type[Format]) -> tuple[str, ...]:
    return tuple(m for m, f in cls().call_openers().items() if is_result_opener(f))


@functools.cache
def _quoted_calls(cls: type[Format]) -> re.Pattern[str] | None:
    table = _call_markers(cls).factories  # type: ignore[arg-type]  # classes are hashable
    markers = [m for m in table if len(m) > 1 and not m.startswith("</")]
    markers.sort(key=len, reverse=True)
    return re.compile("|".join(map(re.escape, markers))) if markers else None


def reasoning_opener(end: str) -> ReaderFactory:
    """The factory of a reasoning block that ends with `end`.

    A block that opens the response (nothing but blanks before it) is reasoning up to `end`
    or the end of the text, calls inside included (a model rehearsing a call is not calling).
    A block opened mid-text (after content, a call or an earlier block) may be prose naming
    the tag (``Use the <think> tag to reason.``) and never close, so a call after it ends it:
    see `MidTextReasoningReader`.
    """

    def factory(ctx: ReaderContext, opener: str) -> Reader:
        if ctx.at() == 0:  # the blanks before the opener are still held, not consumed
            return ReasoningReader(opener, end)
        return MidTextReasoningReader(opener, end, ctx.format.call_markers())

    return factory



class ReasoningReader:
    """``<think>reasoning</think>``: whitespace at both ends of the reasoning is markup.

    A reader started by the prompt (``thinking=True``) has no opener in the text, but models
    often write the start tag again anyway: `restated` is that tag, markup when it comes first.
    """

    trims_after = True

    def __init__(self, opener: str, end: str, *, restated: str = "") -> None:
        self.opener = opener
        self.end = end
        self.restated = restated
        self.prefixes = frozenset(end[:size] for size in range(1, len(end)))
        self.started = False
        self.leading = True

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        if not self.started:
            self.started = True
            ctx.consume("markup", ctx.pos + len(self.opener))
            ctx.open_reasoning()
        buf = ctx.buf
        if self.leading:
            ctx.consume("markup", skip_blanks(buf, ctx.pos))
            if ctx.pos == len(buf) and not eof:
                return Status.MORE
            if self.restated:
                rest = buf[ctx.pos : ctx.pos + len(self.restated)]
                if rest == self.restated:
                    ctx.consume("markup", ctx.pos + len(rest))
                    self.restated = ""
                    return self.read(ctx, eof)
                if self.restated.startswith(rest) and not eof:
                    return Status.MORE
            self.leading = False
        found = buf.find(self.end, ctx.pos)
        if found < 0:
            stop = len(buf) if eof else holdback(buf, ctx.pos, self.prefixes, len(self.end))
            ctx.consume("reasoning", stop if eof else _before_trailing_ws(buf, ctx.pos, stop))
            return Status.DONE if eof else Status.MORE
        ctx.consume("reasoning", _before_trailing_ws(buf, ctx.pos, found))
        ctx.consume("markup", found + len(self.end))
        return Status.DONE


class MidTextReasoningReader:
    """A reasoning block opened mid-text: reasoning up to its end tag or the first call.

    Whether a block closes is known only at its end tag or the end of the text, and waiting
    for either would silence the stream without bound. So the rule is decided as the text
    arrives: a call opener whose reader accepts it ends the block there (the text before stays
    reasoning, with a ``reasoning_ended_by_call`` issue) and the call is read as a call; an
    end tag after it is then a stray one. An opener its reader rejects (prose naming the tag)
    is reasoning, and the block goes on.
    """

    def __init__(self, opener: str, end: str, calls: Openers) -> None:
        self.opener = opener
        self.end = end
        self.stops = re.compile(f"{re.escape(end)}|{calls.pattern.pattern}" if calls.factories
                                else re.escape(end))
        self.calls = calls
        self.prefixes = calls.prefixes | {end[:size] for size in range(1, len(end))}
        self.longest = max(calls.longest, len(end))
        self.start = -1
        self.leading = True
        self.trailing = False  # past the end tag: blanks after it are markup
        self.inner: Reader | None = None
        self.inner_start = 0
        self.inner_opener_end = 0
        self.calls_before = 0
        self.section_before: str | None = None

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        if self.start < 0:
            self.start = ctx.at()
            ctx.consume("markup", ctx.pos + len(self.opener))
            ctx.open_reasoning()
        while True:
            if self.inner is not None:
                status = self._step_inner(ctx, eof)
                if status is not None:
                    return status
            elif self.leading or self.trailing:
                ctx.consume("markup", skip_blanks(ctx.buf, ctx.pos))
                if ctx.pos == len(ctx.buf) and not eof:
                    return Status.MORE
                if self.trailing:
                    return Status.DONE
                self.leading = False
            elif not self._reasoning(ctx, eof):
                return Status.DONE if eof else Status.MORE

    def _reasoning(self, ctx: ReaderContext, eof: bool) -> bool:
        """Reasoning up to the next stop; False when out of text."""
        buf = ctx.buf
        found = self.stops.search(buf, ctx.pos)
        if found is None:
            stop = len(buf) if eof else holdback(buf, ctx.pos, self.prefixes, self.longest)
            ctx.consume("reasoning", stop if eof else _before_trailing_ws(buf, ctx.pos, stop))
            return False
        at, marker = found.start(), found.group()
        if (not eof and len(buf) - at < self.longest and marker != self.end
                and buf[at:] in self.calls.longer_prefixes):
            ctx.consume("reasoning", _before_trailing_ws(buf, ctx.pos, at))
            return False  # "<function" may yet be "<function_call>"
        ctx.consume("reasoning", _before_trailing_ws(buf, ctx.pos, at))
        if marker == self.end:
            ctx.consume("markup", found.end())
            self.trailing = True
            return True
        ctx.hold_blanks(at)
        self.calls_before, self.section_before = ctx.call_count(), ctx.section
        self.inner = self.calls.factories[marker](ctx, marker)
        self.inner_start, self.inner_opener_end = ctx.at(), ctx.at(found.end())
        return True

    def _step_inner(self, ctx: ReaderContext, eof: bool) -> Status | None:
        """Run the marker's reader; None when it read no call and reasoning goes on."""
        assert self.inner is not None
        status = self.inner.read(ctx, eof)
        if status is Status.MORE and not eof:
            return status
        if status is Status.REJECT:  # not a call after all: its opener is reasoning
            resume = getattr(self.inner, "resume", None) or 0
            ctx.consume("reasoning", max(resume, self.inner_opener_end) - ctx.off)
        elif (status is Status.MORE or ctx.call_count() != self.calls_before
              or ctx.section != self.section_before):  # a call, cut or not, or its section
            ctx.issue("reasoning_ended_by_call", "a reasoning block opened mid-text had not "
                      "closed when a tool call began: the call ends it and is read as a call",
                      (self.start, self.inner_start))
            return status
        self.inner = None  # markup that opened no call (a stray token): reasoning goes on
        return None


_LANGUAGE_TAG_LONGEST: Final = 32
_LANGUAGE_TAG: Final = re.compile(rf"[\w+.#-]{{0,{_LANGUAGE_TAG_LONGEST}}}")
"""What may follow a fence opened mid-line on its line (```` Action: ```json ````)."""


class CodeFenceReader:
    """A markdown code block: content, where call markup is quoted, never run.

    The model is showing code (a call it describes, an example); executing it would turn a
    quotation into an action. Quoted call markup gets a ``call_in_code_fence`` issue.

    As in Markdown (CommonMark), a fence opens a block at the start of a line (or right after
    a tag or a block, `ReaderContext.starts_line`). Mid-line it opens one only when a language tag
    (or nothing) and a line break follow it, as Command R writes ``Action: ```json``; else
    (``Wrap code in ``` fences.``) it is prose, and the text after it is read as usual. The
    wait is bounded: a tag is at most 32 characters.
    """

    def __init__(self, fence: str, quoted: Openers) -> None:
        self.fence = fence
        # Hold back what could still become the closing fence or a quoted marker, so a marker
        # split across chunks is noticed exactly as in one piece.
        self.prefixes = quoted.prefixes | {fence[:size] for size in range(1, len(fence))}
        self.longest = max(quoted.longest, len(fence))
        self.calls = quoted.pattern
        self.line_start: bool | None = None
        self.started = False
        self.noticed = False

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        if not self.started:
            if self.line_start is None:  # asked on the first read: the text before may go
                self.line_start = ctx.starts_line()
            opens = self.line_start or self._tagged_line(ctx, eof)
            if opens is None:
                return Status.MORE
            if not opens:
                return Status.REJECT
            self.started = True
            ctx.consume("content", ctx.pos + len(self.fence))
        buf = ctx.buf
        found = buf.find(self.fence, ctx.pos)
        stop = found if found >= 0 else len(buf)
        if found < 0 and not eof:
            stop = holdback(buf, ctx.pos, self.prefixes, self.longest)
        # A marker that ends with its own prefix (``>>>`` ends with ``>>``) is held back from
        # its second character: it is noticed now if it starts before the held tail.
        self._notice_quoted_calls(ctx, stop, found if found >= 0 else len(buf))
        ctx.consume("content", stop)
        if found < 0:
            return Status.DONE if eof else Status.MORE
        ctx.consume("content", found + len(self.fence))
        return Status.DONE

    def _tagged_line(self, ctx: ReaderContext, eof: bool) -> bool | None:
        """Whether a language tag (or nothing) and a line break follow the fence; None while
        the text cannot tell yet (at most a tag's length ahead)."""
        after = ctx.pos + len(self.fence)
        found = _LANGUAGE_TAG.match(ctx.buf, after)
        end = found.end() if found is not None else after
        if end == len(ctx.buf):
            return False if eof or end - after >= _LANGUAGE_TAG_LONGEST else None
        return ctx.buf[end] in "\r\n"

    def _notice_quoted_calls(self, ctx: ReaderContext, stop: int, limit: int) -> None:
        quoted = None if self.noticed else self.calls.search(ctx.buf, ctx.pos, limit)
        if quoted is not None and quoted.start() < stop:
            self.noticed = True
            span = (ctx.at(quoted.start()), ctx.at(quoted.end()))
            ctx.issue("call_in_code_fence", "call markup inside a code block is kept as "
                      "content: a quoted call is not run", span)


class _StrayReasoningEnd:
    """A reasoning end tag with no start: content, with an issue saying what to do."""

    def __init__(self, ctx: ReaderContext, opener: str) -> None:
        self.opener = opener

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        start = ctx.at()
        ctx.consume("content", ctx.pos + len(self.opener))
        ctx.issue(
            "stray_reasoning_end",
            f"{self.opener!r} without a start tag: if the prompt opened the reasoning block, "
            "parse with thinking=True so the text before it is reasoning",
            (start, ctx.at()),
        )
        return Status.DONE


def _before_trailing_ws(buf: str, start: int, stop: int) -> int:
    end = stop
    while end > start and buf[end - 1] in " \t\r\n":
        end -= 1
    return end
