"""Gemma 4 and FunctionGemma: ``call:NAME{...}`` between special tokens, strings quoted by a token.

Gemma 4 (google/gemma-4-*; llama.cpp ``peg-gemma4``, mlx-lm ``gemma4``)::

    <|channel>thought
    The user wants the weather.<channel|>Let me look.<|tool_call>call:get_weather{
    city:<|"|>Paris<|"|>,days:3}<tool_call|>

(one line: broken here to fit).

FunctionGemma (google/functiongemma-270m-it; mlx-lm ``function_gemma``)::

    <start_function_call>call:get_weather{city:<escape>Paris<escape>}<end_function_call>

The arguments are `_gemma_values`' syntax: bare keys, strings between two quote tokens with
nothing escaped, JSON numbers and constants; the block reader is `_gemma_calls` (several calls
in one block, a block left unclosed, a call cut off: see there).

Gemma 4 reasons in ``<|channel>thought ... <channel|>``. What llama.cpp's tests pin of it is
kept: an empty channel (``<|channel>`` not followed by ``thought``) is markup with a
``recovered_slip`` issue, and a ``<channel|>`` with no open channel that ends the text is markup
(the template's ``strip_thinking`` drops both from history); one mid-text is content with a
``stray_reasoning_end`` issue, as in every format. Tool results in history
(``<|tool_response>response:NAME{value:...}<tool_response|>``, FunctionGemma's
``<start_function_response>response:...<end_function_response>``) are data, never calls.

Rendering follows Gemma 4's chat template (fixtures/render/gemma4/): ``render_calls`` writes
the content first, then the calls, as the model writes them (the template moves the content
after the calls and their results); keys as ``dictsort`` orders them; ``null`` where the template
would print Python's ``None``, which no reader reads back. FunctionGemma is written in the
layout its model card shows, with the same macros and its own tokens (`_gemma_tools`): no copy
of its chat template could be compared here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ...tools._tool import Tool
from .._models import ToolCall
from ..reader import ReaderContext, ReaderFactory, Status
from ._base import Format
from ._gemma_calls import GemmaTokens, call_reader
from ._gemma_tools import declarations
from ._gemma_values import write_value
from ._regions import GemmaCalls
from ._results import protect, region_openers

__all__ = ["FunctionGemma", "Gemma4"]

GEMMA4: Final = GemmaTokens(
    open="<|tool_call>", close="<tool_call|>", quote='<|"|>', turn_end="<turn|>"
)
GEMMA4_TOOL_OPEN: Final = "<|tool>"
GEMMA4_TOOL_CLOSE: Final = "<tool|>"
GEMMA4_RESULT_OPEN: Final = "<|tool_response>"
GEMMA4_RESULT_CLOSE: Final = "<tool_response|>"
CHANNEL_OPEN: Final = "<|channel>"
THOUGHT_OPEN: Final = "<|channel>thought"
CHANNEL_CLOSE: Final = "<channel|>"

FUNCTION_GEMMA: Final = GemmaTokens(
    open="<start_function_call>", close="<end_function_call>", quote="<escape>",
    turn_end="<end_of_turn>",
)
FUNCTION_GEMMA_TOOL_OPEN: Final = "<start_function_declaration>"
FUNCTION_GEMMA_TOOL_CLOSE: Final = "<end_function_declaration>"
FUNCTION_GEMMA_RESULT_OPEN: Final = "<start_function_response>"
FUNCTION_GEMMA_RESULT_CLOSE: Final = "<end_function_response>"


class EmptyChannel:
    """``<|channel>`` not followed by ``thought``: an empty channel, markup with an issue."""

    def __init__(self, ctx: ReaderContext, opener: str) -> None:
        self.opener = opener

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        start = ctx.at()
        ctx.consume("markup", ctx.pos + len(self.opener))
        ctx.issue("recovered_slip", f"an empty {self.opener!r} (not a thought channel): "
                  "dropped, as the chat template drops it", (start, ctx.at()))
        return Status.DONE


def render_gemma_calls(tokens: GemmaTokens, calls: Sequence[ToolCall], content: str) -> str:
    """`content`, then each call as the chat templates write one."""
    written = [
        f"{tokens.open}call:{call.name}{write_value(call.arguments, tokens.quote)}{tokens.close}"
        for call in calls
    ]
    return content + "".join(written)


class Gemma4(Format):
    """Gemma 4."""

    name = "gemma4"
    aliases = ("gemma_4", "gemma-4")
    model_prefixes = ("google/gemma-4", "gemma-4", "gemma4")
    reasoning_tags = (THOUGHT_OPEN, CHANNEL_CLOSE)
    signatures = (GEMMA4.open, GEMMA4.close, GEMMA4.quote)
    # After its calls the model writes the token that opens their results, and stops there.
    # A ``<channel|>`` that ends the text closes nothing: llama.cpp drops it (its tests pin it).
    turn_ends = (GEMMA4.turn_end, GEMMA4_RESULT_OPEN, CHANNEL_CLOSE)
    example = (f"{GEMMA4.open}call:get_weather{{city:{GEMMA4.quote}Paris{GEMMA4.quote}}}"
               f"{GEMMA4.close}")

    models = "Gemma 4"
    wire = '`<|tool_call>call:f{k:<|"|>v<|"|>}<tool_call|>`'
    body_wrapper = (GEMMA4.open, GEMMA4.close)
    result_region_end = GEMMA4_RESULT_CLOSE
    call_region = GemmaCalls(GEMMA4.open, GEMMA4.close, GEMMA4.quote)
    result_run = ("", "", "")

    def call_openers(self) -> dict[str, ReaderFactory]:
        table: dict[str, ReaderFactory] = {
            GEMMA4.open: call_reader(GEMMA4),
            CHANNEL_OPEN: EmptyChannel,
        }
        pairs = {GEMMA4_RESULT_OPEN: GEMMA4_RESULT_CLOSE}
        return table | region_openers(pairs, "tool_result_in_text")

    def render_tools(self, tools: Sequence[Tool]) -> str:
        return declarations(tools, GEMMA4_TOOL_OPEN, GEMMA4_TOOL_CLOSE, GEMMA4.quote)

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        return render_gemma_calls(GEMMA4, calls, content)

    def render_result(self, call: ToolCall, result: str) -> str:
        # Written raw, as the template writes it: the result region ends at its close token
        # only, so a quote token inside the result is data too.
        value = GEMMA4.quote + protect(result, GEMMA4_RESULT_CLOSE) + GEMMA4.quote
        return f"{GEMMA4_RESULT_OPEN}response:{call.name}{{value:{value}}}{GEMMA4_RESULT_CLOSE}"


class FunctionGemma(Format):
    """FunctionGemma (Gemma 3 270M tuned for function calling)."""

    name = "function_gemma"
    aliases = ("functiongemma",)
    model_prefixes = ("google/functiongemma", "functiongemma")
    reasoning_tags = None
    signatures = (FUNCTION_GEMMA.open, FUNCTION_GEMMA.close, FUNCTION_GEMMA.quote)
    # After its calls the model writes the token that opens their results, and stops there.
    turn_ends = (FUNCTION_GEMMA.turn_end, FUNCTION_GEMMA_RESULT_OPEN)
    example = (f"{FUNCTION_GEMMA.open}call:get_weather{{city:{FUNCTION_GEMMA.quote}Paris"
               f"{FUNCTION_GEMMA.quote}}}{FUNCTION_GEMMA.close}")

    models = "FunctionGemma"
    wire = "`<start_function_call>call:f{k:<escape>v<escape>}<end_function_call>`"
    body_wrapper = (FUNCTION_GEMMA.open, FUNCTION_GEMMA.close)
    result_region_end = FUNCTION_GEMMA_RESULT_CLOSE
    call_region = GemmaCalls(FUNCTION_GEMMA.open, FUNCTION_GEMMA.close, FUNCTION_GEMMA.quote)
    result_run = ("", "", "")

    def call_openers(self) -> dict[str, ReaderFactory]:
        table: dict[str, ReaderFactory] = {FUNCTION_GEMMA.open: call_reader(FUNCTION_GEMMA)}
        pairs = {FUNCTION_GEMMA_RESULT_OPEN: FUNCTION_GEMMA_RESULT_CLOSE}
        return table | region_openers(pairs, "tool_result_in_text")

    def render_tools(self, tools: Sequence[Tool]) -> str:
        return declarations(tools, FUNCTION_GEMMA_TOOL_OPEN, FUNCTION_GEMMA_TOOL_CLOSE,
                            FUNCTION_GEMMA.quote)

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        return render_gemma_calls(FUNCTION_GEMMA, calls, content)

    def render_result(self, call: ToolCall, result: str) -> str:
        protected = protect(result, FUNCTION_GEMMA_RESULT_CLOSE)
        return f"{FUNCTION_GEMMA_RESULT_OPEN}response:{protected}{FUNCTION_GEMMA_RESULT_CLOSE}"
