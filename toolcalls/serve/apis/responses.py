"""The OpenAI Responses API (``POST /v1/responses``): a request is checked and translated into
the Chat Completions request it means (`chat_request_from_responses`); answers are written by
the ``openai_responses`` provider's writers. The proxy keeps no conversation, so a request must
send its whole history (``previous_response_id`` is refused); but it remembers the last
message and reasoning items it wrote (`WrittenItems`), which a request may name by id (an
``item_reference``, as clients on OpenAI's default ``store`` send earlier text)."""

from __future__ import annotations

from typing import Any, Final

from .._errors import ProxyError, strict_json
from .._responses_request import chat_request_from_responses
from .._written_items import WrittenItems
from ._base import InboundApi

__all__ = ["Responses"]

_LAST_EVENTS: Final = ("response.completed", "response.incomplete")
"""The events that end a stream that did not fail: each carries the whole response."""


class Responses(InboundApi):
    """Errors in OpenAI's shape, ``{"error": {"message", "type", "param", "code"}}``; each
    streamed event is an ``event:`` line naming its type, then its ``data:`` line."""

    name = "responses"
    path = "/v1/responses"
    provider = "openai_responses"
    id_prefix = "call_"

    def __init__(self) -> None:
        self.written = WrittenItems()
        """The items of the answers written in this process, by id."""

    def chat_request(self, body: object) -> dict[str, Any]:
        return chat_request_from_responses(body, self.written.get)

    def answered(self, answer: dict[str, Any]) -> dict[str, Any]:
        self.written.remember(answer.get("output") or [])
        return answer

    def error_body(self, error: ProxyError) -> dict[str, Any]:
        return {"error": {"message": error.said, "type": error.kind, "param": error.param,
                          "code": None}}

    def event(self, message: dict[str, Any]) -> str:
        if message["type"] in _LAST_EVENTS:  # the whole response, as a whole answer has it
            self.answered(message["response"])
        return f"event: {message['type']}\ndata: {strict_json(message)}\n\n"
