"""Provider APIs (OpenAI Chat and Responses, Anthropic, Gemini, Ollama): the tools, calls and
results each one is sent, written in its own JSON shape, tools read back from it, and results
written back as its responses and streams.

Each provider API is one class (`Provider`) in one module (`openai_chat`, `openai_responses`,
`anthropic`, `gemini`, `ollama`), found by name in one table (`PROVIDERS`, `get_provider`);
the functions here take the provider by name and call it. A `ParseResult` is written back as
each API's response and stream by `write_response`, `write_stream` and `stream_text`; while it
is being read, event by event, by a `StreamWriter` (`stream_writer`, `wire_message`,
`wire_done`). Adding a provider: docs/adding-a-provider.md.

>>> from toolcalls import Tool
>>> from toolcalls.providers import render_native
>>> render_native([Tool(name="f")], "anthropic")["tools"][0]["name"]
'f'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_attributes, lazy_dir

if TYPE_CHECKING:
    from ._base import Provider as Provider
    from ._content import ToolImage as ToolImage
    from ._native import native_call_message as native_call_message
    from ._native import native_result_message as native_result_message
    from ._native import native_result_messages as native_result_messages
    from ._native import render_native as render_native
    from ._native import tools_from_native as tools_from_native
    from ._registry import PROVIDERS as PROVIDERS
    from ._registry import get_provider as get_provider
    from ._response_writer import stream_text as stream_text
    from ._response_writer import write_response as write_response
    from ._response_writer import write_stream as write_stream
    from ._stream_writer import StreamWriter as StreamWriter
    from ._stream_writer import stream_writer as stream_writer
    from ._stream_writer import wire_done as wire_done
    from ._stream_writer import wire_message as wire_message

_LAZY = {
    **dict.fromkeys(
        ["native_call_message", "native_result_message", "native_result_messages",
         "render_native", "tools_from_native"],
        "._native",
    ),
    "ToolImage": "._content",
    "Provider": "._base",
    **dict.fromkeys(["PROVIDERS", "get_provider"], "._registry"),
    **dict.fromkeys(["StreamWriter", "stream_writer", "wire_done", "wire_message"],
                    "._stream_writer"),
    **dict.fromkeys(["stream_text", "write_response", "write_stream"], "._response_writer"),
}
__all__ = sorted(_LAZY)
__getattr__ = lazy_attributes(__name__, _LAZY)
__dir__ = lazy_dir(__name__, _LAZY)
