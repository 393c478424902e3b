"""The OpenAI Responses API (``POST /v1/responses``): a request is checked and translated into
the Chat Completions request it means (`chat_request_from_responses`); answers are written by
the ``openai_responses`` provider's writers. The proxy keeps no state, so a request must send
its whole history (``previous_response_id`` is refused)."""

from __future__ import annotations

from typing import Any

from .._errors import ProxyError, strict_json
from .._responses_request import chat_request_from_responses
from ._base import InboundApi

__all__ = ["Responses"]


class Responses(InboundApi):
    """Errors in OpenAI's shape, ``{"error": {"message", "type", "param", "code"}}``; each
    streamed event is an ``event:`` line naming its type, then its ``data:`` line."""

    name = "responses"
    path = "/v1/responses"
    provider = "openai_responses"
    id_prefix = "call_"

    def chat_request(self, body: object) -> dict[str, Any]:
        return chat_request_from_responses(body)

    def error_body(self, error: ProxyError) -> dict[str, Any]:
        return {"error": {"message": error.said, "type": error.kind, "param": error.param,
                          "code": None}}

    def event(self, message: dict[str, Any]) -> str:
        return f"event: {message['type']}\ndata: {strict_json(message)}\n\n"
