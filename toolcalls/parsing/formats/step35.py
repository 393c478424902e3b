"""Step-3.5: Qwen3-Coder's XML parameters inside ``<tool_call>`` (StepFun Step-3.5-Flash).

    Let me look it up.
    </think>
    <tool_call>
    <function=get_weather>
    <parameter=city>
    Paris
    </parameter>
    </function>
    </tool_call>

The wire is Qwen3-Coder's, read by the same reader (`_xmlparams`) with Qwen3-Coder's tags and
the same recoveries (``missing_section_open``, ``missing_close_tag``). What differs is the
template around it: the generation prompt opens ``<think>``, so a response starts inside
reasoning (parse with ``thinking=True``); calls follow the content with nothing between, and
each other with nothing between; results are ``<tool_response>`` blocks in a ``tool_response``
message, data, never calls (`_results`).

Because the wire is Qwen3-Coder's, ``detect`` cannot tell the two apart and may name
``qwen3_coder`` for Step-3.5 output: both read it to the same calls. Model ids pick this format.

Rendering writes what StepFun3.5-Flash.jinja writes (fixtures/render/step35/): tools as
OpenAI JSON in ``<tools>``, each value on lines of its own, objects and arrays as JSON and
anything else as Jinja's ``| string``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...tools._tool import Tool
from .._models import ToolCall
from ..reader import ReaderContext, ReaderFactory
from ._base import Format
from ._blocks import SectionClose
from ._regions import XmlParameterCalls
from ._results import result_block, wrap_result
from ._template_json import openai_tool, tojson
from ._xmlparams import SectionOpen, XmlCallReader
from ._xmlrender import XmlCallStyle, render_xml_calls
from .qwen3_coder import STYLE as QWEN3_CODER_STYLE
from .qwen3_coder import TAGS

__all__ = ["Step35"]

TOOL_CALL_START = "<tool_call>"
TOOL_CALL_END = "</tool_call>"
FUNCTION_START = TAGS.call_open
RESULT_START, RESULT_END = "<tool_response>", "</tool_response>"
IM_END = "<|im_end|>"


def _section(ctx: ReaderContext, opener: str) -> SectionOpen:
    return SectionOpen(opener, TOOL_CALL_END, (FUNCTION_START,))


# -- prompt rendering, as the chat template writes it (fixtures/render/step35/) -------------

TOOLS_PREAMBLE = (
    "# Tools\n\nYou have access to the following functions in JSONSchema format:\n\n<tools>"
)
_EXAMPLE = (
    f"{TOOL_CALL_START}\n{FUNCTION_START}example_function_name>\n"
    f"{TAGS.param_open}example_parameter_1>\nvalue_1\n{TAGS.param_close}\n"
    f"{TAGS.param_open}example_parameter_2>\nThis is the value for the second parameter\n"
    f"that can span\nmultiple lines\n{TAGS.param_close}\n{TAGS.call_close}\n{TOOL_CALL_END}"
)
TOOLS_INSTRUCTIONS = (
    "\n</tools>\n\nIf you choose to call a function ONLY reply in the following format with NO "
    f"suffix:\n\n{_EXAMPLE}\n\n<IMPORTANT>\nReminder:\n"
    "- Function calls MUST follow the specified format: an inner <function=...>\n...\n"
    "</function> block must be nested within <tool_call>\n...\n</tool_call> XML tags\n"
    "- Required parameters MUST be specified\n</IMPORTANT>"
)

STYLE = XmlCallStyle(
    TAGS,
    call_header="{name}>",
    param_header="{name}>",
    value=QWEN3_CODER_STYLE.value,  # JSON for objects and arrays, Jinja's str for the rest
    value_framing="\n",  # every value on lines of its own
    section_per_call=True,  # <tool_call> around each call
    content_separator="",  # the content as it is, the first <tool_call> right after it
)


class Step35(Format):
    name = "step35"
    aliases = ("step3.5", "step3p5", "step_3_5", "step3.5_flash", "stepfun")
    model_prefixes = ("stepfun-ai/Step-3.5", "Step-3.5")
    signatures = (FUNCTION_START, TAGS.param_open, TAGS.param_close)
    turn_ends = (IM_END,)  # the template ends every message with it
    example = (
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
        "</function>\n</tool_call>"
    )

    models = "Step-3.5-Flash"
    wire = "`<tool_call><function=f><parameter=k>v</parameter></function></tool_call>`"
    grammars = ("qwen3_coder",)  # Qwen3-Coder's open tags, read by its grammar
    refused_values = ("a</parameter>\n</function>", "a</parameter>\n<tool_call>", "a\r")
    result_tags = (RESULT_START, RESULT_END)
    call_region = XmlParameterCalls(STYLE)
    xgrammar_style = "qwen_xml"  # Qwen3-Coder's <function=NAME><parameter=K> tags
    result_run = ("", "", "")  # results follow each other with nothing between

    def call_openers(self) -> dict[str, ReaderFactory]:
        return {
            TOOL_CALL_START: _section,
            TOOL_CALL_END: lambda ctx, opener: SectionClose(opener),
            FUNCTION_START: lambda ctx, opener: XmlCallReader(TAGS, opener),
            RESULT_START: result_block(RESULT_END),
        }

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # the template writes no tools section at all
            return ""
        listed = "".join("\n" + tojson(openai_tool(tool)) for tool in tools)
        return f"{TOOLS_PREAMBLE}{listed}{TOOLS_INSTRUCTIONS}"

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        # The template joins its calls with nothing between; the shared writer puts its gap
        # (a newline) there, so each call is written alone.
        return content + "".join(render_xml_calls(STYLE, [call], "") for call in calls)

    def render_result(self, call: ToolCall, result: str) -> str:
        return wrap_result(RESULT_START, RESULT_END, result)
