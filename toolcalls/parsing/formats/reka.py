"""Reka: Hermes' JSON object in ``<tool_call>`` tags, in Reka's ``human:``/``assistant:`` turns.

    Let me check the time.
    <tool_call>
    {"name": "get_time", "arguments": {"city": "Paris"}}
    </tool_call><tool_call>
    {"name": "get_date", "arguments": {}}
    </tool_call>

Reka Edge's chat template (fixtures/render/reka/) asks for Hermes' wire format and writes it
back, so the calls are read as `Hermes` reads them (its variants and recoveries included).
What differs is around the calls: a turn ends with ``<sep>`` (markup at the end of the
text); with ``enable_thinking`` the generation prompt opens ``<think>``, so a response starts
inside reasoning (parse with ``thinking=True``) and a call rehearsed before ``</think>`` is
reasoning, as llama.cpp's Reka tests pin. Tool results in history (``human: <tool_response>``
... ``</tool_response>``) are data, never calls.

Rendering writes what the template writes: the Hermes tools block with each tool as ASCII
JSON, calls one after another with no gap (``</tool_call><tool_call>``), a newline between
the content and the first call unless the content ends with one, and the results of one turn
back to back, each in ``<tool_response>`` tags, in one ``human:`` turn.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final

from ...tools._tool import Tool
from .._models import ToolCall
from ..reader import ReaderFactory
from ._base import Format
from ._regions import NAMED_OBJECT_HEAD, JsonObjectCalls
from ._results import result_block, wrap_result
from ._template_json import openai_tool, tojson
from .hermes import (
    RESULT_END,
    RESULT_START,
    TOOL_CALL_END,
    TOOL_CALL_START,
    TOOLS_END,
    TOOLS_INSTRUCTIONS,
    TOOLS_PREAMBLE,
    TOOLS_START,
    Hermes,
)

__all__ = ["Reka"]

TURN_END: Final = "<sep>"
# Results come in a human turn: ``human: <tool_response>`` opens one after ``<sep>``.
RESULT_TURN: Final = f"human: {RESULT_START}"


def ascii_json(value: Any) -> str:
    """The template's ``tojson(ensure_ascii=True)``: non-ASCII written as ``\\u`` escapes."""
    return json.dumps(value, ensure_ascii=True)


class Reka(Format):
    """Reka Edge: Hermes' calls (its openers and readers), Reka's turns and rendering."""

    name = "reka"
    aliases = ("reka_edge", "reka-edge")
    model_prefixes = ("RekaAI/reka-edge", "reka-edge")
    signatures = (TOOL_CALL_START, TURN_END)
    turn_ends = (TURN_END,)
    example = (
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    )

    models = "Reka Edge"
    wire = '`<tool_call>{"name": …, "arguments": {…}}</tool_call>`'
    grammars = ("hermes",)
    body_wrapper = (TOOL_CALL_START, TOOL_CALL_END)
    result_tags = (RESULT_START, RESULT_END)
    call_region = JsonObjectCalls(TOOL_CALL_START, call_close=TOOL_CALL_END)
    structural_tag_markers = (
        TOOL_CALL_START, f"{TOOL_CALL_START}\n{NAMED_OBJECT_HEAD}", f"}}\n{TOOL_CALL_END}"
    )
    result_run = ("", "", "")

    def call_openers(self) -> dict[str, ReaderFactory]:
        # The result tag after the turn's "human: " prefix is a result block too: the prefix
        # is no line start, where a bare result tag must stand to open one.
        return Hermes().call_openers() | {RESULT_TURN: result_block(RESULT_END)}

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # the template writes no tools section at all
            return ""
        listed = "".join("\n" + ascii_json(openai_tool(tool)) for tool in tools)
        return f"{TOOLS_PREAMBLE}{TOOLS_START}{listed}\n{TOOLS_END}{TOOLS_INSTRUCTIONS}"

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        # The template writes the name raw between quotes; JSON-quoting it is the same text for
        # every real name and still reads back for a name holding a quote.
        written = "".join(
            f'{TOOL_CALL_START}\n{{"name": {tojson(call.name)}, '
            f'"arguments": {ascii_json(call.arguments)}}}\n{TOOL_CALL_END}'
            for call in calls
        )
        if content and written and not content.endswith("\n"):
            return f"{content}\n{written}"
        return content + written

    def render_result(self, call: ToolCall, result: str) -> str:
        return wrap_result(f"{RESULT_START}\n", f"\n{RESULT_END}", result)
