"""The reader of Functionary v3.2's message parts: ``>>>`` + a recipient line + its text.

    all
    Let me check.>>>get_weather
    {"city": "Paris"}>>>python
    print(1 + 1)

The recipient ``all`` is text for the user: its line is markup, the text after it content,
read by the engine's usual scan. Any other recipient is a call to that tool: a JSON object is
its arguments, streamed as they arrive; for the code interpreter (``python``) the text up to the
next ``>>>`` or the end is code (`code_arguments`). A recipient must be a name alone on its
line, else the opener is content. The prompt ends with ``>>>``, so the text begins inside a
recipient line: the format opens the response with this reader (`Format.opened_block`). There,
with no ``>>>`` written, a first line must be ``all``, or a name followed by a JSON object
(any text for ``python``), so that prose whose first line is one word (``OK``) stays content.
"""

from __future__ import annotations

import re
from typing import Any, Final

from .._json import JsonReader, loads
from .._text import skip_blanks
from ..reader import ReaderContext, Status, holdback
from ._phased import PhasedReader

__all__ = ["CONTENT_RECIPIENT", "PART_START", "PYTHON_TOOL", "RecipientReader", "code_arguments"]

PART_START = ">>>"
PYTHON_TOOL = "python"
"""The code interpreter's tool name: its argument is raw code, not JSON."""
CONTENT_RECIPIENT = "all"
"""The recipient of text for the user."""
MAX_RECIPIENT: Final = 200
_RECIPIENT: Final = re.compile(rf"[\w.:-]{{0,{MAX_RECIPIENT + 1}}}")  # bounded: linear
_PART_PREFIXES: Final = frozenset(PART_START[:size] for size in range(1, len(PART_START)))


def code_arguments(code: str) -> dict[str, Any]:
    """The arguments of a ``python`` call: a JSON object as written (the templates write a
    ``python`` call back from history as its arguments string), else ``{"code": code}``."""
    if code.startswith("{"):
        try:
            value = loads(code)
        except ValueError:
            value = None
        if isinstance(value, dict):
            return value
    return {"code": code}


class RecipientReader(PhasedReader):
    """One message part from its ``>>>`` (or from the start of the text, `opener` ``""``)."""

    trims_after = True  # blanks after a call are markup, as the template writes none

    def __init__(self, ctx: ReaderContext, opener: str) -> None:
        self.opener = opener
        self.phase = "recipient"
        self.name = ""
        self.json = JsonReader()
        self.raw: list[str] = []

    def _recipient(self, ctx: ReaderContext, eof: bool) -> Status | None:
        start = ctx.pos + len(self.opener)
        end = _RECIPIENT.match(ctx.buf, start).end()  # type: ignore[union-attr]  # matches ""
        if end - start > MAX_RECIPIENT:
            return Status.REJECT
        if end == len(ctx.buf):
            return Status.REJECT if eof else Status.MORE
        if ctx.buf[end] != "\n" or end == start:
            return Status.REJECT
        self.name = ctx.buf[start:end]
        if self.name == CONTENT_RECIPIENT:
            ctx.consume("markup", end + 1)
            return Status.DONE
        if not self.opener:  # no ">>>" written: a first line of prose ("OK") is no recipient
            first = skip_blanks(ctx.buf, end + 1)
            if first == len(ctx.buf):
                return Status.REJECT if eof else Status.MORE
            if ctx.buf[first] != "{" and self.name != PYTHON_TOOL:
                return Status.REJECT
        ctx.consume("call", end + 1)
        ctx.start_call(self.name)
        self.phase = "body"
        return None

    def _body(self, ctx: ReaderContext, eof: bool) -> Status | None:
        first = skip_blanks(ctx.buf, ctx.pos)
        if first == len(ctx.buf) and not eof:
            return Status.MORE
        if first < len(ctx.buf) and ctx.buf[first] == "{" and self.name != PYTHON_TOOL:
            self.phase = "json"
        else:
            self.phase = "text"
        return None

    def _json(self, ctx: ReaderContext, eof: bool) -> Status | None:
        reader = self.json
        reader.emits = ctx.emits
        end = reader.feed(ctx.buf, ctx.pos, eof)
        for fragment in reader.take_fragments():
            ctx.arguments(fragment)
        if reader.error is not None:
            ctx.consume("call", reader.error[0])
            self.failure = f"the arguments are not valid JSON ({reader.error[1]})"
            self.phase = "skip"
            return None
        ctx.consume("call", end)
        if not reader.done:
            return Status.MORE
        ctx.end_call(reader.value)
        return Status.DONE

    def _text(self, ctx: ReaderContext, eof: bool) -> Status | None:
        """Raw text up to the next part: code, or arguments that are no JSON object."""
        if not self._to_next_part(ctx, eof, keep=True):
            return Status.MORE
        text = "".join(self.raw).strip()
        if text and self.name == PYTHON_TOOL:
            arguments: dict[str, Any] | None = code_arguments(text)
        else:
            arguments = _object_or_none(text)
        if arguments is None:
            ctx.fail_call("invalid_arguments", "the arguments are not a JSON object")
        else:
            ctx.end_call(arguments)
        return Status.DONE

    def _skip(self, ctx: ReaderContext, eof: bool) -> Status | None:
        if not self._to_next_part(ctx, eof, keep=False):
            return Status.MORE
        ctx.fail_call("invalid_arguments", self.failure)
        return Status.DONE

    def _to_next_part(self, ctx: ReaderContext, eof: bool, *, keep: bool) -> bool:
        """Consume the call's text up to the next ``>>>`` or the end; False while neither."""
        found = ctx.find(PART_START, ctx.pos)
        if found >= 0:
            stop = found
        elif eof:
            stop = len(ctx.buf)
        else:
            stop = holdback(ctx.buf, ctx.pos, _PART_PREFIXES, len(PART_START))
        if keep:
            self.raw.append(ctx.buf[ctx.pos : stop])
        ctx.consume("call", stop)
        return found >= 0 or eof


def _object_or_none(text: str) -> dict[str, Any] | None:
    """`text` as JSON arguments: empty is none (``{}``), else it must be an object."""
    if not text:
        return {}
    try:
        value = loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
