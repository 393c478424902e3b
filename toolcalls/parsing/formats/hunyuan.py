"""Hunyuan A13B: a JSON list of calls in ``<tool_calls>`` tags, the answer in ``<answer>``
(Tencent Hunyuan-A13B-Instruct; vLLM ``hunyuan_a13b``).

    <think>
    The user wants the weather.
    </think>
    <answer>
    <tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_calls>
    </answer>

The calls read as Jamba's do (the same ``<tool_calls>`` list): any name after the opener makes
a call (an undeclared one with an ``unknown_tool`` issue); one object without the list is read
too; each element is its own call, streamed as it arrives; a list whose ``</tool_calls>``
never comes keeps its complete calls (one cut off inside reports ``truncated_call``). The
model thinks in ``<think>...</think>``: a call rehearsed there is reasoning. ``<answer>`` and
``</answer>`` (with the blanks after each) are markup wherever they stand, so the content is
the answer without them: the model wraps every answer in them, though neither is a special
token, so prose that names the tag loses it too. Text after the calls stays content (vLLM drops
it: the house keeps content). ``<|eos|>`` ends the turn. The whole-response grammar writes the
calls as history does, without the ``<answer>`` wrapper (tests/decoding/not_in_grammar.json).

The template asks for plain replies to start with ``助手：`` ("Assistant:"); that prefix is
kept as content, as vLLM keeps it. A tool result in history (``<tool_response>`` ...
``</tool_response>``) is data, never calls.

Rendering follows the model's chat template (fixtures/render/hunyuan_a13b/): the tools as
instructions and the OpenAI tool list as JSON (what follows it depends on the system message
and the clock, and is not part of the block), the calls as one ``<tool_calls>`` list after the
content with no ``<answer>`` wrapper (history carries none), a result in ``<tool_response>``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ...tools._tool import Tool
from .._models import ToolCall
from .._text import skip_blanks
from ..reader import ReaderContext, ReaderFactory, Status
from ._base import Format
from ._jsonobjects import JsonCallsReader, JsonShape
from ._regions import NAMED_OBJECT_HEAD, JsonListCalls
from ._results import result_block, wrap_result
from ._template_json import openai_tool, tojson

__all__ = ["HunyuanA13b"]

TOOL_CALLS_START: Final = "<tool_calls>"
TOOL_CALLS_END: Final = "</tool_calls>"
ANSWER_START: Final = "<answer>"
ANSWER_END: Final = "</answer>"
END_OF_SENTENCE: Final = "<|eos|>"
END_OF_INPUT: Final = "<|extra_0|>"
RESPONSE_OPEN: Final = "<tool_response>"
RESPONSE_CLOSE: Final = "</tool_response>"

CALL_LAYOUT: Final = (
    '<tool_calls>[{"name": "func_name1", "arguments": {"argument1": "value1", '
    '"argument2": "value2"}},...]</tool_calls>'
)
TOOLS_LEAD: Final = (
    "你是一位函数组合专家。你会得到一个问题和一组可能的函数。根据问题，你需要进行一个或多个函数/工具调用以实现目的。\n"
    "如果没有一个函数可以使用，请直接使用自然语言回复用户，以助手：开头。\n"
    "如果给定的问题缺少函数所需的参数，请使用自然语言进行提问，向用户询问必要信息，以助手：开头。\n"
    "如果调用结果已经足够回答用户问题，请对历史结果进行总结，使用自然语言回复用户，以助手：开头。\n"
    f"你应该只在工具调用部分返回函数调用。如果你决定调用任何函数，你必须将其格式化为{CALL_LAYOUT}。"
    "你不应该在回复中包含任何其他文本。以下是你可以调用的函数列表，格式为JSON。\n"
)

CALLS: Final = JsonShape(prefix=True, arrays=True, closer=TOOL_CALLS_END, wrapped=True)


def _calls_reader(ctx: ReaderContext, opener: str) -> JsonCallsReader:
    return JsonCallsReader(CALLS, opener)


class AnswerTag:
    """``<answer>`` or ``</answer>`` and the blanks after it: markup, so the answer's text
    alone is content (the model writes each tag on its own line)."""

    def __init__(self, ctx: ReaderContext, opener: str) -> None:
        self.opener = opener

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        after = skip_blanks(ctx.buf, ctx.pos + len(self.opener))
        if after == len(ctx.buf) and not eof:  # more blanks may follow
            return Status.MORE
        ctx.consume("markup", after)
        return Status.DONE


def _call_object(call: ToolCall) -> dict[str, object]:
    return {"name": call.name, "arguments": call.arguments}


class HunyuanA13b(Format):
    """Tencent Hunyuan A13B."""

    name = "hunyuan_a13b"
    aliases = ("hunyuan", "hunyuan_a13b_instruct")
    model_prefixes = ("tencent/Hunyuan-A13B", "Hunyuan-A13B")
    # <tool_calls> alone is Jamba's (and MiniMax-M1's) too: the answer tags tell Hunyuan apart.
    signatures = (ANSWER_START, ANSWER_END)
    turn_ends = (END_OF_SENTENCE,)
    example = (
        f"<think>\nThe user wants the weather.\n</think>\n{ANSWER_START}\n"
        f'{TOOL_CALLS_START}[{{"name": "get_weather", "arguments": {{"city": "Paris"}}}}]'
        f"{TOOL_CALLS_END}\n{ANSWER_END}"
    )

    models = "Hunyuan A13B"
    wire = '`<answer><tool_calls>[{"name": …, "arguments": {…}}]</tool_calls></answer>`'
    no_corpus_reason = (
        "no shared corpus rows for Hunyuan A13B: the goldens come from vLLM's hunyuan_a13b "
        "parser tests (fixtures/hunyuan_a13b/README.md)"
    )
    result_tags = (RESPONSE_OPEN, RESPONSE_CLOSE)
    # Each result is its own tool message, ended as a user turn is.
    result_run = ("", END_OF_INPUT, "")
    # The calls as the template writes them in history: no <answer> wrapper. Neither tag is a
    # special token of Hunyuan's tokenizer.
    call_region = JsonListCalls(TOOL_CALLS_START, close=TOOL_CALLS_END, special=False)
    structural_tag_markers = (
        TOOL_CALLS_START, f"{TOOL_CALLS_START}[{NAMED_OBJECT_HEAD}", f"}}]{TOOL_CALLS_END}"
    )

    def call_openers(self) -> dict[str, ReaderFactory]:
        table: dict[str, ReaderFactory] = {TOOL_CALLS_START: _calls_reader}
        table |= {ANSWER_START: AnswerTag, ANSWER_END: AnswerTag}
        return table | {RESPONSE_OPEN: result_block(RESPONSE_CLOSE)}

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # the template writes no tools section
            return ""
        return f"{TOOLS_LEAD}\n{tojson([openai_tool(tool) for tool in tools])}\n"

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        if not calls:
            return content
        listed = tojson([_call_object(call) for call in calls])
        return f"{content}{TOOL_CALLS_START}{listed}{TOOL_CALLS_END}"

    def render_result(self, call: ToolCall, result: str) -> str:
        return wrap_result(RESPONSE_OPEN, RESPONSE_CLOSE, result)
