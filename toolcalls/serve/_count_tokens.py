"""``POST /v1/messages/count_tokens``: the Anthropic token count of a Messages request, as the
upstream would receive it (prompt mode: with the tools written into the system prompt).

Counted by the upstream where it can, with the model's own chat template and tokenizer: vLLM's
``POST /tokenize`` at its root takes the chat; llama.cpp's takes a text, which its
``/apply-template`` writes from the chat. Which one the upstream speaks is learnt on the first
count (`Upstream.tokenizer`). Else estimated with the tiktoken encoding shipped in the package
(`budget`: never downloaded). The answer says which in its
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
    counted = await upstream_count(upstream, upstream_body, headers)
    how = "upstream" if counted is not None else "estimate"
    tokens = counted if counted is not None else estimate(upstream_body)
    return JSONResponse({"input_tokens": tokens}, headers={COUNT_HEADER: how})


async def upstream_count(upstream: Upstream, body: Mapping[str, Any],
                         headers: Mapping[str, str]) -> int | None:
    """The upstream's own count of `body`'s prompt, or None where it has no way to give one."""
    chat = {key: body[key] for key in ("model", "messages", "tools") if body.get(key)}
    if upstream.tokenizer in ("unknown", "vllm"):
        count = _token_count(await upstream.post_root(
            "/tokenize", {**chat, "add_generation_prompt": True}, headers))
        if count is not None or upstream.tokenizer == "vllm":
            upstream.tokenizer = "vllm"
            return count
    if upstream.tokenizer in ("unknown", "llamacpp"):
        templated = await upstream.post_root("/apply-template", chat, headers)
        prompt = templated.get("prompt") if isinstance(templated, dict) else None
        if isinstance(prompt, str):
            count = _token_count(await upstream.post_root(
                "/tokenize", {"content": prompt, "add_special": True}, headers))
            if count is not None:
                upstream.tokenizer = "llamacpp"
                return count
    upstream.tokenizer = "none"
    return None


def _token_count(data: Any) -> int | None:
    """The count in a ``/tokenize`` answer (vLLM's ``count``, else the ``tokens`` listed), or
    None where it gives none (llama.cpp answers a chat with no tokens: it reads a text)."""
    if not isinstance(data, dict):
        return None
    count = data.get("count")
    if isinstance(count, int) and not isinstance(count, bool) and count > 0:
        return count
    tokens = data.get("tokens")
    return len(tokens) if isinstance(tokens, list) and tokens else None


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
