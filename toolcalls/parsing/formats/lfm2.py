"""LFM2 and LFM2.5 (Liquid AI): a pythonic call list between two special tokens.

    <|tool_call_start|>[get_weather(city='Paris'), get_time()]<|tool_call_end|>

The body is `pythonic`'s list, read by the same reader (`PythonicReader`): string values
stream as they arrive, a list cut off keeps its complete calls. What differs is the frame:

* ``<|tool_call_start|>`` opens a list (or one bare ``name(...)`` call) and
  ``<|tool_call_end|>`` after it is markup; a list with no end token (the response stopped)
  keeps its calls. After the start token, an undeclared name is still a call (an
  ``unknown_tool`` issue), as the token says the model meant to call.
* JSON in the same tokens, ``[{"name": "f", "arguments": {...}}]`` or one such object: LFM2
  writes it when its system prompt asks for JSON (LFM2-8B-A1B's template does), and SGLang
  reads it. The first character after the token (and its blanks) says which body it is.
* LFM2.5 often writes the list bare (llama.cpp's LFM2.5 parser reads ``[f(a=1)]`` without
  the tokens): a bare list is read as `pythonic` reads it, a candidate until its first call
  is certain, and with tools given, only when it names a declared tool.
* Tool results in history, ``<|im_start|>tool`` ... ``<|im_end|>`` (LFM2.5) and
  ``<|tool_response_start|>`` ... ``<|tool_response_end|>`` (LFM2), are data, never calls.

Prompt rendering follows LFM2.5-Instruct's template (``fixtures/render/lfm2/``): the tools
as ``List of tools: [...]`` of JSON objects, calls as the template's ``render_tool_calls``
macro writes them (strings in single quotes with ``\\``, ``'``, newline and carriage return
escaped, objects and arrays as JSON, other values as Python's ``str``), a result as a
``tool`` message.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

from ...tools._tool import Tool
from .._models import ToolCall
from .._text import skip_blanks
from ..reader import Reader, ReaderContext, ReaderFactory, Status
from ._base import Format
from ._jsonobjects import JsonCallsReader, JsonShape
from ._pythonic_body import format_pythonic_value
from ._regions import PythonListCalls
from ._results import protect, region_openers
from ._template_json import openai_tool, tojson
from .pythonic import PythonicReader

__all__ = ["Lfm2"]

TOOL_CALL_START: Final = "<|tool_call_start|>"
TOOL_CALL_END: Final = "<|tool_call_end|>"
IM_END: Final = "<|im_end|>"
TOOL_MESSAGE: Final = "<|im_start|>tool\n"
RESPONSE_START: Final = "<|tool_response_start|>"
RESPONSE_END: Final = "<|tool_response_end|>"

# What the template's format_arg_value escapes inside a single-quoted string, in its order.
_STRING_ESCAPES: Final = (("\\", "\\\\"), ("'", "\\'"), ("\n", "\\n"), ("\r", "\\r"))


def _list_reader(ctx: ReaderContext, opener: str) -> PythonicReader:
    return PythonicReader(opener)


JSON_BODY: Final = JsonShape(prefix=True, arrays=True, sequence=True, closer=TOOL_CALL_END,
                             wrapped=True)


def _body_kind(buf: str, at: int) -> str | None:
    """What the body at `at` is: ``"json"`` (``{``, or ``[`` then ``{``), ``"empty"`` (``[]``:
    no call) or ``"python"``; None while the text cannot tell."""
    if at == len(buf):
        return None
    if buf[at] != "[":
        return "json" if buf[at] == "{" else "python"
    inside = skip_blanks(buf, at + 1)
    if inside == len(buf):
        return None
    return {"{": "json", "]": "empty"}.get(buf[inside], "python")


class EnvelopeReader:
    """The body after ``<|tool_call_start|>``: JSON calls or a pythonic list, as it begins.
    An empty list (vLLM's test: the model called no tool) is markup, tokens and all."""

    def __init__(self, opener: str) -> None:
        self.opener = opener
        self.kind: str | None = None
        self.inner: Reader | None = None
        self.resume: int | None = None

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        if self.kind is None:
            self.kind = _body_kind(ctx.buf, skip_blanks(ctx.buf, ctx.pos + len(self.opener)))
            if self.kind is None and not eof:
                return Status.MORE
        if self.kind == "empty":
            return _empty_list(ctx, eof)
        if self.inner is None:
            self.inner = (JsonCallsReader(JSON_BODY, self.opener) if self.kind == "json"
                          else PythonicReader(self.opener, bare=True, closer=TOOL_CALL_END))
        status = self.inner.read(ctx, eof)
        self.resume = getattr(self.inner, "resume", None)
        return status


def _empty_list(ctx: ReaderContext, eof: bool) -> Status:
    """``[ ]`` and the end token after it, if any, as markup."""
    buf = ctx.buf
    end = buf.index("]", ctx.pos) + 1
    at = skip_blanks(buf, end)
    ahead = buf[at : at + len(TOOL_CALL_END)]
    if ahead == TOOL_CALL_END:
        ctx.consume("markup", at + len(ahead))
        return Status.DONE
    if TOOL_CALL_END.startswith(ahead) and at + len(ahead) == len(buf) and not eof:
        return Status.MORE
    ctx.consume("markup", end)
    return Status.DONE


def _wrapped_reader(ctx: ReaderContext, opener: str) -> EnvelopeReader:
    return EnvelopeReader(opener)


def _quoted(value: str) -> str:
    if "\0" in value:  # the template writes it raw, which Python (and the reader) refuse
        return format_pythonic_value(value)
    for raw, escaped in _STRING_ESCAPES:
        value = value.replace(raw, escaped)
    return f"'{value}'"


def format_argument(value: Any) -> str:
    """One argument value as LFM2.5's template writes it (its ``format_arg_value`` macro)."""
    if isinstance(value, str):
        return _quoted(value)
    if isinstance(value, dict | list):
        return tojson(value)
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"cannot write the non-finite number {value!r} as an argument")
    return str(value)  # the template's `| string`: True, None, 1.5 as Python writes them


def format_call(call: ToolCall) -> str:
    """``name(a='x', b=1)``: keyword arguments need identifiers as names."""
    unnamed = [key for key in call.arguments if not key.isidentifier()]
    if unnamed:
        raise ValueError(f"argument names {unnamed!r} of {call.name!r} cannot be written")
    written = (f"{key}={format_argument(value)}" for key, value in call.arguments.items())
    return f"{call.name}({', '.join(written)})"


class Lfm2(Format):
    """LFM2 / LFM2.5: pythonic calls in ``<|tool_call_start|>`` ... ``<|tool_call_end|>``,
    or bare. Renders as LFM2.5-Instruct's chat template writes."""

    name = "lfm2"
    aliases = ("lfm25", "lfm2_5", "liquid")
    model_prefixes = ("LiquidAI/LFM2",)
    signatures = (TOOL_CALL_START, TOOL_CALL_END)
    turn_ends = (IM_END,)
    example = f"{TOOL_CALL_START}[get_weather(city='Paris', unit='celsius')]{TOOL_CALL_END}"

    # A bare list reads the same under `pythonic`, which detection picks for it; lfm2 is
    # detected by its tokens.
    bare_calls = False
    models = "LFM2, LFM2.5"
    wire = "`<|tool_call_start|>[f(a=1)]<|tool_call_end|>`"
    grammars = ("pythonic",)
    result_region_end = IM_END
    # No structural tag: the arguments are no JSON object.
    call_region = PythonListCalls(TOOL_CALL_START, TOOL_CALL_END, json_containers=True)
    tool_name_rule = (
        "a Python dotted name (letters, digits and '_', not starting with a digit, parts "
        "joined by '.'), and parameter names Python identifiers"
    )
    result_run = ("", "", "")

    def call_openers(self) -> dict[str, ReaderFactory]:
        results = region_openers({TOOL_MESSAGE: IM_END, RESPONSE_START: RESPONSE_END},
                                 "tool_result_in_text")
        calls: dict[str, ReaderFactory] = {"[": _list_reader, TOOL_CALL_START: _wrapped_reader}
        return calls | results

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # no tools: the template writes no list
            return ""
        return f"List of tools: [{', '.join(tojson(openai_tool(tool)) for tool in tools)}]"

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        if not calls:
            return content
        return f"{content}{TOOL_CALL_START}[{', '.join(map(format_call, calls))}]{TOOL_CALL_END}"

    def render_result(self, call: ToolCall, result: str) -> str:
        return f"{TOOL_MESSAGE}{protect(result, IM_END)}{IM_END}\n"
