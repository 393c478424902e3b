"""Kimi K2 (Instruct and Thinking): a section of calls, each an id naming the tool, then JSON.

    <|tool_calls_section_begin|>
    <|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}
    <|tool_call_end|>
    <|tool_calls_section_end|>

The model's id (``functions.get_weather:0``) is the call id. Every observed spelling of the id is
read (``grammars/kimi_k2.lark``; the non-native ones with an issue), and so is the singular
``<|tool_call_section_begin|>``. A call also ends where the next call or the section starts.

The tool name is the id without a leading ``functions.`` and without the ``:INDEX`` suffix, and
nothing more is cut, so names with dots survive (the template writes ``'functions.' + name + ':'
+ index``): ``functions.api.search:0`` names ``api.search``, ``api.tools.search:0`` names
``api.tools.search`` (with an issue: no ``functions.``). An id without ``:INDEX`` whose last dotted
part is a number (``functions.get_weather.0``) is a misspelt index, not a name: the call is
malformed, as vLLM drops it.

Calls inside reasoning: Kimi K2 Thinking calls tools while it reasons, often before closing
``<think>`` (llama.cpp ``allow_toolcall_in_think``). Here a call section inside ``<think>`` is read
as calls, with a ``call_in_reasoning`` issue, and the reasoning goes on after it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Sequence
from typing import Any, Final, cast

from lark import Transformer
from lark.exceptions import LarkError

from ...tools._tool import Tool
from .._grammar import load_grammar
from .._json import canonical
from .._models import ToolCall
from .._text import skip_blanks
from ..reader import Reader, ReaderContext, ReaderFactory, Status, holdback
from ._base import Format
from ._blocks import SectionClose, SectionOpen
from ._jsoncall import Header, JsonCall
from ._regions import KimiCalls
from ._results import protect, region_openers
from ._template_json import openai_tool, tojson
from .deepseek import TerminatedCallReader

__all__ = ["KimiK2", "KimiCallReader", "kimi_call_id", "read_call_id"]

SECTION_BEGINS = ("<|tool_calls_section_begin|>", "<|tool_call_section_begin|>")
SECTION_ENDS: Final = ("<|tool_calls_section_end|>", "<|tool_call_section_end|>")
CALL_BEGIN = "<|tool_call_begin|>"
ARGUMENT_BEGIN = "<|tool_call_argument_begin|>"
CALL_END = "<|tool_call_end|>"
THINK, THINK_END = "<think>", "</think>"

NATIVE_PREFIX: Final = "functions."
INDEX_SEPARATOR: Final = ":"
"""Between a call's name and its index in ``functions.NAME:IDX``."""
_SHAPE = JsonCall(close=(CALL_END,), header_end=ARGUMENT_BEGIN)
# Ids without "functions." and ":", each with what the model did (the name is group 1).
_OTHER_IDS = (
    (re.compile(r"functions_(.+)_(\d+)"), "a sanitised id"),
    (re.compile(r"functions([^_].*?)(\d+)"), "an id without '.' and ':'"),
)


class CallId:
    """What a call header says: the tool name (None: it is inside the arguments), the id, and
    how the header departs from ``functions.NAME:INDEX`` (None: it does not).

    A plain class, not a dataclass: compiled, a dataclass keeps the interpreted __init__ the
    dataclasses module writes (one per call).
    """

    __slots__ = ("name", "call_id", "variant")

    def __init__(self, name: str | None, call_id: str | None, variant: str | None = None) -> None:
        self.name = name
        self.call_id = call_id
        self.variant = variant

    def __repr__(self) -> str:
        return f"CallId({self.name!r}, {self.call_id!r}, {self.variant!r})"


class _IdTree(Transformer[Any, tuple[str, str | None]]):
    """(name, index) from the parse tree; bare ids have no index."""

    def indexed(self, children: list[Any]) -> tuple[str, str | None]:
        return ".".join(map(str, children[:-1])), str(children[-1])[1:]

    def bare(self, children: list[Any]) -> tuple[str, str | None]:
        return ".".join(map(str, children)), None


