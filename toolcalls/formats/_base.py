"""The `Format` contract: what one wire format supplies to the engine.

A format is a small class: metadata (name, aliases, model ids), the openers that start its
blocks (each with a `Reader` factory), its reasoning tags, and an example. Batch parsing is
defined once, here, as streaming the whole text in one piece, so the two cannot disagree.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import ClassVar

from mypy_extensions import mypyc_attr

from .._engine import Engine, Openers, Reader, ReaderFactory, Status, holdback
from .._models import ParseResult, Tool, ToolCall
from .._text import skip_blanks

__all__ = ["CODE_FENCE", "CodeFenceReader", "Format", "ReasoningReader"]

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

    def call_openers(self) -> dict[str, ReaderFactory]:
        """Markers that open a call block, each with the factory of its reader."""
        raise NotImplementedError

    def compiled_openers(self) -> Openers:
        return _compiled_openers(type(self))  # type: ignore[arg-type]  # classes are hashable

    def openers(self) -> dict[str, ReaderFactory]:
        table = dict(self.call_openers())
        if self.reasoning_tags is not None:
            start, end = self.reasoning_tags
            table[start] = lambda ctx, opener: ReasoningReader(opener, end)
            # A reasoning end with no start: the prompt opened the block (see `thinking`).
            table.setdefault(end, _StrayReasoningEnd)
        if self.code_fence is not None:
            quoted = Openers(dict(table))
            table.setdefault(self.code_fence, lambda ctx, opener: CodeFenceReader(opener, quoted))
        return table

    def reasoning_reader(self, ctx: Engine) -> Reader:
        """The reader for text that starts inside reasoning (``thinking=True``)."""
        if self.reasoning_tags is None:
            raise ValueError(f"format {self.name!r} has no reasoning block to start in")
        start, end = self.reasoning_tags
        return ReasoningReader("", end, restated=start)

    def stream(
        self, *, tools: Sequence[Tool] = (), strict: bool = False, thinking: bool = False
    ) -> Engine:
        """A parser for one response arriving in pieces."""
        return Engine(self, tools=tools, strict=strict, thinking=thinking)

    def parse(
        self, text: str, *, tools: Sequence[Tool] = (), strict: bool = False,
        thinking: bool = False,
    ) -> ParseResult:
        """Parse a whole response: exactly what streaming it in one piece gives."""
        # The options are passed by name, not as **options: packing and unpacking them was
        # 5% of a short parse.
        parser = self.stream(tools=tools, strict=strict, thinking=thinking)
        parser.emits = False  # only the result is wanted: no events to build
        parser.close(text)  # the whole text, read knowing it is all there
        return parser.take_result()

    # -- prompt rendering: the same format written back (see tests/test_roundtrip.py) ---------

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
    return Openers(cls().openers())


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

    def read(self, ctx: Engine, eof: bool) -> Status:
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


class CodeFenceReader:
    """A markdown code block: content, where call markup is quoted, never run.

    The model is showing code (a call it describes, an example); executing it would turn a
    quotation into an action. Quoted call markup gets a ``call_in_code_fence`` issue.
    """

    def __init__(self, fence: str, quoted: Openers) -> None:
        self.fence = fence
        # Hold back what could still become the closing fence or a quoted marker, so a marker
        # split across chunks is noticed exactly as in one piece.
        self.prefixes = quoted.prefixes | {fence[:size] for size in range(1, len(fence))}
        self.longest = max(quoted.longest, len(fence))
        self.calls = quoted.pattern
        self.started = False
        self.noticed = False

    def read(self, ctx: Engine, eof: bool) -> Status:
        if not self.started:
            self.started = True
            ctx.consume("content", ctx.pos + len(self.fence))
        buf = ctx.buf
        found = buf.find(self.fence, ctx.pos)
        stop = found if found >= 0 else len(buf)
        if found < 0 and not eof:
            stop = holdback(buf, ctx.pos, self.prefixes, self.longest)
        self._notice_quoted_calls(ctx, stop)
        ctx.consume("content", stop)
        if found < 0:
            return Status.DONE if eof else Status.MORE
        ctx.consume("content", found + len(self.fence))
        return Status.DONE

    def _notice_quoted_calls(self, ctx: Engine, stop: int) -> None:
        quoted = None if self.noticed else self.calls.search(ctx.buf, ctx.pos, stop)
        if quoted is not None:
            self.noticed = True
            span = (ctx.at(quoted.start()), ctx.at(quoted.end()))
            ctx.issue("call_in_code_fence", "call markup inside a code block is kept as "
                      "content: a quoted call is not run", span)


class _StrayReasoningEnd:
    """A reasoning end tag with no start: content, with an issue saying what to do."""

    def __init__(self, ctx: Engine, opener: str) -> None:
        self.opener = opener

    def read(self, ctx: Engine, eof: bool) -> Status:
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
