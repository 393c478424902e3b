"""The prompt-based XML format: a name and JSON arguments inside ``<tool_call>`` tags.

    <tool_call>
    <name>get_weather</name>
    <arguments>{"city": "Paris"}</arguments>
    </tool_call>

This is the format the project teaches a model through the prompt when the model has no native
one (Ollama-served models in prompt mode). The arguments are JSON read by the JSON reader, so
``<name>``, ``</arguments>`` or ``</tool_call>`` inside an argument string are data. A
``<tool_call>`` counts only when ``<name>`` follows it, so prose that mentions the tag stays
content. A call with no ``<arguments>`` (or empty ones) is a call without arguments. A call
whose ``</arguments>`` or ``</tool_call>`` is missing ends where the next ``<tool_call>`` begins
(``missing_close_tag``).
Tool results are written in ``<tool_response>`` blocks, read back as content (see `_results`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, cast

import regex  # type: ignore[import-untyped]  # partial matches: could this still be a header?
from lark import Transformer
from lark.exceptions import LarkError

from ...tools._tool import Tool
from .._grammar import load_grammar
from .._models import ToolCall
from .._text import skip_blanks
from ..reader import ReaderContext, ReaderFactory, Status
from ._base import Format
from ._headers import match_header
from ._jsoncall import Header, JsonCall, JsonCallReader
from ._regions import TaggedJsonCalls
from ._results import result_block, wrap_result
from ._template_json import openai_tool, tojson

__all__ = ["Xml", "parse_header"]

OPEN = "<tool_call>"
CLOSE = "</tool_call>"
ARGUMENTS = "<arguments>"
ARGUMENTS_CLOSE = "</arguments>"

# A call whose close tags are missing ends at the next call's <tool_call> (missing_close_tag).
_SHAPE = JsonCall(close=(ARGUMENTS_CLOSE, CLOSE), header_end=ARGUMENTS, terminators=(OPEN,))
# What may follow <tool_call>; anything else means the tag is not a call.
_HEADER = regex.compile(
    r"\s*<name>\s*[^\s<>\"'{}]{1,128}\s*</name>\s*("
    + regex.escape(ARGUMENTS) + "|" + regex.escape(CLOSE) + ")"
)


class _HeaderTree(Transformer[Any, Header]):
    def start(self, children: list[Any]) -> Header:
        return Header(str(children[0]))


_TRANSFORMER = _HeaderTree()


@functools.lru_cache(maxsize=1024)
def parse_header(text: str) -> Header | None:
    """The tool name in ``<name>...</name>``."""
    try:
        tree = load_grammar("xml", transformer=_TRANSFORMER).parse(text)
    except LarkError:
        return None
    return cast(Header, tree)


class XmlCallReader(JsonCallReader):
    """One ``<tool_call>`` block."""

    def __init__(self, opener: str) -> None:
        super().__init__(_SHAPE, opener)
        self.body_started = False

    def _header(self, ctx: ReaderContext, eof: bool) -> Status | None:
        start = ctx.pos + len(self.opener)
        found = match_header(_HEADER, ctx.buf, start)
        if found is None or (found.partial and eof):
            return Status.REJECT
        if found.partial:
            return Status.MORE
        header = parse_header(ctx.buf[start : found.start(1)])
        if header is None:
            return Status.REJECT
        self.header = header
        self._commit(ctx, found.end())
        if found.group(1) == CLOSE:  # <name>...</name></tool_call>: no arguments
            self.arguments = {}
            return self._finish(ctx)
        self.phase = "body"
        return None

    def _body(self, ctx: ReaderContext, eof: bool) -> Status | None:
        if not self.body_started:
            at = skip_blanks(ctx.buf, ctx.pos)
            ahead = ctx.buf[at : at + len(ARGUMENTS_CLOSE)]
            if ahead == ARGUMENTS_CLOSE:  # <arguments></arguments>
                self.arguments = {}
                self.phase = "close"
                return None
            if not eof and ARGUMENTS_CLOSE.startswith(ahead):
                return Status.MORE
            self.body_started = True
        return super()._body(ctx, eof)


# -- prompt rendering: this format has no model template, so the prompt is the project's own,
# laid out as Qwen's (tools as JSON lines in <tools>, results in <tool_response>).

NAME, NAME_CLOSE = "<name>", "</name>"
RESULT_START, RESULT_END = "<tool_response>", "</tool_response>"
TOOLS_PREAMBLE = (
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>"
)


def _render_call(call: ToolCall) -> str:
    header = f"\n{NAME}{call.name}{NAME_CLOSE}\n{ARGUMENTS}"
    found = _HEADER.fullmatch(header)
    read = None if found is None else parse_header(header[: found.start(1)])
    if read is None or read.name != call.name:
        raise ValueError(f"the tool name {call.name!r} cannot be written in {NAME} tags")
    return f"{OPEN}{header}{tojson(call.arguments)}{ARGUMENTS_CLOSE}\n{CLOSE}"


class Xml(Format):
    name = "xml"
    aliases = ("prompt_xml", "xml_json")
    signatures = (OPEN, "<name>", ARGUMENTS)
    # Taught by the prompt to any model: the common ends of a turn, as in `ollama`.
    turn_ends = ("<|im_end|>", "<|eot_id|>", "<|endoftext|>", "<|end_of_text|>", "</s>")
    example = (
        f"{OPEN}\n<name>get_weather</name>\n"
        f'{ARGUMENTS}{{"city": "Paris"}}{ARGUMENTS_CLOSE}\n{CLOSE}'
    )

    models = "prompt-based (seed design, Ollama prompt mode)"
    wire = "`<tool_call><name>f</name><arguments>{…}</arguments></tool_call>`"
    grammars = ("xml",)
    no_corpus_reason = (
        "the project's own prompt-based design: no upstream parser test suite to copy rows from"
    )
    result_tags = ("<tool_response>", "</tool_response>")
    call_region = TaggedJsonCalls(OPEN, NAME, NAME_CLOSE, ARGUMENTS, ARGUMENTS_CLOSE, CLOSE)
    structural_tag_markers = (
        OPEN, f"{OPEN}\n{NAME}{{name}}{NAME_CLOSE}\n{ARGUMENTS}", f"{ARGUMENTS_CLOSE}\n{CLOSE}"
    )

    def call_openers(self) -> dict[str, ReaderFactory]:
        return {
            OPEN: lambda ctx, opener: XmlCallReader(opener),
            RESULT_START: result_block(RESULT_END),
        }

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # the template writes no tools section at all
            return ""
        listed = "".join("\n" + tojson(openai_tool(tool)) for tool in tools)
        example = f'{OPEN}\n{NAME}function-name{NAME_CLOSE}\n{ARGUMENTS}{{"argument": "value"}}'
        return (
            f"{TOOLS_PREAMBLE}{listed}\n</tools>\n\nFor each function call, write the function "
            f"name and its arguments as one JSON object within {OPEN}{CLOSE} XML tags:\n"
            f"{example}{ARGUMENTS_CLOSE}\n{CLOSE}"
        )

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        written = [_render_call(call) for call in calls]
        return "\n".join([content, *written] if content else written)

    def render_result(self, call: ToolCall, result: str) -> str:
        return wrap_result(f"{RESULT_START}\n", f"\n{RESULT_END}", result)
