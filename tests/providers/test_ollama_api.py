"""Ollama's /api/chat (`toolcalls.providers.ollama`): OpenAI's tools, its own history."""

from __future__ import annotations

from weather import CALL, WEATHER

from toolcalls.providers._native import native_call_message, native_result_message, render_native


def test_ollama() -> None:
    assert render_native([WEATHER], "ollama") == render_native([WEATHER], "openai")
    assert native_call_message([CALL], "ollama") == [{
        "role": "assistant", "content": "",
        "tool_calls": [{"function": {"name": "get_weather", "arguments": {"location": "Paris"}}}],
    }]
    assert native_result_message(CALL, "18°C", "ollama") == {
        "role": "tool", "tool_name": "get_weather", "content": "18°C"}
