"""Whole-response grammars: a format's response around its call region (`_table.REGIONS`).

A response is: an optional reasoning block (``reasoning=True``), then, by ``tool_choice``,
content and/or a call region. The region starts with the format's opener and holds one call,
or several with ``parallel=True``. Every marker comes from the format itself (its
`Format.call_region`, filled with its reader's constants), and content may hold none of the
markers the format's reader opens a block at (`Format.openers`), so the grammar and the reader
cannot drift apart: what the grammar lets a model write, the reader reads as the same calls
with no issue.

Each builder writes the canonical layout the chat template writes (`render_calls`); the blanks
between tags that readers tolerate are allowed where the template puts a line break.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..parsing._registry import get_format
from ..tools._tool import Tool
from ._dialects import Grammar
from ._ir import Free, Lit, Node, Opt, Ref, Rep, Seq, Until, Ws, alt, seq
from ._names import check_tools
from ._table import REGIONS, region_of

if TYPE_CHECKING:
    from ..parsing.formats._base import Format

__all__ = ["build"]


def _first_char(node: Node) -> str:
    """The first character of the first literal in ``node`` (a separator such as ``;``)."""
    if isinstance(node, Lit):
        return node.text[:1]
    if isinstance(node, Seq):
        return "".join(_first_char(item) for item in node.items)[:1]
    return ""


def _region_body(opener: Lit, calls: Node, wrapper: tuple[Lit, Lit] | None) -> tuple[Node, ...]:
    """``opener`` then ``calls``, or with ``wrapper`` also between its tags (the close optional)."""
    if wrapper is None:
        return (opener, calls)
    wrap_open, wrap_close = wrapper
    return (alt(seq(opener, calls), seq(wrap_open, opener, calls, Opt(wrap_close))),)


def _content_then(
    opener: Lit, calls: Node, markers: tuple[str, ...], after: Node,
    wrapper: tuple[Lit, Lit] | None = None,
) -> Node:
    """Content, ``opener``, the calls, content."""
    if len(opener.text) > 1 and not opener.token:
        # Content up to and including the opener: one lazy piece (see `_ir.Until`).
        others = tuple(m for m in markers if m != opener.text)
        return seq(Until(opener.text, others), calls, after)
    # A special token or one character ends greedy content by itself.
    return seq(Opt(Free(markers)), *_region_body(opener, calls, wrapper), after)


def build(
    format_name: str | Format,
    tools: Sequence[Tool],
    *,
    tool_choice: str = "auto",
    reasoning: bool = False,
    parallel: bool = True,
) -> Grammar:
    """The whole-response grammar of ``format_name`` for ``tools`` (see
    `toolcalls.decoding.grammar`)."""
    fmt = get_format(format_name)
    region = region_of(fmt)  # a registered format, or one described as data
    if region is None:
        reason = fmt.no_call_region_reason or f"one of {sorted(REGIONS)} has one"
        raise ValueError(f"no whole-response grammar for format {fmt.name!r}: {reason}")
    chosen = list(tools)
    if tool_choice not in ("auto", "required"):
        chosen = [tool for tool in tools if tool.name == tool_choice]
        if not chosen:
            raise ValueError(f"tool_choice {tool_choice!r} names no tool of the tool set")
        parallel = False
    if not chosen:
        raise ValueError("a grammar of calls needs at least one tool")
    check_tools(fmt, chosen)
    markers = tuple(sorted(m for m in fmt.openers() if m))
    rules: dict[str, Node] = {}
    rules["call"] = alt(*(region.call(tool) for tool in chosen))
    sections = ((region.opener, region.close), *region.other_sections)

    def calls_after(opener: Lit, close: Node) -> Node:
        reopened = [opener] if region.reopen else []
        more = Rep(seq(region.next_call, *reopened, Ref("call"))) if parallel else None
        calls = seq(Ref("call"), *([more] if more else []), close)
        if region.alternatives is not None:
            calls = alt(calls, region.alternatives(chosen, parallel))
        return calls

    if region.response is not None:
        calls = calls_after(region.opener, region.close)
        return Grammar({"start": region.response(calls, tool_choice, reasoning), **rules})
    start: list[Node] = []
    if reasoning:
        if fmt.reasoning_tags is None:
            raise ValueError(f"format {fmt.name!r} has no reasoning block")
        begin, end = fmt.reasoning_tags
        # Where the reader takes calls inside reasoning (Kimi K2), reasoning holds no marker.
        inside = tuple(fmt.call_openers()) if fmt.calls_in_reasoning else ()
        thought = Until(end, tuple(m for m in inside if m != end))
        start += [region.reasoning_lead, Lit(begin), thought, Opt(Lit("\n\n"))]
    if tool_choice == "auto":
        # Text after the calls is content. It starts with no blank and not as an opener does:
        # blanks then the opener are the next call (llguidance's lexer does not backtrack).
        firsts = "".join(dict.fromkeys(opener.text[:1] for opener, _ in sections))
        starts = " \t\r\n" + firsts + _first_char(region.next_call)
        after = seq(Ws(), Opt(Free(markers, first_not=starts)))
        with_calls = [
            _content_then(opener, calls_after(opener, close), markers, after, region.wrapper)
            for opener, close in sections
        ]
        start.append(Opt(alt(Free(markers), *with_calls)))
    else:
        start.append(alt(*(
            seq(Ws(), *_region_body(opener, calls_after(opener, close), region.wrapper), Ws())
            for opener, close in sections
        )))
    rules["start"] = seq(*start)
    rules = {"start": rules.pop("start"), **rules}
    return Grammar(rules)
