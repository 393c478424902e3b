"""One response read for a model server's tool parser: toolcalls' events, as servers want them.

vLLM's and SGLang's tool parsers both hand a response over as deltas of text and want back,
per delta, the content to show and the tool-call pieces to stream: a call's first piece with its
name, then fragments of its arguments as JSON text. `Session` is that, on one `StreamParser`
per response, each delta fed once (never the whole text again). Servers import nothing here;
the server modules (`vllm`, `sglang`) write `Step` into their own types.

What goes where, the same whole and streamed:

- text is content;
- reasoning is content too, in its place: a tool parser has no reasoning field in whole
  responses, and a server given ``--reasoning-parser`` hands its tool parser only the text after
  the reasoning, so this only happens without one, where the server's own rule is that reasoning
  is content;
- a call is streamed as it is read: its name first, then its arguments, whose fragments join to
  the JSON of the call's final arguments;
- a call that fails (cut off, malformed) is never a call: its own text goes out as content, in
  its place (a call already started on the wire stays open there, as the server's own parsers
  leave it).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from .._errors import ToolDefinitionError, UnknownFormatError
from ..parsing import (
    ArgumentsDelta,
    Event,
    ReasoningDelta,
    TextDelta,
    ToolCallEnd,
    ToolCallFailed,
    ToolCallStart,
    detect,
    get_format,
    list_formats,
    to_tools,
)
from ..parsing.formats._base import Format
from ..parsing.formats._plain import NoFormat
from ..tools._tool import Tool

__all__ = [
    "AUTO", "PREFIX", "CallDelta", "CallState", "Session", "Step", "classes_by_name",
    "parser_names", "record_complete_calls", "tools_of",
]

AUTO = "auto"
"""The parser name whose format is the one the model id names, else detected from the text."""

_log = logging.getLogger("toolcalls.integrations")


@dataclass
class CallDelta:
    """One call's piece of a step: its name (and the call's number) on the first piece only."""

    index: int
    """The call's number in the response: 0, 1, ... in the order calls start."""
    name: str | None
    arguments: str
    """JSON text, to append to what came before for this call."""


@dataclass
class Step:
    """What one delta (or the end of the response) made final."""

    content: str = ""
    calls: list[CallDelta] = field(default_factory=list)


@dataclass
class CallState:
    """A call of the response so far: what servers keep per call (`prev_tool_call_arr`)."""

    name: str
    fragments: list[str] = field(default_factory=list)
    """The JSON text streamed so far, in pieces (joined once, by `arguments`)."""
    complete: bool = False
    failed: bool = False

    @property
    def arguments(self) -> str:
        """The JSON text streamed so far: the whole arguments once `complete`."""
        return "".join(self.fragments)


PREFIX = "toolcalls_"
"""What the servers' parser names start with, so that none is one of the server's own."""


def parser_names() -> dict[str, str]:
    """The parser names a server gets, each with its format: ``toolcalls_<format>`` for every
    registered format (at the time of the call), and ``toolcalls_auto``."""
    return {f"{PREFIX}{name}": name for name in [*sorted(list_formats()), AUTO]}


_Parser = TypeVar("_Parser")


def classes_by_name(base: type[_Parser], server: str) -> dict[str, type[_Parser]]:
    """A server's parser classes by name: `base` (whose `format` is `AUTO`) as
    ``toolcalls_auto``, and a subclass of it per format, `format` set, as ``toolcalls_<format>``
    (``ToolcallsToolParser`` -> ``ToolcallsQwen3CoderToolParser``)."""

    def subclass(name: str, fmt: str) -> type[_Parser]:
        title = "".join(part.capitalize() for part in fmt.split("_"))
        return cast(type[_Parser], type(
            base.__name__.replace("Toolcalls", f"Toolcalls{title}", 1), (base,), {
                "format": fmt,
                "__module__": base.__module__,
                "__doc__": f"{server}'s ``--tool-call-parser {name}``: the {fmt!r} format, read "
                           "by toolcalls.",
            }))

    return {name: base if fmt == AUTO else subclass(name, fmt)
            for name, fmt in parser_names().items()}


def tools_of(definitions: Iterable[Any] | None) -> list[Tool]:
    """A server request's tools (pydantic models or dicts in OpenAI's shape) as toolcalls'
    tools, for typed arguments. Definitions toolcalls cannot read do not stop the parse: it
    runs without them (logged), as the server's own parsers do."""
    dumped = [
        item.model_dump(exclude_none=True) if hasattr(item, "model_dump") else item
        for item in definitions or ()
    ]
    try:
        return to_tools(dumped)
    except ToolDefinitionError as error:
        _log.warning("toolcalls: the request's tools are not used for this response: %s", error)
        return []


