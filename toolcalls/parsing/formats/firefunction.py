"""``functools[...]``: a JSON list of calls after the word (FireFunction v2, Phi-4-mini).

    Let me look that up. functools[{"name": "get_weather", "arguments": {"city": "Paris"}}]

Fireworks' FireFunction v2 (a Llama 3 fine-tune; llama.cpp ``firefunction_v2``) and Phi-4-mini
as vLLM serves it (``phi4_mini_json``, with vLLM's ``tool_chat_template_phi4_mini.jinja``) both
ask for "a single JSON list formatted as functools[{"name": ..., "arguments": ...}, ...]" with
"no closing marker". FireFunction's template writes it after the turn's text and one space
(`` functools[``); the Phi-4-mini examples write it at the start of a line. Blanks before it
are markup, as before any call.

``functools`` is an ordinary word (Python's module), not a special token, so it opens a call
list only when a JSON list (or, leniently, one object) of call objects follows: ``import
functools``, ``functools.cache``, ``functools[]`` and ``functools[ text ]`` stay content
(vLLM's malformed cases). A call object opens a call whatever its name (an undeclared one gets
an ``unknown_tool`` issue), as the marker says a call list follows; ``"parameters"`` stands for
``"arguments"`` (vLLM reads both); a list whose call has arguments that are no object (nor
a JSON string of one) is no call list, and stays content. Each element streams as it arrives;
a list cut off inside a call reports it as incomplete (``truncated_call``), never as a call to
run. Phi-4-mini's list between ``<|tool_call|>`` and ``<|/tool_call|>`` (Ollama's template
writes calls so) is read by ``phi4_mini`` too.

Rendering follows each model's template: FireFunction v2's llama.cpp template
(fixtures/render/firefunction_v2/) writes the content, then `` functools[`` and the calls joined
by ``, ``; a result is a ``tool`` turn (the template trims it, so does `render_result`). Its
tools reach that template as llama.cpp's ``functions`` variable (the tools as indented JSON),
written by `render_tools` after the template's instructions. Phi-4-mini's own template writes no
calls at all (tools go in the system message as a string the caller builds), and vLLM's example
template (fixtures/render/phi4_mini/) drops the calls of a turn with text and writes the others
as bare objects holding Python's ``str`` of the arguments, which no reader takes back; so calls
are written as its system prompt asks and the model answers, ``functools[...]`` on a line of its
own, while its tools block and ``<|tool|>`` results are the template's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Final

from ...tools._tool import Tool
from .._models import ToolCall
from ..reader import ReaderContext, ReaderFactory
from ._base import Format
from ._jsonobjects import JsonCallsReader, JsonShape
from ._llama_prompt import tools_json
from ._regions import NAMED_OBJECT_HEAD, JsonListCalls
from ._results import protect, region_openers
from ._template_json import openai_tool, tojson

__all__ = ["FirefunctionV2", "Phi4Mini"]

FUNCTOOLS: Final = "functools"
"""Opens the call list: the marker both models' prompts name."""
CALLS: Final = JsonShape(prefix=True, arrays=True, wrapped=True)

HEADER_START: Final = "<|start_header_id|>"
HEADER_END: Final = "<|end_header_id|>"
EOT: Final = "<|eot_id|>"
TOOL_TURN: Final = f"{HEADER_START}tool{HEADER_END}\n\n"

PHI_END: Final = "<|end|>"
PHI_TOOL_TURN: Final = "<|tool|>"
PHI_TOOL_CALL: Final = "<|tool_call|>"
PHI_TOOL_CALL_END: Final = "<|/tool_call|>"
PHI_CALLS: Final = JsonShape(prefix=True, arrays=True, closer=PHI_TOOL_CALL_END, wrapped=True)
"""Ollama's Phi-4-mini template writes calls so: ``<|tool_call|>[...]<|/tool_call|>``."""

# FireFunction v2's template: its system prompt suffix before llama.cpp's `functions` variable.
FIREFUNCTION_INSTRUCTIONS: Final = (
    "In addition to plain text responses, you can chose to call one or more of the provided "
    "functions.\n\n"
    "Use the following rule to decide when to call a function:\n"
    '  * if the response can be generated from your internal knowledge (e.g., as in the case of '
    'queries like "What is the capital of Poland?"), do so\n'
    "  * if you need external information that can be obtained by calling one or more of the "
    "provided functions, generate a function calls\n\n"
    "If you decide to call functions:\n"
    "  * prefix function calls with functools marker (no closing marker required)\n"
    "  * all function calls should be generated in a single JSON list formatted as "
    'functools[{"name": [function name], "arguments": [function arguments as JSON]}, ...]\n'
    "  * follow the provided JSON schema. Do not hallucinate arguments or values. Do to blindly "
    "copy values from the provided samples\n"
    "  * respect the argument type formatting. E.g., if the type if number and format is float, "
    "write value 7 as 7.0\n"
    "  * make sure you pick the right functions that match the user intent\n\n"
    "Available functions as JSON spec:\n"
)


