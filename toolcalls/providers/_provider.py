"""What each provider module gives the dispatch in `_native`: one `NativeProvider`.

A provider module (`_openai_chat`, `_openai_responses`, `_anthropic`, `_gemini`, `_ollama`) holds
everything about one provider API's JSON: the ``tools`` field it is sent, the assistant turn
that carries calls, the turn that carries results, and reading tools back from its shape. The
responses issue adds reading that API's responses and streams to the same module, so that
what is sent and what comes back cannot drift apart.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..parsing._models import ToolCall
from ..tools._tool import Tool

__all__ = ["Message", "NativeProvider", "ToolResult", "as_text"]

Message = dict[str, Any]


@dataclass(frozen=True)
class ToolResult:
    """One call's result, as the dispatch hands it to a provider's `NativeProvider.results`."""

    call: ToolCall
    value: Any
    is_error: bool


@dataclass(frozen=True)
class NativeProvider:
    """How one provider's API spells tools, calls and results."""

    tools: Callable[[Sequence[Tool]], Message]
    calls: Callable[[Sequence[ToolCall], str | None], list[Message]]
    results: Callable[[Sequence[ToolResult]], list[Message]]
    read_tools: Callable[[Any], list[Tool]]


def as_text(value: Any) -> str:
    """A result for an API that takes text: a string as it is, any other value as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
