"""Hermes: a JSON object naming the call, inside ``<tool_call>`` tags (Hermes 2/3, Qwen2.5, Qwen3).

    <tool_call>
    {"name": "get_weather", "arguments": {"city": "Paris"}}
    </tool_call>

Also read, each a known variant: ``"parameters"`` instead of ``"arguments"``, arguments given as
a JSON *string*, the wrappers ``<function_call>``, ``<tools>``, ``<tool>``, ``<response>``,
``<json>`` and ``<xml>`` that Hermes 2 Pro was seen to emit, and
``<function=NAME>{arguments}</function>`` or ``<function name="NAME">``. A wrapper counts only
when a JSON object follows it, so prose that mentions ``<tool_call>`` stays content. A call
whose close tag is missing ends where the next call's opener begins (``missing_close_tag``).

Rendering writes what Qwen3's chat template writes (tools block, calls, ``<tool_response>``
results). A ``<tool_response>`` block in the text is a tool result: content, never calls
(see `_results`).
"""

from __future__ import annotations

from collections.abc import Sequence

from lark.exceptions import LarkError

from ...tools._tool import Tool
from .._grammar import load_grammar
from .._models import ToolCall
from ..reader import ReaderContext, ReaderFactory
from ._base import Format
from ._jsoncall import Header, JsonCall, JsonCallReader
from ._regions import NAMED_OBJECT_HEAD, JsonObjectCalls
from ._results import result_block, wrap_result
from ._template_json import openai_tool, tojson

__all__ = ["Hermes"]

TOOL_CALL_START = "<tool_call>"
TOOL_CALL_END = "</tool_call>"
# Other wrappers Hermes-style models were seen to use, each with its closing tag.
OTHER_WRAPPERS = {
    "<function_call>": "</function_call>",
    "<tools>": "</tools>",
    "<tool>": "</tool>",
    "<response>": "</response>",
    "<json>": "</json>",
    "<JSON>": "</JSON>",
    "<xml>": "</xml>",
}
FUNCTION_TAG = "<function"
# Where a call's close tag is missing, the next call's opener ends it (``missing_close_tag``).
NEXT_CALL = (TOOL_CALL_START, FUNCTION_TAG, *OTHER_WRAPPERS)
# Prompt rendering, as Qwen3's chat template writes it (Qwen2.5's tools block is the same).
RESULT_START, RESULT_END = "<tool_response>", "</tool_response>"
TOOLS_START, TOOLS_END = "<tools>", "</tools>"
TOOLS_PREAMBLE = (
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    f"You are provided with function signatures within {TOOLS_START}{TOOLS_END} XML tags:\n"
)
TOOLS_INSTRUCTIONS = (
    "\n\nFor each function call, return a json object with function name and arguments "
    f"within {TOOL_CALL_START}{TOOL_CALL_END} XML tags:\n{TOOL_CALL_START}\n"
    f'{{"name": <function-name>, "arguments": <args-json-object>}}\n{TOOL_CALL_END}'
)


def parse_function_tag(text: str) -> Header | None:
    """The name in ``<function=NAME>`` or ``<function name="NAME">`` (text between the two)."""
    try:
        token = load_grammar("hermes").parse(text).children[0]
    except LarkError:
        return None
    name = str(token)
    return Header(name[1:-1] if name[0] in "\"'" else name)


def _wrapped(closer: str, slip: str | None = None) -> ReaderFactory:
    shape = JsonCall(
        close=(closer,), envelope=True, tentative=True, slip=slip, terminators=NEXT_CALL
    )
    return lambda ctx, opener: JsonCallReader(shape, opener)


_FUNCTION_SHAPE = JsonCall(
    close=("</function>",),
    header_end=">",
    parse_header=parse_function_tag,
    max_header=200,
    terminators=NEXT_CALL,
)


class Hermes(Format):
    name = "hermes"
    aliases = ("qwen", "qwen2.5", "qwen3", "nous", "hermes2", "hermes3", "json_in_xml")
    model_prefixes = (
        "NousResearch/Hermes",
        "Qwen/Qwen2.5",
        "Qwen/Qwen3-",
        "Qwen/QwQ",
        "Hermes-",
    )
    signatures = (TOOL_CALL_START, '"name"', TOOL_CALL_END)
    turn_ends = ("<|im_end|>", "<|endoftext|>")  # ChatML (Hermes, Qwen); Qwen's eos too
    example = (
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    )

    models = "Hermes 2/3, Qwen2.5, Qwen3"
    wire = '`<tool_call>{"name": …, "arguments": {…}}</tool_call>`'
    grammars = ("hermes",)
    body_wrapper = ("<tool_call>", "</tool_call>")
    result_tags = ("<tool_response>", "</tool_response>")
    call_region = JsonObjectCalls(TOOL_CALL_START, call_close=TOOL_CALL_END)
    structural_tag_markers = (
        TOOL_CALL_START, f"{TOOL_CALL_START}\n{NAMED_OBJECT_HEAD}", f"}}\n{TOOL_CALL_END}"
    )

    def call_openers(self) -> dict[str, ReaderFactory]:
        table = {TOOL_CALL_START: _wrapped(TOOL_CALL_END)}
        for opener, closer in OTHER_WRAPPERS.items():
            table[opener] = _wrapped(closer, f"the call was wrapped in {opener} instead of "
                                     f"{TOOL_CALL_START}")
        table[FUNCTION_TAG] = _function_reader
        table[RESULT_START] = result_block(RESULT_END)
        return table

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # the template writes no tools section at all
            return ""
        listed = "".join("\n" + tojson(openai_tool(tool)) for tool in tools)
        return f"{TOOLS_PREAMBLE}{TOOLS_START}{listed}\n{TOOLS_END}{TOOLS_INSTRUCTIONS}"

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        # The template writes the name unquoted inside the JSON; quoting it is the same text
        # for every real name and still valid JSON for a name holding a quote.
        written = [
            f'{TOOL_CALL_START}\n{{"name": {tojson(call.name)}, '
            f'"arguments": {tojson(call.arguments)}}}\n{TOOL_CALL_END}'
            for call in calls
        ]
        return "\n".join([content, *written] if content else written)

    def render_result(self, call: ToolCall, result: str) -> str:
        return wrap_result(f"{RESULT_START}\n", f"\n{RESULT_END}", result)


def _function_reader(ctx: ReaderContext, opener: str) -> JsonCallReader:
    return JsonCallReader(_FUNCTION_SHAPE, opener)
