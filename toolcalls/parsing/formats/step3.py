"""Step-3: ``steptml`` invokes, each in special tokens, in one section (StepFun Step3).

    <｜tool_calls_begin｜>
    <｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_weather">
    <steptml:parameter name="city">Paris</steptml:parameter>
    <steptml:parameter name="days">3</steptml:parameter>
    </steptml:invoke><｜tool_call_end｜>
    <｜tool_calls_end｜>

The bars are fullwidth (U+FF5C). A call's open tag runs from ``<｜tool_call_begin｜>`` through
the invoke's ``>`` (``grammars/step3.lark``); it closes with ``</steptml:invoke>`` and
``<｜tool_call_end｜>`` together, as the template's instructions and every peer write it. Values
are raw text typed by the tool's schema (the shared XML reader, `_xmlparams`, as MiniMax-M2's
``<invoke>``, which this is with a namespace and special tokens around each call).

Recovered with an issue: a call without ``function<｜tool_sep｜>`` (vLLM's tests write it so:
``recovered_slip``), calls without the section opener (``missing_section_open``), a call or the
section cut short or without its close, either half of a call's close left out
(``missing_close_tag``), and a stray ``<｜tool_sep｜>`` between calls (vLLM's parallel-call
test: ``unexpected_text``, markup). A call type other than ``function`` is a malformed
call inside the section: SGLang drops such calls too. Line breaks may stand between the call's
tokens, as the template's instructions write them. ``detect`` tells this format from DeepSeek
V3's, whose reader takes ``<｜tool_calls_begin｜>`` for a spelling of its section opener, by the
``steptml`` tags, which only this format writes.

The generation prompt opens ``<think>``, so a response starts inside reasoning (parse with
``thinking=True``); an assistant turn ends with ``<|EOT|>``.

Evidence: vLLM's and SGLang's ``step3`` parsers and their tests (the goldens' sources), and the
start of the model's chat_template.json as quoted by Hugging Face mirrors. The whole template
could not be fetched here, so there is no render fidelity test: calls are written as SGLang's
tests build them from it (content, a line break, the section; one tag per line; values raw,
others as JSON); a tool result as the template's user turns are written, in a
``<|BOT|>tool_response`` message (inferred: see `TOOL_RESPONSE`), read back as data, never
calls; the tools section is not rendered.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ...tools._tool import Tool
from .._models import ToolCall
from ..reader import ReaderContext, ReaderFactory, Status
from ._base import Format
from ._blocks import SectionClose
from ._regions import XmlParameterCalls
from ._results import protect, region_openers
from ._xmlparams import (
    ATTRIBUTES,
    WAIT,
    AttributeTags,
    SectionOpen,
    Tag,
    XmlCallReader,
    XmlTags,
    grammar_tags,
    look_ahead,
)
from ._xmlrender import XmlCallStyle, json_unless_string, render_xml_calls

__all__ = ["Step3", "TAGS"]

CALLS_BEGIN = "<｜tool_calls_begin｜>"
CALLS_END = "<｜tool_calls_end｜>"
CALL_BEGIN = "<｜tool_call_begin｜>"
CALL_END = "<｜tool_call_end｜>"
TOOL_SEP = "<｜tool_sep｜>"
CALL_TYPE = "function"
INVOKE_OPEN = "<steptml:invoke"
INVOKE_CLOSE = "</steptml:invoke>"
EOT = "<|EOT|>"
TOOL_RESPONSE = "<|BOT|>tool_response"
"""Inferred, not read in the template: its user turns are ``<|BOT|>user\n...<|EOT|>``, and the
branch after them begins ``message.role == 'tool_r`` where the quoted text ends."""


def _begun(literal: str) -> str:
    """A regex of every prefix of `literal`, the empty one too."""
    pattern = ""
    for char in reversed(literal):
        pattern = f"(?:{re.escape(char)}{pattern})?"
    return pattern


_INVOKE = rf"(?:{re.escape(INVOKE_OPEN)}(?:[ \t\r]+{ATTRIBUTES})?|{_begun(INVOKE_OPEN)})"
_TYPED = rf"{CALL_TYPE}\s*(?:{re.escape(TOOL_SEP)}\s*{_INVOKE}|{_begun(TOOL_SEP)})"
_HEADER = re.compile(rf"\s*(?:{_TYPED}|{_begun(CALL_TYPE)}|{_INVOKE})")
"""What may stand between ``<｜tool_call_begin｜>`` and the invoke's ``>``: every prefix of a
call's open tag (the grammar reads a whole one). Blanks may stand around the type and the
separator, not inside the invoke tag: ``<steptml:invokename=`` is no tag, cut short or not."""


class _Tags(AttributeTags):
    def call_type(self, children: list[Any]) -> bool:
        return True

    def call_tag(self, children: list[Any]) -> Tag | None:
        tag = super().call_tag(children)
        if tag is not None and not any(child is True for child in children):
            return replace(tag, slip="recovered_slip")  # no "function<｜tool_sep｜>"
        return tag


