"""LongCat (Meituan): a name and key/value pairs, or a JSON call, inside ``<longcat_tool_call>``.

    <longcat_tool_call>get_weather               LongCat-Flash-Thinking-2601, Flash-Lite
    <longcat_arg_key>city</longcat_arg_key>
    <longcat_arg_value>Paris</longcat_arg_value>
    </longcat_tool_call>

    <longcat_tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</longcat_tool_call>
                                                 LongCat-Flash-Chat (vLLM's ``longcat`` parser)

Both are read (mlx-lm's ``longcat`` parser reads both too). The key/value layout is GLM-4.5's
with LongCat's tag names, read by the shared XML reader (`_xmlparams`): values are raw text
typed by the tool's schema; the name may stand on the opener's line or the next. A missing
``</longcat_tool_call>`` before the next call is recovered (``missing_close_tag``).
Reasoning is ``<longcat_think>``; ``</longcat_s>`` ends a turn; a
``<longcat_tool_response>`` block is a tool result: data, never calls (`_results`).

No chat template of a LongCat model is public in a repository we can copy (they live in the
Hugging Face repositories' tokenizer configs), so rendering writes the key/value layout as the
models write it, with a newline between tags (GLM-4.5's spacing), and results in
``<longcat_tool_response>`` blocks on lines of their own; there is no render fidelity test.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lark import Token, Transformer

from ...tools._tool import Tool
from .._models import ToolCall
from ..reader import ReaderFactory
from ._base import Format
from ._json_or_xml import json_or_xml_calls
from ._jsoncall import JsonCall
from ._regions import XmlParameterCalls
from ._results import result_block, wrap_result
from ._template_json import openai_tool, tojson
from ._xmlparams import Tag, XmlTags, grammar_tags
from ._xmlrender import XmlCallStyle, json_unless_string, render_xml_calls

__all__ = ["TAGS", "Longcat"]

TOOL_CALL_START = "<longcat_tool_call>"
TOOL_CALL_END = "</longcat_tool_call>"
ARG_KEY_END = "</longcat_arg_key>"
RESULT_START, RESULT_END = "<longcat_tool_response>", "</longcat_tool_response>"
EOS = "</longcat_s>"


class _Tags(Transformer[Token, Tag]):
    def call_tag(self, children: list[Token]) -> Tag:
        return Tag("call", str(children[0]))

    def param_tag(self, children: list[Token]) -> Tag:
        return Tag("param", str(children[0]).strip())


# What may stand between <longcat_tool_call> and the first tag: blanks, the name, blanks.
NAME_LINES = re.compile(r"[ \t\r\n]*(?:[^\s<>]+[ \t\r\n]*)?")

TAGS = XmlTags(
    call_open=TOOL_CALL_START,
    call_close=TOOL_CALL_END,
    param_open="<longcat_arg_key>",
    param_close="</longcat_arg_value>",
    parse_tag=grammar_tags("longcat", _Tags()),
    call_header_end=re.compile("(?=<)"),  # the name runs up to the first tag
    param_header_end=re.compile(re.escape(ARG_KEY_END)),
    # An argument's key: one line, maybe a line break, then what may begin </longcat_arg_key>.
    header_chars=re.compile(r"[^\n]*\n?[ \t]*(?:<[^\n]*)?"),
    call_header_chars=NAME_LINES,
    value_open="<longcat_arg_value>",
)

STYLE = XmlCallStyle(
    TAGS, call_header="{name}", param_header="{name}" + ARG_KEY_END,
    value=json_unless_string, gap="\n", content_separator="\n", strip_content=True,
    slip_starts=("{",),  # a body starting with it is read as a JSON call
)

_JSON_CALL = JsonCall(
    close=(TOOL_CALL_END,), envelope=True, tentative=True, terminators=(TOOL_CALL_START,)
)
# `<longcat_tool_call>`: key/value pairs, or (LongCat-Flash-Chat) a JSON call.
_CALL = json_or_xml_calls(TAGS, _JSON_CALL)


# -- prompt rendering (no public template: see the module's docstring) -----------------------

TOOLS_PREAMBLE = (
    "## Tools\n\nYou have access to the following tools, as JSON schemas within "
    "<tools></tools>:\n<tools>\n"
)
TOOLS_INSTRUCTIONS = (
    "</tools>\n\nTo call a tool, write its name and arguments in this layout:\n"
    f"{TOOL_CALL_START}{{function-name}}\n{TAGS.param_open}{{arg-key}}{ARG_KEY_END}\n"
    f"{TAGS.value_open}{{arg-value}}{TAGS.param_close}\n{TOOL_CALL_END}"
)


class Longcat(Format):
    name = "longcat"
    aliases = ("longcat_flash", "longcat-flash", "meituan_longcat")
    model_prefixes = ("meituan-longcat/LongCat", "LongCat-Flash")
    reasoning_tags = ("<longcat_think>", "</longcat_think>")
    signatures = (TOOL_CALL_START, TOOL_CALL_END, TAGS.param_open)
    turn_ends = (EOS,)
    example = (
        "<longcat_tool_call>get_weather\n<longcat_arg_key>city</longcat_arg_key>\n"
        "<longcat_arg_value>Paris</longcat_arg_value>\n</longcat_tool_call>"
    )

    models = "LongCat-Flash"
    wire = "`<longcat_tool_call>f<longcat_arg_key>k</longcat_arg_key><longcat_arg_value>v…`"
    grammars = ("longcat",)
    body_wrapper = (TOOL_CALL_START, TOOL_CALL_END)
    refused_values = ("a</longcat_arg_value>\n<longcat_arg_key>",)
    result_tags = (RESULT_START, RESULT_END)
    call_region = XmlParameterCalls(STYLE)

    def call_openers(self) -> dict[str, ReaderFactory]:
        return {TOOL_CALL_START: _CALL, RESULT_START: result_block(RESULT_END)}

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:
            return ""
        listed = "".join(tojson(openai_tool(tool)) + "\n" for tool in tools)
        return f"{TOOLS_PREAMBLE}{listed}{TOOLS_INSTRUCTIONS}"

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        return render_xml_calls(STYLE, calls, content)

    def render_result(self, call: ToolCall, result: str) -> str:
        return wrap_result(RESULT_START + "\n", "\n" + RESULT_END, result)
