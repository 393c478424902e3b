"""MiniMax-M2: ``<invoke>`` calls with XML parameters inside ``<minimax:tool_call>``.

    <minimax:tool_call>
    <invoke name="get_weather">
    <parameter name="city">Paris</parameter>
    <parameter name="days">3</parameter>
    </invoke>
    </minimax:tool_call>

One block may hold several invokes. Values are raw text typed by the tool's schema (see
`_xmlparams`). Recovered with an issue: invokes without the opening ``<minimax:tool_call>``
(``missing_section_open``), a missing ``</invoke>`` or ``</minimax:tool_call>``
(``missing_close_tag``). Rendering writes what the chat template writes (see `_xmlrender`); a
``<response>`` block is a tool result: content, never calls (see `_results`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...tools._tool import Tool
from .._models import ToolCall
from ..reader import ReaderContext, ReaderFactory
from ._base import Format
from ._blocks import SectionClose
from ._regions import XmlParameterCalls
from ._results import result_block, wrap_result
from ._template_json import bare_tool, tojson
from ._xmlparams import ATTRIBUTES, AttributeTags, SectionOpen, XmlCallReader, XmlTags, grammar_tags
from ._xmlrender import XmlCallStyle, json_unless_string, render_xml_calls

__all__ = ["MinimaxM2", "TAGS"]

TOOL_CALL_START = "<minimax:tool_call>"
TOOL_CALL_END = "</minimax:tool_call>"
INVOKE_START = "<invoke "

TAGS = XmlTags(
    call_open=INVOKE_START,
    call_close="</invoke>",
    param_open="<parameter ",
    param_close="</parameter>",
    parse_tag=grammar_tags("minimax_m2", AttributeTags()),
    # Attributes must follow "<invoke ": "<invoke 3 times" or "<invoke it" is prose, even cut
    # by the end of the text.
    call_header_start=re.compile(rf"[ \t\r]*{ATTRIBUTES}"),
    call_example=f'{INVOKE_START}name="NAME">',
    section_closes=(TOOL_CALL_END,),
    section_opens=(TOOL_CALL_START,),
)


def _section(ctx: ReaderContext, opener: str) -> SectionOpen:
    return SectionOpen(opener, TOOL_CALL_END, (INVOKE_START,))


# -- prompt rendering, as the chat template writes it (fixtures/render/minimax_m2/) ---------

RESULT_START, RESULT_END = "<response>", "</response>"


STYLE = XmlCallStyle(
    TAGS, call_header='name="{name}">', param_header='name="{name}">', value=json_unless_string
)


def _parameter(key: str, value: str) -> str:
    return STYLE.parameter(STYLE.param_tag(key), value) + STYLE.gap


_EXAMPLE = (
    f"{TOOL_CALL_START}\n{STYLE.call_tag('tool-name-1')}\n"
    f"{_parameter('param-key-1', 'param-value-1')}{_parameter('param-key-2', 'param-value-2')}"
    f"...\n{TAGS.call_close}\n{TOOL_CALL_END}"
)
TOOLS_PREAMBLE = (
    "# Tools\nYou may call one or more tools to assist with the user query.\n"
    "Here are the tools available in JSONSchema format:\n\n<tools>\n"
)
TOOLS_INSTRUCTIONS = (
    "</tools>\n\nWhen making tool calls, use XML format to invoke tools and pass parameters:\n\n"
    + _EXAMPLE
)


class MinimaxM2(Format):
    name = "minimax_m2"
    aliases = ("minimax", "minimax-m2", "minimax_m2.1")
    model_prefixes = ("MiniMaxAI/MiniMax-M2", "MiniMax-M2")
    signatures = (TOOL_CALL_START, '<invoke name="', "</invoke>")
    turn_ends = ("[e~[",)  # MiniMax-M2.unsloth.jinja ends every message so
    example = (
        '<minimax:tool_call>\n<invoke name="get_weather">\n'
        '<parameter name="city">Paris</parameter>\n</invoke>\n</minimax:tool_call>'
    )

    models = "MiniMax M2"
    wire = '`<minimax:tool_call><invoke name="f"><parameter name="k">v</parameter>…`'
    grammars = ("minimax_m2",)
    body_wrapper = ("<minimax:tool_call>\n", "\n</minimax:tool_call>")
    refused_values = ('a</parameter>\n<parameter name="b">',)
    result_tags = ("<response>", "</response>")
    call_region = XmlParameterCalls(STYLE)
    xgrammar_style = "minimax_xml"

    def call_openers(self) -> dict[str, ReaderFactory]:
        return {
            TOOL_CALL_START: _section,
            TOOL_CALL_END: lambda ctx, opener: SectionClose(opener),
            INVOKE_START: lambda ctx, opener: XmlCallReader(TAGS, opener),
            RESULT_START: result_block(RESULT_END),
        }

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # the template writes no tools section at all
            return ""
        listed = "".join(f"<tool>{tojson(bare_tool(tool))}</tool>\n" for tool in tools)
        return f"{TOOLS_PREAMBLE}{listed}{TOOLS_INSTRUCTIONS}"

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        return render_xml_calls(STYLE, calls, content)

    def render_result(self, call: ToolCall, result: str) -> str:
        return wrap_result(RESULT_START, RESULT_END, result)
