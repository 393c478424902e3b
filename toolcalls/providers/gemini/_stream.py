"""Gemini streamed (``streamGenerateContent``: one ``GenerateContentResponse`` per chunk):
`GeminiStream`, the stream reader of `Gemini` (for `toolcalls.read_stream`).

Each chunk's ``candidates[0].content.parts`` are read as `read_response` reads them, in order
(further candidates are not read: an ``other_choices`` issue at the end):

    calls      a ``functionCall`` part comes whole: `ToolCallStart`, its ``args`` as one
               `ArgumentsDelta` (canonical JSON) and `ToolCallEnd` at once; or, streamed
               (Gemini 3's ``streamFunctionCallArguments``, `_arguments`): `ToolCallStart` at
               the part with its ``name`` and ``willContinue``, each ``partialArgs`` piece as
               the JSON text it adds (`ArgumentsDelta`), its end at the part without
               ``willContinue`` (or when another call starts); a piece that does not fit the
               arguments so far fails the call there (``invalid_arguments``), and a call still
               open when the stream ends fails (``truncated_call``)
    text       ``text`` parts that are not thoughts: through the format's stream parser (the
               text of a part that also holds a call, before the call)
    reasoning  the ``text`` of ``thought`` parts as `ReasoningDelta`; a part with a
               ``thoughtSignature`` goes to ``reasoning_blocks`` as it is (the
               signature in standard base64, `signed_part`)
    not calls  ``executableCode`` / ``codeExecutionResult`` parts: a ``server_tool_call`` issue
    finish     the last ``finishReason`` (or ``promptFeedback.blockReason``); ``usage`` is the
               last ``usageMetadata``; ``modelVersion`` from the first chunk that has it
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._fields import brief, event_key, is_obj, items, member, obj, obj_or_none, string
from .._stream_reader import NativeStreamCall, ProviderStream
from ._arguments import PartialArguments, continues, is_streamed, will_continue
from ._response import field, signed_part

if TYPE_CHECKING:
    from ...parsing.formats._base import Format
    from ...tools._tool import Tool

__all__ = ["GeminiStream"]


class GeminiStream(ProviderStream):
    """Reads streamed ``GenerateContentResponse`` chunks (see the module docstring)."""

    def __init__(self, provider: str, fmt: str | Format | None, tools: Sequence[Tool]) -> None:
        super().__init__(provider, fmt, tools)  # by name: compiled, a star call is unsupported
        self._other_candidates: set[object] = set()
        self._open: NativeStreamCall | None = None
        """The call whose arguments are streamed (``partialArgs``), while it is open."""
        self._arguments = PartialArguments()

    def _read_event(self, data: Mapping[str, Any]) -> None:
        native = self._native
        if native.model is None:
            native.model = string(field(data, "modelVersion"))
        usage = obj_or_none(field(data, "usageMetadata"))
        if usage:
            native.usage = usage
        candidates = items(native, data.get("candidates"), "candidates")
        if not candidates:
            blocked = string(field(obj(field(data, "promptFeedback")), "blockReason"))
            if blocked:
                native.finish_reason = blocked
            return
        for candidate in candidates:
            self._read_candidate(member(native, candidate, "a candidate"))

    def _read_candidate(self, candidate: Mapping[str, Any]) -> None:
        number = candidate.get("index", 0)
        if number:
            self._other_candidates.add(event_key(number))
            return
        native = self._native
        content = member(native, candidate.get("content"), "a candidate's content")
        for part in items(native, content.get("parts"), "a candidate's parts"):
            if is_obj(part):
                self._read_part(part)
            else:
                native.issue("unread_part", f"a part is {brief(part)}, not an object: not read")
        finish = string(field(candidate, "finishReason"))
        if finish:
            self._native.finish_reason = finish

    def _read_part(self, part: Mapping[str, Any]) -> None:
        native = self._native
        signed = field(part, "thoughtSignature")
        if signed:
            native.reasoning_blocks.append(signed_part(part))
        text = part.get("text")
        if isinstance(text, str):  # before a call in the same part, as `read_response` reads
            if part.get("thought"):
                self._think(text)
            elif text:
                self._text(text)
        call = field(part, "functionCall")
        if is_obj(call):
            self._read_call(call)
        elif call is not None:  # set but no object: as `read_response` reads it
            member(native, call, "a part's functionCall")
            self._end(NativeStreamCall(None, None), None, raw=False)
        elif isinstance(text, str):
            return
        elif field(part, "executableCode") is not None or field(part, "codeExecutionResult"):
            native.issue("server_tool_call", "code executed by Gemini: not a call to run")
        elif not signed:
            kinds = ", ".join(sorted(part)) or "empty"
            native.issue("unread_part", f"a part of kind {kinds} was not read")

    def _read_call(self, call: Mapping[str, Any]) -> None:
        opened = self._open
        if opened is not None:
            if continues(opened.name, opened.given, call):
                self._fragment(opened, self._arguments.read(call))
                if not will_continue(call):
                    self._close_call(opened)
                return
            self._close_call(opened)  # another call starts: the open one ends there
        streamed = NativeStreamCall(string(call.get("id")), string(call.get("name")))
        if not is_streamed(call):  # the whole call in one part
            self._start(streamed)
            self._end(streamed, call.get("args"), raw=False)
            return
        self._open, self._arguments = streamed, PartialArguments()
        self._start(streamed)
        self._fragment(streamed, self._arguments.read(call))
        if not will_continue(call):
            self._close_call(streamed)

    def _close_call(self, call: NativeStreamCall) -> None:
        """The provider closed the streamed `call`: its arguments closed, its end or failure."""
        self._open = None
        arguments = self._arguments
        self._fragment(call, arguments.close())
        if arguments.problem and call.name:
            self._native.fail_call("invalid_arguments", f"native call {call.ident} ({call.name})"
                                   f": {arguments.failure()}", call.name, call.arguments())
            self._failed(call)
        else:
            self._end(call)

    def _take_open(self) -> list[NativeStreamCall]:
        opened, self._open = self._open, None
        return [] if opened is None else [opened]

    def _finish(self) -> None:
        for call in self._take_open():
            self._cut_off(call)
        if self._other_candidates:
            count = len(self._other_candidates) + 1
            self._native.issue("other_choices", f"{count} candidates: only the first is read")
