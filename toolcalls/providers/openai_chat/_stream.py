"""OpenAI Chat Completions streamed (``chat.completion.chunk``): `ChatStream`, the stream reader
of `OpenAIChat` (for `toolcalls.read_stream`).

Each chunk's ``choices[0].delta`` (further choices are not read: an ``other_choices`` issue
at the end, as `read_response` gives):

    calls      ``delta.tool_calls[*]`` fragments, assembled by ``index`` (a fragment without
               one continues the last call, unless it brings a new ``id``; one at an index
               whose call has another ``id``, or another name after its arguments began,
               starts a new call: some servers number every call 0); ``id`` and
               ``function.name`` come in the first fragment, ``function.arguments`` in pieces
               (`ArgumentsDelta`, as the provider split them). A call ends only at the chunk
               that carries ``finish_reason``: OpenAI streams parallel calls one after the
               other, but the next call starting does not close the one before (a server may
               interleave them), so all of them end there, in order. The legacy
               ``delta.function_call`` is a call without id, ended the same way
    text       ``delta.content`` and ``delta.refusal``: through the format's stream parser
    reasoning  ``delta.reasoning_content`` (DeepSeek, vLLM), ``delta.reasoning`` (vLLM,
               OpenRouter, Groq) where it differs; OpenRouter's ``reasoning_details`` pieces,
               merged by ``type`` and ``index``, go to ``reasoning_blocks``
    finish     the last ``finish_reason``; ``usage`` from the last chunk that has one (the
               usage-only chunk with ``choices: []``); ``model`` from the first chunk
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...parsing._events import Event, TextDelta
from .._fields import Json, brief, encodable, event_key, is_obj, items, member, obj, raw, string
from .._stream_reader import NativeStreamCall, ProviderStream
from ._response import not_text_part

if TYPE_CHECKING:
    from ...parsing.formats._base import Format
    from ...tools._tool import Tool

__all__ = ["ChatStream"]


class ChatStream(ProviderStream):
    """Reads ``chat.completion.chunk`` events (see the module docstring)."""

    def __init__(self, provider: str, fmt: str | Format | None, tools: Sequence[Tool]) -> None:
        super().__init__(provider, fmt, tools)  # by name: compiled, a star call is unsupported
        self._open: dict[object, NativeStreamCall] = {}
        """The call each ``index`` (or id) is on now."""
        self._pending: list[NativeStreamCall] = []
        """Every call not ended yet, in the order they came (an index may have had several)."""
        self._last: object = None
        self._other_choices: set[object] = set()

    def feed(self, chunk: Any) -> list[Event]:
        # The common chunk, one choice whose delta is only ``content`` text, read at once (the
        # text parser exists: the model id is known); any other goes the whole way.
        parser = self._parser
        if type(chunk) is dict and parser is not None and not self._closed \
                and "error" not in chunk:
            choices = chunk.get("choices")
            if type(choices) is list and len(choices) == 1 and not chunk.get("usage"):
                choice = choices[0]
                if (type(choice) is dict and not choice.get("finish_reason")
                        and not choice.get("index", 0)):
                    delta = choice.get("delta")
                    if type(delta) is dict and len(delta) == 1:
                        content = delta.get("content")
                        if type(content) is str and encodable(content):
                            self._chunks += 1
                            if self._fed is not None:  # kept while the format read no call
                                self._fed.append(content)
                            events = parser.feed(content)
                            if not events or (len(events) == 1
                                              and type(events[0]) is TextDelta):
                                return events  # nothing to renumber
                            return self._text_events(events)
        return super().feed(chunk)

    def _read_event(self, data: Mapping[str, Any]) -> None:
        native = self._native
        if native.model is None:
            native.model = string(data.get("model"))
        for choice in items(native, data.get("choices"), "a chunk's choices"):
            self._read_choice(member(native, choice, "a chunk's choice"))
        usage = data.get("usage")
        if usage and is_obj(usage):
            native.usage = dict(usage)

    def _read_choice(self, choice: Mapping[str, Any]) -> None:
        number = choice.get("index", 0)
        if number != 0:
            self._other_choices.add(event_key(number))
            return
        delta = member(self._native, choice.get("delta"), "a choice's delta")
        if delta:
            content = delta.get("content")
            if content and isinstance(content, str):
                self._text(content)
                if len(delta) > 1:
                    self._read_delta(delta)
            else:
                self._read_delta(delta)
        finish = choice.get("finish_reason")
        if finish and isinstance(finish, str):
            self._native.finish_reason = finish
            self._end_all()

    def _read_delta(self, delta: Mapping[str, Any]) -> None:
        content = delta.get("content")
        if isinstance(content, list):  # text parts
            for part in content:
                if is_obj(part) and isinstance(part.get("text"), str):
                    self._text(part["text"])
                else:
                    self._native.issue("unread_part", not_text_part(part))
        else:  # a string was read by `_read_choice`
            self._native.not_text(None if isinstance(content, str) else content, "delta.content")
        self._say(delta.get("refusal"))
        reasoning = delta.get("reasoning_content")
        self._think(reasoning)
        if delta.get("reasoning") != reasoning:
            self._think(delta.get("reasoning"))
        details = delta.get("reasoning_details")
        if isinstance(details, list):
            for detail in details:
                if is_obj(detail):
                    self._merge_detail(detail)
        for fragment in items(self._native, delta.get("tool_calls"), "delta.tool_calls"):
            if is_obj(fragment):
                self._read_fragment(fragment)
            else:  # as `read_response` says of such an entry
                self._native.issue("malformed_call", "a tool_calls entry is not an object: "
                                                     f"{brief(fragment)}")
        legacy = delta.get("function_call")
        if is_obj(legacy):
            self._read_fragment({"index": "function_call", "function": legacy})

    def _read_fragment(self, fragment: Mapping[str, Any]) -> None:
        ident = string(fragment.get("id")) or None
        key = fragment.get("index")
        if not isinstance(key, int | str):  # no index: a new id starts a new call
            last = self._open.get(self._last)
            key = self._last if last is not None and ident in (None, last.given) else ident
            key = key if key is not None else len(self._open)
        function = obj(fragment.get("function"))
        name = string(function.get("name"))
        call = self._open.get(key)
        if call is None or _another_call(call, ident, name):
            call = self._open[key] = NativeStreamCall(ident, None)
            self._pending.append(call)
        elif ident and not call.started and not call.given:  # the id after the name: kept
            call.ident = call.given = ident
        self._last = key
        if name and not call.name:
            call.name = name
            self._start(call)
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            if arguments:
                self._fragment(call, arguments)
        elif arguments is not None:  # an object (as a whole response may give): as its text
            self._fragment(call, raw(arguments))

    def _end_all(self) -> None:
        for call in self._take_open():
            self._end(call)

    def _take_open(self) -> list[NativeStreamCall]:
        calls = self._pending
        self._pending = []
        self._open.clear()
        return calls

    def _finish(self) -> None:
        for call in self._take_open():
            self._cut_off(call)
        if self._other_choices:
            count = len(self._other_choices) + 1
            self._native.issue("other_choices", f"{count} choices: only the first is read")

    def _merge_detail(self, detail: Mapping[str, Any]) -> None:
        blocks = self._native.reasoning_blocks
        last: Json | None = blocks[-1] if blocks else None
        if last is None or (last.get("type"), last.get("index")) != (detail.get("type"),
                                                                        detail.get("index")):
            blocks.append(dict(detail))
            return
        for key, value in detail.items():
            if isinstance(value, str) and isinstance(last.get(key), str) and key in (
                    "text", "summary", "data"):
                last[key] += value
            elif value is not None:
                last[key] = value


def _another_call(call: NativeStreamCall, ident: str | None, name: str | None) -> bool:
    """Whether a fragment at `call`'s index starts another call: it brings another id, or
    (where the server gives none) another name after `call`'s arguments began (servers that
    number every call 0 reuse the index)."""
    if ident and call.given:
        return ident != call.given
    return bool(name and call.name and name != call.name and call.fragments)

