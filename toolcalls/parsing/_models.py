"""What a parse returns: calls, incomplete calls, issues and the result (pydantic v2).

A `ParseResult` accounts for every character of the text it came from: its `segments` tile the
input, each one content, reasoning, a call, an incomplete call or format markup, so
``"".join(text[s:e] for kind, s, e in segments if kind == "content") == result.content``.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, Field

__all__ = [
    "IncompleteCall",
    "ParseIssue",
    "ParseResult",
    "SegmentKind",
    "Span",
    "ToolCall",
]

Span = tuple[int, int]
"""Half-open character range ``[start, end)`` in the parsed text."""

SegmentKind = Literal["content", "reasoning", "call", "incomplete", "markup"]

class ToolCall(BaseModel):
    """One complete tool call: a name and a JSON object of arguments."""

    id: str
    """Assigned once, when the call starts; the model's own id where the format carries one."""
    name: str
    arguments: dict[str, Any]
    span: Span
    """Where the whole call (its markup included) sits in the text."""

    def arguments_json(self) -> str:
        """The arguments as the canonical JSON string that streaming emits."""
        return json.dumps(self.arguments, ensure_ascii=False)


class IncompleteCall(BaseModel):
    """A call that was started but cannot be run: cut off, or malformed beyond repair."""

    name: str | None
    raw: str
    """The exact text of the call, markup included."""
    span: Span


class ParseIssue(BaseModel):
    """Something the parser noticed and recovered from, or could not make sense of."""

    kind: str
    """A stable, machine-readable identifier such as ``unknown_tool`` or ``truncated_call``:
    every kind, with what it means, is in `toolcalls.parsing.issues.ISSUE_KINDS`."""
    message: str
    span: Span


class ParseResult(BaseModel):
    """Everything found in one model response."""

    format: str
    content: str
    reasoning: str | None = None
    calls: list[ToolCall] = Field(default_factory=list)
    incomplete: list[IncompleteCall] = Field(default_factory=list)
    issues: list[ParseIssue] = Field(default_factory=list)
    segments: list[tuple[SegmentKind, int, int]] = Field(default_factory=list)
    """Ordered, contiguous ranges that tile the input: the lossless accounting."""

    def tool_calls(self) -> list[dict[str, Any]]:
        """The calls in the shape of OpenAI's ``message.tool_calls`` (arguments as JSON text)."""
        return [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments_json()},
            }
            for call in self.calls
        ]


# Shown as ``toolcalls.X`` (reprs, docs, pickles) however they are reached: `toolcalls` exports
# them, but loads this module on first use, not at import (it needs pydantic).
for _public in (IncompleteCall, ParseIssue, ParseResult, ToolCall):
    _public.__module__ = "toolcalls"
