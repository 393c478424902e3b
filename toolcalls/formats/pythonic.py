"""Pythonic: a Python list of calls with keyword arguments (Llama 3.2, Llama 4, LFM2).

    [get_weather(city="Paris", unit='celsius'), get_time()]

Llama 4 may wrap the list in ``<|python_start|>`` ... ``<|python_end|>``. Nothing but Python
syntax marks a call, so a ``[`` is only a *candidate*: the reader holds the text while it can
still be a call list and releases it as content, byte for byte, at the first character that
cannot continue one (``[see below]``, ``[1, 2]``, ``[f(x)]`` with a positional argument). With
tools given, the first call of a bare list must name a declared tool, else the list is content
(after ``<|python_start|>``, an undeclared name is a call with an ``unknown_tool`` issue). The
list is emitted once it parses whole (its values are read by the grammar ``pythonic.lark``),
one Start/ArgumentsDelta/End per call. A list cut off by the end of the text keeps its complete
calls; the unfinished one becomes an incomplete call.

Prompt rendering: Meta ships no pythonic template, so tools and results follow vLLM's pythonic
template for Llama 3.2 (``fixtures/render/pythonic/``); calls are written as Python literals
(`format_pythonic_call`), which that template does not do for strings. An ``ipython`` turn in
the text (a result) is data, never calls.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from .._engine import WS, Engine, ReaderFactory, Status
from .._json import canonical
from .._models import Tool, ToolCall
from ._base import Format
from ._llama_prompt import ipython_turn, result_openers, tools_json
from ._pythonic_body import PythonicSyntaxError, format_pythonic_call, parse_pythonic_calls
from ._pythonic_scan import CallScanner, is_name_start
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
        self.scan: CallScanner | None = None
        self.start = 0
        self.resume: int | None = None
        self.closing = False

    def read(self, ctx: Engine, eof: bool) -> Status:
        if self.closing:
            return self._close(ctx, eof)
        if self.scan is None:
            status = self._begin(ctx, eof)
            if status is not None:
                return status
        scan = self.scan
        assert scan is not None
        scan.feed(ctx, eof)
        if scan.verdict == "reject":
            self.resume = scan.resume
            return Status.REJECT
        if scan.verdict is None:
            return self._truncated(ctx) if eof else Status.MORE
        calls = self._parse(ctx, scan.calls, self.start, scan.end)
        if calls is None:
            self.resume = scan.end
            return Status.REJECT
        for (start, end, _), (name, arguments) in zip(scan.calls, calls, strict=True):
            self._emit(ctx, start, end, name, arguments)
        ctx.consume("markup", scan.end - ctx.off)
        self.closing = self.closer is not None
        return self._close(ctx, eof) if self.closing else Status.DONE

    def _begin(self, ctx: Engine, eof: bool) -> Status | None:
        """Where the list (or bare call) starts; None once the scanner is set up."""
        at = ctx.pos
        if self.opener != "[":
            at = WS.match(ctx.buf, ctx.pos + len(self.opener)).end()  # type: ignore[union-attr]
            if at == len(ctx.buf):
                return Status.REJECT if eof else Status.MORE
        first = ctx.buf[at]
        bare = first != "["
        if (bare and not (self.bare and is_name_start(first))) or (not bare and not self.lists):
            return Status.REJECT
        names = ctx.tools if self.opener == "[" else None  # after a marker, a call is a call
        rename = self.rename
        self.start = ctx.at(at)
        self.scan = CallScanner(
            self.start,
            bare=bare,
            accept=(lambda name: rename(name) in names) if names else None,
            could_become=(lambda part: any(n.startswith(part) for n in names)) if names else None,
        )
        return None

    def _parse(self, ctx: Engine, calls: list[tuple[int, int, str]], start: int, end: int
               ) -> list[tuple[str, dict[str, Any]]] | None:
        """The calls the grammar reads in ``[start, end)``; None if it is not a call list."""
        try:
            parsed = parse_pythonic_calls(ctx.buf[start - ctx.off : end - ctx.off])
        except PythonicSyntaxError:
            return None
        return parsed if len(parsed) == len(calls) else None

    def _emit(self, ctx: Engine, start: int, end: int, name: str, arguments: dict[str, Any]
              ) -> None:
        self._markup_before(ctx, start)
        ctx.consume("call", end - ctx.off)
        ctx.start_call(self.rename(name))
        ctx.arguments(canonical(arguments))
        ctx.end_call(arguments)

    def _truncated(self, ctx: Engine) -> Status:
        """The text ended inside the list: keep its complete calls, fail the unfinished one."""
        scan = self.scan
        assert scan is not None
        partial, name = scan.partial, scan.partial_name
        for start, end, _ in scan.calls:
            parsed = self._parse(ctx, [(start, end, "")], start, end)
            if parsed is None:
                partial, name = start, None
                break
            self._emit(ctx, start, end, *parsed[0])
        if partial is None and scan.calls:  # between two calls: the rest is list markup
            ctx.consume("markup", len(ctx.buf))
            return Status.DONE
        if partial is not None:
            self._markup_before(ctx, partial)
            ctx.consume("call", len(ctx.buf))
            if name is not None:
                ctx.start_call(self.rename(name))
        return Status.MORE  # the engine records the rest as a truncated call

    def _markup_before(self, ctx: Engine, start: int) -> None:
        """The list's brackets and commas are markup; a bare call's marker is part of it."""
        if self.scan is not None and not self.scan.bare:
            ctx.consume("markup", start - ctx.off)

    def _close(self, ctx: Engine, eof: bool) -> Status:
        assert self.closer is not None
        at = WS.match(ctx.buf, ctx.pos).end()  # type: ignore[union-attr]
        ahead = ctx.buf[at : at + len(self.closer)]
        if ahead == self.closer:
            ctx.consume("markup", at + len(self.closer))
        elif self.closer.startswith(ahead) and at + len(ahead) == len(ctx.buf) and not eof:
            return Status.MORE
        return Status.DONE


def _list_reader(ctx: Engine, opener: str) -> PythonicReader:
    return PythonicReader(opener)


def _wrapped_reader(ctx: Engine, opener: str) -> PythonicReader:
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
    aliases = ("llama4_pythonic", "python_list", "lfm2")
    model_prefixes = ("meta-llama/Llama-4", "LiquidAI/LFM2")
    signatures = (PYTHON_START, PYTHON_END)
    example = '[get_weather(city="Paris", unit="celsius")]'

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
        return max(super().detect(text), 0.6 if _CALL_LIST.fullmatch(text) else 0.0)
