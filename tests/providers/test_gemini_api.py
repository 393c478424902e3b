"""Gemini (`toolcalls.providers.gemini`): declarations, functionCall and functionResponse parts."""

from __future__ import annotations

from weather import CALL, WEATHER

from toolcalls.providers._native import native_call_message, native_result_message, render_native
from toolcalls.tools._tool import Tool


def test_gemini() -> None:
    assert render_native([WEATHER, Tool(name="now")], "gemini") == {"tools": [{
        "functionDeclarations": [
            {"name": "get_weather", "description": "Current weather", "parameters": {
                "type": "OBJECT",
                "properties": {"location": {"type": "STRING", "description": "City"}},
                "required": ["location"]}},
            {"name": "now", "description": ""},
        ]}]}
    assert native_call_message([CALL], "gemini") == [{
        "role": "model",
        "parts": [{"functionCall": {"id": "call_1", "name": "get_weather",
                                    "args": {"location": "Paris"}}}],
    }]
    assert native_result_message(CALL, "18°C", "gemini") == {
        "role": "user",
        "parts": [{"functionResponse": {"id": "call_1", "name": "get_weather",
                                        "response": {"result": "18°C"}}}],
    }
    error = native_result_message(CALL, "timeout", "gemini", is_error=True)
    assert error["parts"][0]["functionResponse"]["response"] == {"error": "timeout"}
