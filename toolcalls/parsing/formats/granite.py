"""Granite: IBM's tool-call formats. Granite 3.x (``granite``) writes ``<|tool_call|>`` then
a JSON list of calls (IBM Granite 3.0-3.3; vLLM ``granite``); Granite 4 (``granite4``) writes
Hermes' ``<tool_call>`` objects (`Granite4`, below).

    <|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]

``<|tool_call|>`` is a special token, so any name after it makes a call (an undeclared one
with an ``unknown_tool`` issue); one object without the list is read too. Granite 3.1 was
seen to write ``<tool_call>`` as plain text instead (vLLM's tests pin both): that one is a call
only when the JSON after it is one (a declared tool, when tools are given), so prose naming the
tag stays content; a ``</tool_call>`` after its list is markup. Each element of the list is
its own call, streamed as it arrives; a list cut off after a complete call keeps that call, and
one cut off inside a call reports it as incomplete (``truncated_call``), never as a call to run
(llama.cpp's partial mode makes one with ``{}`` arguments). Granite 3.2/3.3 think in
``<think>...</think>`` and, in that mode, wrap the answer in ``<response>...</response>``: those
two tags are markup where the model writes them (after ``</think>`` or starting a line), the
answer between them content (llama.cpp ``reasoning_format``); prose naming the tag keeps it. Tool
results in history
(``<|start_of_role|>tool<|end_of_role|>...<|end_of_text|>``) are data, never calls.

Rendering follows Granite 3.3's chat template (fixtures/render/granite/): the tools as an
``available_tools`` turn of indented JSON, a result as a ``tool`` turn. That template writes no
calls at all (an assistant turn is its text), so calls are written the way its system prompt
asks for them and the model writes them: ``<|tool_call|>`` then the JSON list.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ...tools._tool import Tool
from .._models import ToolCall
from ..reader import ReaderContext, ReaderFactory, Status
from ._base import Format
from ._blocks import SectionClose
from ._jsonobjects import JsonCallsReader, JsonShape
from ._regions import NAMED_OBJECT_HEAD, JsonListCalls
from ._results import protect, region_openers, wrap_result
from ._template_json import openai_tool, tojson
from .hermes import TOOL_CALL_END, TOOL_CALL_START, Hermes

__all__ = ["Granite", "Granite4"]

TOOL_CALL: Final = "<|tool_call|>"
END_OF_TEXT: Final = "<|end_of_text|>"
ROLE_START: Final = "<|start_of_role|>"
ROLE_END: Final = "<|end_of_role|>"
TOOLS_TURN: Final = f"{ROLE_START}available_tools{ROLE_END}"
RESULT_TURN: Final = f"{ROLE_START}tool{ROLE_END}"
RESPONSE_OPEN: Final = "<response>"
RESPONSE_CLOSE: Final = "</response>"

TEXT_TOOL_CALL: Final = "<tool_call>"
TEXT_TOOL_CALL_END: Final = "</tool_call>"

CALLS: Final = JsonShape(prefix=True, arrays=True, wrapped=True)
TEXT_CALLS: Final = JsonShape(prefix=True, arrays=True, closer=TEXT_TOOL_CALL_END)


def _calls_reader(ctx: ReaderContext, opener: str) -> JsonCallsReader:
    return JsonCallsReader(CALLS, opener)


def _text_calls_reader(ctx: ReaderContext, opener: str) -> JsonCallsReader:
    return JsonCallsReader(TEXT_CALLS, opener)


class ResponseOpen:
    """``<response>``: the answer of a thinking turn begins; the tag is markup. Its closer,
    ``</response>``, is then markup too (`SectionClose`). The model writes the tag right after
    ``</think>`` or on a line of its own: one inside a sentence is prose naming it, content."""

    def __init__(self, ctx: ReaderContext, opener: str) -> None:
        self.opener = opener

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        if ctx.section is not None or not ctx.starts_line():
            return Status.REJECT
        ctx.consume("markup", ctx.pos + len(self.opener))
        ctx.section = RESPONSE_CLOSE
        return Status.DONE


def _response_close(ctx: ReaderContext, opener: str) -> SectionClose:
    return SectionClose(RESPONSE_CLOSE)


def _call_object(call: ToolCall) -> dict[str, object]:
    return {"name": call.name, "arguments": call.arguments}


class Granite(Format):
    """Granite 3.x."""

    name = "granite"
    aliases = ("granite3", "granite_3", "ibm_granite")
    model_prefixes = (
        "ibm-granite/granite-3.0",
        "ibm-granite/granite-3.1",
        "ibm-granite/granite-3.2",
        "ibm-granite/granite-3.3",
        "granite-3.0",
        "granite-3.1",
        "granite-3.2",
        "granite-3.3",
    )
    signatures = (TOOL_CALL, END_OF_TEXT)
    turn_ends = (END_OF_TEXT,)
    example = f'{TOOL_CALL}[{{"name": "get_weather", "arguments": {{"city": "Paris"}}}}]'

    models = "Granite 3.0–3.3"
    wire = '`<|tool_call|>[{"name": …, "arguments": {…}}]`'
    body_wrapper = (TOOL_CALL, "")
    result_region_end = END_OF_TEXT
    call_region = JsonListCalls(TOOL_CALL)
    structural_tag_markers = (TOOL_CALL, TOOL_CALL + NAMED_OBJECT_HEAD, "}")
    result_run = ("", "\n", "")

    def call_openers(self) -> dict[str, ReaderFactory]:
        table: dict[str, ReaderFactory] = {
            TOOL_CALL: _calls_reader,
            TEXT_TOOL_CALL: _text_calls_reader,
            RESPONSE_OPEN: ResponseOpen,
            RESPONSE_CLOSE: _response_close,
        }
        return table | region_openers({RESULT_TURN: END_OF_TEXT}, "tool_result_in_text")

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # the template writes no available_tools turn
            return ""
        listed = tojson([openai_tool(tool) for tool in tools], indent=4)
        return f"{TOOLS_TURN}{listed}{END_OF_TEXT}\n"

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        if not calls:
            return content
        return f"{content}{TOOL_CALL}{tojson([_call_object(call) for call in calls])}"

    def render_result(self, call: ToolCall, result: str) -> str:
        return f"{RESULT_TURN}{protect(result, END_OF_TEXT)}{END_OF_TEXT}"


# Granite 4's chat template (fixtures/render/granite4/): a tools section in the system turn,
# results in <tool_response> blocks of one user turn.
G4_TOOLS_PREFIX: Final = (
    "You are a helpful assistant with access to the following tools. You may call one or more "
    "tools to assist with the user query.\n\nYou are provided with function signatures within "
    "<tools></tools> XML tags:\n<tools>"
)
G4_TOOLS_SUFFIX: Final = (
    "\n</tools>\n\nFor each tool call, return a json object with function name and arguments "
    f"within {TOOL_CALL_START}{TOOL_CALL_END} XML tags:\n{TOOL_CALL_START}\n"
    f'{{"name": <function-name>, "arguments": <args-json-object>}}\n{TOOL_CALL_END}. If a tool '
    "does not exist in the provided list of tools, notify the user that you do not have the "
    "ability to fulfill the request."
)


_HERMES: Final = Hermes()


class Granite4(Format):
    """Granite 4.0/4.1: Hermes' calls, ``<tool_call>`` + ``{"name": ..., "arguments": ...}`` +
    ``</tool_call>``, read and written by Hermes' reader and renderer (vLLM's ``granite4``
    parser reads the same tags). What differs from Hermes is Granite's turn end
    (``<|end_of_text|>``) and role tokens, the tools section and results of its template. A
    ``<think>`` block, as Granite 3.2/3.3 write one, is reasoning."""

    name = "granite4"
    aliases = ("granite_4", "granite_4_0", "granite41")
    model_prefixes = ("ibm-granite/granite-4", "granite-4")
    # <|start_of_role|> tells Granite 4's texts from other Hermes-style ones.
    signatures = (TOOL_CALL_START, ROLE_START, END_OF_TEXT)
    turn_ends = (END_OF_TEXT,)
    example = Hermes.example

    models = "Granite 4.0, 4.1"
    wire = Hermes.wire
    grammars = Hermes.grammars
    no_corpus_reason = (
        "no shared corpus rows for Granite 4: the goldens come from vLLM's granite4 parser "
        "tests (fixtures/granite4/README.md)"
    )
    result_tags = Hermes.result_tags
    call_region = Hermes.call_region
    structural_tag_markers = Hermes.structural_tag_markers
    result_run = ("\n", "\n", "")  # each result block on a line of its own

    def call_openers(self) -> dict[str, ReaderFactory]:
        return _HERMES.call_openers()

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # the template writes no tools section
            return ""
        listed = "".join("\n" + tojson(openai_tool(tool)) for tool in tools)
        return f"{G4_TOOLS_PREFIX}{listed}{G4_TOOLS_SUFFIX}"

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        return _HERMES.render_calls(calls, content)

    def render_result(self, call: ToolCall, result: str) -> str:
        return wrap_result("<tool_response>\n", "\n</tool_response>", result)
