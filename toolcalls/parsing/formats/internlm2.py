"""InternLM2: a JSON call between action tokens (InternLM2/2.5, Intern-S1; vLLM ``internlm``).

    <|action_start|><|plugin|>
    {"name": "get_weather", "parameters": {"city": "Paris"}}<|action_end|>

``"parameters"`` is the model's own key; ``"arguments"`` (what vLLM's template writes) is read
too, with no issue for either. ``<|action_start|><|plugin|>`` are special tokens, so any name
after them makes a call (an undeclared one with an ``unknown_tool`` issue: vLLM drops it); the
blanks after them are markup. One call per action block; several blocks make several calls.
A block cut off inside the JSON reports the call as incomplete (``truncated_call``); one whose
``<|action_end|>`` is missing still ends with its JSON. ``<|action_start|><|interpreter|>``
(code for the interpreter, not a tool call) is content. A tool result in history
(``<|im_start|>environment name=<|plugin|>`` ... ``<|im_end|>``) is data, never calls.

Rendering follows vLLM's InternLM2 tool template (fixtures/render/internlm2/): the tools as a
``system name=<|plugin|>`` turn holding a JSON list of functions, a result as an
``environment name=<|plugin|>`` turn. That template writes a call's arguments with Python's
``str`` (``{'city': 'Paris'}``), which no reader takes as JSON: calls are written with the
arguments as JSON, as the model writes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ...tools._tool import Tool
from .._models import ToolCall
from ..reader import ReaderContext, ReaderFactory
from ._base import Format
from ._jsonobjects import JsonCallsReader, JsonShape
from ._regions import NAMED_OBJECT_HEAD, JsonObjectCalls
from ._results import protect, region_openers
from ._template_json import bare_tool, tojson

__all__ = ["Internlm2"]

ACTION_START: Final = "<|action_start|>"
PLUGIN: Final = "<|plugin|>"
CALL_OPEN: Final = ACTION_START + PLUGIN
ACTION_END: Final = "<|action_end|>"
TURN_END: Final = "<|im_end|>"
TOOLS_TURN: Final = f"<|im_start|>system name={PLUGIN}\n"
RESULT_TURN: Final = f"<|im_start|>environment name={PLUGIN}\n"

CALL: Final = JsonShape(prefix=True, closer=ACTION_END, wrapped=True)


def _call_reader(ctx: ReaderContext, opener: str) -> JsonCallsReader:
    return JsonCallsReader(CALL, opener)


def _written_call(call: ToolCall) -> str:
    body = f'{{"name": {tojson(call.name)}, "arguments": {tojson(call.arguments)}}}'
    return f"{CALL_OPEN}\n{body}{ACTION_END}"


class Internlm2(Format):
    """InternLM2 and Intern-S1."""

    name = "internlm2"
    aliases = ("internlm", "internlm2_5", "intern_s1", "interns1")
    model_prefixes = (
        "internlm/internlm2",
        "internlm/internlm2_5",
        "internlm/Intern-S1",
        "internlm2",
        "Intern-S1",
    )
    signatures = (CALL_OPEN, ACTION_END)
    turn_ends = (TURN_END,)
    example = (
        f'{CALL_OPEN}\n{{"name": "get_weather", "parameters": {{"city": "Paris"}}}}{ACTION_END}'
    )

    models = "InternLM2/2.5, Intern-S1"
    wire = '`<|action_start|><|plugin|>{"name": …, "parameters": {…}}<|action_end|>`'
    no_corpus_reason = (
        "no shared corpus rows for InternLM2: the goldens come from vLLM's internlm2 parser "
        "tests (fixtures/internlm2/README.md)"
    )
    result_region_end = TURN_END
    call_region = JsonObjectCalls(CALL_OPEN, call_close=ACTION_END)
    structural_tag_markers = (CALL_OPEN, f"{CALL_OPEN}\n{NAMED_OBJECT_HEAD}", f"}}{ACTION_END}")
    result_run = ("", "", "")

    def call_openers(self) -> dict[str, ReaderFactory]:
        table: dict[str, ReaderFactory] = {CALL_OPEN: _call_reader}
        return table | region_openers({RESULT_TURN: TURN_END}, "tool_result_in_text")

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # the template writes no plugin turn
            return ""
        listed = ", ".join(tojson(bare_tool(tool)) for tool in tools)
        return f"{TOOLS_TURN}[{listed}]{TURN_END}\n"

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        return content + "".join(map(_written_call, calls))

    def render_result(self, call: ToolCall, result: str) -> str:
        return f"{RESULT_TURN}{protect(result, TURN_END)}{TURN_END}\n"
