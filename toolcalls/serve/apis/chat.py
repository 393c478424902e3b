"""The OpenAI Chat Completions API (``POST /v1/chat/completions``): the proxy's hub, so a
request passes through checked (`validate_chat_request`) and unchanged."""

from __future__ import annotations

from typing import Any

from .._errors import ProxyError, strict_json
from .._requests import validate_chat_request
from ._base import InboundApi

__all__ = ["ChatCompletions"]


class ChatCompletions(InboundApi):
    """Errors ``{"error": {"message", "type", "param", "code"}}``; streamed chunks are bare
    ``data:`` lines (the closing ``data: [DONE]`` is the writer's `wire_done`); the usage
    chunk (``choices: []``) only when the client asked (``stream_options.include_usage``),
    as OpenAI does: a client loop that reads ``chunk.choices[0]`` never meets it."""

    name = "chat"
    path = "/v1/chat/completions"
    provider = "openai"
    id_prefix = "call_"

    def chat_request(self, body: object) -> dict[str, Any]:
        return validate_chat_request(body)

    def usage_asked(self, chat: dict[str, Any]) -> bool:
        options = chat.get("stream_options")
        return isinstance(options, dict) and options.get("include_usage") is True

    def error_body(self, error: ProxyError) -> dict[str, Any]:
        return {"error": {"message": error.said, "type": error.kind, "param": error.param,
                          "code": None}}

    def event(self, message: dict[str, Any]) -> str:
        return f"data: {strict_json(message)}\n\n"