_TRANSFORMER = _IdTree()


@functools.lru_cache(maxsize=1024)
def _parse_id(text: str) -> tuple[str, str | None] | None:
    try:
        tree = load_grammar("kimi_k2", transformer=_TRANSFORMER).parse(text)
    except LarkError:
        return None
    return cast(tuple[str, str | None], tree)


def read_call_id(text: str, tools: Collection[str] = ()) -> CallId | None:
    """The tool name and id in a call header, whatever spelling the model used."""
    parsed = _parse_id(text)
    if parsed is None:
        return None
    raw = text.strip()
    path, index = parsed
    name = path.removeprefix(NATIVE_PREFIX)
    if index is not None:
        variant = None if path != name else 'the id has no "functions." prefix'
        return CallId(name, raw, variant)
    if "." in path:
        if path.rpartition(".")[2].isdigit():  # "functions.NAME.0": a misspelt ":0"
            return None
        if path != name:
            return CallId(name, None, 'the id has no ":INDEX"')
        return CallId(name, None, "the id is the bare tool name")
    if name in tools:
        return CallId(name, None, "the id is the bare tool name")
    for pattern, variant in _OTHER_IDS:
        found = pattern.fullmatch(name)
        if found and (not tools or found[1] in tools):
            return CallId(found[1], raw, f"{variant} ({raw})")
    if name.startswith("call_"):
        return CallId(None, raw, "an OpenAI-style id; the name is read from the arguments")
    return CallId(name, None, "the id is the bare tool name")


class KimiCallReader(TerminatedCallReader):
    """One call, from ``<|tool_call_begin|>`` to ``<|tool_call_end|>``."""

    call_end = CALL_END
    terminators = (CALL_BEGIN, *SECTION_ENDS, THINK_END)
    header_stop = ARGUMENT_BEGIN

    def __init__(self, opener: str) -> None:
        super().__init__(_SHAPE, opener)
        self.name_in_arguments = False
        self.call_id: str | None = None

    def _read_header(self, ctx: ReaderContext, text: str) -> bool:
        found = read_call_id(text, ctx.tools)
        if found is None:
            return False
        if found.variant is not None:
            start = ctx.at() + len(self.opener)
            ctx.issue("call_id_variant", f"call id {text.strip()!r}: {found.variant}",
                      (start, start + len(text)))
        if found.name is None:
            self.name_in_arguments, self.call_id = True, found.call_id
        else:
            self.header = Header(found.name, found.call_id)
        return True

    def _announce(self, ctx: ReaderContext) -> None:
        if self.name_in_arguments:
            self.json.take_fragments()  # the name is not known before the object is complete
            return
        super()._announce(ctx)

    def _body_done(self, ctx: ReaderContext) -> Status | None:
        if not self.name_in_arguments:
            return super()._body_done(ctx)
        value = self.json.value
        name = value.get("name") if isinstance(value, dict) else None
        if not isinstance(name, str) or not name:
            return self._malformed(ctx, 'no tool name in the id or the arguments', None)
        assert isinstance(value, dict)
        inner = value.get("arguments")
        self.arguments = inner if isinstance(inner, dict) else {
            key: item for key, item in value.items() if key != "name"
        }
        ctx.start_call(name, self.call_id)
        if ctx.emits:
            ctx.arguments(canonical(self.arguments))
        self.phase = "close"
        return None


class _SectionClose(SectionClose):
    """Either spelling of the section end closes a section opened by either spelling."""

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        if ctx.section not in SECTION_ENDS:
            return Status.REJECT
        ctx.section = None
        ctx.consume("markup", ctx.pos + len(self.closer))
        return Status.DONE


def _section_open(ctx: ReaderContext, opener: str) -> SectionOpen:
    closer = SECTION_ENDS[SECTION_BEGINS.index(opener)]
    return SectionOpen(opener, closer, (CALL_BEGIN,))


def _call_openers() -> dict[str, ReaderFactory]:
    table: dict[str, ReaderFactory] = {opener: _section_open for opener in SECTION_BEGINS}
    table |= {closer: (lambda ctx, opener: _SectionClose(opener)) for closer in SECTION_ENDS}
    table[CALL_BEGIN] = lambda ctx, opener: KimiCallReader(opener)
    return table


