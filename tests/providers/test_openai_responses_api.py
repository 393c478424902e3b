"""OpenAI Responses (`toolcalls.providers.openai_responses`): tools, call and result items."""

from __future__ import annotations

from weather import CALL, WEATHER, WEATHER_SCHEMA

from toolcalls.providers._native import native_call_message, native_result_message, render_native


def test_openai_responses() -> None:
    assert render_native([WEATHER], "openai_responses") == {"tools": [{
        "type": "function", "name": "get_weather", "description": "Current weather",
        "parameters": WEATHER_SCHEMA, "strict": False,
    }]}
    assert native_call_message([CALL], "openai_responses", content="Checking.") == [
        {"type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": "Checking."}]},
        {"type": "function_call", "call_id": "call_1", "name": "get_weather",
         "arguments": '{"location": "Paris"}'},
    ]
    assert native_result_message(CALL, {"celsius": 18}, "openai_responses") == {
        "type": "function_call_output", "call_id": "call_1", "output": '{"celsius": 18}'}
