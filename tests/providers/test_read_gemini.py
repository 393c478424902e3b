"""Reading Gemini ``generateContent`` responses (`toolcalls.providers._gemini.read_response`),
built as the real `google-genai` SDK's `GenerateContentResponse`."""

from __future__ import annotations

from typing import Any

from google.genai import types

import toolcalls

USAGE = {"promptTokenCount": 86, "candidatesTokenCount": 17, "totalTokenCount": 151,
         "thoughtsTokenCount": 48}


def response(parts: list[dict[str, Any]], *, finish: str = "STOP",
             **extra: Any) -> types.GenerateContentResponse:
    return types.GenerateContentResponse.model_validate({
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": finish,
                        "index": 0}],
        "usageMetadata": USAGE, "modelVersion": "gemini-2.5-flash",
        "responseId": "mFnXaJ6dNImqz7IPmM2e2Qo", **extra,
    })


def test_function_calls_thoughts_and_text_are_read_in_order() -> None:
    result = toolcalls.read_response(response([
        {"text": "**Checking the weather**\nThe user asks for Paris.", "thought": True},
        {"text": "Let me check."},
        {"functionCall": {"name": "get_weather", "args": {"location": "Paris"}},
         "thoughtSignature": "CiQB0e2Kb3JkZmFrZXNpZ25hdHVyZQ=="},
        {"functionCall": {"id": "fc_2", "name": "get_time", "args": {}}},
    ]))
    assert result.provider == "gemini" and result.finish_reason == "STOP"
    assert [(c.id, c.name, c.arguments, c.source) for c in result.calls] == [
        ("call_0", "get_weather", {"location": "Paris"}, "native"),
        ("fc_2", "get_time", {}, "native")]
    assert result.reasoning == "**Checking the weather**\nThe user asks for Paris."
    assert result.content == "Let me check."
    assert result.usage == USAGE and result.issues == []
    assert result.reasoning_blocks == [
        {"functionCall": {"name": "get_weather", "args": {"location": "Paris"}},
         "thoughtSignature": "CiQB0e2Kb3JkZmFrZXNpZ25hdHVyZQ=="}]


def test_a_call_without_args_has_empty_arguments() -> None:
    result = toolcalls.read_response(response([{"functionCall": {"name": "list_files"}}]))
    assert [(c.name, c.arguments) for c in result.calls] == [("list_files", {})]


def test_code_execution_parts_are_not_calls() -> None:
    result = toolcalls.read_response(response([
        {"executableCode": {"language": "PYTHON", "code": "print(2 + 2)"}},
        {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "4\n"}},
        {"text": "The answer is 4."},
    ]))
    assert result.calls == [] and result.content == "The answer is 4."
    assert [i.kind for i in result.issues] == ["server_tool_call", "server_tool_call"]


def test_a_blocked_prompt_says_why_and_several_candidates_are_noted() -> None:
    blocked = types.GenerateContentResponse.model_validate(
        {"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": USAGE})
    result = toolcalls.read_response(blocked)
    assert result.provider == "gemini" and result.finish_reason == "SAFETY"
    assert result.calls == [] and result.content == ""
    data = response([{"text": "A"}]).model_dump(mode="json", by_alias=True, exclude_none=True)
    data["candidates"].append({"content": {"role": "model", "parts": [{"text": "B"}]},
                               "index": 1})
    two = toolcalls.read_response(data)
    assert two.content == "A" and [i.kind for i in two.issues] == ["other_choices"]


def test_the_sdks_snake_case_dump_reads_as_the_object() -> None:
    sdk = response([{"text": "Hi", "thought": True}, {"functionCall": {"name": "f", "args": {}}}],
                   finish="MAX_TOKENS")
    snake = toolcalls.read_response(sdk.model_dump(mode="json", exclude_none=True))
    read = toolcalls.read_response(sdk)
    assert (snake.calls, snake.reasoning, snake.finish_reason) == (
        read.calls, read.reasoning, "MAX_TOKENS")


def test_an_unknown_part_is_noted() -> None:
    part = {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}
    result = toolcalls.read_response(response([part]))
    assert [i.kind for i in result.issues] == ["unread_part"]
