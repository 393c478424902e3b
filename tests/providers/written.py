"""The results every writer test writes back, and the SDK types that check what is written."""

from __future__ import annotations

from collections.abc import Callable
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


def validators() -> dict[str, tuple[Callable[[Any], object], Callable[[Any], object]]]:
    """Per provider, the SDK's check of a whole response and of one stream chunk or event."""
    import ollama
    from anthropic.types import Message, RawMessageStreamEvent
    from google.genai.types import GenerateContentResponse
    from mistralai.client.models import ChatCompletionResponse, CompletionChunk
    from openai.types.chat import ChatCompletion, ChatCompletionChunk
    from openai.types.responses import Response, ResponseStreamEvent
    from pydantic import TypeAdapter

    return {
        "openai": (ChatCompletion.model_validate, ChatCompletionChunk.model_validate),
        "openai_responses": (Response.model_validate,
                             TypeAdapter(ResponseStreamEvent).validate_python),
        "anthropic": (Message.model_validate, TypeAdapter(RawMessageStreamEvent).validate_python),
        "gemini": (GenerateContentResponse.model_validate,
                   GenerateContentResponse.model_validate),
        "ollama": (ollama.ChatResponse.model_validate, ollama.ChatResponse.model_validate),
        "mistral": (ChatCompletionResponse.model_validate, CompletionChunk.model_validate),
    }