class Session:
    """One response: `feed` each delta, then `close`; or `whole` for a whole response.

    `format` is a toolcalls format name, or `AUTO`: the format the `model` id names (``Qwen/
    Qwen3-Coder-30B-A3B-Instruct``...), else the one detected from the whole text, which can
    only be known at the end: the text is then held back and given at `close`.
    """

    def __init__(
        self, format: str, tools: Sequence[Tool] = (), model: str | None = None  # noqa: A002
    ) -> None:
        self.tools = tuple(tools)
        self.calls: list[CallState] = []
        self._format = _named(format, model)
        self._held: list[str] | None = None if self._format else []
        self._parser = self._format.stream(tools=self.tools) if self._format else None

    def feed(self, delta: str) -> Step:
        """The content and call pieces that `delta` made final."""
        if self._parser is None:
            assert self._held is not None
            self._held.append(delta)
            return Step()
        return self._step(self._parser.feed(delta))

    def close(self) -> Step:
        """The end of the response: what was held back, and calls left open failed."""
        if self._parser is None:
            assert self._held is not None
            return self._detected("".join(self._held))
        if self._parser.closed:
            return Step()
        return self._step(self._parser.close())

    def whole(self, text: str) -> Step:
        """A whole response, read exactly as if it had been streamed: its content and calls."""
        if self._parser is None:
            return self._detected(text)
        return self._step(self._parser.close(text))

    def complete_calls(self) -> list[tuple[int, CallState]]:
        """The calls read whole so far, with their numbers."""
        return [(index, call) for index, call in enumerate(self.calls) if call.complete]

    def _detected(self, text: str) -> Step:
        found = detect(text, self.tools) if text else None
        self._format = get_format(found) if found else NoFormat()
        self._held = None
        self._parser = self._format.stream(tools=self.tools)
        return self._step(self._parser.close(text))

    def _step(self, events: list[Event]) -> Step:
        content: list[str] = []
        pieces: dict[int, CallDelta] = {}
        for event in events:
            if isinstance(event, TextDelta | ReasoningDelta):
                content.append(event.text)
            elif isinstance(event, ArgumentsDelta):
                self._argument(event, pieces)
            elif isinstance(event, ToolCallStart):
                self._start(event, pieces)
            elif isinstance(event, ToolCallEnd):
                self.calls[event.index].complete = True
            elif isinstance(event, ToolCallFailed):
                content.append(self._failed(event))
        return Step("".join(content), list(pieces.values()))

    def _start(self, event: ToolCallStart, pieces: dict[int, CallDelta]) -> None:
        index = len(self.calls)  # the engine numbers calls as they start: the same numbers
        self.calls.append(CallState(event.name))
        pieces[index] = CallDelta(index, event.name, "")

    def _argument(self, event: ArgumentsDelta, pieces: dict[int, CallDelta]) -> None:
        self.calls[event.index].fragments.append(event.fragment)
        piece = pieces.get(event.index)
        if piece is None:
            pieces[event.index] = CallDelta(event.index, None, event.fragment)
        else:
            piece.arguments += event.fragment

    def _failed(self, event: ToolCallFailed) -> str:
        if event.index is not None:
            self.calls[event.index].failed = True
        return event.incomplete.raw if event.incomplete.source == "text" else ""


def _named(format: str, model: str | None) -> Format | None:  # noqa: A002
    """The format to stream in; None for `AUTO` where the model id names none."""
    if format != AUTO:
        return get_format(format)
    if model:
        try:
            return get_format(model)
        except UnknownFormatError:
            return None
    return None


def record_complete_calls(parser: Any, session: Session) -> None:
    """The per-call records vLLM's and SGLang's serving layers both read off their tool parser
    at the end of a stream (`prev_tool_call_arr`, `streamed_args_for_tool`, `current_tool_id`,
    the same names in both): each complete call once, its arguments as streamed, so that the
    server finds nothing left to send."""
    complete = session.complete_calls()
    for _, call in complete[len(parser.prev_tool_call_arr):]:
        parser.prev_tool_call_arr.append({"name": call.name, "arguments": call.arguments})
        parser.streamed_args_for_tool.append(call.arguments)
    parser.current_tool_id = len(session.calls) - 1