# vLLM's Phi-4-mini template: its instructions after the system message, before each tool.
PHI_INSTRUCTIONS: Final = (
    "In addition to plain text responses, you can choose to call one or more of the provided "
    "functions.\n\n"
    "Use the following rule to decide when to call a function:\n"
    '  * if the response can be generated from your internal knowledge (e.g., as in the case of '
    'queries like "What is the capital of Poland?"), do so\n'
    "  * if you need external information that can be obtained by calling one or more of the "
    "provided functions, generate a function calls\n\n"
    "If you decide to call functions:\n"
    "  * prefix function calls with functools marker (no closing marker required)\n"
    "  * all function calls should be generated in a single JSON list formatted as "
    'functools[{"name": [function name], "arguments": [function arguments as JSON]}, ...]\n'
    "  * follow the provided JSON schema. Do not hallucinate arguments or values. Do to blindly "
    "copy values from the provided samples\n"
    "  * respect the argument type formatting. E.g., if the type is number and format is float, "
    "write value 7 as 7.0\n"
    "  * make sure you pick the right functions that match the user intent"
)


def _calls_reader(ctx: ReaderContext, opener: str) -> JsonCallsReader:
    return JsonCallsReader(CALLS, opener)


def _phi_calls_reader(ctx: ReaderContext, opener: str) -> JsonCallsReader:
    return JsonCallsReader(PHI_CALLS, opener)


def _call_json(call: ToolCall) -> str:
    return f'{{"name": {tojson(call.name)}, "arguments": {tojson(call.arguments)}}}'


def call_list(calls: Sequence[ToolCall]) -> str:
    """``functools[...]``, the calls joined by ``, `` as FireFunction's template joins them."""
    return f"{FUNCTOOLS}[{', '.join(map(_call_json, calls))}]"


class FirefunctionV2(Format):
    """FireFunction v2."""

    name = "firefunction_v2"
    aliases: ClassVar[tuple[str, ...]] = ("firefunction", "firefunction2",
                                          "fireworks_firefunction_v2")
    model_prefixes: ClassVar[tuple[str, ...]] = (
        "fireworks-ai/llama-3-firefunction-v2",
        "fireworks-ai/firefunction-v2",
        "llama-3-firefunction-v2",
        "firefunction-v2",
    )
    signatures = (f"{FUNCTOOLS}[", EOT)
    turn_ends = (EOT,)
    example = ' functools[{"name": "get_weather", "arguments": {"city": "Paris"}}]'

    models = "FireFunction v2"
    wire = '`functools[{"name": …, "arguments": {…}}]`'
    result_region_end = EOT
    call_region = JsonListCalls(FUNCTOOLS)
    structural_tag_markers = (FUNCTOOLS, f"{FUNCTOOLS}[{NAMED_OBJECT_HEAD}", "}")
    result_run = ("", "", "")

    def call_openers(self) -> dict[str, ReaderFactory]:
        table: dict[str, ReaderFactory] = {FUNCTOOLS: _calls_reader}
        return table | region_openers({TOOL_TURN: EOT}, "tool_result_in_text")

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:
            return ""
        listed = tojson([openai_tool(tool) for tool in tools], indent=2)
        return FIREFUNCTION_INSTRUCTIONS + listed

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        text = content.strip()  # the template trims the turn's text
        return f"{text} {call_list(calls)}" if calls else text

    def render_result(self, call: ToolCall, result: str) -> str:
        return f"{TOOL_TURN}{protect(result.strip(), EOT)}{EOT}"


class Phi4Mini(FirefunctionV2):
    """Phi-4-mini, as vLLM's ``phi4_mini_json`` reads it: FireFunction's call list, written on a
    line of its own; Phi's ``<|end|>`` ends a turn and a result is a ``<|tool|>`` message. The
    list between ``<|tool_call|>`` and ``<|/tool_call|>``, as Ollama's Phi-4-mini template
    writes calls, is read too."""

    name = "phi4_mini"
    aliases = ("phi4_mini_json", "phi4mini", "phi_4_mini")
    model_prefixes = ("microsoft/Phi-4-mini-instruct", "microsoft/Phi-4-mini", "Phi-4-mini")
    signatures = (f"{FUNCTOOLS}[", PHI_END)
    turn_ends = (PHI_END,)
    example = 'functools[{"name": "get_weather", "arguments": {"city": "Paris"}}]'

    models = "Phi-4-mini"
    no_corpus_reason = ("no corpus file: vLLM's phi4_mini_json test cases are the goldens "
                        "(fixtures/phi4_mini/README.md)")
    result_region_end = PHI_END
    call_region = JsonListCalls(FUNCTOOLS)
    result_run = ("", "", "")

    def call_openers(self) -> dict[str, ReaderFactory]:
        table: dict[str, ReaderFactory] = {FUNCTOOLS: _calls_reader,
                                           PHI_TOOL_CALL: _phi_calls_reader}
        return table | region_openers({PHI_TOOL_TURN: PHI_END}, "tool_result_in_text")

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:
            return ""
        return tools_json(PHI_INSTRUCTIONS, tools)

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        text = content.strip()
        if not calls:
            return text
        return f"{text}\n{call_list(calls)}" if text else call_list(calls)

    def render_result(self, call: ToolCall, result: str) -> str:
        return f"{PHI_TOOL_TURN}{protect(result, PHI_END)}{PHI_END}"
