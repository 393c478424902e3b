"""What every response writer shares: its options (model, id, when), why a turn ended and the
token usage in any provider's words, and the reasoning blocks kept from a provider.

A provider (`Provider.write_response`, its `StreamWriter`) turns a `ParseResult` into its API's
response and stream with these; how a stream goes on the wire is `_framing`'s.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..parsing._models import ParseResult
from ._messages import Message

__all__ = [
    "FinishKind", "TokenCounts", "WriteOptions", "finish_kind", "reasoning_blocks",
    "token_counts",
]

FinishKind = Literal["stop", "length", "tool_calls", "content_filter"]
"""Why a turn ended, whatever the provider that said it: each writer spells it its own way."""

_FINISH_KINDS: Mapping[str, FinishKind] = {
    # OpenAI Chat, Ollama; Anthropic; Gemini; Responses (status, incomplete_details.reason);
    # Mistral ("model_length": the context window filled)
    "stop": "stop", "end_turn": "stop", "stop_sequence": "stop", "pause_turn": "stop",
    "STOP": "stop", "completed": "stop",
    "length": "length", "max_tokens": "length", "model_context_window_exceeded": "length",
    "MAX_TOKENS": "length", "max_output_tokens": "length", "model_length": "length",
    "tool_calls": "tool_calls", "function_call": "tool_calls", "tool_use": "tool_calls",
    "content_filter": "content_filter", "refusal": "content_filter", "SAFETY": "content_filter",
    "RECITATION": "content_filter", "PROHIBITED_CONTENT": "content_filter",
    "BLOCKLIST": "content_filter", "SPII": "content_filter",
}

_TOKEN_KEYS = (
    ("prompt_tokens", "completion_tokens"),  # OpenAI Chat
    ("input_tokens", "output_tokens"),  # Anthropic, Responses
    ("promptTokenCount", "candidatesTokenCount"),  # Gemini on the wire
    ("prompt_token_count", "candidates_token_count"),  # Gemini as the SDK dumps it
    ("prompt_eval_count", "eval_count"),  # Ollama
)

@dataclass(frozen=True)
class WriteOptions:
    """What a response says besides the result: the model, its id, when it was made."""

    model: str = "toolcalls"
    id: str = "toolcalls-0"
    """The response's id (`_response_writer` makes a fresh one, with the API's usual prefix)."""
    created: int = field(default_factory=lambda: int(time.time()))
    finish_reason: str | None = None
    """Why the turn ended, as any provider spells it (the result's own, when it was read from
    a response); a writer says it in its own words (`finish_kind`). Calls always end a turn
    as "tool calls"; None, or a reason no writer knows, is a plain stop."""
    usage: Mapping[str, Any] | None = None
    """Token usage, as any provider gives it (`token_counts`); unknown counts are written 0
    where the API requires them, and left out where it does not."""
    provider: str | None = None
    """The provider API the result was read from: its own usage object is written back as it
    is (`own_usage`), another's as counts."""

    def own_usage(self, provider: str) -> Mapping[str, Any] | None:
        """The usage as it came, when it came from ``provider`` itself; else None."""
        return self.usage if self.provider == provider and self.usage else None

    def finish(self, has_calls: bool) -> FinishKind:
        if has_calls:
            return "tool_calls"
        kind = finish_kind(self.finish_reason)
        return "stop" if kind in (None, "tool_calls") else kind

    def tokens(self) -> TokenCounts | None:
        return token_counts(self.usage)


@dataclass(frozen=True)
class TokenCounts:
    input: int
    output: int

    @property
    def total(self) -> int:
        return self.input + self.output


def reasoning_blocks(result: ParseResult, *types: str) -> list[Message]:
    """The result's reasoning pieces kept verbatim from a provider (Anthropic thinking blocks
    with their signatures, Responses reasoning items, OpenRouter reasoning_details...), those
    of the given ``type``s (all with none): a writer sends back those of its own API as they
    came."""
    blocks = result.reasoning_blocks or []
    return [dict(block) for block in blocks if not types or block.get("type") in types]


def finish_kind(reason: str | None) -> FinishKind | None:
    """What a provider's finish or stop reason means; None for one not known here."""
    return None if reason is None else _FINISH_KINDS.get(reason)


def token_counts(usage: Mapping[str, Any] | None) -> TokenCounts | None:
    """The input and output token counts of any provider's usage object, or None."""
    for input_key, output_key in _TOKEN_KEYS:
        if usage and isinstance(usage.get(input_key), int) and isinstance(
                usage.get(output_key), int):
            return TokenCounts(usage[input_key], usage[output_key])
    return None
