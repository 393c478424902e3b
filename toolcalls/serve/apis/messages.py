"""The Anthropic Messages API (``POST /v1/messages``): a request is checked and translated
into the Chat Completions request it means (`chat_request_from_messages`)."""

from __future__ import annotations

from typing import Any

from .._anthropic_request import chat_request_from_messages
from .._errors import ProxyError, strict_json
from ._base import InboundApi

__all__ = ["Messages"]


class Messages(InboundApi):
    """Errors ``{"type": "error", "error": {"type", "message"}}`` (and ``details`` where the
    error has them); each streamed message is an ``event:`` line naming its type, then its
    ``data:`` line."""

    name = "messages"
    path = "/v1/messages"
    provider = "anthropic"
    id_prefix = "toolu_"
    keeps_upstream_ids = False  # toolu_ ids, as Anthropic gives, even for native calls

    def chat_request(self, body: object) -> dict[str, Any]:
        return chat_request_from_messages(body)

    def error_body(self, error: ProxyError) -> dict[str, Any]:
        said: dict[str, Any] = {"type": error.kind, "message": error.said}
        if error.details:
            said["details"] = error.details
        return {"type": "error", "error": said}

    def event(self, message: dict[str, Any]) -> str:
        return f"event: {message['type']}\ndata: {strict_json(message)}\n\n"
