"""Reading OpenAI Chat Completions responses (`toolcalls.providers.openai_chat._response`
through `toolcalls.read_response`), built as the real `openai` SDK's objects."""

from __future__ import annotations

import json
from typing import Any

import pytest
from openai.types.chat import ChatCompletion
from weather import WEATHER

import toolcalls

HERMES_CALL = (
    '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris"}}\n</tool_call>')
QWEN3_CODER_CALL = (
    "<tool_call>\n<function=get_weather>\n<parameter=location>\nParis\n</parameter>\n"
    "</function>\n</tool_call>"
)


def completion(message: dict[str, Any], *, model: str = "Qwen/Qwen2.5-7B-Instruct",
               finish_reason: str = "stop", **extra: Any) -> ChatCompletion:
    """A chat.completion as a vLLM server sends it, validated by the openai SDK."""
    return ChatCompletion.model_validate({
        "id": "chatcmpl-9f2c", "object": "chat.completion", "created": 1_733_000_000,
        "model": model,
        "choices": [{"index": 0, "logprobs": None, "finish_reason": finish_reason,
                     "message": {"role": "assistant", **message}}],
        "usage": {"prompt_tokens": 212, "completion_tokens": 31, "total_tokens": 243},
        **extra,
    })


def native(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function",
            "function": {"name": name, "arguments": arguments}}


def test_a_hermes_call_left_in_content_with_empty_tool_calls_is_read_from_the_text() -> None:
    # vLLM #17161: the server's tool parser missed the call, which stays in content.
    response = completion({"content": HERMES_CALL, "tool_calls": []})
    result = toolcalls.read_response(response, format="auto")
    assert result.provider == "openai" and result.format == "hermes"
    assert [(c.name, c.arguments, c.source) for c in result.calls] == [
        ("get_weather", {"location": "Paris"}, "text")]
    assert result.calls[0].span == (0, len(HERMES_CALL))
    assert result.content == "" and result.finish_reason == "stop"
    assert result.usage == {"prompt_tokens": 212, "completion_tokens": 31, "total_tokens": 243}


def test_a_qwen3_coder_call_left_in_content_is_read_in_the_format_the_model_id_names() -> None:
    response = completion({"content": "Let me check.\n" + QWEN3_CODER_CALL, "tool_calls": []},
                          model="Qwen/Qwen3-Coder-30B-A3B-Instruct", finish_reason="stop")
    result = toolcalls.read_response(response, format="auto", tools=[WEATHER])
    assert result.format == "qwen3_coder"
    assert [(c.name, c.arguments) for c in result.calls] == [("get_weather", {"location": "Paris"})]
    assert result.content.strip() == "Let me check." and result.issues == []


def test_native_calls_come_first_with_their_ids_then_the_text_calls() -> None:
    response = completion({"content": HERMES_CALL, "tool_calls": [
        native("call_0", "get_time", '{"zone": "CET"}')]}, finish_reason="tool_calls")
    result = toolcalls.read_response(response, format="hermes")
    assert [(c.id, c.name, c.source) for c in result.calls] == [
        ("call_0", "get_time", "native"), ("call_1", "get_weather", "text")]
    assert result.calls[0].span is None and result.calls[0].arguments == {"zone": "CET"}
    assert result.finish_reason == "tool_calls"
    assert [call["id"] for call in result.tool_calls()] == ["call_0", "call_1"]


def test_invalid_json_arguments_give_an_incomplete_call_with_an_issue_not_a_dropped_one() -> None:
    response = completion({"content": None, "tool_calls": [
        native("call_a", "get_weather", '{"location": "Par'),
        native("call_b", "get_weather", '{"location": "Rome"}')]}, finish_reason="length")
    result = toolcalls.read_response(response)
    assert [(c.id, c.arguments) for c in result.calls] == [("call_b", {"location": "Rome"})]
    (cut,) = result.incomplete
    assert (cut.name, cut.raw, cut.span, cut.source) == (
        "get_weather", '{"location": "Par', None, "native")
    (issue,) = result.issues
    assert issue.kind == "invalid_arguments" and issue.span is None and "call_a" in issue.message


