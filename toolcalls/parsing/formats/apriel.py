"""Apriel: a JSON list of calls in ``<tool_calls>`` tags (ServiceNow Apriel 1.5 and 1.6 Thinkers).

    Here are my reasoning steps:
    The user wants the weather.
    [BEGIN FINAL RESPONSE]
    <tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_calls>

Apriel reasons first, with no tags: the reasoning opens with ``Here are my reasoning steps:``
(Apriel 1.5 writes it; Apriel 1.6's template writes it into the prompt, so parse its output
with ``thinking=True``) and ends at ``[BEGIN FINAL RESPONSE]``; both are markup. The
``[END FINAL RESPONSE]`` the system prompt asks for after the answer is markup too where the
model writes it (starting a line), content in a sentence. ``<|end|>`` ends the turn.

A ``<tool_calls>`` tag followed by a list of ``{"name", "arguments"}`` objects is a call list
(any name, an undeclared one with an ``unknown_tool`` issue); each element is its own call,
streamed as it arrives, and an ``"id"`` the template adds to each object is read past. One
object without the list is read too, a list whose ``</tool_calls>`` never comes keeps its
complete calls, and one cut off inside a call reports it as incomplete (``truncated_call``).
The tag in prose, with no JSON after it, stays content. Tool results in history
(``<|tool_result|>...<|end|>``; Apriel 1.6's ``<|begin_tool_result|>``, which runs to the next
``<|begin_assistant|>``) are data, never calls.

Rendering follows Apriel 1.5's chat template (fixtures/render/apriel/): the tools as Python
``str`` of each OpenAI tool in ``<available_tools>``, the calls on a line after the text with
each call's ``"id"`` (the template leaves the ids out of the last assistant turn only), a
result as a ``<|tool_result|>`` turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ...tools._tool import Tool
from .._models import ToolCall
from ..reader import ReaderContext, ReaderFactory, Status
from ._base import Format
from ._jsonobjects import JsonCallsReader, JsonShape
from ._regions import NAMED_OBJECT_HEAD, JsonArrayCalls
from ._results import protect, region_openers
from ._template_json import openai_tool, tojson

__all__ = ["Apriel"]

TOOL_CALLS: Final = "<tool_calls>"
TOOL_CALLS_END: Final = "</tool_calls>"
END: Final = "<|end|>"
RESULT_TURN: Final = "<|tool_result|>\n"
RESULT_TURN_16: Final = "<|begin_tool_result|>"
"""Apriel 1.6's result turn, which no marker closes: the next assistant turn ends it."""
ASSISTANT_TURN_16: Final = "<|begin_assistant|>"
REASONING_START: Final = "Here are my reasoning steps:"
FINAL_BEGIN: Final = "[BEGIN FINAL RESPONSE]"
FINAL_END: Final = "[END FINAL RESPONSE]"

CALLS: Final = JsonShape(prefix=True, arrays=True, wrapped=True, closer=TOOL_CALLS_END)

TOOLS_PREAMBLE: Final = (
    "You are provided with function signatures within <available_tools></available_tools> XML "
    "tags. You may call one or more functions to assist with the user query. Don't make "
    "assumptions about the arguments. You should infer the argument values from previous user "
    "responses and the system message. Here are the available tools:\n<available_tools>\n"
)
TOOLS_END: Final = "</available_tools>"


def _calls_reader(ctx: ReaderContext, opener: str) -> JsonCallsReader:
    return JsonCallsReader(CALLS, opener)


class FinalEnd:
    """``[END FINAL RESPONSE]``: markup where the model writes it, starting a line (or right
    after a tag); in a sentence it is prose naming the marker, content."""

    def __init__(self, ctx: ReaderContext, opener: str) -> None:
        self.opener = opener

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        if ctx.section is not None or not ctx.starts_line():
            return Status.REJECT
        ctx.consume("markup", ctx.pos + len(self.opener))
        return Status.DONE


def _call_object(call: ToolCall) -> dict[str, object]:
    written: dict[str, object] = {"name": call.name, "arguments": call.arguments}
    if call.id:
        written["id"] = call.id
    return written


class Apriel(Format):
    """ServiceNow Apriel Thinkers."""

    name = "apriel"
    aliases = ("apriel_thinker", "servicenow_apriel")
    model_prefixes = ("ServiceNow-AI/Apriel", "Apriel-")
    reasoning_tags = (REASONING_START, FINAL_BEGIN)
    signatures = (TOOL_CALLS + "[", FINAL_BEGIN)
    turn_ends = (END,)
    example = (
        f'{TOOL_CALLS}[{{"name": "get_weather", "arguments": {{"city": "Paris"}}}}]'
        f"{TOOL_CALLS_END}"
    )

    models = "Apriel 1.5, 1.6 Thinker"
    wire = '`<tool_calls>[{"name": …, "arguments": {…}}]</tool_calls>`'
    result_region_end = END
    call_region = JsonArrayCalls(TOOL_CALLS, TOOL_CALLS_END, call_id=True)
    structural_tag_markers = (
        TOOL_CALLS, TOOL_CALLS + "[" + NAMED_OBJECT_HEAD, "}]" + TOOL_CALLS_END
    )
    result_run = ("", "\n", "")

    def call_openers(self) -> dict[str, ReaderFactory]:
        table: dict[str, ReaderFactory] = {TOOL_CALLS: _calls_reader, FINAL_END: FinalEnd}
        regions = {RESULT_TURN.rstrip(): END, RESULT_TURN_16: ASSISTANT_TURN_16}
        return table | region_openers(regions, "tool_result_in_text")

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # the template writes no tools section
            return ""
        listed = "".join(f"{openai_tool(tool)}\n" for tool in tools)  # Python's str, as |string
        return f"{TOOLS_PREAMBLE}{listed}{TOOLS_END}"

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        if not calls:
            return content
        listed = tojson([_call_object(call) for call in calls])
        return f"{content}\n{TOOL_CALLS}{listed}{TOOL_CALLS_END}"

    def render_result(self, call: ToolCall, result: str) -> str:
        return f"{RESULT_TURN}{protect(result, END)}\n{END}"
