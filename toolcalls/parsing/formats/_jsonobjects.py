"""Tentative readers of wrapper-less JSON calls: ``[prefix] {"name": ..., "arguments": {...}}``.

Llama 3.x JSON and Ollama's prompt-based formats mark a call with nothing but its JSON, so a
``{`` (or a ``[`` of such objects, or a prefix such as ``<tool_call>``) only *may* start one.
`JsonCallsReader` holds the text while it can still become a call and decides from the text
alone:

- it *commits* (the opener and whitespace become markup, the object a call) once the object
  names an acceptable tool (declared, when tools are given) and its ``"arguments"`` (or
  ``"parameters"``) object has begun; from then on the arguments stream as they arrive;
- it *rejects* (the candidate is content, byte for byte) at a JSON syntax error, or at the end
  of an object that is not a call. ``resume`` is then set past the examined JSON, so the
  ``{`` nested inside it are not tried again as calls (and the total work stays linear).

An object that names no tool is held until it closes: a JSON answer is released whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._json import JsonReader, canonical, loads
from .._text import skip_blanks
from ..reader import ReaderContext, Status
from ._jsoncall import ARGUMENT_KEYS, ENVELOPE_KEYS, first_present
from ._phased import PhasedReader

__all__ = ["JsonShape", "JsonCallsReader"]


@dataclass(frozen=True)
class JsonShape:
    """What may surround the call objects.

    prefix: the opener is a marker the JSON follows (else it is the JSON's own ``{``/``[``);
    arrays: a JSON array of call objects is read too; sequence: after a prefix, several objects
    may follow one another; closer, separator: optional markers after the JSON (``</tool_call>``,
    ``;``), markup when present; wrapped: the prefix is unambiguous, so any name makes a call
    (an undeclared one with an ``unknown_tool`` issue); name_keys: where the name is.
    """

    prefix: bool = False
    arrays: bool = False
    sequence: bool = False
    closer: str | None = None
    separator: str | None = None
    wrapped: bool = False
    name_keys: tuple[str, ...] = ("name",)


class _Object:
    __slots__ = ("json", "start", "started", "streamed", "name_key")

    def __init__(self, start: int) -> None:
        self.json = JsonReader(ENVELOPE_KEYS)
        self.start = start
        self.started = False
        self.streamed = False
        self.name_key: str | None = None
        """Of several name keys, the one that names the call, once known (`_first_name`)."""


class JsonCallsReader(PhasedReader):
    """Reads the calls one opener starts; `ctx.pos` is at the opener."""

    obj: _Object
    """The call object being read: set by `_open_object`, before any phase reads it."""

    def __init__(self, shape: JsonShape, opener: str) -> None:
        self.shape = shape
        self.opener = opener
        self.phase = "begin"
        self.committed = False
        self.in_array = False
        self.at = 0  # absolute offset where reading goes on
        self.markers_seen = 0
        self.resume: int | None = None

    # -- phases: each returns a Status, or None to go on with the next phase ----------------

    def _begin(self, ctx: ReaderContext, eof: bool) -> Status | None:
        at = ctx.pos
        if self.shape.prefix:
            at = skip_blanks(ctx.buf, at + len(self.opener))
            if at == len(ctx.buf):
                return Status.REJECT if eof else Status.MORE
        if ctx.buf[at] == "[" and self.shape.arrays:
            self.in_array, self.at, self.phase = True, ctx.at(at + 1), "first"
            return None
        if ctx.buf[at] != "{":
            return Status.REJECT
        return self._open_object(ctx.at(at))

    def _first(self, ctx: ReaderContext, eof: bool) -> Status | None:
        """Inside ``[``, before the first element: only a call object keeps the candidate."""
        at = skip_blanks(ctx.buf, self.at - ctx.off)
        self.at = ctx.at(at)
        if at == len(ctx.buf):
            return Status.REJECT if eof else Status.MORE
        if ctx.buf[at] != "{":
            self.resume = self.at
            return Status.REJECT
        return self._open_object(self.at)

    def _object(self, ctx: ReaderContext, eof: bool) -> Status | None:
        reader = self.obj.json
        if not self.committed and self.at == self.obj.start:
            # A JSON object goes on with a key or "}": a cheap look spares the JSON reader
            # the braces of prose and code ("{ return x; }").
            at = skip_blanks(ctx.buf, self.at - ctx.off + 1)
            if at == len(ctx.buf):
                return Status.REJECT if eof else Status.MORE
            if ctx.buf[at] not in '"}':
                self.resume = ctx.at(at)
                return Status.REJECT
        # An object already whole in the buffer is decoded in one step (C); one that is not
        # valid JSON, or still arriving, is read incrementally from where that stopped. The
        # failed attempt is paid once per candidate, and the reader resumes past what it read.
        reader.emits = ctx.emits
        end = reader.feed(ctx.buf, self.at - ctx.off, eof)
        self.at = ctx.at(reader.error[0] if reader.error else end)
        if not self.committed:
            verdict = self._decide(ctx, eof)
            if verdict is not None:
                return verdict
            self.committed = True
            # a prefix before one object is part of the call; the ``[`` of an array is markup
            ctx.consume("markup" if self.in_array else "call", self.obj.start - ctx.off)
        ctx.consume("call", self.at - ctx.off)
        self._announce(ctx)
        if reader.error is not None:
            ctx.fail_call("invalid_arguments",
                          f"the call is not valid JSON ({reader.error[1]} at offset {self.at})")
            return Status.DONE
        if not reader.done:
            return Status.MORE
        self._finish(ctx)
        self.phase = "next"
        return None

    def _next(self, ctx: ReaderContext, eof: bool) -> Status | None:
        """After a call: the next object of an array (or sequence), else the end of the JSON."""
        at = skip_blanks(ctx.buf, ctx.pos)
        if at == len(ctx.buf) and not eof:
            return Status.MORE
        ahead = ctx.buf[at : at + 1]
        if self.in_array and ahead == "]":
            ctx.consume("markup", at + 1)
        elif self.in_array and ahead == ",":
            after = skip_blanks(ctx.buf, at + 1)
            if after == len(ctx.buf) and not eof:
                return Status.MORE
            if ctx.buf[after : after + 1] == "{":
                ctx.consume("markup", after)
                return self._open_object(ctx.at(after))
        elif self.shape.sequence and ahead == "{":
            ctx.consume("markup", at)
            return self._open_object(ctx.at(at))
        self.phase = "closer"
        return None

    def _closer(self, ctx: ReaderContext, eof: bool) -> Status | None:
        """The optional closer, then the optional separator."""
        for marker in (self.shape.closer, self.shape.separator)[self.markers_seen :]:
            if self._optional(ctx, eof, marker) is None:
                return Status.MORE
            self.markers_seen += 1
        return Status.DONE

    # -- helpers --------------------------------------------------------------------------------

    def _open_object(self, start: int) -> Status | None:
        """Read a call object from `start` next."""
        self.obj, self.at, self.phase = _Object(start), start, "object"
        return None

    def _optional(self, ctx: ReaderContext, eof: bool, marker: str | None) -> bool | None:
        """Consume `marker` if it comes next (after whitespace); None while that is unknown."""
        if marker is None:
            return False
        at = skip_blanks(ctx.buf, ctx.pos)
        ahead = ctx.buf[at : at + len(marker)]
        if ahead == marker:
            ctx.consume("markup", at + len(marker))
            return True
        if marker.startswith(ahead) and at + len(ahead) == len(ctx.buf) and not eof:
            return None
        return False

    def _decide(self, ctx: ReaderContext, eof: bool) -> Status | None:
        """Before committing: REJECT, MORE, or None to commit now."""
        reader = self.obj.json
        name = self._name()
        if reader.error is not None:
            # Committing depends only on the text before the error, whatever the chunking:
            # if a chunk had ended there, the call would have been committed already.
            if name is not None and self._acceptable(ctx, name) and self._arguments_open():
                return None
            self.resume = self.at
            return Status.REJECT
        if name is not None and not self._acceptable(ctx, name):
            if reader.done or eof:
                self.resume = self.at
                return Status.REJECT
            return Status.MORE  # not a call: hold it to its end, so nothing in it is retried
        if name is not None and self._arguments_open():
            return None
        if reader.done:
            if name is not None and self._arguments(ctx)[0] is not None:
                return None
            self.resume = self.at
            return Status.REJECT
        if not eof:
            return Status.MORE
        if name is not None and (ctx.tools or self.shape.wrapped):
            return None  # a declared name: a call cut off by the end of the text
        self.resume = self.at
        return Status.REJECT

    def _name(self) -> Any:
        members = self.obj.json.members
        keys = self.shape.name_keys
        if len(keys) > 1:
            return self._first_name(keys, members)
        key = first_present(keys, members)
        return None if key is None else members[key]

    def _first_name(self, keys: tuple[str, ...], members: dict[str, Any]) -> Any:
        """Of several name keys (Ollama's ``"name"`` and ``"tool_name"``), the first one written
        whose value is a string names the call: a stream starts the call as soon as it is read,
        before any later one could be seen, and one piece must say the same."""
        obj = self.obj
        if obj.name_key is not None:
            return members[obj.name_key]
        named = [key for key in keys if isinstance(members.get(key), str)]
        if not named:  # no string name yet: whatever is there is not a name either
            key = first_present(keys, members)
            return None if key is None else members[key]
        if len(named) > 1:  # both read already (one piece): the order they were written in
            order = [key for key in members if key in named]
            named = order[:1]
        obj.name_key = named[0]
        return members[named[0]]

    def _acceptable(self, ctx: ReaderContext, name: Any) -> bool:
        return isinstance(name, str) and bool(name) and (self.shape.wrapped or ctx.known_tool(name))

    def _arguments_open(self) -> bool:
        """The arguments object has begun (its fragments can stream)."""
        fragments = self.obj.json.fragments
        return self.obj.streamed or (self.obj.json.emitted_key is not None and bool(fragments)
                                     and fragments[0].startswith("{"))

    def _arguments(self, ctx: ReaderContext) -> tuple[dict[str, Any] | None, bool]:
        """The arguments of the complete object, and whether they came as a JSON string."""
        reader, members = self.obj.json, self.obj.json.members
        if not isinstance(reader.value, dict):
            return None, False
        key = reader.emitted_key or first_present(ARGUMENT_KEYS, members)
        arguments = None if key is None else members[key]
        if arguments is None or arguments == "":  # null and "" mean no arguments, as no key
            # a tool that takes no arguments, if the name is declared
            return ({} if ctx.tools or self.shape.wrapped else None), False
        if isinstance(arguments, str):
            try:
                decoded = loads(arguments)
            except ValueError:
                return None, False
            return (decoded, True) if isinstance(decoded, dict) else (None, False)
        return (arguments, False) if isinstance(arguments, dict) else (None, False)

    def _announce(self, ctx: ReaderContext) -> None:
        """Start the call once its name is read; stream the arguments once they have begun."""
        obj = self.obj
        if not obj.started:
            name = self._name()
            if not isinstance(name, str):
                return
            ctx.start_call(name)
            obj.started = True
        if self._arguments_open():
            obj.streamed = True
            for fragment in obj.json.take_fragments():
                ctx.arguments(fragment)

    def _finish(self, ctx: ReaderContext) -> None:
        obj = self.obj
        name = self._name()
        arguments, as_string = self._arguments(ctx) if isinstance(name, str) else (None, False)
        if arguments is None:
            ctx.fail_call("malformed_call", 'expected {"name": ..., "arguments": {...}}')
            return
        if not obj.started:
            ctx.start_call(name)
            obj.started = True
        if as_string:
            ctx.issue("arguments_as_string", "the arguments were a JSON string, decoded",
                      (obj.start, self.at))
        if not obj.streamed and ctx.emits:
            ctx.arguments(canonical(arguments))
        ctx.end_call(arguments)
