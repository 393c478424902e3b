"""Olmo 3: pythonic calls, one a line, in a ``<function_calls>`` section (AllenAI Olmo 3).

    Let me check.<function_calls>
    get_weather(city='New York', units='celsius')
    get_time(zone="EST")
    </function_calls>

Each call is a bare Python call with keyword arguments, read by the pythonic reader (strings
stream as they arrive; ``true``/``false``/``null`` are read as JSON's, as the template writes
them). Recovered: a section the text ends in keeps its complete calls and the open one is an
incomplete call (``missing_close_tag`` when no call is open); a section whose first thing is no
call (``use <function_calls> tags``) is content; what breaks a call after the first one fails
that call (``malformed_call``) and the rest of the section is content. A tool result turn
(``<|im_start|>tool`` ... ``<|im_end|>``) in the text is data, never calls.

Rendering follows vLLM's Olmo 3 template (``fixtures/render/olmo3/``): the tools as JSON lines
in ``<functions>``, each call on its own line, a result as a ``tool`` turn. The template writes
a string in single quotes as it is (line breaks too, which the reader takes as they are); a
string holding a quote, a backslash or a CR would not read back so and is written as a Python
literal instead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final

from ...tools._tool import Tool
from .._models import ToolCall
from .._text import skip_blanks
from ..reader import ReaderContext, ReaderFactory, Status
from ._base import Format
from ._pythonic_body import format_pythonic_value
from ._pythonic_scan import is_name_start
from ._regions import PythonLineCalls
from ._results import protect, region_openers
from ._template_json import bare_tool, tojson
from .pythonic import PythonicReader

__all__ = ["Olmo3", "Olmo3Reader"]

SECTION_OPEN: Final = "<function_calls>"
SECTION_CLOSE: Final = "</function_calls>"
RESULT_OPEN: Final = "<|im_start|>tool\n"
TURN_END: Final = "<|im_end|>"

# The tools block of vLLM's Olmo 3 template, after the system message (fixtures/render/olmo3/).
TOOLS_INSTRUCTION: Final = (
    "\n\nYou have access to the following functions. To call functions, respond with a "
    "pythonic function call wrapped in <function_calls></function_calls> XML tags."
    "\n\nFor example, to call a function named 'get_weather' with parameters city='New York' "
    "and units='celsius', respond with:"
    "\n<function_calls>\nget_weather(city='New York', units='celsius')\n</function_calls>"
    "\n\nYou can call multiple functions by putting each call on a new line within the tags:"
    "\n<function_calls>\nfunction1(param1='value1')\nfunction2(param2='value2')\n"
    "</function_calls>"
    "\n\nHere are the available functions:\n<functions>\n"
)
_CALL_HEAD: Final = re.compile(r"\s*([^\W\d][\w.]*)?(\()?")
NO_TOOLS: Final = "\nYou do not currently have access to any functions."


class Olmo3Reader:
    """Reads one ``<function_calls>`` section: bare calls separated by blanks, then the close.

    The first call is read after the opener; if it is no call, the opener is content. Every
    later call is read by a fresh `PythonicReader` at its first character.
    """

    def __init__(self) -> None:
        self.call: PythonicReader | None = PythonicReader(SECTION_OPEN, lists=False, bare=True)
        self.first = True
        self.call_ahead = False
        self.broken = False

    def _call_ahead(self, ctx: ReaderContext, eof: bool) -> Status | None:
        """A name and ``(`` follow the opener (else prose names the tag); None once they do."""
        match = _CALL_HEAD.match(ctx.buf, ctx.pos + len(SECTION_OPEN))
        if match is None or match.group(2) is None:
            at_end = match is not None and match.end() == len(ctx.buf)
            return Status.MORE if at_end and not eof else Status.REJECT
        self.call_ahead = True
        return None

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        if self.broken:
            return self._not_a_call(ctx, eof)
        if self.first and self.call is not None and not self.call_ahead:
            status = self._call_ahead(ctx, eof)
            if status is not None:
                return status
        while True:
            if self.call is not None:
                status = self.call.read(ctx, eof)
                if status is Status.MORE:
                    return status
                if status is Status.REJECT:
                    return self._not_a_call(ctx, eof)
                self.call, self.first = None, False
            status_or_none = self._between(ctx, eof)
            if status_or_none is not None:
                return status_or_none

    def _not_a_call(self, ctx: ReaderContext, eof: bool) -> Status:
        """The first call refused: the opener is content. A later line that is no call: the
        section's rest is content, its close tag markup."""
        if self.first:
            return Status.REJECT
        if not self.broken:
            self.broken = True
            ctx.issue("malformed_call", "a <function_calls> line that is no call",
                      (ctx.at(), ctx.at()))
        close = ctx.find(SECTION_CLOSE, ctx.pos)
        if close < 0:
            if not eof:
                return Status.MORE
            ctx.consume("content", len(ctx.buf))
            return Status.DONE
        ctx.consume("content", close)
        ctx.consume("markup", close + len(SECTION_CLOSE))
        return Status.DONE

    def _between(self, ctx: ReaderContext, eof: bool) -> Status | None:
        """After a call: the close tag ends the section, a name starts the next call."""
        at = skip_blanks(ctx.buf, ctx.pos)
        ahead = ctx.buf[at : at + len(SECTION_CLOSE)]
        if ahead == SECTION_CLOSE:
            ctx.consume("markup", at + len(SECTION_CLOSE))
            return Status.DONE
        cut_close = SECTION_CLOSE.startswith(ahead) and at + len(ahead) == len(ctx.buf)
        if at == len(ctx.buf) or cut_close:
            if not eof:
                return Status.MORE
            ctx.consume("markup", at)
            ctx.issue("missing_close_tag", f"the text ended before {SECTION_CLOSE}",
                      (ctx.at(), ctx.at()))
            return Status.DONE
        if not is_name_start(ctx.buf[at]):
            ctx.consume("markup", at)
            return self._not_a_call(ctx, eof)
        ctx.consume("markup", at)
        self.call = PythonicReader("", lists=False, bare=True)
        return None


def _section_reader(ctx: ReaderContext, opener: str) -> Olmo3Reader:
    return Olmo3Reader()


def _template_value(value: Any) -> str:
    """A value as the template writes it, where that reads back; else as a Python literal."""
    if isinstance(value, str):
        if "'" in value or "\\" in value or "\r" in value:
            return format_pythonic_value(value)
        return f"'{value}'"
    if value is None or isinstance(value, bool):
        return tojson(value)
    format_pythonic_value(value)  # refuses what cannot be written (NaN, non-string keys)
    return tojson(value)


def _olmo3_call(call: ToolCall) -> str:
    unnamed = [key for key in call.arguments if not key.isidentifier()]
    if unnamed:  # a keyword argument needs an identifier
        raise ValueError(f"argument names {unnamed!r} of {call.name!r} cannot be written")
    pairs = ", ".join(f"{key}={_template_value(value)}" for key, value in call.arguments.items())
    return f"{call.name}({pairs})"


class Olmo3(Format):
    """Olmo 3's ``<function_calls>`` section of pythonic calls, one a line."""

    name = "olmo3"
    aliases = ("olmo_3",)
    model_prefixes = ("allenai/Olmo-3", "allenai/OLMo-3", "Olmo-3", "olmo3")
    signatures = (SECTION_OPEN, SECTION_CLOSE)
    turn_ends = (TURN_END, "<|endoftext|>")
    example = "<function_calls>\nget_weather(city='Paris', units='celsius')\n</function_calls>"

    models = "Olmo 3"
    wire = "`<function_calls>\\nf(a='x')\\n</function_calls>`"
    grammars = ("pythonic",)
    body_wrapper = (SECTION_OPEN, SECTION_CLOSE)
    result_region_end = TURN_END
    call_region = PythonLineCalls(SECTION_OPEN, SECTION_CLOSE)  # no structural tag: not JSON
    tool_name_rule = (
        "a Python dotted name (letters, digits and '_', not starting with a digit, parts "
        "joined by '.'), and parameter names Python identifiers"
    )
    result_run = ("", "\n", "")  # each result turn ends a line; the last one's break is the turn's

    def call_openers(self) -> dict[str, ReaderFactory]:
        return {SECTION_OPEN: _section_reader} | region_openers(
            {RESULT_OPEN: TURN_END}, "tool_result_in_text"
        )

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:
            return NO_TOOLS
        return TOOLS_INSTRUCTION + "\n".join(tojson(bare_tool(t)) for t in tools) + "\n</functions>"

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        if not calls:
            return content
        lines = "\n".join(map(_olmo3_call, calls))
        return f"{content}{SECTION_OPEN}\n{lines}\n{SECTION_CLOSE}"

    def render_result(self, call: ToolCall, result: str) -> str:
        body = protect(result.strip(), TURN_END)
        return f"{RESULT_OPEN}Function {call.name} returned:\n{body}{TURN_END}"
