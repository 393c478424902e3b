"""The `Provider` contract: what one provider API supplies to the dispatch.

A provider is one class in one module (``providers/<name>.py``, or a folder when it passes ~400
lines) that both writes what the API is sent and reads what comes back, so the two cannot
drift: metadata as class attributes (its name, the marks that detect its responses and streams,
its response id prefix, its wire framing) and a few methods (render tools, calls and results;
read tools; read a whole response; write a whole response), with the two classes that do the
streaming (`stream_reader`, a `ProviderStream`; `stream_writer`, a `StreamWriter`).
`_registry.PROVIDERS` names each provider's class; every public function of
`toolcalls.providers` finds the provider there by name and calls it.
See docs/adding-a-provider.md for a new one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from mypy_extensions import mypyc_attr

from ..parsing._models import ParseResult, ToolCall
from ..tools._tool import Tool
from ._fields import Json, NativeRead
from ._framing import FRAMERS, Framing
from ._messages import Message, ToolResult
from ._stream_reader import ProviderStream
from ._stream_writer import StreamWriter
from ._write_options import WriteOptions

__all__ = ["Provider"]


@mypyc_attr(allow_interpreted_subclasses=True)  # a provider module may stay interpreted
class Provider:
    """One provider API. Subclasses set the class attributes and implement the methods that
    raise `NotImplementedError` here; the others have defaults that fit most APIs."""

    name: ClassVar[str]
    """Registry name, as callers pass it (``provider="anthropic"``): public, lowercase
    snake_case; the results it reads carry it as their ``provider``."""
    aliases: ClassVar[tuple[str, ...]] = ()
    """Other names `get_provider` accepts for it."""

    # -- detection (the registry tries providers in its declared orders) -----------------------

    response_keys: ClassVar[tuple[str, ...]] = ()
    """Top-level keys whose presence marks a whole response of this API (`is_response`)."""
    stream_marks: ClassVar[tuple[str, ...]] = ()
    """Strings only this API's raw stream holds, written without a blank after a colon
    (``"type":"message_start"``): how ``toolcalls read`` tells a captured stream's API."""

    # -- writing ---------------------------------------------------------------------------------

    id_prefix: ClassVar[str] = ""
    """How the API's response ids begin (``chatcmpl-``, ``resp_``, ``msg_``): a fresh id is
    this prefix and a random hex."""
    framing: ClassVar[Framing] = "sse"
    """How its stream goes on the wire (`_framing.Framing`)."""
    stream_end: ClassVar[str] = ""
    """What ends its stream on the wire after the last chunk (``data: [DONE]`` and a blank
    line for Chat Completions; nothing for most)."""

    # -- streaming ---------------------------------------------------------------------------------

    stream_reader: ClassVar[type[ProviderStream]]
    """The class that reads one streamed response (`read_stream`)."""
    stream_writer: ClassVar[type[StreamWriter]]
    """The class that writes one response as the API streams it (`stream_writer`)."""

    # -- what a provider implements ------------------------------------------------------------

    def render_tools(self, tools: Sequence[Tool]) -> Message:
        """The request fields that declare `tools` (``{"tools": [...]}``)."""
        raise NotImplementedError

    def render_calls(self, calls: Sequence[ToolCall], content: str | None) -> list[Message]:
        """The assistant turn carrying `calls` (and the text said with them), as history."""
        raise NotImplementedError

    def render_results(self, results: Sequence[ToolResult]) -> list[Message]:
        """The turn or turns giving each call its result, grouped as the API wants them."""
        raise NotImplementedError

    def read_tools(self, tools: Any) -> list[Tool]:
        """Tools read back from the API's own tool list (what `render_tools` writes)."""
        raise NotImplementedError

    def read_response(self, data: Json) -> NativeRead:
        """The native calls, text, reasoning, finish reason and usage of one whole response
        (a JSON object); everything it cannot read is an issue in the `NativeRead`."""
        raise NotImplementedError

    def write_response(self, result: ParseResult, options: WriteOptions) -> Message:
        """`result` as the API returns a whole response."""
        raise NotImplementedError

    # -- defaults ----------------------------------------------------------------------------------

    def is_response(self, data: Mapping[str, Any]) -> bool:
        """Whether `data` has the shape of this API's response (any of `response_keys`)."""
        return any(key in data for key in self.response_keys)

    def is_error_body(self, data: Mapping[str, Any], error: Any) -> bool:
        """Whether `data`, a body that is only an ``error`` (truthy), is this API's error."""
        return False

    def write_stream(self, result: ParseResult, options: WriteOptions) -> list[Message]:
        """`result` as the API streams it: its stream writer fed the whole result, so one
        path writes every stream."""
        writer = self.stream_writer(model=options.model, id=options.id, created=options.created)
        return writer.write_result(result, options)

    def wire(self, messages: Sequence[Message]) -> str:
        """Chunks as the API sends them on the wire (`framing`), without `stream_end`."""
        return FRAMERS[self.framing](messages)
