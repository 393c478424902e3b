"""Apertus: a JSON list of ``{NAME: ARGUMENTS}`` objects between special tokens (Swiss AI Apertus).

    <|tools_prefix|>[{"get_weather": {"city": "Paris"}}]<|tools_suffix|>

The tool's name is the object's one key, its value the arguments (llama.cpp calls this layout
"function name as key"). ``<|tools_prefix|>`` is a special token, so any name after it makes a
call (an undeclared one with an ``unknown_tool`` issue); one object without the list is read
too. Each element is its own call, its arguments streamed as they arrive; a list cut off after
a complete call keeps that call, one cut off inside a call reports it as incomplete
(``truncated_call``). An element that is not one ``{NAME: {...}}`` object (a second key,
arguments that are no object) is an incomplete call with a ``malformed_call`` issue, and the
reader stops there: the rest is content. Apertus deliberates in ``<|inner_prefix|>`` ...
``<|inner_suffix|>``; ``<|assistant_end|>`` ends the turn.

Rendering follows Apertus' chat template (fixtures/render/apertus/): the calls after the text;
the results answering them as one JSON-like list right after ``<|tools_suffix|>``, inside the
assistant's turn (`result_run`), each result copied raw. A result is written with
``<|tools_prefix|>`` escaped (`_results.protect`), so it cannot be read as a call; the template
gives results no markers of their own, so nothing else tells a result from the text around it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ...tools._tool import Tool
from .._json import JsonReader, loads
from .._models import ToolCall
from .._text import skip_blanks
from ..reader import ReaderContext, ReaderFactory, Status
from ._apertus_typescript import typescript_tools
from ._base import Format
from ._phased import PhasedReader
from ._regions import JsonArrayCalls
from ._results import protect
from ._template_json import tojson

__all__ = ["Apertus", "KeyedCallsReader", "keyed_call"]

TOOLS_PREFIX: Final = "<|tools_prefix|>"
TOOLS_SUFFIX: Final = "<|tools_suffix|>"
INNER_PREFIX: Final = "<|inner_prefix|>"
INNER_SUFFIX: Final = "<|inner_suffix|>"
ASSISTANT_END: Final = "<|assistant_end|>"
MAX_NAME: Final = 512
"""The longest name key read before the object is taken as no call object."""


class KeyedCallsReader(PhasedReader):
    """``[{NAME: {...}}, ...]`` after the opener, then the optional close token."""

    json: JsonReader
    """The arguments being read: set by `_object` before the ``arguments`` phase."""

    def __init__(self, ctx: ReaderContext, opener: str, closer: str = TOOLS_SUFFIX) -> None:
        self.opener, self.closer = opener, closer  # another list's (a described format's)
        self.phase = "begin"
        self.in_array = False

    def _begin(self, ctx: ReaderContext, eof: bool) -> Status | None:
        at = skip_blanks(ctx.buf, ctx.pos + len(self.opener))
        if at == len(ctx.buf):
            return Status.REJECT if eof else Status.MORE
        ahead = ctx.buf[at]
        if ahead not in "[{":
            return Status.REJECT  # the token with no JSON after it: content
        self.in_array = ahead == "["
        ctx.consume("markup", at + 1 if self.in_array else at)
        self.phase = "element" if self.in_array else "object"
        return None

    def _element(self, ctx: ReaderContext, eof: bool) -> Status | None:
        """Inside ``[``, before an element or the ``]``."""
        at = skip_blanks(ctx.buf, ctx.pos)
        if at == len(ctx.buf):
            return Status.DONE if eof else Status.MORE
        if ctx.buf[at] == "{":
            ctx.consume("markup", at)
            self.phase = "object"
        elif ctx.buf[at] == "]":
            ctx.consume("markup", at + 1)
            self.phase = "closer"
        else:
            return Status.DONE  # no call object: the rest is read as usual
        return None

    def _object(self, ctx: ReaderContext, eof: bool) -> Status | None:
        """``{"NAME":`` up to the arguments' ``{``: the call starts once all of it is read."""
        buf = ctx.buf
        key = skip_blanks(buf, ctx.pos + 1)
        if key < len(buf) and buf[key] != '"':
            return self._fail(ctx, key, 'expected {"NAME": {...arguments...}}')
        end = _string_end(buf, key) if key < len(buf) else -1
        colon = skip_blanks(buf, end + 1) if end >= 0 else len(buf)
        if colon < len(buf) and buf[colon] != ":":
            return self._fail(ctx, colon, 'expected {"NAME": {...arguments...}}')
        value = skip_blanks(buf, colon + 1) if colon < len(buf) else len(buf)
        if value == len(buf):
            if len(buf) - ctx.pos > MAX_NAME:
                return self._fail(ctx, len(buf), "the tool name is too long")
            return Status.MORE
        name = _name(buf[key : end + 1])
        if buf[value] != "{" or not name:
            return self._fail(ctx, value, 'expected {"NAME": {...arguments...}}')
        ctx.consume("call", value)
        ctx.start_call(name)
        self.json = JsonReader()
        self.phase = "arguments"
        return None

    def _arguments(self, ctx: ReaderContext, eof: bool) -> Status | None:
        reader = self.json
        reader.emits = ctx.emits
        end = reader.feed(ctx.buf, ctx.pos, eof)
        if reader.error is not None:
            ctx.consume("call", reader.error[0])
            ctx.fail_call("invalid_arguments", f"the arguments are not valid JSON "
                          f"({reader.error[1]} at offset {ctx.at(reader.error[0])})")
            return Status.DONE
        ctx.consume("call", end)
        for fragment in reader.take_fragments():
            ctx.arguments(fragment)
        if not reader.done:
            return Status.MORE
        self.phase = "object_end"
        return None

    def _object_end(self, ctx: ReaderContext, eof: bool) -> Status | None:
        at = skip_blanks(ctx.buf, ctx.pos)
        if at == len(ctx.buf):
            return Status.MORE  # at the end of the text: a call cut off (truncated_call)
        if ctx.buf[at] != "}":
            ctx.consume("call", at)
            ctx.fail_call("malformed_call", "a call object holds one key, the tool's name")
            return Status.DONE
        ctx.consume("call", at + 1)
        ctx.end_call(self.json.value)
        self.phase = "next" if self.in_array else "closer"
        return None

    def _next(self, ctx: ReaderContext, eof: bool) -> Status | None:
        """After a call of the list: ``,`` and the next object, or ``]``."""
        at = skip_blanks(ctx.buf, ctx.pos)
        after = skip_blanks(ctx.buf, at + 1) if at < len(ctx.buf) else at
        if after == len(ctx.buf) and not eof:
            return Status.MORE
        ahead = ctx.buf[at : at + 1]
        if ahead == "," and ctx.buf[after : after + 1] == "{":
            ctx.consume("markup", after)
            self.phase = "object"
            return None
        if ahead == "]":
            ctx.consume("markup", at + 1)
            self.phase = "closer"
            return None
        return Status.DONE

    def _closer(self, ctx: ReaderContext, eof: bool) -> Status | None:
        at = skip_blanks(ctx.buf, ctx.pos)
        ahead = ctx.buf[at : at + len(self.closer)]
        if self.closer and ahead == self.closer:
            ctx.consume("markup", at + len(self.closer))
        elif self.closer.startswith(ahead) and at + len(ahead) == len(ctx.buf) and not eof:
            return Status.MORE
        return Status.DONE

    def _fail(self, ctx: ReaderContext, stop: int, message: str) -> Status:
        ctx.consume("call", max(stop, ctx.pos + 1))
        ctx.fail_call("malformed_call", message)
        return Status.DONE


def _string_end(buf: str, start: int) -> int:
    """The index of the quote closing the JSON string opening at `start`, or -1 if not yet."""
    at = start + 1
    while at < len(buf):
        char = buf[at]
        if char == "\\":
            at += 2
            continue
        if char == '"':
            return at
        at += 1
    return -1


def _name(quoted: str) -> str:
    """A JSON string key decoded; "" if it is no valid one."""
    try:
        name = loads(quoted)
    except ValueError:
        return ""
    return name if isinstance(name, str) else ""


def keyed_call(call: ToolCall) -> str:
    # The template writes '{"' + name + '": ' + arguments|tojson + '}'.
    return f"{{{tojson(call.name)}: {tojson(call.arguments)}}}"


class Apertus(Format):
    """Swiss AI Apertus."""

    name = "apertus"
    aliases = ("swiss_ai_apertus", "swissai_apertus")
    model_prefixes = ("swiss-ai/Apertus", "Apertus-")
    reasoning_tags = (INNER_PREFIX, INNER_SUFFIX)
    signatures = (TOOLS_PREFIX, TOOLS_SUFFIX)
    turn_ends = (ASSISTANT_END,)
    example = f'{TOOLS_PREFIX}[{{"get_weather": {{"city": "Paris"}}}}]{TOOLS_SUFFIX}'

    models = "Apertus 8B, 70B"
    wire = '`<|tools_prefix|>[{"f": {…}}]<|tools_suffix|>`'
    call_region = JsonArrayCalls(TOOLS_PREFIX, TOOLS_SUFFIX, name_as_key=True, special=True)
    structural_tag_markers = (TOOLS_PREFIX, TOOLS_PREFIX + "[{{{name_json}: ", "}]" + TOOLS_SUFFIX)
    result_run = ("[", ", ", "]")

    def call_openers(self) -> dict[str, ReaderFactory]:
        return {TOOLS_PREFIX: KeyedCallsReader}

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # the template writes "Tool Capabilities: disabled" itself
            return ""
        return "Tool Capabilities:\n" + typescript_tools(tools)

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        if not calls:
            return content
        listed = ", ".join(keyed_call(call) for call in calls)
        return f"{content}{TOOLS_PREFIX}[{listed}]{TOOLS_SUFFIX}"

    def render_result(self, call: ToolCall, result: str) -> str:
        # One element of the list the template writes after the calls (`result_run`).
        return protect(result, TOOLS_PREFIX)
