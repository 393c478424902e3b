"""MiniMax-M3: M2's ``<invoke>`` calls, every tag behind the namespace token ``]<]minimax[>[``,
arguments as nested tags named after their keys.

    ]<]minimax[>[<tool_call>
    ]<]minimax[>[<invoke name="get_weather">]<]minimax[>[<city>Paris]<]minimax[>[</city>
    ]<]minimax[>[</invoke>
    ]<]minimax[>[</tool_call>

Not M2 with other tags (vLLM's ``minimax_m3`` parser says so too): parameters are not
``<parameter name=...>`` but ``<KEY>`` elements, objects nest, lists are ``<item>`` elements
(see `_minimax_m3_values`). One block may hold several invokes. Reasoning is ``<mm:think>``.
An invoke is read whole once its ``</invoke>`` has come, so its arguments stream in one piece.
Recovered with an issue: a missing ``</invoke>`` (``missing_close_tag``: an incomplete call)
and tags that do not nest (``malformed_call``). A ``<response>`` block is a tool result:
content, never calls.

Evidence: vLLM's ``minimax_m3`` tool parser and its tests, mlx-vlm's and llamadart's M3
parsers, llama.cpp PR 24523's M3 parser. No public chat template was found, so there is no
render fidelity test yet: rendering writes the layout mlx-lm's M3 pull request (1416) quotes
from the template: the content, then the block, one tag per line at the top. llama.cpp's
parser reads non-string values as JSON rather than nested tags; this reader reads both (a
value's text by its schema). The grammar (`toolcalls.decoding._key_tags`) writes the nested
tags the renderer writes, and JSON where a grammar cannot write tags: a free-form object's
keys, a union's elements. No xgrammar structural tag: no content style writes key tags.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...tools._tool import Tool
from .._models import ToolCall
from ..reader import ReaderContext, ReaderFactory, Status
from ._base import Format
from ._blocks import SectionClose, SectionOpen
from ._minimax_m3_values import NS, parse_arguments, render_arguments
from ._regions import KeyTagCalls
from ._results import result_block, wrap_result

__all__ = ["MinimaxM3"]

TOOL_CALL_START = f"{NS}<tool_call>"
TOOL_CALL_END = f"{NS}</tool_call>"
INVOKE_START = f'{NS}<invoke name="'
INVOKE_END = f"{NS}</invoke>"
HEADER_END = '">'
RESULT_START, RESULT_END = "<response>", "</response>"
_LONGEST_NAME = 256


class InvokeReader:
    """One ``<invoke name="f">`` ... ``</invoke>``, read when its close has come (or at eof)."""

    def __init__(self, opener: str) -> None:
        self.opener = opener

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        buf = ctx.buf
        start = ctx.pos + len(self.opener)
        header = buf.find('"', start, start + _LONGEST_NAME)
        if header < 0 or header + 1 == len(buf):  # the name or its '">' may still come
            unsure = header >= 0 or len(buf) - start < _LONGEST_NAME
            return Status.MORE if unsure and not eof else Status.REJECT
        name = buf[start:header]
        if not buf.startswith(HEADER_END, header) or not name or any(c in name for c in "<>\n"):
            return Status.REJECT
        tool = ctx.tool(name)
        schema = tool.parameters if tool is not None else None
        end, arguments, problem = self._close(ctx, header + len(HEADER_END), schema)
        if (end < 0 or problem is not None) and not eof:  # a later close may still fit
            return Status.MORE
        ctx.start_call(name)
        if end < 0 or problem is not None:
            cut = self._cut(ctx, header)
            if end < 0 or cut < end:  # the close tag left out: the call ends where the next begins
                return self._unclosed(ctx, name, header + len(HEADER_END), cut, schema)
        ctx.consume("call", end + len(INVOKE_END))
        if problem is not None:
            ctx.fail_call("malformed_call", f"the call to {name!r}: {problem}")
        else:
            ctx.end_call(arguments)
        return Status.DONE

    def _close(
        self, ctx: ReaderContext, body: int, schema: dict[str, Any] | None
    ) -> tuple[int, dict[str, Any], str | None]:
        """The first ``</invoke>`` before which the arguments nest, and the arguments; else
        the first one with the problem, or -1 when none has come."""
        first: tuple[int, dict[str, Any], str | None] = (-1, {}, None)
        end = ctx.find(INVOKE_END, body)
        while end >= 0:
            arguments, problem = parse_arguments(ctx.buf[body:end], schema)
            if problem is None:
                return end, arguments, None
            if first[0] < 0:
                first = (end, arguments, problem)
            end = ctx.buf.find(INVOKE_END, end + len(INVOKE_END))
        return first

    def _unclosed(
        self, ctx: ReaderContext, name: str, body: int, cut: int, schema: dict[str, Any] | None
    ) -> Status:
        arguments, problem = parse_arguments(ctx.buf[body:cut], schema)
        ctx.consume("call", cut)
        missing = f"the call to {name!r} ends without {INVOKE_END!r}"
        if problem is not None:
            ctx.fail_call("missing_close_tag", missing)
        else:
            ctx.issue("missing_close_tag", missing, (ctx.call_start(), ctx.at()))
            ctx.end_call(arguments)
        return Status.DONE

    def _cut(self, ctx: ReaderContext, header: int) -> int:
        """Where an invoke with no close tag ends: the next invoke, the block's close, or eof."""
        ends = [ctx.find(marker, header) for marker in (INVOKE_START, TOOL_CALL_END)]
        found = [end for end in ends if end >= 0]
        return min(found) if found else len(ctx.buf)


