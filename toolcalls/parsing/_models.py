"""What a parse returns: calls, incomplete calls, issues and the result (pydantic v2).

A `ParseResult` accounts for every character of the text it came from: its `segments` tile the
input, each one content, reasoning, a call, an incomplete call or format markup, so
``"".join(text[s:e] for kind, s, e in segments if kind == "content") == result.content``.

A result read from a provider's response (`toolcalls.read_response`) holds the calls the API
returned natively too: those have ``source="native"`` and no span (they are not in the text),
and come before the calls parsed from the text. Such a result also says which `provider` it
came from, why the turn ended (`finish_reason`), the token `usage`, and the reasoning pieces the
provider wants back verbatim with the turn (`reasoning_blocks`).
"""

from __future__ import annotations

import json
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field, model_validator

__all__ = [
    "CallSource",
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

CallSource = Literal["text", "native"]
"""Where a call came from: parsed from the text, or returned by the provider's API as a call."""

_Spanned = TypeVar("_Spanned", bound=BaseModel)


class ToolCall(BaseModel):
    """One complete tool call: a name and a JSON object of arguments."""

    id: str
    """Assigned once, when the call starts; the model's own id where the format carries one."""
    name: str
    arguments: dict[str, Any]
    span: Span | None = None
    """Where the whole call (its markup included) sits in the text; None only for a native
    call, which is not in the text."""
    source: CallSource = "text"

    @model_validator(mode="after")
    def _text_calls_have_a_span(self) -> ToolCall:
        return _spanned(self, self.span, self.source)

    def arguments_json(self) -> str:
        """The arguments as the canonical JSON string that streaming emits."""
        return json.dumps(self.arguments, ensure_ascii=False)


class IncompleteCall(BaseModel):
    """A call that was started but cannot be run: cut off, or malformed beyond repair."""

    name: str | None
    raw: str
    """The exact text of the call, markup included; for a native call, its arguments as the
    provider sent them."""
    span: Span | None = None
    """Where the call sits in the text; None only for a native call."""
    source: CallSource = "text"

    @model_validator(mode="after")
    def _text_calls_have_a_span(self) -> IncompleteCall:
        return _spanned(self, self.span, self.source)


class ParseIssue(BaseModel):
    """Something the parser noticed and recovered from, or could not make sense of."""

    kind: str
    """A stable, machine-readable identifier such as ``unknown_tool`` or ``truncated_call``:
    every kind, with what it means, is in `toolcalls.parsing.issues.ISSUE_KINDS`."""
    message: str
    span: Span | None
    """Where in the text; None for an issue about a native piece of a response (a call's
    arguments as the provider sent them), which the message names."""


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
    provider: str | None = None
    """The provider API a response was read from (`toolcalls.read_response`); None for text."""
    finish_reason: str | None = None
    """Why the provider says the turn ended, as it spells it (``stop``, ``tool_calls``,
    ``end_turn``, ``STOP``...)."""
    usage: dict[str, Any] | None = None
    """The provider's token usage object, as it gave it."""
    reasoning_blocks: list[dict[str, Any]] | None = None
    """The provider's reasoning pieces exactly as it gave them, for a caller to send back with
    the turn: Anthropic ``thinking`` blocks (with their ``signature``) and ``redacted_thinking``
    blocks, Gemini parts that carry a ``thoughtSignature``, Responses ``reasoning`` items. Their
    text is in `reasoning` as well."""

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


def _spanned(model: _Spanned, span: Span | None, source: CallSource) -> _Spanned:
    if span is None and source == "text":
        raise ValueError("a call parsed from text has a span; only a native call has none")
    return model


# Shown as ``toolcalls.X`` (reprs, docs, pickles) however they are reached: `toolcalls` exports
# them, but loads this module on first use, not at import (it needs pydantic).
for _public in (IncompleteCall, ParseIssue, ParseResult, ToolCall):
    _public.__module__ = "toolcalls"
