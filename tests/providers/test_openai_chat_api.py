"""OpenAI Chat Completions (`toolcalls.providers.openai_chat`): tools, calls and results."""

from __future__ import annotations

from weather import CALL, WEATHER, WEATHER_SCHEMA

from toolcalls.providers._native import native_call_message, native_result_message, render_native


def test_openai_chat_completions() -> None:
    assert render_native([WEATHER], "openai") == {"tools": [{
        "type": "function",
        "function": {"name": "get_weather", "description": "Current weather",
                     "parameters": WEATHER_SCHEMA},
    }]}
    assert native_call_message([CALL], "openai") == [{
        "role": "assistant", "content": None,
        "tool_calls": [{"id": "call_1", "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"location": "Paris"}'}}],
    }]
    assert native_result_message(CALL, "18°C", "openai") == {
        "role": "tool", "tool_call_id": "call_1", "content": "18°C"}
