"""Streaming events: what `StreamParser.feed` and `close` return.

Events are commit-once: none is ever retracted or rewritten. For every call, the
`ArgumentsDelta.fragment` strings between its `ToolCallStart` and `ToolCallEnd` concatenate to
JSON that decodes to exactly the final ``call.arguments``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # annotations only: the models (pydantic) load on first use, not at import
    from ._models import CallSource, IncompleteCall, ToolCall

__all__ = [
    "ArgumentsDelta",
    "Event",
    "ReasoningDelta",
    "TextDelta",
    "ToolCallEnd",
    "ToolCallFailed",
    "ToolCallStart",
]


@dataclass(frozen=True, slots=True)
class TextDelta:
    """Content text, final once emitted."""

    text: str
    kind: Literal["text"] = "text"


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    """Reasoning text (``<think>``, the harmony analysis channel, ...)."""

    text: str
    kind: Literal["reasoning"] = "reasoning"


@dataclass(frozen=True, slots=True)
class ToolCallStart:
    """A call has begun; its name and id are final.

    `source` says where it came from, as `ToolCall.source` does: ``"text"`` (read from the
    model's text by a format) or ``"native"`` (sent by the provider as a call), so a reader of
    the events (the proxy, which gives text calls fresh ids) need not ask the parser back.
    """

    index: int
    id: str
    name: str
    source: CallSource = "text"
    kind: Literal["tool_call_start"] = "tool_call_start"


@dataclass(frozen=True, slots=True)
class ArgumentsDelta:
    """The next piece of the call's arguments, as canonical JSON text."""

    index: int
    fragment: str
    kind: Literal["arguments_delta"] = "arguments_delta"


@dataclass(frozen=True, slots=True)
class ToolCallEnd:
    """The call is complete and may be run."""

    index: int
    call: ToolCall
    kind: Literal["tool_call_end"] = "tool_call_end"


@dataclass(frozen=True, slots=True)
class ToolCallFailed:
    """A call was cut off or turned out malformed; it must not be run.

    `index` is None when the call failed before its name was known (no `ToolCallStart`).
    """

    index: int | None
    incomplete: IncompleteCall
    kind: Literal["tool_call_failed"] = "tool_call_failed"


Event = TextDelta | ReasoningDelta | ToolCallStart | ArgumentsDelta | ToolCallEnd | ToolCallFailed
