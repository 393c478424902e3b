"""OpenAI Responses streamed (``response.*`` events): `ResponsesStream`, the stream reader of
`OpenAIResponses` (for `toolcalls.read_stream`).

Items are followed by ``item_id`` (and ``output_index``), and each is read when its
``response.output_item.done`` comes, as `read_response` reads it, in the order they are done:

    calls      a ``function_call`` item: `ToolCallStart` at ``output_item.added`` (``call_id``
               and ``name``), its ``function_call_arguments.delta`` pieces as `ArgumentsDelta`,
               and its end at ``output_item.done`` (the provider's close of the item; the
               arguments are the deltas joined, or the done item's where none came); a
               ``custom_tool_call`` item is an incomplete call (``custom_tool_call``)
    text       ``output_text.delta`` and ``refusal.delta``: through the format's stream parser
               (a message whose text came only in its done item is read then)
    reasoning  ``reasoning_text.delta`` and ``reasoning_summary_text.delta`` as
               `ReasoningDelta` (summary parts separated by a blank line, as `read_response`
               joins them); the done ``reasoning`` item goes to ``reasoning_blocks``
    not calls  tools OpenAI runs itself (web search, code interpreter...): a
               ``server_tool_call`` issue at their done item
    search     a client ``tool_search_call`` (no events of its own: its arguments come whole)
               is a ``tool_search`` call, started and ended at its done item; a hosted one
               and a ``tool_search_output`` go to ``reasoning_blocks`` then
    finish     from ``response.completed`` / ``response.incomplete`` / ``response.failed``:
               ``incomplete_details.reason`` or ``status``, ``usage``; ``model`` from the
               first event's ``response``
    at the end a function call whose item was never done fails (``truncated_call``), as does
               one whose ``output_index`` another item is added at before it is done
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._fields import brief, event_key, is_obj, items, member, obj, obj_or_none, string
from .._stream_reader import NativeStreamCall, ProviderStream
from ._response import TOOL_SEARCH, is_client_search, read_item, reasoning_text

if TYPE_CHECKING:
    from ...parsing.formats._base import Format
    from ...tools._tool import Tool

__all__ = ["ResponsesStream"]

_FINISHED = frozenset({"response.completed", "response.incomplete", "response.failed"})


class ResponsesStream(ProviderStream):
    """Reads Responses stream events (see the module docstring)."""

    def __init__(self, provider: str, fmt: str | Format | None, tools: Sequence[Tool]) -> None:
        super().__init__(provider, fmt, tools)  # by name: compiled, a star call is unsupported
        self._open_calls: dict[object, NativeStreamCall] = {}
        self._streamed: set[object] = set()
        """The items whose text or reasoning came in deltas (not to be read again when done)."""

    def _read_event(self, data: Mapping[str, Any]) -> None:
        kind = data.get("type")
        if not isinstance(kind, str):
            return  # not an event this reader knows, as any other unknown type
        if kind == "response.output_text.delta" or kind == "response.refusal.delta":
            self._streamed.add(_key(data))
            self._say(data.get("delta"))
        elif kind == "response.function_call_arguments.delta":
            call = self._open_calls.get(_key(data))
            delta = data.get("delta")
            if call is not None and isinstance(delta, str) and delta:
                self._fragment(call, delta)
        elif kind in ("response.reasoning_text.delta", "response.reasoning_summary_text.delta"):
            self._streamed.add(_key(data))
            self._think(data.get("delta"))
        elif kind == "response.reasoning_summary_part.added":
            if data.get("summary_index"):
                self._think("\n\n")
        elif kind == "response.output_item.added":
            self._open_item(data)
        elif kind == "response.output_item.done":
            item = data.get("item")
            if is_obj(item):
                self._close_item(_key(data), item)
            else:
                self._native.issue("unread_part", f"an output_item.done's item is {brief(item)}, "
                                                  "not an object: not read")
        elif kind in _FINISHED or kind in ("response.created", "response.in_progress"):
            self._read_response(obj(data.get("response")), finished=kind in _FINISHED)
        elif kind == "error":  # {"type": "error", "code", "message", "param"}
            self._provider_error(data)

    def _open_item(self, data: Mapping[str, Any]) -> None:
        key = _key(data)
        self._streamed.discard(key)  # a new item: its text has not come yet
        cut = self._open_calls.pop(key, None)
        if cut is not None:  # an item added at the index of a call never done
            self._cut_off(cut, f"output item {key!r} was added again")
        item = member(self._native, data.get("item"), "an output_item.added's item")
        if item.get("type") == "function_call":
            call = NativeStreamCall(string(item.get("call_id")), string(item.get("name")))
            self._open_calls[key] = call
            self._start(call)

    def _close_item(self, key: object, item: Mapping[str, Any]) -> None:
        kind = item.get("type")
        if kind == "function_call":
            call = self._open_calls.pop(key, None)
            given = string(item.get("call_id"))
            if call is not None and given and call.given and given != call.given:
                self._cut_off(call, f"output item {key!r} was done as another call")
                call = None
            if call is None:  # never added: started and ended at once
                call = NativeStreamCall(string(item.get("call_id")), string(item.get("name")))
                self._start(call)
                self._end(call, item.get("arguments"), raw=False)
            elif call.fragments:
                self._end(call)
            else:
                self._end(call, item.get("arguments"), raw=False)
        elif is_client_search(item):
            search = NativeStreamCall(string(item.get("call_id") or item.get("id")), TOOL_SEARCH)
            self._start(search)
            self._end(search, item.get("arguments"), raw=False)
        elif kind == "message":
            if key not in self._streamed:  # its text came whole
                for part in items(self._native, item.get("content"), "a message item's content"):
                    if is_obj(part):
                        text = part.get("text") if part.get("type") == "output_text" \
                            else part.get("refusal")
                        if isinstance(text, str) and text:
                            self._text(text)
        elif kind == "reasoning":
            if key not in self._streamed:
                self._think(reasoning_text(item))
            self._native.reasoning_blocks.append(dict(item))
        else:
            read_item(item, self._native)

    def _read_response(self, response: Mapping[str, Any], *, finished: bool) -> None:
        native = self._native
        if native.model is None:
            native.model = string(response.get("model"))
        if finished:
            reason = string(obj(response.get("incomplete_details")).get("reason"))
            native.finish_reason = reason or string(response.get("status"))
            native.usage = obj_or_none(response.get("usage"))
            if response.get("error"):  # response.failed
                self._provider_error(response["error"])

    def _take_open(self) -> list[NativeStreamCall]:
        calls = list(self._open_calls.values())
        self._open_calls.clear()
        return calls

    def _finish(self) -> None:
        for call in self._take_open():
            self._cut_off(call)


def _key(data: Mapping[str, Any]) -> object:
    """Which output item an event is about: its ``output_index`` (``item_id`` where absent)."""
    index = data.get("output_index")
    return index if isinstance(index, int) else event_key(data.get("item_id"))
