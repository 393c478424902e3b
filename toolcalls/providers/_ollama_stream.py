"""Ollama's native chat API streamed (``/api/chat``, NDJSON: one ``ChatResponse`` a line), for
`toolcalls.read_stream`. Ollama's ``/v1`` streams OpenAI chunks: read it as "openai".

    calls      ``message.tool_calls[*].function`` come whole (``arguments`` an object):
               `ToolCallStart`, one `ArgumentsDelta` (canonical JSON) and `ToolCallEnd` at once;
               an ``id`` where a server gives one, else ``call_<n>``
    text       ``message.content`` pieces: through the format's stream parser
    reasoning  ``message.thinking`` pieces as `ReasoningDelta`
    finish     the ``done: true`` line: ``done_reason``, and the counters Ollama sends at the
               top level as ``usage`` (as `read_response` gathers them); ``model``
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._ollama import _USAGE_KEYS
from ._reading import brief, is_obj, items, member, string
from ._stream import NativeStreamCall, ProviderStream

__all__ = ["OllamaStream"]


class OllamaStream(ProviderStream):
    """Reads ``/api/chat`` stream lines (see the module docstring)."""

    def _read_event(self, data: Mapping[str, Any]) -> None:
        native = self._native
        if native.model is None:
            native.model = string(data.get("model"))
        message = member(native, data.get("message"), "message")
        self._think(message.get("thinking"))
        content = message.get("content")
        if isinstance(content, str) and content:
            self._text(content)
        for call in items(native, message.get("tool_calls"), "message.tool_calls"):
            if not is_obj(call):
                native.issue("malformed_call",
                             f"a tool_calls entry is not an object: {brief(call)}")
            else:
                function = member(native, call.get("function"), "a tool call's function")
                streamed = NativeStreamCall(string(call.get("id")), string(function.get("name")))
                self._start(streamed)
                self._end(streamed, function.get("arguments"), raw=False)
        reason = string(data.get("done_reason"))
        if reason:
            native.finish_reason = reason
        usage = {key: data[key] for key in _USAGE_KEYS if data.get(key) is not None}
        if usage:
            native.usage = usage
