"""DeepSeek V3 / R1 and V3.1: a section of calls, each a header naming the tool, then JSON.

    <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather
    ```json
    {"city": "Paris"}
    ```<｜tool▁call▁end｜><｜tool▁calls▁end｜>                        deepseek_v3 (V3, R1, distills)

    <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}
    <｜tool▁call▁end｜><｜tool▁calls▁end｜>                           deepseek_v31 (V3.1, one line)

Both formats read both header spellings (``grammars/deepseek.lark``). Also read, each with an
issue: the other spellings of the section opener that llama.cpp accepts (``<｜tool▁calls｜>``, ...),
a header right after the section opener with no ``<｜tool▁call▁begin｜>``, a call that ends where
the next call or the section starts, and ``<｜tool▁output▁begin｜>``/``<｜tool▁output▁end｜>``
markers written into the answer (stripped, as ollama does). A ``</think>`` without ``<think>``
stays content, as ollama and llama.cpp keep it. Text after the section is content: vLLM drops it,
ollama keeps it, and content is never dropped.

Prompt rendering: calls and results as the models' templates write them (V3.1:
``fixtures/render/deepseek_v31/``). Neither template writes a tools block; the blocks rendered
follow DeepSeek's model cards (V3.1: "ToolCall"; V3/R1: the V2/V2.5 card's function-calling
prompt, the same call syntax). A tool-output block in the text (``<｜tool▁output▁begin｜>``...)
is a region of data (`_results`): its text stays content and is never read as calls.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from typing import Any, ClassVar, Final, cast

import regex  # type: ignore[import-untyped]  # partial matches: could this still be a header?
from lark import Transformer
from lark.exceptions import LarkError

from ...tools._tool import Tool
from .._grammar import load_grammar
from .._models import ToolCall
from .._text import skip_blanks
from ..reader import ReaderContext, ReaderFactory, Status
from ._base import CODE_FENCE, Format
from ._blocks import SectionClose, SectionOpen
from ._jsoncall import Header, JsonCall, JsonCallReader
from ._regions import DeepseekCalls
from ._results import protect, region_openers
from ._template_json import bare_tool, tojson

__all__ = ["DeepseekV3", "DeepseekV31", "TerminatedCallReader", "parse_header"]

CALLS_BEGIN = "<｜tool▁calls▁begin｜>"
CALLS_END = "<｜tool▁calls▁end｜>"
CALL_BEGIN = "<｜tool▁call▁begin｜>"
CALL_END = "<｜tool▁call▁end｜>"
SEP = "<｜tool▁sep｜>"
CALL_TYPE: Final = "function"
"""What V3 writes before `SEP` and the name (V3.1 writes the name first)."""
FENCE_OPEN: Final = CODE_FENCE + "json"
"""What V3's JSON arguments stand after (then a line break), up to a closing `CODE_FENCE`."""
# Other spellings of the section opener, accepted by llama.cpp's DeepSeek R1 parser.
OTHER_CALLS_BEGIN = (
    "<｜tool_calls_begin｜>",
    "<｜tool calls begin｜>",
    "<｜tool\\_calls\\_begin｜>",
    "<｜tool▁calls｜>",
)
# Tool-result markers of the chat template, sometimes written by the model into its answer.
OUTPUT_BEGIN, OUTPUT_END = "<｜tool▁output▁begin｜>", "<｜tool▁output▁end｜>"
OUTPUTS_BEGIN, OUTPUTS_END = "<｜tool▁outputs▁begin｜>", "<｜tool▁outputs▁end｜>"

_PLAIN: Final = JsonCall(close=(CALL_END,), header_end=SEP)
_FENCED: Final = JsonCall(close=(CODE_FENCE, CALL_END), header_end=SEP)
_HERMES = JsonCall(
    close=("</tool_call>",), envelope=True, tentative=True, terminators=("<tool_call>",)
)
_BARE_HEADER = regex.compile(r"[^\s<>{}｜`]{1,64}" + regex.escape(SEP))


