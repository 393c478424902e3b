"""Seed-OSS: Qwen3-Coder's XML parameters inside ``<seed:tool_call>`` (ByteDance Seed-OSS).

    <seed:think>The user wants the weather.</seed:think>
    <seed:tool_call>
    <function=get_weather>
    <parameter=city>Paris</parameter>
    </function>
    </seed:tool_call>

The call body is Qwen3-Coder's, read by the shared reader (`_xmlparams`) with Qwen3-Coder's tag
grammar; only the section tags and the reasoning tags differ. Recovered with an issue as in
Qwen3-Coder: ``<function=`` without ``<seed:tool_call>`` (``missing_section_open``), a missing
``</function>`` or ``</seed:tool_call>`` (``missing_close_tag``). ``<seed:cot_budget_reflect>``
notes inside reasoning are reasoning text.

Rendering writes what ByteDance-Seed-OSS.jinja writes (fixtures/render/seed_oss/): tools as
Python-style docstrings, values flush against their tags, scalars as Jinja's ``| string``
writes them (``True``, ``3``), each result as a ``tool`` message ending with ``<seed:eos>``: a
region of data, never calls (`_results`). One difference: the template writes objects and
arrays as Python's ``str`` (``{'a': 'x\\n'}``), which the reader does not read back when it holds
a backslash; they are written as JSON, as Qwen3-Coder's template and llama.cpp's Seed-OSS tests
write them (corpus row seed_oss-llamacpp-005).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ...tools._tool import Tool
from .._models import ToolCall
from ..reader import ReaderContext, ReaderFactory
from ._base import Format
from ._blocks import SectionClose
from ._regions import XmlParameterCalls
from ._results import protect, region_openers
from ._template_json import tojson
from ._xmlparams import SectionOpen, XmlCallReader, XmlTags
from ._xmlrender import XmlCallStyle, jinja_string, render_xml_calls
from .qwen3_coder import TAGS as QWEN3_CODER_TAGS

__all__ = ["TAGS", "SeedOss"]

TOOL_CALL_START = "<seed:tool_call>"
TOOL_CALL_END = "</seed:tool_call>"
FUNCTION_START = "<function="
EOS = "<seed:eos>"
TOOL_MESSAGE = "<seed:bos>tool"
"""How the template opens a tool-result message (``<seed:bos>`` + role), closed by `EOS`."""

TAGS = XmlTags(
    call_open=FUNCTION_START,
    call_close="</function>",
    param_open="<parameter=",
    param_close="</parameter>",
    # The same open tags as Qwen3-Coder: its grammar (grammars/qwen3_coder.lark) reads them.
    parse_tag=QWEN3_CODER_TAGS.parse_tag,
    call_header_start=QWEN3_CODER_TAGS.call_header_start,
    call_example=f"{FUNCTION_START}NAME>",
    section_closes=(TOOL_CALL_END,),
    section_opens=(TOOL_CALL_START,),
)


def _section(ctx: ReaderContext, opener: str) -> SectionOpen:
    return SectionOpen(opener, TOOL_CALL_END, (FUNCTION_START,))


# -- prompt rendering, as the chat template writes it (fixtures/render/seed_oss/) -----------

TOOLS_INSTRUCTIONS = (
    "工具调用请遵循如下格式:\n"
    f"{TOOL_CALL_START}\n{FUNCTION_START}example_function_name>\n"
    f"{TAGS.param_open}example_parameter_1>value_1{TAGS.param_close}\n"
    f"{TAGS.param_open}example_parameter_2>This is the value for the second parameter\n"
    f"that can span\nmultiple lines{TAGS.param_close}\n{TAGS.call_close}\n{TOOL_CALL_END}\n"
)
_PY_TYPES: Final = {
    "string": "str", "number": "int", "integer": "int", "boolean": "bool", "array": "list",
}
"""The template's ``py_type`` macro (numbers too are ``int`` there); anything else is ``Any``."""


def _py_type(fields: Any) -> str:
    kind = fields.get("type") if isinstance(fields, Mapping) else None
    return _PY_TYPES.get(kind, "Any") if isinstance(kind, str) else "Any"


def _render_argument(name: str, fields: Any, required: Any) -> str:
    needed = "[必填]" if isinstance(required, list) and name in required else "[选填]"
    described = fields.get("description") if isinstance(fields, Mapping) else None
    text = jinja_string(described) if described else ""
    return f"\n    - {name} ({_py_type(fields)}) {needed}: {text}"


def _render_tool(tool: Tool) -> str:
    properties = tool.parameters.get("properties")
    listed = properties if isinstance(properties, Mapping) else {}
    signature = ",".join(f"{name}: {_py_type(fields)}" for name, fields in listed.items())
    required = tool.parameters.get("required")
    arguments = "".join(_render_argument(name, fields, required) for name, fields in listed.items())
    args = f"    Args:{arguments}" if listed else ""
    return (
        f'Function:\ndef {tool.name}({signature}):\n    """\n    {tool.description.strip()}\n\n'
        f'{args}\n\n    """'
    )


def _value(value: Any) -> str:
    """Objects and arrays as JSON (see the module's docstring), anything else as Jinja's str."""
    return tojson(value) if isinstance(value, Mapping | list) else jinja_string(value)


STYLE = XmlCallStyle(
    TAGS,
    call_header="{name}>",
    param_header="{name}>",
    value=_value,  # flush against the tags: the template writes no newline around a value
    section_per_call=True,  # <seed:tool_call> around each call
    content_separator="\n\n",  # the template trims the content; a blank line, then the calls
    strip_content=True,
)


class SeedOss(Format):
    name = "seed_oss"
    aliases = ("seedoss", "seed", "bytedance_seed")
    model_prefixes = ("ByteDance-Seed/Seed-OSS", "Seed-OSS")
    reasoning_tags = ("<seed:think>", "</seed:think>")
    signatures = (TOOL_CALL_START, TOOL_CALL_END)
    turn_ends = (EOS,)  # ByteDance-Seed-OSS.jinja ends every message with it
    example = (
        "<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n"
        "</function>\n</seed:tool_call>"
    )

    models = "Seed-OSS"
    wire = "`<seed:tool_call><function=f><parameter=k>v</parameter></function></seed:tool_call>`"
    grammars = ("qwen3_coder",)  # Qwen3-Coder's open tags, read by its grammar
    refused_values = ("a</parameter>\n</function>", "a</parameter>\n<seed:tool_call>")
    result_region_end = EOS
    call_region = XmlParameterCalls(STYLE)
    xgrammar_style = "qwen_xml"  # Qwen3-Coder's <function=NAME><parameter=K> tags
    result_run = ("", "", "")

    def call_openers(self) -> dict[str, ReaderFactory]:
        table: dict[str, ReaderFactory] = {
            TOOL_CALL_START: _section,
            TOOL_CALL_END: lambda ctx, opener: SectionClose(opener),
            FUNCTION_START: lambda ctx, opener: XmlCallReader(TAGS, opener),
        }
        return table | region_openers({TOOL_MESSAGE: EOS}, "tool_result_in_text")

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # the template writes no tools section at all
            return ""
        return "\n\n".join(map(_render_tool, tools)) + "\n" + TOOLS_INSTRUCTIONS

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        return render_xml_calls(STYLE, calls, content)

    def render_result(self, call: ToolCall, result: str) -> str:
        return f"{TOOL_MESSAGE}\n{protect(result, EOS)}{EOS}"
