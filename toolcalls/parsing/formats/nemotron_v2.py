"""Nemotron Nano v2: a JSON list of calls in ``<TOOLCALL>`` tags (NVIDIA Nemotron Nano 9B/12B v2).

    <TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</TOOLCALL>

``<TOOLCALL>`` is a special token, so any name after it makes a call (an undeclared one with an
``unknown_tool`` issue); one object without the list is read too, and a list whose
``</TOOLCALL>`` never comes keeps its complete calls (one cut off inside reports
``truncated_call``). Each element is its own call, streamed as it arrives. The model thinks in
``<think>...</think>``; the template opens that block in the prompt (parse with
``thinking=True``) unless ``/no_think`` turned it off. ``<SPECIAL_12>`` ends the turn. Tool
results come back in ``<TOOL_RESPONSE>[...]</TOOL_RESPONSE>`` in a user turn: data, never calls.

Rendering follows the model's own chat template (fixtures/render/nemotron_v2/): the tools as
``<AVAILABLE_TOOLS>[...]`` with its instructions, the calls after the text and a blank line,
the results of one turn joined into one ``<TOOL_RESPONSE>`` list (`result_run`). The template
copies each result raw into that list; a result is written with ``</TOOL_RESPONSE>`` and
``<TOOLCALL>`` escaped (`_results.protect`), so it can neither end the list nor be read as a call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ...tools._tool import Tool
from .._models import ToolCall
from ..reader import ReaderContext, ReaderFactory
from ._base import Format
from ._jsonobjects import JsonCallsReader, JsonShape
from ._regions import NAMED_OBJECT_HEAD, JsonArrayCalls
from ._results import protect, result_block
from ._template_json import bare_tool, tojson

__all__ = ["NemotronV2"]

TOOLCALL: Final = "<TOOLCALL>"
TOOLCALL_END: Final = "</TOOLCALL>"
TURN_END: Final = "<SPECIAL_12>"
RESPONSE_OPEN: Final = "<TOOL_RESPONSE>"
RESPONSE_CLOSE: Final = "</TOOL_RESPONSE>"

CALLS: Final = JsonShape(prefix=True, arrays=True, wrapped=True, closer=TOOLCALL_END)

TOOLS_LEAD: Final = "You can use the following tools to assist the user if required:\n"
TOOLS_INSTRUCTIONS: Final = (
    "If you decide to call any tool(s), use the following format:\n"
    '<TOOLCALL>[{{"name": "tool_name1", "arguments": "tool_args1"}}, '
    '{{"name": "tool_name2", "arguments": "tool_args2"}}]</TOOLCALL>\n\n'
    "The user will execute tool-calls and return responses from tool(s) in this format:\n"
    '<TOOL_RESPONSE>[{{"tool_response1"}}, {{"tool_response2"}}]</TOOL_RESPONSE>\n\n'
    "Based on the tool responses, you can call additional tools if needed, correct tool calls "
    "if any errors are found, or just respond to the user."
)


def _calls_reader(ctx: ReaderContext, opener: str) -> JsonCallsReader:
    return JsonCallsReader(CALLS, opener)


def _call_object(call: ToolCall) -> dict[str, object]:
    return {"name": call.name, "arguments": call.arguments}


class NemotronV2(Format):
    """NVIDIA Nemotron Nano v2."""

    name = "nemotron_v2"
    aliases = ("nemotron_nano_v2", "nemotron_nano2")
    model_prefixes = (
        "nvidia/NVIDIA-Nemotron-Nano-9B-v2",
        "nvidia/NVIDIA-Nemotron-Nano-12B-v2",
        "NVIDIA-Nemotron-Nano-9B-v2",
        "NVIDIA-Nemotron-Nano-12B-v2",
    )
    signatures = (TOOLCALL, TOOLCALL_END)
    turn_ends = (TURN_END,)
    example = (
        f'{TOOLCALL}[{{"name": "get_weather", "arguments": {{"city": "Paris"}}}}]{TOOLCALL_END}'
    )

    models = "Nemotron Nano 9B/12B v2"
    wire = '`<TOOLCALL>[{"name": …, "arguments": {…}}]</TOOLCALL>`'
    call_region = JsonArrayCalls(TOOLCALL, TOOLCALL_END)
    structural_tag_markers = (TOOLCALL, TOOLCALL + "[" + NAMED_OBJECT_HEAD, "}]" + TOOLCALL_END)
    result_run = (RESPONSE_OPEN + "[", ", ", "]" + RESPONSE_CLOSE)

    def call_openers(self) -> dict[str, ReaderFactory]:
        return {TOOLCALL: _calls_reader, RESPONSE_OPEN: result_block(RESPONSE_CLOSE)}

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # the template writes no tools section
            return ""
        listed = ", ".join(tojson(bare_tool(tool)) for tool in tools)
        return f"{TOOLS_LEAD}<AVAILABLE_TOOLS>[{listed}]</AVAILABLE_TOOLS>\n\n{TOOLS_INSTRUCTIONS}"

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        if not calls:
            return content
        gap = "\n\n" if content.strip() else ""
        listed = tojson([_call_object(call) for call in calls])
        return f"{content}{gap}{TOOLCALL}{listed}{TOOLCALL_END}"

    def render_result(self, call: ToolCall, result: str) -> str:
        # One element of the turn's <TOOL_RESPONSE> list (`result_run`), copied raw there.
        return protect(result, RESPONSE_CLOSE, TOOLCALL)