class _HeaderTree(Transformer[Any, tuple[str, bool]]):
    """(tool name, whether the arguments sit in a code fence)."""

    def plain(self, children: list[Any]) -> tuple[str, bool]:
        return str(children[0]), False

    def fenced(self, children: list[Any]) -> tuple[str, bool]:
        return str(children[2]), len(children) > 3


_TRANSFORMER = _HeaderTree()


@functools.lru_cache(maxsize=1024)
def parse_header(text: str) -> tuple[str, bool] | None:
    """The tool name in a call header, and whether a code fence holds the arguments."""
    try:
        tree = load_grammar("deepseek", transformer=_TRANSFORMER).parse(text)
    except LarkError:
        return None
    return cast(tuple[str, bool], tree)


class TerminatedCallReader(JsonCallReader):
    """A call whose header ends at `header_stop` and whose close marker may be missing.

    The call ends at `call_end`, or without it where one of `terminators` starts (the next call,
    the end of the section): a missing close marker is an issue, not a lost call. A header that
    does not parse is text outside a section and a malformed call inside one.
    Subclasses set the class attributes and `_read_header`.
    """

    call_end: ClassVar[str]
    terminators: ClassVar[tuple[str, ...]]
    header_stop: ClassVar[str]
    header_stop_in_body: ClassVar[bool] = False
    """Whether the header stop is the first character of the body (a JSON "{")."""
    max_header: ClassVar[int] = 256

    def _read_header(self, ctx: ReaderContext, text: str) -> bool:
        """Set the call's header (and shape) from the header text; False if it is not one."""
        raise NotImplementedError

    def _header(self, ctx: ReaderContext, eof: bool) -> Status | None:
        start = ctx.pos + len(self.opener)
        header_stop, _ = self._patterns()
        found = self._search(ctx, header_stop, start)
        if found is None and len(ctx.buf) - start <= self.max_header:
            if eof and ctx.section is None and self.opener:
                return Status.REJECT  # prose that names the opener
            return Status.MORE  # at the end of the text: a truncated call
        stop = -1 if found is None else found.start()
        if found is None or stop - start > self.max_header:
            return self._bad_header(ctx)
        text = ctx.buf[start:stop]
        if found.group() != self.header_stop or not self._read_header(ctx, text):
            return self._bad_header(ctx)
        self.scan_from = None
        self._commit(ctx, stop if self.header_stop_in_body else found.end())
        self.phase = "body"
        return None

    def _bad_header(self, ctx: ReaderContext) -> Status | None:
        if ctx.section is None and self.opener:
            return Status.REJECT
        self.scan_from = None
        self.phase = "skip_bad_header"
        return None

    def _skip_bad_header(self, ctx: ReaderContext, eof: bool) -> Status | None:
        if not self.committed:
            self.committed = True
            ctx.consume("call", ctx.pos + len(self.opener))
        if not self._skip_to_close(ctx, eof):
            return Status.MORE
        ctx.fail_call("malformed_call", "the call header does not name a tool")
        return Status.DONE

    def _close(self, ctx: ReaderContext, eof: bool) -> Status | None:
        """As the base reader, but a terminator also ends the call (with an issue)."""
        while self.closes_seen < len(self.shape.close):
            marker = self.shape.close[self.closes_seen]
            at = skip_blanks(ctx.buf, ctx.pos)
            if ctx.buf.startswith(marker, at):
                ctx.consume("call", at + len(marker))
                self.closes_seen += 1
                continue
            ahead = ctx.buf[at : at + self._longest()]
            if not eof and any(m.startswith(ahead) for m in (marker, *self.terminators)):
                return Status.MORE
            if (eof and not ahead) or ahead.startswith(self.terminators):
                ctx.issue("missing_close_tag", f"the call ends without {marker!r}", self._span(ctx))
                break
            return super()._close(ctx, eof)  # unexpected text: reported, skipped to the close
        return self._finish(ctx)

    def _skip_to_close(self, ctx: ReaderContext, eof: bool) -> bool:
        """Consume through the call end, or up to a terminator; False while neither came."""
        _, call_stop = self._patterns()
        found = self._search(ctx, call_stop, ctx.pos)
        if found is not None:
            ctx.consume("call", found.end() if found.group() == self.call_end else found.start())
        elif eof:
            ctx.consume("call", len(ctx.buf))
        else:
            ctx.consume("call", (self.scan_from or 0) - ctx.off)
            return False
        self.scan_from = None
        return True

    def _search(
        self, ctx: ReaderContext, pattern: re.Pattern[str], start: int
    ) -> re.Match[str] | None:
        """Search on from where the last search stopped; note where to resume if not found."""
        begin = max(start, (self.scan_from or 0) - ctx.off)
        found = pattern.search(ctx.buf, begin)
        if found is None:
            self.scan_from = ctx.at(max(begin, len(ctx.buf) - self._longest() + 1))
        return found

    @classmethod
    @functools.cache  # asked for at every close marker
    def _longest(cls) -> int:
        return max(len(m) for m in (cls.call_end, cls.header_stop, *cls.terminators))

    @classmethod
    @functools.cache
    def _patterns(cls) -> tuple[re.Pattern[str], re.Pattern[str]]:
        """(header stop or anything that ends a call, call end or terminator)."""
        ends = (cls.call_end, *cls.terminators)
        return _alternation((cls.header_stop, *ends)), _alternation(ends)


