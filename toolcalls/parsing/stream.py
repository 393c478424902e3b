"""`StreamParser`: one response parsed as it arrives, in any chunking.

>>> import toolcalls
>>> parser = toolcalls.stream("hermes")
>>> events = parser.feed('<tool_call>{"name": "f", "arguments": {}}')
>>> events += parser.close("</tool_call>")
>>> parser.result().calls[0].name
'f'

It is a thin shell around the engine (`_engine.Engine`), so that what a program sees of a
stream is ``feed``, ``close`` and ``result``, not the context readers use (`reader`). A batch
parse (`parse_whole`, what `Format.parse` runs) drives the engine itself: no shell, no events.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..tools._tool import Tool
from ._engine import Engine
from ._events import Event
from ._models import ParseResult

if TYPE_CHECKING:
    from .formats._base import Format

__all__ = ["StreamParser", "parse_quoting", "parse_whole"]


class StreamParser:
    """Parses one response fed in pieces: ``feed(chunk)`` as text arrives, ``close()`` at
    the end, ``result()`` at any time. Made by ``toolcalls.stream(format, tools=...)``.

    Each call returns the events that the text so far made final: they never change later,
    and they are the same, joined, for any chunking of the same text.
    """

    __slots__ = ("_engine",)

    def __init__(
        self,
        fmt: Format,
        *,
        tools: Sequence[Tool] = (),
        strict: bool = False,
        thinking: bool = False,
        validate: bool = False,
    ) -> None:
        self._engine = Engine(
            fmt, tools=tools, strict=strict, thinking=thinking, validate=validate
        )

    def feed(self, chunk: str) -> list[Event]:
        """Add the next piece of the text; return the events it made final.

        Raises `RuntimeError` after `close`: a new response needs a new parser.
        """
        return self._engine.feed(chunk)

    def close(self, last: str = "") -> list[Event]:
        """Mark the end of the text (after `last`, its final piece, if given): flush what was
        held back, fail any call left open; return the events that made final."""
        return self._engine.close(last)

    def result(self) -> ParseResult:
        """Everything parsed so far: final after `close`, a snapshot before it."""
        return self._engine.result()

    def release(self) -> None:
        """Let go of the text and calls already given as events: `result` then holds only
        what is read after (and every issue). For a caller that passes the events on and
        needs no whole result (a proxy), so that memory does not grow with the stream."""
        self._engine.release()

    @property
    def closed(self) -> bool:
        """Whether `close` was called."""
        return self._engine.closed()

    def __repr__(self) -> str:
        engine = self._engine
        calls = engine.call_count()
        state = "closed" if engine.closed() else "open"
        return (f"<toolcalls.StreamParser {engine.format.name!r}: {engine.fed()} characters fed, "
                f"{calls} call{'' if calls == 1 else 's'}, {state}>")


def parse_whole(
    fmt: Format, text: str, tools: Sequence[Tool], strict: bool, thinking: bool,
    validate: bool = False,
) -> ParseResult:
    """Parse a whole response: exactly what streaming it in one piece gives, without events."""
    engine = Engine(fmt, tools=tools, strict=strict, thinking=thinking, validate=validate)
    engine.emits = False  # only the result is wanted: no events to build
    engine.close(text)  # the whole text, read knowing it is all there
    return engine.take_result()


def parse_quoting(
    fmt: Format, text: str, tools: Sequence[Tool]
) -> tuple[ParseResult, list[tuple[int, int]]]:
    """`parse_whole` (lenient), with the spans the format read as tool results (detection)."""
    engine = Engine(fmt, tools=tools)
    engine.emits = False
    engine.close(text)
    return engine.take_result(), engine.quoted
