"""The JSON pieces every provider writes: a message (any JSON object of an API) and one call's
result as the history functions hand it to `Provider.render_results`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..parsing._models import ToolCall

__all__ = ["Message", "ToolResult", "as_text"]

Message = dict[str, Any]


@dataclass(frozen=True)
class ToolResult:
    """One call's result, as the dispatch hands it to a provider's `Provider.render_results`."""

    call: ToolCall
    value: Any
    is_error: bool


def as_text(value: Any) -> str:
    """A result for an API that takes text: a string as it is, any other value as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