def _alternation(markers: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(map(re.escape, markers)))


class DeepseekCallReader(TerminatedCallReader):
    """One call from ``<｜tool▁call▁begin｜>`` (or from a header right after the section opener)."""

    call_end = CALL_END
    terminators = (CALL_BEGIN, CALLS_END)
    header_stop = "{"
    header_stop_in_body = True

    def __init__(self, opener: str) -> None:
        super().__init__(_PLAIN, opener)

    def _read_header(self, ctx: ReaderContext, text: str) -> bool:
        header = parse_header(text)
        if header is None:
            return False
        name, fenced = header
        self.shape = _FENCED if fenced else _PLAIN
        self.header = Header(name)
        return True


class _SectionOpen(SectionOpen):
    """The section opener. A header right after it means the model left out the call opener."""

    def __init__(self, ctx: ReaderContext, opener: str) -> None:
        super().__init__(opener, CALLS_END, (CALL_BEGIN,))
        self.call: DeepseekCallReader | None = None

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        if self.call is not None:
            return self.call.read(ctx, eof)
        status = super().read(ctx, eof)
        if status is not Status.REJECT:
            return status
        after = skip_blanks(ctx.buf, ctx.pos + len(self.opener))
        header = _BARE_HEADER.match(ctx.buf, after, partial=True)
        if header is None or (header.partial and eof):
            return Status.REJECT
        if header.partial:
            return Status.MORE
        start = ctx.at()
        ctx.consume("markup", ctx.pos + len(self.opener))
        ctx.section = self.closer
        ctx.issue("missing_call_begin", f"a call header follows {self.opener!r} without "
                  f"{CALL_BEGIN!r}", (start, ctx.at()))
        self.call = DeepseekCallReader("")
        return self.call.read(ctx, eof)


class _OutputMarker:
    """A tool-result marker in the answer: markup; the whitespace around it stays content."""

    def __init__(self, ctx: ReaderContext, opener: str) -> None:
        self.opener = opener

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        ctx.commit_blanks("content")  # see the module notes: the engine would make it markup
        start = ctx.at()
        ctx.consume("markup", ctx.pos + len(self.opener))
        ctx.issue("tool_output_markup", f"the model wrote the tool-result marker {self.opener!r} "
                  "into its answer; the marker is dropped, the text kept", (start, ctx.at()))
        return Status.DONE


def _section_open(ctx: ReaderContext, opener: str) -> _SectionOpen:
    return _SectionOpen(ctx, opener)


