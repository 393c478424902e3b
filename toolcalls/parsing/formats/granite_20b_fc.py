"""Granite-20B-FC: IBM's granite-20b-functioncalling writes each call as ``<function_call>``
then one JSON object, with no close tag (vLLM ``granite-20b-fc``).

    <function_call> {"name": "get_weather", "arguments": {"city": "Paris"}}
    <function_call> {"name": "get_time", "arguments": {"zone": "CET"}}

A call ends where its JSON object does; the next ``<function_call>`` (after blanks) opens the
next call. ``<function_call>`` is this model's own call marker, so any name after it makes a call
(an undeclared one with an ``unknown_tool`` issue); the tag followed by no JSON object (prose
naming it) stays content. ``"parameters"`` stands for ``"arguments"``, and arguments written as a
JSON string are decoded (``arguments_as_string``); a ``</function_call>`` right after a call
(Hermes 2 Pro closes the same tag) is markup. A response cut off inside the object reports
the call as incomplete (``truncated_call``), never as a call to run. The turn ends with
``<|endoftext|>``.

Tool results in history are ``<function_response> `` and the result's text, with no end marker:
the template writes the next message right after it, and the message after results is the
assistant's, so a result block runs to ``\\nASSISTANT:`` (the one closer the template always
writes after one). A result's text is data, never calls.

Rendering follows the template vLLM ships for this model
(fixtures/render/granite_20b_fc/): the tools as ``<|function_call_library|>`` lines and the
template's ``no_function`` instruction, calls as ``<function_call> `` plus ``tojson`` each on a
line of its own (with no newline after the last: the model stops there), a result as
``<function_response> `` plus its text. The template drops an assistant's text that comes with
calls; `render_calls` keeps it before the calls, as the model writes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ...tools._tool import Tool
from .._models import ToolCall
from ..reader import ReaderContext, ReaderFactory, Status
from ._base import Format
from ._jsonobjects import JsonCallsReader, JsonShape
from ._regions import NAMED_OBJECT_HEAD, JsonObjectCalls
from ._results import ResultBlock, ResultOpener, protect
from ._template_json import tojson

__all__ = ["Granite20bFc"]

FUNCTION_CALL: Final = "<function_call>"
FUNCTION_RESPONSE: Final = "<function_response>"
END_OF_TEXT: Final = "<|endoftext|>"
ASSISTANT_TURN: Final = "\nASSISTANT:"
"""What the template writes after a tool result (the next assistant turn): a result's end."""
TOOLS_LIBRARY: Final = "<|function_call_library|>"
NO_FUNCTION_RULE: Final = (
    "If none of the functions are relevant or the given question lacks the parameters "
    'required by the function, please output \\"<function_call> {\\"name\\": '
    '\\"no_function\\", \\"arguments\\": {}}\\".'
)

FUNCTION_CALL_CLOSE: Final = "</function_call>"
"""Not written by this model; Hermes 2 Pro closes the same tag with it, and auto-detection may
pick this format for such text, so it is read as markup after a call."""

CALL: Final = JsonShape(prefix=True, wrapped=True, closer=FUNCTION_CALL_CLOSE)


def _call_reader(ctx: ReaderContext, opener: str) -> JsonCallsReader:
    return JsonCallsReader(CALL, opener)


class FunctionResponse(ResultBlock):
    """``<function_response> `` and a result's text, through the next ``\nASSISTANT:`` or the end
    of the text: content, read as data (`_results` has the rule). The template writes no end
    marker, so a result the response ends in is still a result, never calls; a call inside one
    gets a ``call_in_tool_result`` issue. As with a tag pair, the tag opens a result only where
    the template writes it, starting a line or right after a tag; in a sentence it is prose."""

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        if not ctx.starts_line():
            return Status.REJECT
        found = ctx.find(self.close, ctx.pos + len(self.opener))
        if found < 0 and not eof:
            return Status.MORE
        stop = found if found >= 0 else len(ctx.buf)
        self._notice_calls(ctx, stop)
        block_start = ctx.at()
        ctx.consume("content", stop)
        ctx.quoted.append((block_start, ctx.at()))
        return Status.DONE


class FunctionResponseOpener(ResultOpener):
    """The factory of `FunctionResponse` readers (a `ResultOpener`, so that every check that
    asks `is_result_opener` treats it as reading results)."""

    def __call__(self, ctx: ReaderContext, opener: str) -> FunctionResponse:
        return FunctionResponse(opener, self.close)


def _call_line(call: ToolCall) -> str:
    return f"{FUNCTION_CALL} {tojson({'name': call.name, 'arguments': call.arguments})}"


def _tool_line(tool: Tool) -> str:
    """One tool as the template writes it: its description's closing quote is missing there,
    and it is left out here too, byte for byte (the model was trained on this text)."""
    properties = tool.parameters.get("properties") if tool.parameters else None
    parameters = tojson(tool.parameters) if properties else "{}"
    return (f'{{"name": "{tool.name}", "description": "{tool.description or ""}, '
            f'"parameters": {parameters}}}')


class Granite20bFc(Format):
    """IBM granite-20b-functioncalling."""

    name = "granite_20b_fc"
    aliases = ("granite20b", "granite_20b", "granite20b_fc", "granite_20b_functioncalling")
    model_prefixes = ("ibm-granite/granite-20b-functioncalling", "granite-20b-functioncalling")
    reasoning_tags = None
    signatures = (FUNCTION_CALL, END_OF_TEXT)
    turn_ends = (END_OF_TEXT,)
    example = f'{FUNCTION_CALL} {{"name": "get_weather", "arguments": {{"city": "Paris"}}}}'

    models = "Granite-20B-FunctionCalling"
    wire = '`<function_call> {"name": …, "arguments": {…}}`'
    body_wrapper = (FUNCTION_CALL, "")
    no_corpus_reason = ("no third-party outputs with expected parses were collected; its goldens "
                        "are the cases vLLM's granite-20b-fc parser tests pin")
    call_region = JsonObjectCalls(FUNCTION_CALL)
    structural_tag_markers = (FUNCTION_CALL, f"{FUNCTION_CALL} {NAMED_OBJECT_HEAD}", "}")
    result_run = ("", "", "")

    def call_openers(self) -> dict[str, ReaderFactory]:
        return {
            FUNCTION_CALL: _call_reader,
            FUNCTION_RESPONSE: FunctionResponseOpener(ASSISTANT_TURN),
        }

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # the template writes no function library
            return ""
        listed = "\n".join(_tool_line(tool) for tool in tools)
        return f"{TOOLS_LIBRARY}{listed}{NO_FUNCTION_RULE}"

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        # The template ends each call's line with a newline; the model stops after the last call
        # (the newline would be content), so only the lines between calls are written.
        return "\n".join([content, *map(_call_line, calls)] if content else map(_call_line, calls))

    def render_result(self, call: ToolCall, result: str) -> str:
        return f"{FUNCTION_RESPONSE} {protect(result, ASSISTANT_TURN)}"