_CALL_OPENERS = _call_openers()
_REASONING_MARKERS = sorted([THINK_END, *_CALL_OPENERS], key=len, reverse=True)
_REASONING_STOP = re.compile("|".join(map(re.escape, _REASONING_MARKERS)))
_REASONING_PREFIXES = frozenset(m[:i] for m in _REASONING_MARKERS for i in range(1, len(m)))
_REASONING_LONGEST = max(len(m) for m in _REASONING_MARKERS)


class KimiReasoningReader:
    """``<think>reasoning</think>``, in which call sections and calls are read as calls."""

    trims_after = True

    def __init__(self, opener: str) -> None:
        self.opener = opener
        self.started = False
        self.leading = True
        self.inner: Reader | None = None
        self.inner_start = 0
        self.inner_opener_end = 0

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        if not self.started:
            self.started = True
            ctx.consume("markup", ctx.pos + len(self.opener))
            ctx.open_reasoning()
        while True:
            if self.inner is not None:
                status = self._step_inner(ctx, eof)
                if status is not None:
                    return status
                continue
            if self.leading:
                ctx.consume("markup", skip_blanks(ctx.buf, ctx.pos))
                if ctx.pos == len(ctx.buf) and not eof:
                    return Status.MORE
                self.leading = False
            found = _REASONING_STOP.search(ctx.buf, ctx.pos)
            if found is None:
                return self._reasoning_until_more(ctx, eof)
            if found.group() == THINK_END:
                ctx.consume("reasoning", _before_trailing_ws(ctx.buf, ctx.pos, found.start()))
                ctx.consume("markup", found.end())
                return Status.DONE
            ctx.consume("reasoning", found.start())
            self.inner = _CALL_OPENERS[found.group()](ctx, found.group())
            self.inner_start, self.inner_opener_end = ctx.at(), ctx.at(found.end())

    def _step_inner(self, ctx: ReaderContext, eof: bool) -> Status | None:
        """Run the call or section reader; None when it is over and reasoning goes on."""
        assert self.inner is not None
        status = self.inner.read(ctx, eof)
        if status is Status.MORE:
            return status
        if status is Status.REJECT:  # not a call after all: its opener is reasoning
            resume = getattr(self.inner, "resume", None) or 0
            ctx.consume("reasoning", max(resume, self.inner_opener_end) - ctx.off)
        elif isinstance(self.inner, KimiCallReader):
            ctx.issue("call_in_reasoning", "a tool call inside the reasoning block was read as a "
                      "call (Kimi K2 Thinking calls tools while it reasons)",
                      (self.inner_start, ctx.at()))
        self.inner = None
        return None

    def _reasoning_until_more(self, ctx: ReaderContext, eof: bool) -> Status:
        if eof:
            ctx.consume("reasoning", len(ctx.buf))
            return Status.DONE
        stop = holdback(ctx.buf, ctx.pos, _REASONING_PREFIXES, _REASONING_LONGEST)
        ctx.consume("reasoning", _before_trailing_ws(ctx.buf, ctx.pos, stop))
        return Status.MORE


def _before_trailing_ws(buf: str, start: int, stop: int) -> int:
    end = stop
    while end > start and buf[end - 1] in " \t\r\n":
        end -= 1
    return end


# -- prompt rendering (Kimi-K2-Instruct's template, fixtures/render/kimi_k2/) ---------------------
SYSTEM, MIDDLE, END = "<|im_system|>", "<|im_middle|>", "<|im_end|>"
_TOOL_DECLARE = f"{SYSTEM}tool_declare{MIDDLE}"
_NATIVE_ID = re.compile(r"functions\.(.+):\d+")
_ENGINE_ID = re.compile(r"call_(\d{1,9})")


