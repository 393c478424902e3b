"""GLM-4.5/4.6 and GLM-4.7: a name, then key/value pairs, inside ``<tool_call>``.

    <tool_call>get_weather              GLM-4.5 / 4.6 (``glm45``): a newline after each tag
    <arg_key>city</arg_key>
    <arg_value>Paris</arg_value>
    </tool_call>

    <tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>
    <tool_call>get_time</tool_call>     GLM-4.7 (``glm47``): no newlines; no arguments

Each reads both spellings. Values are raw text typed by the tool's schema (see
`_xmlparams`). Recovered with an issue: GLM-4.6's escaped output (a literal ``\\n`` between
tags: ``escaped_newline``; JSON with escaped quotes: ``escaped_value``), a value without
``<arg_value>`` (``missing_value_open``), a missing ``</tool_call>`` before the next call.
Rendering writes what each chat template writes (see `_xmlrender`); a ``<tool_response>``
block is a tool result: content, never calls (see `_results`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import ClassVar

from lark import Token, Transformer

from ...tools._tool import Tool
from .._models import ToolCall
from ..issues import IssueKind
from ..reader import ReaderFactory
from ._base import Format
from ._json_or_xml import json_or_xml_calls
from ._jsoncall import JsonCall
from ._regions import XmlParameterCalls
from ._results import result_block, wrap_result
from ._template_json import openai_tool, tojson
from ._xmlparams import Tag, XmlTags, grammar_tags
from ._xmlrender import XmlCallStyle, json_unless_string, render_xml_calls

__all__ = ["Glm45", "Glm47", "TAGS"]

TOOL_CALL_START = "<tool_call>"
TOOL_CALL_END = "</tool_call>"
ARG_KEY_END = "</arg_key>"


class _Tags(Transformer[Token, Tag]):
    def call_tag(self, children: list[Token]) -> Tag:
        slip: IssueKind | None = "escaped_newline" if len(children) > 1 else None
        return Tag("call", str(children[0]), slip=slip)

    def param_tag(self, children: list[Token]) -> Tag:
        return Tag("param", str(children[0]).strip())


def unescape(text: str) -> str | None:
    """GLM-4.6 sometimes escapes a JSON value once more (``[{\\"id\\": 1}]``): undo it."""
    if '\\"' not in text:
        return None
    try:
        unescaped = json.loads(f'"{text.strip()}"', strict=False)
    except ValueError:
        return None
    return unescaped if isinstance(unescaped, str) else None


# What may stand between <tool_call> and the first tag: the name, on the opener's line (where
# every template writes it), then blanks (GLM-4.5/4.6 write a newline, GLM-4.5-Air has been
# seen writing a space) and GLM-4.6's escaped newline. So "<tool_call>\nUse ..." is prose,
# batch or streamed, and so is "<tool_call> two words" cut by the end of the text.
NAME_LINE = re.compile(r"[ \t]*(?:[^\s<>\\]+[ \t\r\n]*(?:\\(?:n[ \t\r\n]*)?)?)?")

TAGS = XmlTags(
    call_open=TOOL_CALL_START,
    call_close=TOOL_CALL_END,
    param_open="<arg_key>",
    param_close="</arg_value>",
    parse_tag=grammar_tags("glm", _Tags()),
    call_header_end=re.compile("(?=<)"),  # the name runs up to the first tag
    param_header_end=re.compile(re.escape(ARG_KEY_END)),
    # An argument's key: one line, maybe a line break, then what may begin </arg_key>.
    header_chars=re.compile(r"[^\n]*\n?[ \t]*(?:<[^\n]*)?"),
    call_header_chars=NAME_LINE,
    value_open="<arg_value>",
    escaped_gaps=("\\n",),  # GLM-4.6 writes a literal backslash-n between tags
    repair=unescape,
)


# -- prompt rendering, as the chat templates write it (fixtures/render/glm45/, glm47/) -------

RESULT_START, RESULT_END = "<tool_response>", "</tool_response>"
TOOLS_PREAMBLE = (
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
)
TOOLS_INSTRUCTIONS = (
    "</tools>\n\nFor each function call, output the function name and arguments within the "
    "following XML format:\n"
)


def _style(gap: str) -> XmlCallStyle:
    # The name runs up to the first tag; the template trims the content, and writes `gap`
    # between tags, calls, and the content and the calls.
    return XmlCallStyle(
        TAGS, call_header="{name}", param_header="{name}" + ARG_KEY_END,
        value=json_unless_string, gap=gap, content_separator=gap, strip_content=True,
        slip_starts=("{",),  # `_CALL` reads a body starting with it as a Hermes JSON call
    )


STYLES = {gap: _style(gap) for gap in ("\n", "")}
"""By `_Glm.gap`: GLM-4.5/4.6 write a newline between tags, GLM-4.7 nothing."""


def _argument(key: str, value: str, style: XmlCallStyle) -> str:
    return style.gap + style.parameter(f"{TAGS.param_open}{key}{ARG_KEY_END}", value)


class _Glm(Format):
    signatures = ("<arg_key>", "<arg_value>", "<tool_call>")
    # The templates write no end token: the next turn's role token (the model's stop tokens,
    # with its eos) ends an assistant turn: <|observation|> after calls, <|user|> after text.
    turn_ends = ("<|observation|>", "<|user|>", "<|endoftext|>")
    gap: ClassVar[str]
    """What the template writes between tags: a newline (GLM-4.5/4.6) or nothing (GLM-4.7)."""

    wire = "`<tool_call>f<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>`"
    grammars = ("glm",)
    body_wrapper = ("<tool_call>", "</tool_call>")
    result_tags = ("<tool_response>", "</tool_response>")
    # Both GLM formats read both layouts; the blanks of GLM-4.5 are allowed anywhere one is
    # written, so GLM-4.7's style serves both. The template's generation prompt ends with
    # <|assistant|>: the model writes a line break before <think> (llama.cpp's GLM-4.5 tests).
    call_region = XmlParameterCalls(STYLES[""], reasoning_lead="\n")
    xgrammar_style = "glm_xml"

    def call_openers(self) -> dict[str, ReaderFactory]:
        return {TOOL_CALL_START: _CALL, RESULT_START: result_block(RESULT_END)}

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # the template writes no tools section at all
            return ""
        listed = "".join(tojson(openai_tool(tool)) + "\n" for tool in tools)
        arguments = "".join(
            _argument(f"{{arg-key-{n}}}", f"{{arg-value-{n}}}", STYLES[self.gap]) for n in (1, 2)
        )
        example = (
            f"{TOOL_CALL_START}{{function-name}}{arguments}{self.gap}...{self.gap}{TOOL_CALL_END}"
        )
        return f"{TOOLS_PREAMBLE}{listed}{TOOLS_INSTRUCTIONS}{example}"

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        return render_xml_calls(STYLES[self.gap], calls, content)

    def render_result(self, call: ToolCall, result: str) -> str:
        return wrap_result(RESULT_START + self.gap, self.gap + RESULT_END, result)


class Glm45(_Glm):
    name = "glm45"
    aliases = ("glm4.5", "glm4.6", "glm46", "glm4_moe", "glm")
    model_prefixes = ("zai-org/GLM-4.5", "zai-org/GLM-4.6", "GLM-4.5", "GLM-4.6")
    gap = "\n"
    example = (
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n"
        "</tool_call>"
    )

    models = "GLM-4.5, GLM-4.6"
    refused_values = ("a</arg_value>\n<arg_key>",)


class Glm47(_Glm):
    """GLM-4.7: no newlines between tags; no arguments: ``<tool_call>f</tool_call>``."""

    name = "glm47"
    aliases = ("glm4.7", "glm47_moe")
    model_prefixes = ("zai-org/GLM-4.7", "GLM-4.7")
    gap = ""
    example = (
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>"
    )

    models = "GLM-4.7"
    refused_values = ("a</arg_value></tool_call>",)
    result_run = ("", "", "")


_JSON_CALL = JsonCall(
    close=(TOOL_CALL_END,), envelope=True, tentative=True, terminators=(TOOL_CALL_START,)
)
# `<tool_call>` holds a GLM call or (a slip mlx-lm reads) a Hermes JSON call.
_CALL = json_or_xml_calls(
    TAGS, _JSON_CALL, "a Hermes-style JSON call inside GLM tags; read as JSON")
