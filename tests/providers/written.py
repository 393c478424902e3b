"""The results every writer test writes back, and the SDK types that check what is written."""

from __future__ import annotations

from typing import Any

from toolcalls.parsing._models import ParseResult, ToolCall

FULL = ParseResult(
    format="hermes", content="Checking both.", reasoning="Two cities: two calls.",
    calls=[ToolCall(id="call_a", name="get_weather", arguments={"location": "Paris"},
                    span=(0, 0)),
           ToolCall(id="call_b", name="get_weather",
                    arguments={"location": "Zürich", "units": {"deg": "C"}}, span=(0, 0))])
"""Reasoning, content and two calls, one with non-ASCII and nested arguments."""
TEXT_ONLY = ParseResult(format="hermes", content="Sunny, 21 °C.")
CALL_ONLY = ParseResult(format="hermes", content="",
                        calls=[ToolCall(id="call_x", name="now", arguments={}, span=(0, 0))])
EMPTY = ParseResult(format="hermes", content="")
RESULTS = {"full": FULL, "text_only": TEXT_ONLY, "call_only": CALL_ONLY, "empty": EMPTY}

OPTIONS: dict[str, Any] = {"model": "m-1", "id": "resp_1", "created": 1_700_000_000}


def arguments(calls: list[ToolCall]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(call.id, call.name, call.arguments) for call in calls]