def kimi_call_id(call: ToolCall, index: int | None = None) -> str:
    """The id Kimi writes for a call: its own when it has one, else ``functions.NAME:INDEX``.

    The template numbers calls across the whole conversation; a call parsed from Kimi's
    output carries that number in its id. Any other call gets its `index` (its place in its
    turn), or where none is given the place its engine id ``call_N`` gives (text calls of
    every format are numbered so), else 0.
    """
    native = _NATIVE_ID.fullmatch(call.id)
    if native and native[1] == call.name:
        return call.id
    if index is None:
        engine = _ENGINE_ID.fullmatch(call.id)
        index = int(engine[1]) if engine else 0
    return f"functions.{call.name}:{index}"


class KimiK2(Format):
    """Kimi K2. Rendering follows Kimi-K2-Instruct's template: tools as a ``tool_declare``
    system message of OpenAI-shaped JSON; each result as a system message named after the tool,
    ``## Return of ID`` then the text. A message from the system role (a result, a declaration)
    found in the text is a region of data, never calls (`_results`)."""

    name = "kimi_k2"
    aliases = ("kimi", "kimi_k2_thinking", "moonshot")
    model_prefixes = ("moonshotai/Kimi-K2", "Kimi-K2")
    signatures = (SECTION_BEGINS[0], CALL_BEGIN, ARGUMENT_BEGIN)
    turn_ends = (END,)  # <|im_end|>, as Kimi-K2-Instruct.jinja and -Thinking.jinja end a turn
    example = (
        f"{SECTION_BEGINS[0]}{CALL_BEGIN}functions.get_weather:0{ARGUMENT_BEGIN}"
        f'{{"city": "Paris"}}{CALL_END}{SECTION_ENDS[0]}'
    )

    calls_in_reasoning = True
    models = "Kimi K2"
    wire = "`<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{…}`"
    grammars = ("kimi_k2",)
    body_wrapper = (
        "<|tool_calls_section_begin|><|tool_call_begin|>",
        "<|tool_call_end|><|tool_calls_section_end|>",
    )
    result_region_end = "<|im_end|>"
    call_region = KimiCalls(
        SECTION_BEGINS[0], SECTION_ENDS[0], CALL_BEGIN, NATIVE_PREFIX, INDEX_SEPARATOR,
        ARGUMENT_BEGIN, CALL_END,
    )
    # One section per call; the index is written as 0 (a structural tag's begin is fixed).
    structural_tag_markers = (
        SECTION_BEGINS[0],
        f"{SECTION_BEGINS[0]}{CALL_BEGIN}{NATIVE_PREFIX}{{name}}{INDEX_SEPARATOR}0"
        f"{ARGUMENT_BEGIN}",
        f"{CALL_END}{SECTION_ENDS[0]}",
    )
    result_run = ("", "", "")

    def call_openers(self) -> dict[str, ReaderFactory]:
        return dict(_CALL_OPENERS) | region_openers({SYSTEM: END}, "tool_result_in_text")

    def openers(self) -> dict[str, ReaderFactory]:
        table = super().openers()
        table[THINK] = lambda ctx, opener: KimiReasoningReader(opener)
        return table

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # no tools: servers pass none, and the template writes no section
            return ""
        return f"{_TOOL_DECLARE}{tojson([openai_tool(tool) for tool in tools])}{END}"

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        if not calls:
            return content
        rendered = (
            f"{CALL_BEGIN}{kimi_call_id(call, index)}{ARGUMENT_BEGIN}{tojson(call.arguments)}"
            f"{CALL_END}"
            for index, call in enumerate(calls)
        )
        return f"{content}{SECTION_BEGINS[0]}{''.join(rendered)}{SECTION_ENDS[0]}"

    def render_result(self, call: ToolCall, result: str, *, index: int | None = None) -> str:
        """``## Return of`` the id `render_calls` gave the call (`kimi_call_id`): pass its
        `index` in its turn when its id is neither Kimi's own nor an engine id ``call_N``."""
        head = f"{SYSTEM}{call.name}{MIDDLE}## Return of {kimi_call_id(call, index)}\n"
        return f"{head}{protect(result, END)}{END}"

    def reasoning_reader(self, ctx: ReaderContext) -> Reader:
        return KimiReasoningReader("")
