"""`read_response(..., "mistral")`: each Mistral fixture's calls, text, reasoning, finish and
usage; thinking chunks, object arguments, the error body, and hostile input never raising."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mistralai.client.models import ChatCompletionResponse

import toolcalls
from toolcalls.providers import write_response
from toolcalls.providers._registry import detect_provider

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "providers" / "mistral"


def fixture(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def response(content: Any = "", tool_calls: Any = None, finish: str = "stop") -> dict[str, Any]:
    return {"id": "0a1b", "object": "chat.completion", "created": 1, "model": "mistral-small",
            "choices": [{"index": 0, "finish_reason": finish,
                         "message": {"role": "assistant", "content": content,
                                     "tool_calls": tool_calls}}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}}


def test_a_recorded_call_keeps_its_id_and_usage() -> None:
    result = toolcalls.read_response(fixture("mistral_large_tool_call.json"), "mistral")
    assert result.provider == "mistral"
    assert [(c.id, c.name, c.arguments) for c in result.calls] == [
        ("KikbB849t", "get_weather", {"city": "Paris"})]
    assert result.finish_reason == "tool_calls"
    assert result.usage is not None and result.usage["num_cached_tokens"] == 76
    assert result.issues == []


def test_thinking_chunks_are_the_reasoning_and_text_chunks_the_content() -> None:
    data = fixture("magistral_medium_thinking_chunks.json")
    result = toolcalls.read_response(data, "mistral")
    chunks = data["choices"][0]["message"]["content"]
    assert result.reasoning == chunks[0]["thinking"][0]["text"]
    assert result.content == chunks[1]["text"]
    assert result.issues == []


def test_openai_reads_the_same_response_without_its_reasoning() -> None:
    """Detection calls a Mistral response "openai": its text is read, its thinking noted."""
    data = fixture("mistral_small_thinking_high.json")
    assert detect_provider(data) == "openai"
    as_openai = toolcalls.read_response(data)
    assert as_openai.content == "4" and not as_openai.reasoning
    assert [issue.kind for issue in as_openai.issues] == ["unread_part"]
    assert toolcalls.read_response(data, "mistral").reasoning.startswith("The user is asking")


def test_the_sdk_object_reads_as_its_json() -> None:
    data = fixture("magistral_medium_thinking_chunks.json")
    sdk = ChatCompletionResponse.model_validate(data)
    assert toolcalls.read_response(sdk, "mistral") == toolcalls.read_response(data, "mistral")


def test_object_arguments_and_string_arguments_both_read() -> None:
    result = toolcalls.read_response(
        fixture("constructed_parallel_calls_object_arguments.json"), "mistral")
    assert [(c.id, c.arguments) for c in result.calls] == [
        ("Qb7mX2pLw", {"city": "Paris"}), ("Hn4vR8sKd", {"city": "Lyon"})]
    assert result.issues == []


def test_model_length_is_kept_as_mistral_said_it() -> None:
    result = toolcalls.read_response(response("cut", finish="model_length"), "mistral")
    assert result.finish_reason == "model_length"
    anthropic = write_response(result, "anthropic")
    assert anthropic["stop_reason"] == "max_tokens"


def test_the_error_body_is_a_provider_error() -> None:
    body = {"object": "error", "message": "Tool call id was call_0 but must be a-z, A-Z, 0-9, "
            "with a length of 9.", "type": "invalid_request_message_error", "param": None,
            "code": "3230"}
    result = toolcalls.read_response(body, "mistral")
    assert result.finish_reason == "error"
    [issue] = result.issues
    assert issue.kind == "provider_error" and "with a length of 9" in issue.message
    assert "invalid_request_message_error" in issue.message


def test_chunks_that_are_not_text_are_issues() -> None:
    content = [{"type": "text", "text": "See "}, {"type": "reference", "reference_ids": [1]},
               {"type": "thinking", "thinking": [{"type": "text", "text": "hm"},
                                                 {"type": "tool_reference", "tool": "x"}]},
               {"type": "image_url", "image_url": "data:image/png;base64,AA"}]
    result = toolcalls.read_response(response(content), "mistral")
    assert result.content == "See " and result.reasoning == "hm"
    assert [issue.kind for issue in result.issues] == ["unread_part"] * 3


DEEP: Any = []
for _ in range(5000):
    DEEP = [DEEP]

HOSTILE: list[Any] = [
    response(5), response([5, None, "x"]), response([{"type": "thinking", "thinking": 7}]),
    response([{"type": "thinking", "thinking": [{"type": "text", "text": 3}]}]),
    response([{"type": "thinking", "thinking": [{"type": "text", "text": "\ud800"}]}]),
    response("\udfff"), response("", tool_calls=5), response("", tool_calls=[7]),
    response("", tool_calls=[{"id": "\ud800", "function": {"name": "f", "arguments": "{}"}}]),
    *(response("", tool_calls=[{"id": "a", "function": {"name": "f", "arguments": arguments}}])
      for arguments in ({"x": float("nan")}, '{"x": NaN}', {"x": DEEP}, "[" * 5000)),
    response(DEEP), {"choices": 5}, {"choices": [5]}, {"choices": [{"message": [1]}]},
    {"object": "error", "message": DEEP}, {"object": "error"}, {},
]


@pytest.mark.parametrize("data", HOSTILE)
def test_malformed_input_never_raises(data: Any) -> None:
    result = toolcalls.read_response(data, "mistral")
    json.dumps(result.model_dump(mode="json"), allow_nan=False).encode()
    reader = toolcalls.read_stream("mistral")
    choices = data.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        data = {**data, "choices": [{**choices[0], "delta": choices[0].get("message")}]}
    reader.feed(data)
    reader.close()
    json.dumps(reader.result().model_dump(mode="json"), allow_nan=False).encode()