def _openers() -> dict[str, ReaderFactory]:
    table: dict[str, ReaderFactory] = {
        opener: _section_open for opener in (CALLS_BEGIN, *OTHER_CALLS_BEGIN)
    }
    table[CALLS_END] = lambda ctx, opener: SectionClose(CALLS_END)
    table[CALL_BEGIN] = lambda ctx, opener: DeepseekCallReader(opener)
    table |= {marker: _OutputMarker for marker in (OUTPUT_END, OUTPUTS_END)}  # stray ends
    # A tool result, from the model's answer or a rendered history: its text is never a call.
    table |= region_openers({OUTPUTS_BEGIN: OUTPUTS_END, OUTPUT_BEGIN: OUTPUT_END},
                            "tool_output_markup", unclosed="markup")
    return table


# -- prompt rendering -------------------------------------------------------------------------


def _protect(result: str) -> str:
    """A result that cannot close its block early (`protect`)."""
    return protect(result, OUTPUT_END, OUTPUTS_END)
# DeepSeek V3/R1's own template writes no tools block; DeepSeek's model card (V2/V2.5, the
# same call syntax) documents this one, a JSON block per function.
_V3_TOOLS_HEAD = "## Tools\n\n### Function\n\nYou have the following functions available:\n\n"
# DeepSeek-V3.1's template writes no tools block either; its model card documents this one.
_V31_TOOLS_HEAD = "## Tools\nYou have access to the following tools:\n\n"
_V31_TOOLS_TAIL = (
    "IMPORTANT: ALWAYS adhere to this exact format for tool use:\n"
    f"{CALLS_BEGIN}{CALL_BEGIN}tool_call_name{SEP}tool_call_arguments{CALL_END}"
    f"{{{{additional_tool_calls}}}}{CALLS_END}\n\n"
    "Where:\n"
    "- `tool_call_name` must be an exact match to one of the available tools\n"
    "- `tool_call_arguments` must be valid JSON that strictly follows the tool's Parameters "
    "Schema\n"
    "- For multiple tool calls, chain them directly without separators or spaces"
)


def _v3_call(call: ToolCall) -> str:
    header = f"{CALL_BEGIN}{CALL_TYPE}{SEP}{call.name}"
    return f"{header}\n{FENCE_OPEN}\n{tojson(call.arguments)}\n{CODE_FENCE}{CALL_END}"


def _v3_tool(tool: Tool) -> str:
    # The card's example and BFCL's DeepSeek handler write `json.dumps(function, indent=4)`.
    return f"- `{tool.name}`:\n```json\n{json.dumps(bare_tool(tool), indent=4)}\n```\n"


def _v31_call(call: ToolCall) -> str:
    return f"{CALL_BEGIN}{call.name}{SEP}{tojson(call.arguments)}{CALL_END}"


def _v31_tool(tool: Tool) -> str:
    # The model card spells the schema `json.dumps(parameters)`: Python's defaults, ASCII only.
    return (f"### {tool.name}\nDescription: {tool.description}\n\n"
            f"Parameters: {json.dumps(tool.parameters)}\n\n")


