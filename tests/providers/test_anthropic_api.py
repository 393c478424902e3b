"""Anthropic Messages (`toolcalls.providers.anthropic`): tools, tool_use and tool_result blocks."""

from __future__ import annotations

from weather import CALL, WEATHER, WEATHER_SCHEMA

from toolcalls.providers._native import native_call_message, native_result_message, render_native


def test_anthropic_messages() -> None:
    assert render_native([WEATHER], "anthropic") == {"tools": [{
        "name": "get_weather", "description": "Current weather", "input_schema": WEATHER_SCHEMA,
    }]}
    assert native_call_message([CALL], "anthropic", content="Checking.") == [{
        "role": "assistant",
        "content": [{"type": "text", "text": "Checking."},
                    {"type": "tool_use", "id": "call_1", "name": "get_weather",
                     "input": {"location": "Paris"}}],
    }]
    assert native_result_message(CALL, "no such city", "anthropic", is_error=True) == {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "no such city",
                     "is_error": True}],
    }