@pytest.mark.parametrize("arguments", ["", "  ", None, "missing"])
def test_empty_null_or_missing_arguments_mean_an_empty_object(arguments: str | None) -> None:
    function: dict[str, Any] = {"name": "get_time"}
    if arguments != "missing":
        function["arguments"] = arguments
    data = {"model": "gpt-4o", "choices": [{"index": 0, "finish_reason": "tool_calls",
            "message": {"role": "assistant", "content": None,
                        "tool_calls": [{"id": "call_x", "type": "function",
                                        "function": function}]}}]}
    result = toolcalls.read_response(data)
    assert [(c.id, c.arguments) for c in result.calls] == [("call_x", {})]
    assert result.issues == [] and result.incomplete == []


def test_arguments_encoded_twice_are_decoded_with_an_issue() -> None:
    twice = json.dumps(json.dumps({"location": "Oslo"}))
    response = completion({"tool_calls": [native("c", "get_weather", twice)]})
    result = toolcalls.read_response(response)
    assert result.calls[0].arguments == {"location": "Oslo"}
    assert [issue.kind for issue in result.issues] == ["arguments_as_string"]


def test_arguments_that_are_json_but_not_an_object_are_incomplete() -> None:
    result = toolcalls.read_response(completion({"tool_calls": [native("c", "f", "[1, 2]")]}))
    assert result.calls == [] and result.incomplete[0].raw == "[1, 2]"
    assert result.issues[0].kind == "invalid_arguments"


def test_reasoning_from_reasoning_content_or_reasoning_and_from_think_in_the_text() -> None:
    deepseek = completion({"content": "It is sunny.", "reasoning_content": "The user asks."},
                          model="deepseek-reasoner")
    assert toolcalls.read_response(deepseek).reasoning == "The user asks."
    vllm = completion({"content": "Hi", "reasoning": "Greet back.",
                       "reasoning_content": "Greet back."})
    assert toolcalls.read_response(vllm).reasoning == "Greet back."  # the same, once
    think = completion({"content": "<think>Call it.</think>" + HERMES_CALL})
    result = toolcalls.read_response(think, format="hermes")
    assert result.reasoning == "Call it." and result.calls[0].name == "get_weather"


def test_openrouter_reasoning_details_are_kept_to_send_back() -> None:
    details = [{"type": "reasoning.text", "text": "Think.", "signature": "EqQBCkgIBxAB",
                "format": "anthropic-claude-v1", "index": 0}]
    response = completion({"content": "Done.", "reasoning": "Think.",
                           "reasoning_details": details}, model="anthropic/claude-sonnet-4")
    result = toolcalls.read_response(response)
    assert result.reasoning == "Think." and result.reasoning_blocks == details


def test_a_refusal_is_content() -> None:
    result = toolcalls.read_response(completion({"content": None,
                                                 "refusal": "I can't help with that."}))
    assert result.content == "I can't help with that." and result.calls == []


def test_without_a_format_the_text_is_not_parsed_for_calls() -> None:
    result = toolcalls.read_response(completion({"content": HERMES_CALL}))
    assert result.calls == [] and result.content == HERMES_CALL and result.format == "none"


def test_auto_takes_the_markup_when_the_model_ids_format_reads_no_call() -> None:
    # vLLM #46863: the format picked by model name is not what the model wrote.
    text = '[TOOL_CALLS][{"name": "get_weather", "arguments": {"location": "Paris"}}]'
    response = completion({"content": text}, model="NousResearch/Hermes-3-Llama-3.1-8B")
    result = toolcalls.read_response(response, format="auto")
    assert result.format == "mistral" and result.calls[0].name == "get_weather"


def test_the_sdk_object_its_dict_and_its_json_text_read_alike() -> None:
    response = completion({"content": HERMES_CALL, "tool_calls": [
        native("call_9", "get_time", "{}")]})
    read = toolcalls.read_response(response, format="hermes")
    assert toolcalls.read_response(response.to_dict(), format="hermes") == read
    assert toolcalls.read_response(response.model_dump(), format="hermes").calls == read.calls
    assert toolcalls.read_response(response.to_json(), format="hermes") == read
    assert toolcalls.read_response(response.to_json().encode(), "openai", format="hermes") == read


