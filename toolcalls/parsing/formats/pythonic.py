"""Pythonic: a Python list of calls with keyword arguments (Llama 3.2, Llama 4).

    [get_weather(city="Paris", unit='celsius'), get_time()]

Llama 4 may wrap the list in ``<|python_start|>`` ... ``<|python_end|>``. Nothing but Python
syntax marks a call, so a ``[`` is only a *candidate*: the reader holds the text while it can
still be a call list and releases it as content, byte for byte, at the first character that
cannot continue one (``[see below]``, ``[1, 2]``, ``[f(x)]`` with a positional argument). With
tools given, the first call of a bare list must name a declared tool, else the list is content
(after ``<|python_start|>``, an undeclared name is a call with an ``unknown_tool`` issue).

Once the list is certain (its first string value opens, or its first call is complete and a
``,`` or ``]`` follows), calls stream: each starts at its ``(``, string values are emitted as
they arrive and other values once their ``,`` or ``)`` shows they are final (`ListStream`). An
error after that point fails only the open call (``malformed_call``, e.g. ``[f(a="x" + "y")]``)
and the rest is text again; before it, the whole list is content, as prose in brackets is. A
list cut off by the end of the text keeps its complete calls; the unfinished one becomes an
incomplete call.

Prompt rendering: Meta ships no pythonic template, so tools and results follow vLLM's pythonic
template for Llama 3.2 (``fixtures/render/pythonic/``); calls are written as Python literals
(`format_pythonic_call`), which that template does not do for strings. An ``ipython`` turn in
the text (a result) is data, never calls.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ...tools._tool import Tool
from .._models import ToolCall
from .._text import skip_blanks
from ..reader import ReaderContext, ReaderFactory, Status
from ._base import Format
from ._llama_prompt import ipython_turn, result_openers, tools_json
from ._pythonic_body import format_pythonic_call
from ._pythonic_scan import is_name_start
from ._pythonic_stream import ListStream
from ._regions import PythonListCalls
from ._template_json import tojson

__all__ = ["Pythonic", "PythonicReader"]

_CALL_LIST = re.compile(r"\s*\[\s*[^\W\d][\w.]*\(.*\)\s*\]\s*", re.S)

PYTHON_START = "<|python_start|>"
PYTHON_END = "<|python_end|>"


class PythonicReader:
    """Reads one pythonic call list (or one bare call) after `opener`.

    Args:
        opener: ``"["`` (the list starts at the opener) or a marker the list follows.
        lists / bare: whether a ``[...]`` list, and whether one bare ``name(...)`` call, may
            follow a marker.
        closer: an optional marker after the list (markup when present).
        rename: maps the written function name to the call name (``tool.call`` -> ``tool``).
    """

    def __init__(self, opener: str, *, lists: bool = True, bare: bool = False,
                 closer: str | None = None, rename: Callable[[str], str] = str) -> None:
        self.opener = opener
        self.lists = lists
        self.bare = bare
        self.closer = closer
        self.rename = rename
        self.scan: ListStream | None = None
        self.resume: int | None = None
        self.closing = False

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        if self.closing:
            return self._close(ctx, eof)
        if self.scan is None:
            status = self._begin(ctx, eof)
            if status is not None:
                return status
        scan = self.scan
        assert scan is not None
        scan.feed(ctx, eof)
        if scan.verdict == "reject" and not scan.committed:
            self.resume = scan.resume
            return Status.REJECT
        if scan.verdict in ("reject", "fail"):
            return self._fail(ctx, scan)
        if scan.verdict is None:
            return self._truncated(ctx) if eof else Status.MORE
        if not scan.committed:  # doomed: a value the grammar refuses; the list is content
            self.resume = scan.end
            return Status.REJECT
        ctx.consume("markup", scan.end - ctx.off)
        self.closing = self.closer is not None
        return self._close(ctx, eof) if self.closing else Status.DONE

    def _begin(self, ctx: ReaderContext, eof: bool) -> Status | None:
        """Where the list (or bare call) starts; None once the scanner is set up."""
        at = ctx.pos
        if self.opener != "[":
            at = skip_blanks(ctx.buf, ctx.pos + len(self.opener))
            if at == len(ctx.buf):
                return Status.REJECT if eof else Status.MORE
        first = ctx.buf[at]
        bare = first != "["
        if (bare and not (self.bare and is_name_start(first))) or (not bare and not self.lists):
            return Status.REJECT
        names = ctx.tools if self.opener == "[" else None  # after a marker, a call is a call
        rename = self.rename
        self.scan = ListStream(
            ctx.at(at),
            bare=bare,
            rename=rename,
            accept=(lambda name: rename(name) in names) if names else None,
            could_become=(lambda part: any(n.startswith(part) for n in names)) if names else None,
        )
        return None

    def _fail(self, ctx: ReaderContext, scan: ListStream) -> Status:
        """An error after the list was committed: the open call fails there; the rest is text."""
        problem = scan.problem or "the call list cannot go on here"
        if scan.started:
            ctx.consume("call", scan.resume - ctx.off)
            ctx.fail_call("malformed_call", f"malformed pythonic call: {problem}")
        elif scan.partial is not None:  # a call whose name was read but nothing streamed
            scan.markup_before(scan.partial)
            ctx.consume("call", scan.resume - ctx.off)
            if scan.partial_name is not None:
                ctx.start_call(self.rename(scan.partial_name))
            ctx.fail_call("malformed_call", f"malformed pythonic call: {problem}")
        else:  # between calls: the list's commas are markup, what breaks it is content
            ctx.consume("markup", scan.resume - ctx.off)
            ctx.issue("malformed_call", f"malformed pythonic call list: {problem}",
                      (ctx.at(), ctx.at()))
        return Status.DONE

    def _truncated(self, ctx: ReaderContext) -> Status:
        """The text ended inside the list: keep its complete calls, fail the unfinished one."""
        scan = self.scan
        assert scan is not None
        if not scan.committed and scan.calls:  # the first call is complete
            if scan.doomed:
                scan.markup_before(scan.calls[0][0])
                ctx.consume("call", len(ctx.buf))
                return Status.MORE
            scan.commit_first_call()
        if scan.started:
            return Status.MORE  # the engine records the rest as a truncated call
        if scan.partial is None and scan.calls:  # between two calls: the rest is list markup
            ctx.consume("markup", len(ctx.buf))
            return Status.DONE
        if scan.partial is not None:
            scan.markup_before(scan.partial)
            ctx.consume("call", len(ctx.buf))
            if scan.partial_name is not None:
                ctx.start_call(self.rename(scan.partial_name))
        return Status.MORE

    def _close(self, ctx: ReaderContext, eof: bool) -> Status:
        assert self.closer is not None
        at = skip_blanks(ctx.buf, ctx.pos)
        ahead = ctx.buf[at : at + len(self.closer)]
        if ahead == self.closer:
            ctx.consume("markup", at + len(self.closer))
        elif self.closer.startswith(ahead) and at + len(ahead) == len(ctx.buf) and not eof:
            return Status.MORE
        return Status.DONE


def _list_reader(ctx: ReaderContext, opener: str) -> PythonicReader:
    return PythonicReader(opener)


def _wrapped_reader(ctx: ReaderContext, opener: str) -> PythonicReader:
    return PythonicReader(opener, bare=True, closer=PYTHON_END)


# The tools block of vLLM's pythonic template for Llama 3.2 (fixtures/render/pythonic/).
TOOLS_INSTRUCTION = (
    "You have access to the following functions. To call functions, please respond with a "
    "python list of the calls. Respond in the format [func_name1(params_name1=params_value1, "
    "params_name2=params_value2...), func_name2(params)] Do not use variables.\n\n"
)


def _python_call(call: ToolCall) -> str:
    unnamed = [key for key in call.arguments if not key.isidentifier()]
    if unnamed:  # a keyword argument needs an identifier
        raise ValueError(f"argument names {unnamed!r} of {call.name!r} cannot be written")
    return format_pythonic_call(call.name, call.arguments)


class Pythonic(Format):
    """Pythonic calls. Rendering follows vLLM's pythonic template for Llama 3.2 (Meta ships
    none): tools as indented JSON in the system message, a result as an ``ipython`` turn
    holding ``{"output": result}``. Calls are written as Python literals; the template's
    ``"%s" | format(value)`` writes strings without quotes, which no parser reads."""

    name = "pythonic"
    aliases = ("llama4_pythonic", "python_list")
    model_prefixes = ("meta-llama/Llama-4",)
    signatures = (PYTHON_START, PYTHON_END)
    turn_ends = ("<|eot_id|>", "<|eom_id|>", "<|eot|>")  # Llama 3.2, Llama 4
    example = '[get_weather(city="Paris", unit="celsius")]'

    bare_calls = True
    models = "Llama 3.2/4"
    wire = '`[f(a=1), g(b="x")]`'
    grammars = ("pythonic",)
    body_wrapper = ("", "")
    result_region_end = "<|eot_id|>"
    call_region = PythonListCalls(PYTHON_START, PYTHON_END)  # no structural tag: not JSON
    tool_name_rule = (
        "a Python dotted name (letters, digits and '_', not starting with a digit, parts "
        "joined by '.'), and parameter names Python identifiers"
    )
    result_run = ("", "", "")

    def call_openers(self) -> dict[str, ReaderFactory]:
        return {"[": _list_reader, PYTHON_START: _wrapped_reader} | result_openers()

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # no tools: servers pass none, and the template writes no section
            return ""
        return tools_json(TOOLS_INSTRUCTION, tools)

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        if not calls:
            return content
        return f"{content}[{', '.join(map(_python_call, calls))}]"

    def render_result(self, call: ToolCall, result: str) -> str:
        return ipython_turn(tojson({"output": result}))

    @classmethod
    def detect(cls, text: str) -> float:
        """The markers, or a reply that is one call list (``[name(...)...]``)."""
        # Two-argument super: compiled by mypyc, a bare super() in a classmethod loses cls.
        base = super(Pythonic, cls).detect(text)  # noqa: UP008
        return max(base, 0.6 if _CALL_LIST.fullmatch(text) else 0.0)
