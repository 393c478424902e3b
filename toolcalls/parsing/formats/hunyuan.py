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
``</answer>`` are markup wherever they stand (the model's own answer tags, never prose), so
the content is the answer without them; text after the calls stays content (vLLM drops it: the
house keeps content). ``<|eos|>`` ends the turn.

Rendering: calls as the model writes them (the layout vLLM's tests pin), with no ``<answer>``
wrapper. The tools block and tool results are not rendered: no public copy of the model's chat
template was found to write them from (fixtures/hunyuan_a13b/README.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from .._models import ToolCall
from .._text import skip_blanks
from ..reader import ReaderContext, ReaderFactory, Status
from ._base import Format
from ._jsonobjects import JsonCallsReader, JsonShape
from ._regions import NAMED_OBJECT_HEAD, JsonListCalls
from ._template_json import tojson

__all__ = ["HunyuanA13b"]

TOOL_CALLS_START: Final = "<tool_calls>"
TOOL_CALLS_END: Final = "</tool_calls>"
ANSWER_START: Final = "<answer>"
ANSWER_END: Final = "</answer>"
END_OF_SENTENCE: Final = "<|eos|>"

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
    call_region = JsonListCalls(TOOL_CALLS_START, close=TOOL_CALLS_END)
    structural_tag_markers = (
        TOOL_CALLS_START, f"{TOOL_CALLS_START}[{NAMED_OBJECT_HEAD}", f"}}]{TOOL_CALLS_END}"
    )

    def call_openers(self) -> dict[str, ReaderFactory]:
        return {TOOL_CALLS_START: _calls_reader, ANSWER_START: AnswerTag, ANSWER_END: AnswerTag}

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        if not calls:
            return content
        listed = tojson([_call_object(call) for call in calls])
        return f"{content}{TOOL_CALLS_START}{listed}{TOOL_CALLS_END}"