def test_a_native_call_to_an_undeclared_tool_gets_an_issue() -> None:
    response = completion({"tool_calls": [native("call_1", "get_time", "{}")]})
    result = toolcalls.read_response(response, tools=[WEATHER])
    assert result.calls[0].name == "get_time"
    assert [(i.kind, i.span) for i in result.issues] == [("unknown_tool", None)]


def test_a_native_call_by_alias_carries_the_tools_name() -> None:
    tools = [{"name": "get_weather", "aliases": ["weather"], "parameters": WEATHER.parameters}]
    response = completion({"tool_calls": [native("call_1", "weather", '{"city": "Paris"}'),
                                          native("call_2", "weather", '{"city": ')]})
    result = toolcalls.read_response(response, tools=tools)
    assert [(c.id, c.name) for c in result.calls] == [("call_1", "get_weather")]
    assert [c.name for c in result.incomplete] == ["get_weather"]
    assert [(i.kind, i.span) for i in result.issues] == [
        ("invalid_arguments", None), ("alias_used", None), ("alias_used", None)]
    assert "'weather', an alias of 'get_weather'" in result.issues[1].message


def test_several_choices_read_the_first_and_say_so() -> None:
    data = completion({"content": "A"}).model_dump()
    data["choices"].append({**data["choices"][0], "index": 1,
                            "message": {"role": "assistant", "content": "B"}})
    result = toolcalls.read_response(data)
    assert result.content == "A" and [i.kind for i in result.issues] == ["other_choices"]


def test_a_custom_tool_call_is_kept_raw_as_incomplete() -> None:
    response = completion({"tool_calls": [{"id": "call_c", "type": "custom",
                                           "custom": {"name": "sql", "input": "SELECT 1"}}]})
    result = toolcalls.read_response(response)
    assert result.calls == [] and (result.incomplete[0].name, result.incomplete[0].raw) == (
        "sql", "SELECT 1")
    assert result.issues[0].kind == "custom_tool_call"


def test_a_call_without_a_name_is_incomplete() -> None:
    data = {"choices": [{"message": {"tool_calls": [
        {"id": "c", "type": "function", "function": {"arguments": "{}"}}]}}]}
    result = toolcalls.read_response(data)
    assert result.calls == [] and result.issues[0].kind == "malformed_call"


def test_a_shape_no_provider_has_is_refused_and_so_is_an_unknown_provider() -> None:
    with pytest.raises(ValueError, match="provider="):
        toolcalls.read_response({"text": "hi"})
    with pytest.raises(ValueError, match="unknown provider"):
        toolcalls.read_response({"choices": []}, "cohere")
    with pytest.raises(ValueError, match="a response is a JSON object, not an array"):
        toolcalls.read_response("[1, 2]")  # JSON text of another kind: a value error
    with pytest.raises(TypeError, match="a response is a JSON object, not list"):
        toolcalls.read_response([1, 2])  # a Python object of another type: a type error


def test_what_is_not_text_reasoning_or_a_call_is_an_issue_not_dropped_silently() -> None:
    response = {
        "id": "c", "object": "chat.completion", "created": 0, "model": "gpt-4o-audio-preview",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant", "audio": {"id": "a", "data": "UklG", "expires_at": 0,
                                           "transcript": "hi"},
            "content": [{"type": "text", "text": "Hello"}, {"type": "image_url"}],
            "tool_calls": ["not a call"]}}],
    }
    result = toolcalls.read_response(response)
    assert result.content == "Hello"
    assert [issue.kind for issue in result.issues] == [
        "malformed_call", "unread_part", "unread_part"]


def test_annotations_url_citations_are_content_metadata_not_kept() -> None:
    # Search models (gpt-4o-search-preview) cite URLs in message.annotations.
    response = completion({"content": "Paris is sunny today ([example.com](https://example.com)).",
                           "annotations": [{"type": "url_citation", "url_citation": {
                               "start_index": 21, "end_index": 57, "title": "Paris weather",
                               "url": "https://example.com"}}]})
    result = toolcalls.read_response(response)
    assert result.content == "Paris is sunny today ([example.com](https://example.com))."
    assert result.issues == [] and result.calls == []
