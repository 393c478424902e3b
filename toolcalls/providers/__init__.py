"""Provider APIs (OpenAI Chat and Responses, Anthropic, Gemini, Ollama): the tools, calls and
results each one is sent, written in its own JSON shape, and tools read back from it.

One private module per provider API (`_openai_chat`, `_openai_responses`, `_anthropic`,
`_gemini`, `_ollama`) holds its shapes; the functions here take the provider by name
(`PROVIDERS`) and dispatch to it (`_native`). A `ParseResult` is written back as each API's
response and stream by `write_response`, `write_stream` and `stream_text` (`_write`, one
``*_write`` module per provider API); while it is being read, event by event, by a
`StreamWriter` (`stream_writer`, `wire_message`, `wire_done`: `_emit`).

>>> from toolcalls import Tool
>>> from toolcalls.providers import render_native
>>> render_native([Tool(name="f")], "anthropic")["tools"][0]["name"]
'f'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_attributes

if TYPE_CHECKING:
    from ._content import ToolImage as ToolImage
    from ._emit import StreamWriter as StreamWriter
    from ._emit import stream_writer as stream_writer
    from ._emit import wire_done as wire_done
    from ._emit import wire_message as wire_message
    from ._native import PROVIDERS as PROVIDERS
    from ._native import native_call_message as native_call_message
    from ._native import native_result_message as native_result_message
    from ._native import native_result_messages as native_result_messages
    from ._native import render_native as render_native
    from ._native import tools_from_native as tools_from_native
    from ._write import stream_text as stream_text
    from ._write import write_response as write_response
    from ._write import write_stream as write_stream

_LAZY = {
    **dict.fromkeys(
        ["PROVIDERS", "native_call_message", "native_result_message", "native_result_messages",
         "render_native", "tools_from_native"],
        "._native",
    ),
    "ToolImage": "._content",
    **dict.fromkeys(["StreamWriter", "stream_writer", "wire_done", "wire_message"], "._emit"),
    **dict.fromkeys(["stream_text", "write_response", "write_stream"], "._write"),
}
__all__ = sorted(_LAZY)
__getattr__ = lazy_attributes(__name__, _LAZY)
