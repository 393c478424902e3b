"""What each provider module gives the dispatch in `_native`: one `NativeProvider`.

A provider module (`_openai_chat`, `_openai_responses`, `_anthropic`, `_gemini`, `_ollama`) holds
everything about one provider API's JSON: the ``tools`` field it is sent, the assistant turn
that carries calls, the turn that carries results, reading tools back from its shape, and
reading its whole responses. Its siblings ``_<provider>_stream`` and ``_<provider>_write`` read
its streams and write its responses back; each dispatch (`_native`, `_read`, `_stream`,
`_write`) finds a provider's part by the same name (`by_provider`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ..parsing._models import ToolCall
from ..tools._tool import Tool

__all__ = ["Message", "NativeProvider", "ToolResult", "as_text", "by_provider"]

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


_Part = TypeVar("_Part")


def by_provider(table: Mapping[str, _Part], provider: str, doing: str) -> _Part:
    """``table[provider]``; for a name it lacks, a ValueError naming those it has, where
    `doing` says what the table is for ("responses are read from")."""
    try:
        return table[provider]
    except KeyError:
        known = ", ".join(table)
        raise ValueError(f"unknown provider {provider!r}; {doing} {known}") from None
