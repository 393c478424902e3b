"""Qwen3-Coder: XML parameters inside ``<tool_call>`` (Qwen3-Coder, Qwen3.5, Nemotron 3 Nano).

    <tool_call>
    <function=get_weather>
    <parameter=city>
    Paris
    </parameter>
    <parameter=days>
    3
    </parameter>
    </function>
    </tool_call>

Values are raw text typed by the tool's schema (see `_xmlparams`). Names are kept verbatim
(quotes too, as ollama does). Recovered with an issue: ``<function=`` without ``<tool_call>``
(``missing_section_open``), a missing ``</function>`` or ``</tool_call>``
(``missing_close_tag``). Rendering writes what the chat template writes (see `_xmlrender`); a
``<tool_response>`` block is a tool result: content, never calls (see `_results`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from lark import Token, Transformer

from ...tools._tool import Tool
from .._models import ToolCall
from ..reader import ReaderContext, ReaderFactory
from ._base import Format
from ._blocks import SectionClose
from ._regions import XmlParameterCalls
from ._results import result_block, wrap_result
from ._template_json import tojson
from ._xmlparams import SectionOpen, Tag, XmlCallReader, XmlTags, grammar_tags
from ._xmlrender import XmlCallStyle, jinja_string, render_xml_calls

__all__ = ["Qwen3Coder", "TAGS"]

TOOL_CALL_START = "<tool_call>"
TOOL_CALL_END = "</tool_call>"
FUNCTION_START = "<function="


class _Tags(Transformer[Token, Tag]):
    def call_tag(self, children: list[Token]) -> Tag:
        return Tag("call", str(children[0]).strip())

    def param_tag(self, children: list[Token]) -> Tag:
        return Tag("param", str(children[0]).strip())


TAGS = XmlTags(
    call_open=FUNCTION_START,
    call_close="</function>",
    param_open="<parameter=",
    param_close="</parameter>",
    parse_tag=grammar_tags("qwen3_coder", _Tags()),
    # A name cannot begin with "<" (nor be empty): "<function=<" is prose, even cut by the end.
    call_header_start=re.compile(r"(?:[^<\n][^\n]*)?"),
    call_example=f"{FUNCTION_START}NAME>",
    section_closes=(TOOL_CALL_END,),
    section_opens=(TOOL_CALL_START,),
)


def _section(ctx: ReaderContext, opener: str) -> SectionOpen:
    return SectionOpen(opener, TOOL_CALL_END, (FUNCTION_START,))


# -- prompt rendering, as the chat template writes it (fixtures/render/qwen3_coder/) --------

RESULT_START, RESULT_END = "<tool_response>", "</tool_response>"
_EXAMPLE = (
    f"{TOOL_CALL_START}\n{FUNCTION_START}example_function_name>\n"
    f"{TAGS.param_open}example_parameter_1>\nvalue_1\n{TAGS.param_close}\n"
    f"{TAGS.param_open}example_parameter_2>\nvalue_2\n{TAGS.param_close}\n"
    f"{TAGS.call_close}\n{TOOL_CALL_END}"
)
TOOLS_PREAMBLE = "# Tools\n\nYou have access to the following tools:\n\n"
TOOLS_INSTRUCTIONS = (
    "\n\nIf you choose to call a tool ONLY reply in the following format with NO suffix:\n\n"
    f"{_EXAMPLE}\n\n<IMPORTANT>\nReminder:\n"
    "- Function calls MUST follow the specified format: the tool calling block MUST begin "
    f"with an opening {TOOL_CALL_START} tag and end with a closing {TOOL_CALL_END} tag.\n"
    "- Required parameters MUST be specified\n"
    "- You may provide optional reasoning for your function call in natural language BEFORE "
    "the function call, but NOT after\n"
    "- If there is no function call available, answer the question like normal with your "
    "current knowledge and do not tell the user about function calls\n</IMPORTANT>"
)


def _template_value(value: Any) -> str:
    """Objects and lists as JSON, anything else as Python's str (``True``, ``3``)."""
    return tojson(value) if isinstance(value, Mapping | list) else jinja_string(value)


def _extra_keys(fields: Mapping[str, Any], handled: tuple[str, ...]) -> str:
    """Schema keywords the template has no slot for, each as ``<key>value</key>``."""
    return "".join(
        f"\n<{key}>{_template_value(value)}</{key}>"
        for key, value in fields.items()
        if key not in handled
    )


def _render_parameter(name: str, fields: Mapping[str, Any]) -> str:
    typed = f"\n<type>{jinja_string(fields['type'])}</type>" if "type" in fields else ""
    described = (
        f"\n<description>{jinja_string(fields['description']).strip()}</description>"
        if "description" in fields else ""
    )
    extra = _extra_keys(fields, ("name", "type", "description"))
    return f"\n<parameter>\n<name>{name}</name>{typed}{described}{extra}\n</parameter>"


def _render_tool(tool: Tool) -> str:
    schema = tool.parameters
    properties = schema.get("properties")
    listed = "".join(
        # A boolean schema (``true``: anything) has no fields for the template to write.
        _render_parameter(name, fields if isinstance(fields, Mapping) else {})
        for name, fields in (properties.items() if isinstance(properties, Mapping) else ())
    )
    extra = _extra_keys(schema, ("type", "properties"))
    return (
        f"\n<function>\n<name>{tool.name}</name>"
        f"\n<description>{tool.description.strip()}</description>"
        f"\n<parameters>{listed}{extra}\n</parameters>\n</function>"
    )


STYLE = XmlCallStyle(
    TAGS,
    call_header="{name}>",
    param_header="{name}>",
    value=_template_value,
    value_framing="\n",  # every value on lines of its own
    section_per_call=True,  # <tool_call> around each call
    content_separator="\n\n",  # the template trims the content; a blank line, then the calls
    strip_content=True,
)


class Qwen3Coder(Format):
    name = "qwen3_coder"
    aliases = ("qwen3coder", "qwen3_xml", "qwen3.5", "qwen35")
    model_prefixes = (
        "Qwen/Qwen3-Coder",
        "Qwen/Qwen3.5",
        "Qwen3-Coder",
        "nvidia/NVIDIA-Nemotron-3-Nano",
    )
    signatures = (FUNCTION_START, "<parameter=", "</parameter>")
    turn_ends = ("<|im_end|>", "<|endoftext|>")  # Qwen3-Coder's templates; Qwen's eos too
    example = (
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
        "</function>\n</tool_call>"
    )

    models = "Qwen3-Coder, Qwen3.5"
    wire = "`<tool_call><function=f><parameter=k>v</parameter></function></tool_call>`"
    grammars = ("qwen3_coder",)
    body_wrapper = ("<tool_call>\n", "\n</tool_call>")
    refused_values = ("a</parameter>\n</function>", "a</parameter>\n<tool_call>", "a\r")
    result_tags = ("<tool_response>", "</tool_response>")
    call_region = XmlParameterCalls(STYLE)
    xgrammar_style = "qwen_xml"
    result_run = ("", "\n", "\n")

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
        listed = "".join(_render_tool(tool) for tool in tools)
        return f"{TOOLS_PREAMBLE}<tools>{listed}\n</tools>{TOOLS_INSTRUCTIONS}"

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        return render_xml_calls(STYLE, calls, content)

    def render_result(self, call: ToolCall, result: str) -> str:
        return wrap_result(f"{RESULT_START}\n", f"\n{RESULT_END}", result)
