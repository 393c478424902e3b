"""GigaChat 3 and 3.1: one JSON call in a ``function call`` message (Sber's GigaChat3-10B-A1.8B,
GigaChat3-702B; vLLM ``gigachat3``, llama.cpp's GigaChat 3 parsers).

    I'll check.<|message_sep|>

    function call<|role_sep|>
    {"name": "get_weather", "arguments": {"city": "Paris"}}

GigaChat 3 ends the assistant's message (``<|message_sep|>`` and a blank line) and starts one of
the ``function call`` role holding the call; GigaChat 3.1 writes ``<|function_call|>`` and the
call right after the text:

    I'll check.<|function_call|>{"name": "get_weather", "arguments": {"city": "Paris"}}

Both are read, by either format. The markers are special tokens, so any name after them makes a
call (an undeclared one with an ``unknown_tool`` issue). ``"parameters"`` stands for
``"arguments"``, and arguments written as a JSON string are decoded (``arguments_as_string``). The
``<|message_sep|>`` that ends the call's message is markup where it ends the text or opens the next
call's message, and so is the end-of-sequence ``</s>`` ending the text (vLLM's tests). A message
cut off inside the call reports it as incomplete (``truncated_call``), never as a call to run. Tool
results in history (``function result<|role_sep|>``... ``<|message_sep|>``) are data, never calls.

Rendering follows each version's template (fixtures/render/gigachat3/, .../gigachat31/):
the tools as a TypeScript ``namespace functions`` in a ``function descriptions`` message, a
result as a ``function result`` message. Both templates write only the first call of a turn;
several are written one message (3) or one ``<|function_call|>`` (3.1) each, as they read back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Final

from ...tools._tool import Tool
from .._models import ToolCall
from ..reader import ReaderContext, ReaderFactory
from ._base import Format
from ._gigachat_tools import tools_namespace
from ._jsonobjects import JsonCallsReader, JsonShape
from ._regions import NAMED_OBJECT_HEAD, JsonObjectCalls
from ._results import protect, region_openers
from ._template_json import tojson

__all__ = ["Gigachat3", "Gigachat31"]

MESSAGE_SEP: Final = "<|message_sep|>"
ROLE_SEP: Final = "<|role_sep|>"
FUNCTION_CALL_TOKEN: Final = "<|function_call|>"
END_OF_SEQUENCE: Final = "</s>"
MESSAGE_END: Final = f"{MESSAGE_SEP}\n\n"
CALL_ROLE: Final = f"function call{ROLE_SEP}"
CALL_MESSAGE: Final = f"{MESSAGE_END}{CALL_ROLE}"
"""GigaChat 3: the assistant's message ends, a ``function call`` message begins."""
RESULT_ROLE: Final = f"function result{ROLE_SEP}"
TOOLS_ROLE: Final = f"function descriptions{ROLE_SEP}\n"

CALL: Final = JsonShape(prefix=True, wrapped=True)


def _call_reader(ctx: ReaderContext, opener: str) -> JsonCallsReader:
    return JsonCallsReader(CALL, opener)


def call_json(call: ToolCall) -> str:
    """The call as both templates write it: the name raw, the arguments as ``tojson``."""
    return f'{{"name": {tojson(call.name)}, "arguments": {tojson(call.arguments)}}}'


class Gigachat3(Format):
    """GigaChat 3 (a ``function call`` message per call)."""

    name = "gigachat3"
    aliases: ClassVar[tuple[str, ...]] = ("gigachat", "gigachat_3", "gigachat3_0")
    model_prefixes: ClassVar[tuple[str, ...]] = (
        "ai-sage/GigaChat3-10B-A1.8B",
        "ai-sage/GigaChat3-702B-A36B",
        "GigaChat3-10B",
        "GigaChat3-702B",
    )
    signatures = (CALL_ROLE, FUNCTION_CALL_TOKEN, MESSAGE_SEP)
    turn_ends = (MESSAGE_SEP, END_OF_SEQUENCE)
    example: ClassVar[str] = (
        f'{CALL_MESSAGE}\n{{"name": "get_weather", "arguments": {{"city": "Paris"}}}}'
    )

    models = "GigaChat 3, 3.1"
    wire: ClassVar[str] = '`<|message_sep|>` `function call<|role_sep|>{"name": …}`'
    result_region_end = MESSAGE_SEP
    call_region: ClassVar[JsonObjectCalls] = JsonObjectCalls(CALL_MESSAGE)
    structural_tag_markers: ClassVar[tuple[str, str, str] | None] = (
        CALL_MESSAGE, f"{CALL_MESSAGE}\n{NAMED_OBJECT_HEAD}", "}")
    result_run = ("", "", "")

    def call_openers(self) -> dict[str, ReaderFactory]:
        table: dict[str, ReaderFactory] = dict.fromkeys(
            (CALL_MESSAGE, FUNCTION_CALL_TOKEN), _call_reader)
        return table | region_openers({RESULT_ROLE: MESSAGE_SEP}, "tool_result_in_text")

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # the template writes no function descriptions message
            return ""
        return f"{TOOLS_ROLE}{tools_namespace(tools)}\n\n{MESSAGE_END}"

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        return content + "".join(f"{CALL_MESSAGE}\n{call_json(c)}" for c in calls)

    def render_result(self, call: ToolCall, result: str) -> str:
        return f"{RESULT_ROLE}\n{protect(result, MESSAGE_SEP)}{MESSAGE_END}"


class Gigachat31(Gigachat3):
    """GigaChat 3.1: ``<|function_call|>`` and the call right after the text."""

    name = "gigachat31"
    aliases = ("gigachat3_1", "gigachat_3_1")
    model_prefixes = ("ai-sage/GigaChat3.1", "GigaChat3.1")
    example = f'{FUNCTION_CALL_TOKEN}{{"name": "get_weather", "arguments": {{"city": "Paris"}}}}'

    models = "GigaChat 3.1"
    wire = '`<|function_call|>{"name": …, "arguments": {…}}`'
    no_corpus_reason = ("its rows are in gigachat3's corpus file (llama.cpp tests both versions "
                        "there); gigachat3 reads both wires")
    call_region = JsonObjectCalls(FUNCTION_CALL_TOKEN)
    structural_tag_markers = (FUNCTION_CALL_TOKEN, FUNCTION_CALL_TOKEN + NAMED_OBJECT_HEAD, "}")

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        return content + "".join(f"{FUNCTION_CALL_TOKEN}{call_json(c)}" for c in calls)