class DeepseekV3(Format):
    """DeepSeek V3, R1 (incl. 0528) and the R1 distills; Deep Cogito speaks it too.

    The Qwen-based R1 distills were also seen to answer in Hermes style, so a ``<tool_call>``
    wrapper holding a JSON object is read as well (only when a JSON object follows it).

    Rendering: calls one per line in fenced JSON and each result as a whole
    ``<｜tool▁outputs▁begin｜>`` group, as the V3 and R1 templates write them; the tools block
    as DeepSeek's model card documents it (the templates write none).
    """

    name = "deepseek_v3"
    aliases = ("deepseek", "deepseek_r1", "deepseek_v3_0324", "deepseek_r1_0528", "cogito")
    model_prefixes = ("deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-R1", "deepcogito/cogito")
    signatures = (CALLS_BEGIN, CALL_TYPE + SEP, FENCE_OPEN)
    turn_ends = ("<｜end▁of▁sentence｜>",)  # DeepSeek-V3.1.jinja ends every assistant turn so
    example = (
        f"{CALLS_BEGIN}{CALL_BEGIN}function{SEP}get_weather\n```json\n"
        f'{{"city": "Paris"}}\n```{CALL_END}{CALLS_END}'
    )

    models = "DeepSeek V3, R1"
    wire = "`<｜tool▁call▁begin｜>function<｜tool▁sep｜>f` + fenced JSON"
    grammars = ("deepseek",)
    result_region_end = "<｜tool▁output▁end｜>"
    call_region = DeepseekCalls(
        CALLS_BEGIN, CALLS_END, CALL_BEGIN, SEP, CALL_END,
        call_type=CALL_TYPE, fence_open=FENCE_OPEN, fence_close=CODE_FENCE,
    )
    # One section per call (the reader takes several sections in a row).
    structural_tag_markers = (
        CALLS_BEGIN,
        f"{CALLS_BEGIN}{CALL_BEGIN}{CALL_TYPE}{SEP}{{name}}\n{FENCE_OPEN}\n",
        f"\n{CODE_FENCE}{CALL_END}{CALLS_END}",
    )
    result_run = ("", "", "")

    def call_openers(self) -> dict[str, ReaderFactory]:
        table = _openers()
        table["<tool_call>"] = lambda ctx, opener: JsonCallReader(_HERMES, opener)
        return table

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # no tools: servers pass none, and the template writes no section
            return ""
        return _V3_TOOLS_HEAD + "".join(map(_v3_tool, tools))

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        if not calls:
            return content
        return content + CALLS_BEGIN + "\n".join(map(_v3_call, calls)) + CALLS_END

    def render_result(self, call: ToolCall, result: str) -> str:
        return f"{OUTPUTS_BEGIN}{OUTPUT_BEGIN}{_protect(result)}{OUTPUT_END}{OUTPUTS_END}"


class DeepseekV31(Format):
    """DeepSeek V3.1 (and Terminus): the name, the separator, the JSON arguments.

    Rendering: calls and results as the model's template writes them; the tools block as the
    model card documents it (``## Tools`` ..., the template itself writes none).
    """

    name = "deepseek_v31"
    aliases = ("deepseek_v3_1", "deepseek_v31_terminus")
    model_prefixes = ("deepseek-ai/DeepSeek-V3.1",)
    signatures = (CALLS_BEGIN, SEP)
    turn_ends = ("<｜end▁of▁sentence｜>",)  # DeepSeek-V3.1.jinja ends every assistant turn so
    example = f'{CALLS_BEGIN}{CALL_BEGIN}get_weather{SEP}{{"city": "Paris"}}{CALL_END}{CALLS_END}'

    models = "DeepSeek V3.1"
    wire = "`<｜tool▁call▁begin｜>f<｜tool▁sep｜>{…}<｜tool▁call▁end｜>`"
    grammars = ("deepseek",)
    body_wrapper = (CALLS_BEGIN + CALL_BEGIN, CALL_END + CALLS_END)
    result_region_end = "<｜tool▁output▁end｜>"
    call_region = DeepseekCalls(CALLS_BEGIN, CALLS_END, CALL_BEGIN, SEP, CALL_END)
    structural_tag_markers = (
        CALLS_BEGIN, f"{CALLS_BEGIN}{CALL_BEGIN}{{name}}{SEP}", f"{CALL_END}{CALLS_END}"
    )
    result_run = ("", "", "")

    def call_openers(self) -> dict[str, ReaderFactory]:
        return _openers()

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # no tools: servers pass none, and the template writes no section
            return ""
        return _V31_TOOLS_HEAD + "".join(map(_v31_tool, tools)) + _V31_TOOLS_TAIL

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        if not calls:
            return content
        return f"{content}{CALLS_BEGIN}{''.join(map(_v31_call, calls))}{CALLS_END}"

    def render_result(self, call: ToolCall, result: str) -> str:
        return f"{OUTPUT_BEGIN}{_protect(result)}{OUTPUT_END}"

    @classmethod
    def detect(cls, text: str) -> float:
        # Two-argument super: compiled by mypyc, a bare super() in a classmethod loses cls.
        score = super(DeepseekV31, cls).detect(text)  # noqa: UP008
        return min(score, 0.5) if CALL_TYPE + SEP in text else score
