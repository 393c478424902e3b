"""Olmo 3: pythonic calls, one a line, in a ``<function_calls>`` section (AllenAI Olmo 3).

    Let me check.<function_calls>
    get_weather(city='New York', units='celsius')
    get_time(zone="EST")
    </function_calls>

Each call is a bare Python call with keyword arguments, read by the pythonic reader (strings
stream as they arrive; ``true``/``false``/``null`` are read as JSON's, as the template writes
them). Recovered: a section the text ends in keeps its complete calls and the open one is an
incomplete call (``missing_close_tag`` when no call is open); a section whose first thing is no
``name(`` (``use <function_calls> tags``) is content; a call that does not read (``f(x=b'z')``,
``f(x=1])``) fails alone (``malformed_call``) and the next line is read, as vLLM keeps a good
call after a bad one; a line that is no call ends the calls and the section's rest is content.
A tool result turn (``<|im_start|>tool`` ... ``<|im_end|>``) in the text is data, never calls.

Rendering follows vLLM's Olmo 3 template (``fixtures/render/olmo3/``): the tools as JSON lines
in ``<functions>``, each call on its own line, a result as a ``tool`` turn. The template writes
a string in single quotes as it is (line breaks too, which the reader takes as they are); a
string holding a quote, a backslash, a CR or a NUL would not read back so and is written as a Python
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
_CALL_HEAD: Final = re.compile(r"[^\W\d][\w.]*(\()?")
NO_TOOLS: Final = "\nYou do not currently have access to any functions."


class Olmo3Reader:
    """Reads one ``<function_calls>`` section: bare calls separated by blanks, then the close.

    A call is read (by `PythonicReader`) once its ``name(`` is seen. If the first is not there,
    the opener is content (prose naming the tag). A call the pythonic reader refuses
    (``f(x=b'z')``) fails up to its line's end and the next line is read; a line that is no
    call ends the calls: the section's rest is content.
    """

    def __init__(self, opener: str = SECTION_OPEN, close: str = SECTION_CLOSE) -> None:
        self.opener, self.close = opener, close  # another section's (a described format's)
        self.call: PythonicReader | None = None
        self.name = ""
        self.first = True
        self.failing = False
        self.broken = False

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        if self.broken:
            return self._rest_is_content(ctx, eof)
        while True:
            if self.call is None:
                status = self._between(ctx, eof)
                if status is not None:
                    return status
            if self.failing:
                if not self._fail_line(ctx, eof):
                    return Status.MORE
                continue
            assert self.call is not None
            status = self.call.read(ctx, eof)
            if status is Status.MORE:
                return status
            if status is Status.REJECT:
                self.failing = True
                continue
            self.call, self.first = None, False

    def _between(self, ctx: ReaderContext, eof: bool) -> Status | None:
        """Before a call: the close tag ends the section, ``name(`` starts the next call."""
        at = skip_blanks(ctx.buf, ctx.pos + (len(self.opener) if self.first else 0))
        if not self.first:
            status = self._close(ctx, at, eof)
            if status is not None:
                return status
        head = _CALL_HEAD.match(ctx.buf, at)
        if head is None or head.group(1) is None:
            waiting = at == len(ctx.buf) or (head is not None and head.end() == len(ctx.buf))
            if waiting and not eof:  # the name (or its "(") may still come
                return Status.MORE
            if self.first:
                return Status.REJECT
            self.broken = True
            ctx.consume("markup", at)
            ctx.issue("malformed_call", f"a {self.opener} line that is no call",
                      (ctx.at(), ctx.at()))
            return self._rest_is_content(ctx, eof)
        ctx.consume("markup", at)
        self.call = PythonicReader("", lists=False, bare=True)
        self.name = head.group(0)[:-1]
        return None

    def _close(self, ctx: ReaderContext, at: int, eof: bool) -> Status | None:
        """The close tag (markup), the text's end (``missing_close_tag``), else None."""
        ahead = ctx.buf[at : at + len(self.close)]
        if ahead == self.close:
            ctx.consume("markup", at + len(self.close))
            return Status.DONE
        cut_close = self.close.startswith(ahead) and at + len(ahead) == len(ctx.buf)
        if at < len(ctx.buf) and not cut_close:
            return None
        if not eof:
            return Status.MORE
        ctx.consume("markup", at)
        ctx.issue("missing_close_tag", f"the text ended before {self.close}",
                  (ctx.at(), ctx.at()))
        return Status.DONE

    def _fail_line(self, ctx: ReaderContext, eof: bool) -> bool:
        """A refused call fails up to its line's end (or the close tag); False to wait."""
        ends = [i for i in (ctx.find("\n", ctx.pos), ctx.find(self.close, ctx.pos)) if i >= 0]
        if not ends and not eof:
            return False
        ctx.consume("call", min(ends) if ends else len(ctx.buf))
        ctx.start_call(self.name)
        ctx.fail_call("malformed_call", f"a pythonic call that does not read: {self.name}(...)")
        self.call, self.first, self.failing = None, False, False
        return True

    def _rest_is_content(self, ctx: ReaderContext, eof: bool) -> Status:
        """After a line that is no call: the section's rest is content, its close markup."""
        close = ctx.find(self.close, ctx.pos)
        if close < 0:
            if not eof:
                return Status.MORE
            ctx.consume("content", len(ctx.buf))
            return Status.DONE
        ctx.consume("content", close)
        ctx.consume("markup", close + len(self.close))
        return Status.DONE


def _section_reader(ctx: ReaderContext, opener: str) -> Olmo3Reader:
    return Olmo3Reader()


def _template_value(value: Any) -> str:
    """A value as the template writes it, where that reads back; else as a Python literal."""
    if isinstance(value, str):
        # a raw NUL too: Python refuses it in source, so the reader would refuse the call
        if any(char in value for char in ("'", "\\", "\r", "\0")):
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
