"""MiniMax-M1: JSON calls, one per line, inside ``<tool_calls>`` tags.

    <tool_calls>
    {"name": "get_weather", "arguments": {"city": "Paris"}}
    {"name": "get_time", "arguments": {"timezone": "CET"}}
    </tool_calls>

Each object is its own call, streamed as it arrives. A pretty-printed object spanning several
lines is read too (vLLM rejects it; nothing in the format forbids it). A line that is not a call
object becomes an incomplete call ending at that line's end, and the calls around it are kept.
``<tool_calls>`` counts only when a JSON object follows it, so prose that names the tag stays
content. A block cut off after complete calls keeps them (the missing close tag is an issue), and
so does one that the next ``<tool_calls>`` follows without its close tag.

Prompt rendering follows vLLM's MiniMax-M1 template (``fixtures/render/minimax_m1/``): the
official one (MiniMax-AI/MiniMax-M1 ``tokenizer_config.json``) never writes tool calls; vLLM's
tools block is the one MiniMax's function-call guide shows.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...tools._tool import Tool
from .._models import ToolCall
from .._text import skip_blanks
from ..reader import ReaderContext, ReaderFactory, Status, holdback
from ._base import Format
from ._jsoncall import JsonCall, JsonCallReader
from ._regions import NAMED_OBJECT_HEAD, JsonObjectCalls
from ._results import protect, region_openers
from ._template_json import openai_tool, tojson

__all__ = ["MinimaxM1"]

OPEN = "<tool_calls>"
CLOSE = "</tool_calls>"

_LINE = JsonCall(envelope=True)
_CLOSE_PREFIXES = frozenset(CLOSE[:size] for size in range(1, len(CLOSE)))


class _LineCallReader(JsonCallReader):
    """One call object; when it is malformed, the rest of its line belongs to it."""

    def __init__(self) -> None:
        super().__init__(_LINE, "")

    def _skip_to_close(self, ctx: ReaderContext, eof: bool) -> bool:
        """Consume to the end of the line, or up to ``</tool_calls>`` if it comes first."""
        start = max(ctx.pos, (self.scan_from or 0) - ctx.off)
        newline = ctx.buf.find("\n", start)
        close = ctx.buf.find(CLOSE, start, newline if newline >= 0 else len(ctx.buf))
        if close >= 0:
            ctx.consume("call", close)
        elif newline >= 0:
            ctx.consume("call", newline)
        elif eof:
            ctx.consume("call", len(ctx.buf))
        else:
            keep = holdback(ctx.buf, start, _CLOSE_PREFIXES, len(CLOSE))
            ctx.consume("call", keep)
            self.scan_from = ctx.at(keep)
            return False
        return True


class _BlockReader:
    """``<tool_calls>`` ... ``</tool_calls>``: tags and whitespace between calls are markup."""

    def __init__(self, ctx: ReaderContext, opener: str) -> None:
        self.opener = opener
        self.opened = False
        self.in_text = False  # inside a line that is not a call
        self.call: _LineCallReader | None = None

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        while True:
            if self.call is not None:
                status = self.call.read(ctx, eof)
                if status is not Status.DONE:
                    return status
                self.call = None
            if self.in_text and not self._text_line(ctx, eof):
                return Status.MORE
            start = ctx.pos if self.opened else ctx.pos + len(self.opener)
            at = skip_blanks(ctx.buf, start)
            ahead = ctx.buf[at : at + len(CLOSE)]
            if not self.opened:
                if not ahead:
                    return Status.REJECT if eof else Status.MORE
                if ahead[0] != "{":
                    return Status.REJECT
                self.opened = True
            if not ahead:
                return self._ended(ctx, eof, at)
            if ahead == CLOSE:
                ctx.consume("markup", at + len(CLOSE))
                return Status.DONE
            if ahead[0] != "{" and not eof and (CLOSE.startswith(ahead) or OPEN.startswith(ahead)):
                return Status.MORE
            ctx.consume("markup", at)
            if ahead.startswith(OPEN):  # the next block begins: this one's close tag is missing
                ctx.issue("missing_close_tag", f"the calls end without {CLOSE!r}",
                          (ctx.at(), ctx.at()))
                return Status.DONE
            if ahead[0] == "{":
                self.call = _LineCallReader()
            else:
                ctx.issue("unexpected_text", f"text that is not a call inside {OPEN!r}",
                          (ctx.at(), ctx.at() + 1))
                self.in_text = True

    def _ended(self, ctx: ReaderContext, eof: bool, at: int) -> Status:
        if not eof:
            return Status.MORE
        ctx.consume("markup", at)
        ctx.issue("missing_close_tag", f"the calls end without {CLOSE!r}", (ctx.at(), ctx.at()))
        return Status.DONE

    def _text_line(self, ctx: ReaderContext, eof: bool) -> bool:
        """Content up to the end of the line or the close tag; False while neither came."""
        end = ctx.buf.find("\n", ctx.pos)
        close = ctx.buf.find(CLOSE, ctx.pos, end if end >= 0 else len(ctx.buf))
        if close < 0 and end < 0 and not eof:
            ctx.consume("content", holdback(ctx.buf, ctx.pos, _CLOSE_PREFIXES, len(CLOSE)))
            return False
        ctx.consume("content", close if close >= 0 else end if end >= 0 else len(ctx.buf))
        self.in_text = False
        return True


# -- prompt rendering (vLLM's MiniMax-M1 template, fixtures/render/minimax_m1/) ----------------
BEGIN, END = "<beginning_of_sentence>", "<end_of_sentence>"
TOOL_RESULT = f"{BEGIN}tool name=tools"
_TOOLS_HEAD = f"{BEGIN}system tool_setting=tools\nYou are provided with these tools:\n<tools>\n"
_TOOLS_TAIL = (
    "</tools>\n\nIf you need to call tools, please respond with <tool_calls></tool_calls> XML "
    "tags, and provide tool-name and json-object of arguments, following the format below:\n"
    f'{OPEN}\n{{"name": <tool-name>, "arguments": <args-json-object>}}\n...\n{CLOSE}{END}\n'
)


def _line(call: ToolCall) -> str:
    return f'{{"name": {tojson(call.name)}, "arguments": {tojson(call.arguments)}}}\n'


class MinimaxM1(Format):
    """MiniMax-M1. Rendering follows vLLM's template for it (the official one writes no calls and
    takes no plain-text messages), whose tools block is the one MiniMax's function-call guide
    shows: a ``tool_setting=tools`` system message, one JSON tool per line. A result is a
    ``tool name=tools`` message, read back as data, never calls."""

    name = "minimax_m1"
    aliases = ("minimax_text_01",)
    model_prefixes = ("MiniMaxAI/MiniMax-M1", "MiniMaxAI/MiniMax-Text-01")
    signatures = (OPEN, CLOSE, '"name"')
    turn_ends = ("<end_of_sentence>",)  # MiniMax-M1's template ends every message so
    example = f'{OPEN}\n{{"name": "get_weather", "arguments": {{"city": "Paris"}}}}\n{CLOSE}'

    models = "MiniMax M1"
    wire = "`<tool_calls>{…}</tool_calls>`"
    result_region_end = "<end_of_sentence>"
    call_region = JsonObjectCalls(OPEN, section_close=CLOSE)  # parallel calls share the block
    structural_tag_markers = (OPEN, f"{OPEN}\n{NAMED_OBJECT_HEAD}", f"}}\n{CLOSE}")

    def call_openers(self) -> dict[str, ReaderFactory]:
        return {OPEN: _BlockReader} | region_openers({TOOL_RESULT: END}, "tool_result_in_text")

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # no tools: servers pass none, and the template writes no section
            return ""
        lines = "".join(tojson(openai_tool(tool)) + "\n" for tool in tools)
        return _TOOLS_HEAD + lines + _TOOLS_TAIL

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        if not calls:
            return content
        return f"{content}{OPEN}\n{''.join(map(_line, calls))}{CLOSE}"

    def render_result(self, call: ToolCall, result: str) -> str:
        return f"{TOOL_RESULT}\ntool result: {protect(result, END)}\n\n{END}"
