"""``POST /v1/messages/count_tokens``: the Anthropic token count of a Messages request, as the
upstream would receive it (prompt mode: with the tools written into the system prompt).

Counted by the upstream where it can (``POST /tokenize`` at its root, as vLLM serves it: the
chat template applied, so the count is the model's own), else estimated with the tiktoken
encoding shipped in the package (`budget`: never downloaded). The answer says which in its
``x-toolcalls-token-count`` header: ``upstream`` or ``estimate``; an Anthropic client reads
``input_tokens`` alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from starlette.responses import JSONResponse

from ..budget._tokens import count_tokens as tiktoken_count
from ._config import ServeConfig
from ._errors import strict_json
from ._proxy import plan
from ._upstream import Upstream
from .apis import APIS

__all__ = ["COUNT_HEADER", "COUNT_TOKENS_PATH", "count_tokens", "estimate"]

COUNT_TOKENS_PATH: Final = "/v1/messages/count_tokens"
COUNT_HEADER: Final = "x-toolcalls-token-count"
PER_MESSAGE: Final = 4
"""Tokens a chat template adds around each message (its role and separators), estimated."""
NO_MAX_TOKENS: Final = 1
"""A count_tokens request has no ``max_tokens``; the Messages check wants one."""


async def count_tokens(body: object, config: ServeConfig, upstream: Upstream,
                       headers: Mapping[str, str]) -> JSONResponse:
    """The answer to a count_tokens request: ``{"input_tokens": n}``, and how it was counted."""
    if isinstance(body, dict):
        body = {"max_tokens": NO_MAX_TOKENS, **body, "stream": False}
    upstream_body = plan(APIS["messages"], body, config).body
    counted = await upstream.tokenize(upstream_body, headers)
    how = "upstream" if counted is not None else "estimate"
    tokens = counted if counted is not None else estimate(upstream_body)
    return JSONResponse({"input_tokens": tokens}, headers={COUNT_HEADER: how})


def estimate(body: Mapping[str, Any]) -> int:
    """The tokens of a Chat Completions request's messages and tools, by tiktoken: each
    message's text and calls, plus what a chat template adds around each."""
    texts = [strict_json(body["tools"])] if body.get("tools") else []
    for message in body.get("messages") or []:
        texts.append(_text(message.get("content")))
        if message.get("tool_calls"):
            texts.append(strict_json(message["tool_calls"]))
    return sum(tiktoken_count(text) for text in texts if text) + PER_MESSAGE * (
        len(body.get("messages") or []) + 1)


def _text(content: Any) -> str:
    """A message's text: a string, or its text parts (an image counts as nothing here)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part["text"] for part in content
                         if isinstance(part, dict) and isinstance(part.get("text"), str))
    return ""