TAGS = XmlTags(
    call_open=CALL_BEGIN,
    call_close=INVOKE_CLOSE + CALL_END,
    param_open="<steptml:parameter ",
    param_close="</steptml:parameter>",
    parse_tag=grammar_tags("step3", _Tags()),
    call_header_end=re.compile(r"(?<!｜)>"),  # the invoke's, past <｜tool_sep｜>'s
    call_header_chars=_HEADER,
    call_example=f'{CALL_BEGIN}{CALL_TYPE}{TOOL_SEP}{INVOKE_OPEN} name="NAME">',
    section_closes=(CALLS_END,),
    # Where a tag was expected, each half of the call's close is a marker too: the invoke's
    # close alone is read as `InvokeReader` says; <｜tool_call_end｜> alone ends the call
    # without its </steptml:invoke> (missing_close_tag), and `Stray` reads it as markup.
    section_opens=(CALLS_BEGIN, INVOKE_CLOSE, CALL_END),
)

STYLE = XmlCallStyle(
    TAGS,
    call_header=f'{CALL_TYPE}{TOOL_SEP}{INVOKE_OPEN} name="{{name}}">',
    param_header='name="{name}">',
    value=json_unless_string,
)


def _section(ctx: ReaderContext, opener: str) -> SectionOpen:
    return SectionOpen(opener, CALLS_END, (CALL_BEGIN,))


class InvokeReader(XmlCallReader):
    """A call whose close may come in halves: ``</steptml:invoke>``, blanks, then
    ``<｜tool_call_end｜>`` (missing: ``missing_close_tag``). A stream that has the invoke's
    close but not yet the token after it reads on here, to the very result the whole close
    gives; a value's close tag followed by the invoke's is structural, so a value ends there
    without waiting for the whole close."""

    def _body(self, ctx: ReaderContext, eof: bool) -> Status | None:
        marker, at = look_ahead(ctx.buf, ctx.pos, TAGS, TAGS.body_markers, eof)
        if marker != INVOKE_CLOSE:
            return super()._body(ctx, eof)
        ctx.consume("call", at + len(INVOKE_CLOSE))
        self.phase = "call_end"
        return None

    def _call_end(self, ctx: ReaderContext, eof: bool) -> Status | None:
        marker, at = look_ahead(ctx.buf, ctx.pos, TAGS, (CALL_END,), eof)
        if marker == WAIT:
            return Status.MORE
        if marker == CALL_END:
            ctx.consume("call", at + len(CALL_END))
        else:
            self._issue(ctx, "missing_close_tag", f"the call ends without {CALL_END!r}")
        self._end(ctx)
        return None


class Stray:
    """A token of a call's markup standing alone in the calls section: markup (outside the
    section, content). A call's end token after a call already reported as missing its
    ``</steptml:invoke>`` adds no issue; a separator between calls is reported here."""

    def __init__(self, marker: str, reported: bool) -> None:
        self.marker, self.reported = marker, reported

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        if ctx.section != CALLS_END:
            return Status.REJECT
        at = ctx.at()
        ctx.consume("markup", ctx.pos + len(self.marker))
        if self.reported:
            ctx.issue("unexpected_text", f"a stray {self.marker!r} between calls", (at, ctx.at()))
        return Status.DONE


class Step3(Format):
    name = "step3"
    aliases = ("step_3", "steptml")
    model_prefixes = ("stepfun-ai/step3", "step3")
    signatures = (INVOKE_OPEN + " ", INVOKE_CLOSE + CALL_END, TAGS.param_open)
    turn_ends = (EOT,)
    example = (
        f'{CALLS_BEGIN}\n{CALL_BEGIN}{CALL_TYPE}{TOOL_SEP}{INVOKE_OPEN} name="get_weather">\n'
        f'<steptml:parameter name="city">Paris</steptml:parameter>\n'
        f"{INVOKE_CLOSE}{CALL_END}\n{CALLS_END}"
    )

    models = "Step3"
    wire = (
        "`<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>"
        '<steptml:invoke name="f"><steptml:parameter name="k">v…`'
    )
    grammars = ("step3",)
    no_corpus_reason = (
        "no third-party Step-3 outputs with an expected parse in the shared corpus: the goldens "
        "come from vLLM's and SGLang's step3 tests"
    )
    refused_values = (
        'a</steptml:parameter>\n<steptml:parameter name="b">',
        f"a</steptml:parameter>{INVOKE_CLOSE}",
        f"a</steptml:parameter>{CALL_END}",
    )
    result_region_end = EOT
    call_region = XmlParameterCalls(STYLE)
    result_run = ("", "", "")  # each result a message of its own

    def call_openers(self) -> dict[str, ReaderFactory]:
        table: dict[str, ReaderFactory] = {
            CALLS_BEGIN: _section,
            CALLS_END: lambda ctx, opener: SectionClose(opener),
            CALL_BEGIN: lambda ctx, opener: InvokeReader(TAGS, opener),
            TOOL_SEP: lambda ctx, opener: Stray(opener, reported=True),
            CALL_END: lambda ctx, opener: Stray(opener, reported=False),
        }
        return table | region_openers({TOOL_RESPONSE: EOT}, "tool_result_in_text")

    def render_tools(self, tools: Sequence[Tool]) -> str:
        return ""  # the template's tools block could not be fetched whole: nothing is guessed

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        return render_xml_calls(STYLE, calls, content)

    def render_result(self, call: ToolCall, result: str) -> str:
        return f"{TOOL_RESPONSE}\n{protect(result, EOT)}{EOT}"
