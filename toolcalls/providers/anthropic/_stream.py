"""Anthropic Messages streamed (named server-sent events): `AnthropicStream`, the stream reader
of `Anthropic` (for `toolcalls.read_stream`).

    message_start        ``message.model``, ``message.usage``
    content_block_start  opens block ``index``: ``text`` (its text, if any, is text),
                         ``tool_use`` (a call: `ToolCallStart` with its ``id`` and ``name``),
                         ``thinking`` / ``redacted_thinking`` (reasoning), ``server_tool_use``
                         and ``mcp_tool_use`` (run by Anthropic: a ``server_tool_call`` issue,
                         not a call), ``*_tool_result`` (data for the model: not read),
                         Anthropic's tool search (its ``server_tool_use`` and
                         ``tool_search_tool_result``: kept in ``reasoning_blocks`` at their stop,
                         the input its ``input_json_delta`` pieces joined),
                         another type (an ``unread_part`` issue), as `read_response` reads them
    content_block_delta  ``text_delta`` through the format's stream parser, ``thinking_delta``
                         as `ReasoningDelta`, ``signature_delta`` onto the thinking block,
                         ``input_json_delta`` as the call's `ArgumentsDelta` (a server tool's
                         input is not read); ``citations_delta`` (a citation added to the
                         text block) is not kept: it carries no text, as `read_response`
                         keeps no ``citations``
    content_block_stop   closes block ``index`` (a block started at an index whose block
                         was not stopped closes that one first: a call there fails,
                         ``truncated_call``): a call ends here (`ToolCallEnd`, or
                         `ToolCallFailed` when its JSON is not an object); a thinking block,
                         with its signature, goes to ``reasoning_blocks``
    message_delta        ``delta.stop_reason`` is the finish reason; its ``usage`` updates the
                         start's
    at the end           a ``tool_use`` block never stopped (``max_tokens`` cut it, or the
                         connection) fails with a ``truncated_call`` issue
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._fields import Json, brief, event_key, is_obj, string
from .._stream_reader import NativeStreamCall, ProviderStream
from ._response import SERVER_TOOLS, is_tool_search, server_tool_issue

if TYPE_CHECKING:
    from ...parsing.formats._base import Format
    from ...tools._tool import Tool

__all__ = ["AnthropicStream"]


class AnthropicStream(ProviderStream):
    """Reads Messages stream events (see the module docstring)."""

    def __init__(self, provider: str, fmt: str | Format | None, tools: Sequence[Tool]) -> None:
        super().__init__(provider, fmt, tools)  # by name: compiled, a star call is unsupported
        self._open_calls: dict[object, tuple[NativeStreamCall, Any]] = {}
        self._thinking: dict[object, Json] = {}
        """The open blocks kept whole for `reasoning_blocks` (thinking, tool search)."""
        self._search_input: dict[object, list[str]] = {}
        """The input pieces of an open tool search ``server_tool_use`` block."""

    def _read_event(self, data: Mapping[str, Any]) -> None:
        kind = data.get("type")
        index = event_key(data.get("index"))  # a list is no key: it must not stop the stream
        if kind == "content_block_delta":
            delta = data.get("delta")
            if is_obj(delta):
                self._read_delta(index, delta)
            else:
                self._native.issue("unread_part", f"a content_block_delta's delta is "
                                                  f"{brief(delta)}, not an object: not read")
        elif kind == "content_block_start":
            block = data.get("content_block")
            if is_obj(block):
                self._open_block(index, block)
            else:
                self._native.issue("unread_part", f"a content_block_start's block is "
                                                  f"{brief(block)}, not an object: not read")
        elif kind == "content_block_stop":
            self._close_block(index)
        elif kind == "message_start":
            message = data.get("message")
            if is_obj(message):
                self._native.model = string(message.get("model"))
                usage = message.get("usage")
                self._native.usage = dict(usage) if is_obj(usage) else None
        elif kind == "message_delta":
            self._read_message_delta(data)

    def _read_delta(self, index: object, delta: Mapping[str, Any]) -> None:
        kind = delta.get("type")
        if kind == "text_delta":
            self._say(delta.get("text"))
        elif kind == "input_json_delta":
            opened = self._open_calls.get(index)
            partial = delta.get("partial_json")
            if opened is not None and isinstance(partial, str) and partial:
                self._fragment(opened[0], partial)
            elif index in self._search_input and isinstance(partial, str):
                self._search_input[index].append(partial)
        elif kind == "thinking_delta":
            thinking = delta.get("thinking")
            self._think(thinking)
            block = self._thinking.get(index)
            if block is not None and isinstance(thinking, str):
                block["thinking"] = (string(block.get("thinking")) or "") + thinking
        elif kind == "signature_delta":
            block = self._thinking.get(index)
            if block is not None and isinstance(delta.get("signature"), str):
                block["signature"] = (string(block.get("signature")) or "") + delta["signature"]

    def _open_block(self, index: object, block: Mapping[str, Any]) -> None:
        self._restarted(index)
        kind = block.get("type")
        if kind == "text":
            self._say(block.get("text"))
        elif kind == "tool_use":
            call = NativeStreamCall(string(block.get("id")), string(block.get("name")))
            self._open_calls[index] = (call, block.get("input"))
            self._start(call)
        elif kind in ("thinking", "redacted_thinking"):
            self._thinking[index] = dict(block)
            self._think(block.get("thinking"))
        elif is_tool_search(block):
            self._thinking[index] = dict(block)
            if kind == "server_tool_use":
                self._search_input[index] = []
        elif isinstance(kind, str) and kind in SERVER_TOOLS:
            self._native.issue("server_tool_call", server_tool_issue(block))
        elif not (isinstance(kind, str) and kind.endswith("_tool_result")):
            self._native.issue("unread_part", f"a content block of type {brief(kind)} was not "
                                              "read")

    def _restarted(self, index: object) -> None:
        """A block starts at `index` while the one there was never stopped: a call there is
        cut off (its stop, which ends it, never came), a thinking block kept as it came."""
        opened = self._open_calls.pop(index, None)
        if opened is not None:
            self._cut_off(opened[0], f"block {index!r} started again")
        if index in self._thinking:
            self._close_block(index)

    def _close_block(self, index: object) -> None:
        opened = self._open_calls.pop(index, None)
        if opened is not None:
            call, preset = opened
            if call.fragments:
                self._end(call)
            else:  # no input_json_delta: the input the block started with
                self._end(call, preset, raw=False)
        block = self._thinking.pop(index, None)
        if block is not None:
            pieces = self._search_input.pop(index, None)
            if pieces:
                block["input"] = _search_input("".join(pieces), block.get("input"))
            self._native.reasoning_blocks.append(block)

    def _read_message_delta(self, data: Mapping[str, Any]) -> None:
        delta = data.get("delta")
        if is_obj(delta) and isinstance(delta.get("stop_reason"), str):
            self._native.finish_reason = delta["stop_reason"]
        usage = data.get("usage")
        if is_obj(usage):
            merged = dict(self._native.usage or {})
            merged.update(usage)
            self._native.usage = merged

    def _take_open(self) -> list[NativeStreamCall]:
        calls = [call for call, _ in self._open_calls.values()]
        self._open_calls.clear()
        return calls

    def _finish(self) -> None:
        for call in self._take_open():
            self._cut_off(call)
        for index in list(self._thinking):  # a thinking block never stopped: kept as it came
            self._close_block(index)


def _search_input(text: str, started: Any) -> Any:
    """A tool search's input, its ``input_json_delta`` pieces joined: the object they spell,
    else the input the block started with (a cut-off stream)."""
    try:
        value = json.loads(text)
    except ValueError:
        return started
    return value if isinstance(value, dict) else started
