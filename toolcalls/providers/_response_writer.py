"""Writing a result back as a provider API's response (item 3 of the responses issue).

A `ParseResult` — wherever it came from: a model's text parsed in any format, or a provider's
response read — becomes each provider API's assistant response (`write_response`), the stream
of chunks or events that API sends for it (`write_stream`), and that stream as the text on the
wire (`stream_text`: SSE, or NDJSON for Ollama). This is what a proxy that serves one API from
another emits. Each provider's class writes its own (`Provider.write_response`,
`write_stream`, `wire`), found here by name in the registry.

What is written: the content (with the markup of text calls removed, as `parse()` gives it),
the reasoning where the API has a place for it, and the complete calls with their ids (Ollama
has none). Incomplete calls are not calls a client can run: they are not written. Why the
turn ended and the token usage, where the result has them (read from any provider), are
translated into the API's own words (`_write_options.WriteOptions`).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from typing import Any

from ..parsing._models import ParseResult
from ._base import Provider
from ._messages import Message
from ._registry import get_provider
from ._write_options import WriteOptions

__all__ = ["stream_text", "write_response", "write_stream"]


def _options(
    result: ParseResult, writer: Provider, model: str, id: str | None, created: int | None
) -> WriteOptions:
    # A result read from a response says why it ended, its usage and its provider; a result
    # parsed from text has none of them.
    if id is None:
        id = f"{writer.id_prefix}{uuid.uuid4().hex}"
    if created is None:
        created = int(time.time())
    return WriteOptions(model, id, created, result.finish_reason, result.usage, result.provider)


def write_response(
    result: ParseResult, provider: str, *, model: str = "toolcalls", id: str | None = None,
    created: int | None = None,
) -> dict[str, Any]:
    """``result`` as ``provider``'s API returns a whole response (a JSON object), saying
    ``model`` made it, under the response ``id`` (a fresh one if None, prefixed as the API's
    are), at ``created`` (Unix seconds; now if None)."""
    writer = get_provider(provider)
    return writer.write_response(result, _options(result, writer, model, id, created))


def write_stream(
    result: ParseResult, provider: str, *, model: str = "toolcalls", id: str | None = None,
    created: int | None = None,
) -> list[dict[str, Any]]:
    """``result`` as ``provider``'s API streams it: its chunks or events, in order, each a
    JSON object (the options as for `write_response`)."""
    writer = get_provider(provider)
    return writer.write_stream(result, _options(result, writer, model, id, created))


def stream_text(events: Sequence[Message], provider: str) -> str:
    """The chunks or events of `write_stream` as ``provider`` sends them on the wire:
    server-sent events (``data:`` lines, named ``event:`` lines for Anthropic and Responses,
    a final ``data: [DONE]`` for Chat Completions), or NDJSON for Ollama."""
    writer = get_provider(provider)
    return writer.wire(events) + writer.stream_end
