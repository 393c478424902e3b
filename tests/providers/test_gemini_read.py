"""Reading Gemini ``generateContent`` responses (`toolcalls.providers.gemini._response`),
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


# A signature holding "+" and "/" in standard base64 ("-" and "_" in base64url), unpadded
# as base64url may come: 32 bytes give 44 characters with one "=".
SIGNATURE_BYTES = bytes(range(250, 256)) + b"\xfb\xef\xbe" * 8 + b"\x00\x01"
SIGNATURE = "+vv8/f7/++++++++++++++++++++++++++++++++AAE="


def test_a_thought_signature_reads_the_same_from_the_sdk_object_and_the_raw_json() -> None:
    import base64

    assert base64.b64encode(SIGNATURE_BYTES).decode() == SIGNATURE
    raw = {"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "get_weather", "args": {"location": "Paris"}},
         "thoughtSignature": SIGNATURE}]}, "finishReason": "STOP", "index": 0}]}
    sdk = types.GenerateContentResponse.model_validate(raw)
    assert sdk.candidates[0].content.parts[0].thought_signature == SIGNATURE_BYTES
    dumped = sdk.model_dump(mode="json", by_alias=True, exclude_none=True)
    assert dumped["candidates"][0]["content"]["parts"][0]["thoughtSignature"] != SIGNATURE
    from_raw = toolcalls.read_response(raw)
    assert from_raw.reasoning_blocks == [raw["candidates"][0]["content"]["parts"][0]]
    assert toolcalls.read_response(sdk) == from_raw
    assert toolcalls.read_response(dumped) == from_raw
    # The SDK's python-mode dump holds bytes; base64url without padding reads the same too.
    python_mode = sdk.model_dump(by_alias=True, exclude_none=True)
    assert toolcalls.read_response(python_mode, "gemini") == from_raw
    unpadded = base64.urlsafe_b64encode(SIGNATURE_BYTES).decode().rstrip("=")
    raw_url = {"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "get_weather", "args": {"location": "Paris"}},
         "thoughtSignature": unpadded}]}, "finishReason": "STOP", "index": 0}]}
    assert toolcalls.read_response(raw_url) == from_raw


def test_a_signature_read_from_the_sdk_is_written_back_as_the_api_sent_it() -> None:
    from toolcalls.providers._response_writer import write_response

    raw = {"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "get_weather", "args": {"location": "Paris"}},
         "thoughtSignature": SIGNATURE}]}, "finishReason": "STOP", "index": 0}]}
    sdk = types.GenerateContentResponse.model_validate(raw)
    written = write_response(toolcalls.read_response(sdk), "gemini", model="gemini-2.5-pro",
                             id="r1", created=0)
    part = written["candidates"][0]["content"]["parts"][0]
    assert part["thoughtSignature"] == SIGNATURE


def test_the_text_of_a_part_that_also_holds_a_call_is_read_before_it() -> None:
    result = toolcalls.read_response(response([
        {"text": "Checking.", "functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}},
        {"text": "Thinking it over.", "thought": True,
         "functionCall": {"name": "get_time", "args": {}}},
    ]))
    assert result.content == "Checking." and result.reasoning == "Thinking it over."
    assert [(c.name, c.arguments) for c in result.calls] == [
        ("get_weather", {"city": "Oslo"}), ("get_time", {})]
    assert result.issues == []


def test_a_response_assembled_from_streamed_arguments_reads_them() -> None:
    result = toolcalls.read_response(response([
        {"functionCall": {"name": "get_weather", "willContinue": True}},
        {"functionCall": {"partialArgs": [{"jsonPath": "$.city", "stringValue": "Os",
                                           "willContinue": True}], "willContinue": True}},
        {"functionCall": {"partialArgs": [{"jsonPath": "$.city", "stringValue": "lo"}],
                          "willContinue": True}},
        {"functionCall": {}},
    ]))
    assert [(c.id, c.name, c.arguments) for c in result.calls] == [
        ("call_0", "get_weather", {"city": "Oslo"})]
    assert result.issues == [] and result.incomplete == []