def _invoke(call: ToolCall) -> str:
    """One invoke as mlx-lm's M3 pull request shows the template writing it: a line per tag
    at the top, nested values on their parameter's line."""
    if '"' in call.name or "\n" in call.name:
        raise ValueError(f"{call.name!r}: a tool name cannot hold a quote or a line break")
    lines = [render_arguments({key: value}) + "\n" for key, value in call.arguments.items()]
    return f"{INVOKE_START}{call.name}{HEADER_END}\n{''.join(lines)}{INVOKE_END}\n"


def _section(ctx: ReaderContext, opener: str) -> SectionOpen:
    return SectionOpen(opener, TOOL_CALL_END, (INVOKE_START,))


class MinimaxM3(Format):
    name = "minimax_m3"
    aliases = ("minimax-m3", "minimax_m3.1")
    model_prefixes = ("MiniMaxAI/MiniMax-M3", "MiniMax-M3")
    reasoning_tags = ("<mm:think>", "</mm:think>")
    signatures = (TOOL_CALL_START, INVOKE_START)
    turn_ends = ("[e~[",)
    example = (
        f'{TOOL_CALL_START}\n{INVOKE_START}get_weather">{NS}<city>Paris{NS}</city>{INVOKE_END}\n'
        f"{TOOL_CALL_END}"
    )

    models = "MiniMax M3"
    wire = '`]<]minimax[>[<tool_call>]<]minimax[>[<invoke name="f">]<]minimax[>[<k>v…`'
    body_wrapper = (f"{TOOL_CALL_START}\n", f"\n{TOOL_CALL_END}")
    no_corpus_reason = (
        "no third-party MiniMax-M3 outputs with an expected parse in the shared corpus"
    )
    result_tags = (RESULT_START, RESULT_END)
    call_region = KeyTagCalls(  # no structural tag: no xgrammar content style writes key tags
        TOOL_CALL_START, TOOL_CALL_END, INVOKE_START, HEADER_END, INVOKE_END, NS
    )

    def call_openers(self) -> dict[str, ReaderFactory]:
        return {
            TOOL_CALL_START: _section,
            TOOL_CALL_END: lambda ctx, opener: SectionClose(opener),
            INVOKE_START: lambda ctx, opener: InvokeReader(opener),
            RESULT_START: result_block(RESULT_END),
        }

    def render_tools(self, tools: Sequence[Tool]) -> str:
        return ""  # the tools block of the template is not public yet

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        if not calls:
            return content
        invokes = "".join(map(_invoke, calls))
        return f"{content}{TOOL_CALL_START}\n{invokes}{TOOL_CALL_END}"

    def render_result(self, call: ToolCall, result: str) -> str:
        return wrap_result(RESULT_START, RESULT_END, result)
