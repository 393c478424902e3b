"""Reading Ollama ``/api/chat`` responses (`toolcalls.providers.ollama.Ollama.read_response`), built
as the real `ollama` SDK's `ChatResponse`."""

from __future__ import annotations

from typing import Any

import ollama

import toolcalls

HERMES_CALL = (
    '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Oslo"}}\n</tool_call>')


def chat_response(message: dict[str, Any], *, model: str = "qwen3:8b",
                  done_reason: str = "stop") -> ollama.ChatResponse:
    """A final /api/chat response (stream: false), as Ollama 0.9+ sends it."""
    return ollama.ChatResponse.model_validate({
        "model": model, "created_at": "2025-06-02T10:11:12.345678Z",
        "message": {"role": "assistant", **message},
        "done": True, "done_reason": done_reason, "total_duration": 4_883_583_458,
        "load_duration": 1_334_875, "prompt_eval_count": 162, "prompt_eval_duration": 2_917_000,
        "eval_count": 24, "eval_duration": 4_878_208_000,
    })


def test_object_arguments_are_taken_as_they_are_and_thinking_is_reasoning() -> None:
    response = chat_response({
        "content": "", "thinking": "The user wants the weather in Paris.",
        "tool_calls": [{"function": {"name": "get_weather",
                                     "arguments": {"location": "Paris", "days": 2}}}]})
    result = toolcalls.read_response(response)
    assert result.provider == "ollama" and result.finish_reason == "stop"
    assert [(c.id, c.name, c.arguments, c.source) for c in result.calls] == [
        ("call_0", "get_weather", {"location": "Paris", "days": 2}, "native")]
    assert result.reasoning == "The user wants the weather in Paris."
    assert result.usage == {"prompt_eval_count": 162, "eval_count": 24,
                            "total_duration": 4_883_583_458, "load_duration": 1_334_875,
                            "prompt_eval_duration": 2_917_000, "eval_duration": 4_878_208_000}


def test_several_calls_without_ids_are_numbered_in_order() -> None:
    calls = [{"function": {"name": "get_weather", "arguments": {"location": city}}}
             for city in ("Paris", "Rome")]
    result = toolcalls.read_response(chat_response({"content": "", "tool_calls": calls}))
    assert [(c.id, c.arguments["location"]) for c in result.calls] == [
        ("call_0", "Paris"), ("call_1", "Rome")]


def test_a_call_left_in_content_is_read_in_the_format_of_the_model() -> None:
    # Ollama's own parser missed it: the call is in content, tool_calls absent.
    response = chat_response({"content": HERMES_CALL}, model="qwen2.5:7b")
    assert toolcalls.read_response(response).calls == []  # format=None: the text is not parsed
    result = toolcalls.read_response(response, format="auto")
    assert [(c.name, c.arguments, c.source) for c in result.calls] == [
        ("get_weather", {"location": "Oslo"}, "text")]


def test_the_dict_and_json_text_read_as_the_sdk_object() -> None:
    response = chat_response({"content": "Hello!"})
    read = toolcalls.read_response(response)
    assert read.content == "Hello!" and read.calls == [] and read.format == "none"
    assert toolcalls.read_response(response.model_dump_json()) == read
    assert toolcalls.read_response(dict(response.model_dump(exclude_none=True))) == read


def test_a_response_cut_at_the_length_limit_says_so() -> None:
    response = chat_response({"content": "The weather in"}, done_reason="length")
    assert toolcalls.read_response(response).finish_reason == "length"
