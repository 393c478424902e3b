"""xLAM: a JSON list of calls, bare or in a wrapper (Salesforce xLAM-2; vLLM ``xlam``).

    [{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_time", ...}]

The list may also stand after ``[TOOL_CALLS]``, inside ``<tool_call>...</tool_call>`` or in a
fenced block (```` ```json ```` ... ```` ``` ````), after text or a ``<think>`` block: vLLM's
tests pin each. One object without the list is read after ``[TOOL_CALLS]`` or in
``<tool_call>`` tags. Nothing marks a bare list but its JSON, so a ``[`` is only a candidate
(`JsonCallsReader`): with tools given its first object must name a declared tool, without
them it needs a string ``"name"`` and an ``"arguments"`` object; anything else (``[1, 2]``, a
JSON answer) stays content, byte for byte. After ``[TOOL_CALLS]`` any name makes a call (an
undeclared one with an ``unknown_tool`` issue). A fenced call list is xLAM's own way of
writing calls, so it is read as calls; a fence holding anything else (a lone object, a list
that is no call) is a code block as for every format: content, call markup quoted in it not
run. A list cut off inside a call keeps the calls before it and reports the last one as
incomplete (``truncated_call``).

Rendering follows xLAM-2's Llama-3 chat template (fixtures/render/xlam/): each tool as indented
JSON after the system prompt, the calls as one list (the template drops an assistant's text
that comes with calls), a result as an ``ipython`` turn holding it as it is. Such a turn in
the text is data, never calls.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Final

from ...tools._tool import Tool
from .._models import ToolCall
from .._text import skip_blanks
from ..reader import Openers, Reader, ReaderContext, ReaderFactory, Status
from ._base import CODE_FENCE, CodeFenceReader, Format
from ._jsonobjects import JsonCallsReader, JsonShape
from ._llama_prompt import EOT, ipython_turn, result_openers, tools_json
from ._regions import NAMED_OBJECT_HEAD, BareJsonListCalls
from ._template_json import tojson

__all__ = ["Xlam"]

LIST_START: Final = "["
TOOL_CALLS: Final = "[TOOL_CALLS]"
TOOL_CALL_START: Final = "<tool_call>"
TOOL_CALL_END: Final = "</tool_call>"
JSON_FENCE: Final = CODE_FENCE + "json"
CALL_SEPARATOR: Final = ", "

BARE: Final = JsonShape(arrays=True)
AFTER_TOKEN: Final = JsonShape(prefix=True, arrays=True, wrapped=True)
IN_TAGS: Final = JsonShape(prefix=True, arrays=True, closer=TOOL_CALL_END)
IN_FENCE: Final = JsonShape(prefix=True, arrays=True, closer=CODE_FENCE)


def _bare_reader(ctx: ReaderContext, opener: str) -> JsonCallsReader:
    return JsonCallsReader(BARE, opener)


def _token_reader(ctx: ReaderContext, opener: str) -> JsonCallsReader:
    return JsonCallsReader(AFTER_TOKEN, opener)


def _tags_reader(ctx: ReaderContext, opener: str) -> JsonCallsReader:
    return JsonCallsReader(IN_TAGS, opener)


class FencedListReader:
    """A fence: a call list in it is xLAM's own way of writing calls, read as calls; anything
    else in it (a lone JSON object, a list that is no call) is a code block, as for any
    format: content, call markup quoted in it not run (`CodeFenceReader`)."""

    def __init__(self, quoted: Openers, ctx: ReaderContext, opener: str) -> None:
        self.opener = opener
        self.quoted = quoted
        self.inner: Reader | None = None
        self.line_start: bool | None = None
        """Whether the fence starts a line, asked on the first read: by the time the inner
        reader is chosen, a stream may have passed on the text before the fence."""

    @property
    def resume(self) -> int | None:
        return getattr(self.inner, "resume", None)

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        if self.line_start is None:
            self.line_start = ctx.starts_line()
        if self.inner is None:
            at = skip_blanks(ctx.buf, ctx.pos + len(self.opener))
            if at == len(ctx.buf) and not eof:
                return Status.MORE
            if ctx.buf[at : at + 1] == LIST_START:
                self.inner = JsonCallsReader(IN_FENCE, self.opener)
            else:
                self.inner = self._code_block()
        status = self.inner.read(ctx, eof)
        if status is Status.REJECT and isinstance(self.inner, JsonCallsReader):
            # A list that is no call (nothing consumed yet): the fence is a code block after all.
            self.inner = self._code_block()
            status = self.inner.read(ctx, eof)
        return status

    def _code_block(self) -> CodeFenceReader:
        block = CodeFenceReader(CODE_FENCE, self.quoted)
        block.line_start = self.line_start
        return block


def _call_object(call: ToolCall) -> str:
    # The template writes the name unquoted between quotes; tojson is the same text for
    # every real name and still valid JSON for one holding a quote.
    return f'{{"name": {tojson(call.name)}, "arguments": {tojson(call.arguments)}}}'


class Xlam(Format):
    """Salesforce xLAM-2."""

    name = "xlam"
    aliases = ("xlam2", "xlam_2", "salesforce_xlam", "xlam_llama", "xlam_qwen")
    model_prefixes = ("Salesforce/Llama-xLAM-2", "Salesforce/xLAM-2", "Llama-xLAM-2", "xLAM-2")
    signatures = (TOOL_CALLS, '[{"name"', '"arguments"')
    # Llama-xLAM-2 ends a turn with Llama 3's token, xLAM-2 (Qwen) with ChatML's.
    turn_ends = (EOT, "<|im_end|>")
    example = '[{"name": "get_weather", "arguments": {"city": "Paris"}}]'
    code_fence = None  # xLAM writes its own calls in fences: see `IN_FENCE`
    bare_calls = True

    models = "Salesforce xLAM-2"
    wire = '`[{"name": "f", "arguments": {…}}]`'
    no_corpus_reason = (
        "no shared corpus rows for xLAM: the goldens come from vLLM's xlam parser tests "
        "(fixtures/xlam/README.md)"
    )
    result_region_end = EOT
    # The bare list, as the template writes it; the wrappers the reader takes are left out.
    call_region = BareJsonListCalls(CALL_SEPARATOR)
    structural_tag_markers = (LIST_START, LIST_START + NAMED_OBJECT_HEAD, "}]")
    result_run = ("", "", "")

    def call_openers(self) -> dict[str, ReaderFactory]:
        marked: dict[str, ReaderFactory] = {
            TOOL_CALLS: _token_reader,
            TOOL_CALL_START: _tags_reader,
        }
        # Quoted in a code block, a marker is worth an issue; a bare "[" is any list.
        fenced = functools.partial(FencedListReader, Openers(dict(marked)))
        return ({LIST_START: _bare_reader} | marked | {JSON_FENCE: fenced, CODE_FENCE: fenced}
                | result_openers())

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # the template writes no tools at all
            return ""
        return tools_json("", tools)

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        if not calls:
            return content
        return f"{content}[{CALL_SEPARATOR.join(map(_call_object, calls))}]"

    def render_result(self, call: ToolCall, result: str) -> str:
        return ipython_turn(result)
