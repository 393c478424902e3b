"""Jamba: a JSON list of calls between ``<tool_calls>`` tokens (AI21 Jamba 1.5/1.6/1.7; vLLM
``jamba``).

    <tool_calls>[
        {"name": "get_weather", "arguments": {"city": "Paris"}}
    ]</tool_calls>

``<tool_calls>`` and ``</tool_calls>`` are special tokens of Jamba's tokenizer, so any name
after the opener makes a call (an undeclared one with an ``unknown_tool`` issue); one object
without the list is read too. Each element of the list is its own call, streamed as it
arrives. A list cut off after a complete call keeps that call; one cut off inside a call
reports it as incomplete (``truncated_call``). A missing ``</tool_calls>`` is no loss: the
list's own ``]`` ends the calls. Text before the calls is content (vLLM keeps it, leading
blank included). Jamba Reasoning thinks in ``<think>...</think>``: a call rehearsed there is
reasoning. A tool result turn in history (``<|bom|><|tool|>`` ... ``<|eom|>``) is data.

MiniMax-M1 spells its section ``<tool_calls>`` too, with one object per line and no list:
`detect` tells the two apart by what parses (a list here, lines there).

Rendering: the tools block is what Jamba Mini 1.7's chat template writes (its
``handle_tool_definitions`` macro: ``<tool_definitions>``, ``# Tools``, ``## Functions``, each
function as JSON indented by 2; read from the copy in ``r-rojo/rampipe``'s
``tests/fixtures/jamba_mini_1_7_chat_template.jinja``, not yet a render-fidelity fixture here).
Calls are written as the model writes them (the layout vLLM's tests pin), a result as a
``tool`` message in Jamba's role tokens.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ...tools._tool import Tool
from .._models import ToolCall
from ..reader import ReaderContext, ReaderFactory
from ._base import Format
from ._jsonobjects import JsonCallsReader, JsonShape
from ._regions import NAMED_OBJECT_HEAD, JsonListCalls
from ._results import protect, region_openers
from ._template_json import bare_tool, tojson

__all__ = ["Jamba"]

TOOL_DEFINITIONS_START: Final = "<tool_definitions>"
TOOL_DEFINITIONS_END: Final = "</tool_definitions>"

TOOL_CALLS_START: Final = "<tool_calls>"
TOOL_CALLS_END: Final = "</tool_calls>"
END_OF_MESSAGE: Final = "<|eom|>"
RESULT_TURN: Final = "<|bom|><|tool|>"

CALLS: Final = JsonShape(prefix=True, arrays=True, closer=TOOL_CALLS_END, wrapped=True)


def _calls_reader(ctx: ReaderContext, opener: str) -> JsonCallsReader:
    return JsonCallsReader(CALLS, opener)


def _call_object(call: ToolCall) -> dict[str, object]:
    return {"name": call.name, "arguments": call.arguments}


class Jamba(Format):
    """AI21 Jamba."""

    name = "jamba"
    aliases = ("ai21_jamba", "jamba15", "jamba_1_5")
    model_prefixes = ("ai21labs/AI21-Jamba", "ai21labs/Jamba", "AI21-Jamba", "Jamba-")
    signatures = (TOOL_CALLS_START, TOOL_CALLS_END)
    turn_ends = (END_OF_MESSAGE,)
    example = (
        f'{TOOL_CALLS_START}[{{"name": "get_weather", "arguments": {{"city": "Paris"}}}}]'
        f"{TOOL_CALLS_END}"
    )

    models = "AI21 Jamba 1.5–1.7"
    wire = '`<tool_calls>[{"name": …, "arguments": {…}}]</tool_calls>`'
    result_region_end = END_OF_MESSAGE
    no_corpus_reason = (
        "no shared corpus rows for Jamba: the goldens come from vLLM's jamba parser tests "
        "(fixtures/jamba/README.md)"
    )
    # The list and its close token; the reader also takes one object without the list.
    call_region = JsonListCalls(TOOL_CALLS_START, close=TOOL_CALLS_END)
    structural_tag_markers = (
        TOOL_CALLS_START, f"{TOOL_CALLS_START}[{NAMED_OBJECT_HEAD}", f"}}]{TOOL_CALLS_END}"
    )

    def call_openers(self) -> dict[str, ReaderFactory]:
        table: dict[str, ReaderFactory] = {TOOL_CALLS_START: _calls_reader}
        return table | region_openers({RESULT_TURN: END_OF_MESSAGE}, "tool_result_in_text")

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # the template writes no tool definitions
            return ""
        listed = "".join("\n\n" + tojson(bare_tool(tool), indent=2) for tool in tools)
        return f"{TOOL_DEFINITIONS_START}\n# Tools\n\n## Functions{listed}\n{TOOL_DEFINITIONS_END}"

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        if not calls:
            return content
        listed = tojson([_call_object(call) for call in calls])
        return f"{content}{TOOL_CALLS_START}{listed}{TOOL_CALLS_END}"

    def render_result(self, call: ToolCall, result: str) -> str:
        return f"{RESULT_TURN} {protect(result, END_OF_MESSAGE)}{END_OF_MESSAGE}"
