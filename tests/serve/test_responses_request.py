"""OpenAI Responses requests checked and translated into Chat Completions requests
(`toolcalls.serve._responses_request`), against the bodies the real openai SDK sends."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import openai
import pytest
from test_requests import WEATHER

from toolcalls.serve._requests import RequestError, validate_chat_request
from toolcalls.serve._responses_request import chat_request_from_responses

FLAT_WEATHER = {"type": "function", **WEATHER["function"]}
_RESPONSE = {"id": "resp_1", "object": "response", "created_at": 0, "model": "m",
             "status": "completed", "output": [], "tools": [], "parallel_tool_calls": True,
             "tool_choice": "auto"}


def sent_by_openai(**params: Any) -> dict[str, Any]:
    """The request body the real `openai` SDK sends for `responses.create(**params)`."""
    sent: list[dict[str, Any]] = []

    def handle(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        return httpx2.Response(200, json=_RESPONSE)

    http = httpx2.Client(transport=httpx2.MockTransport(handle))
    with openai.OpenAI(api_key="k", base_url="http://proxy.test/v1", http_client=http) as client:
        client.responses.create(**params)
    return sent[0]


def test_a_whole_tool_loop_history_translates() -> None:
    body = sent_by_openai(
        model="m", instructions="Be brief.", tools=[FLAT_WEATHER], store=False,
        tool_choice={"type": "function", "name": "get_weather"}, parallel_tool_calls=False,
        max_output_tokens=100, temperature=0.5, top_p=0.9, metadata={"run": "1"}, input=[
            {"role": "developer", "content": "Use tools."},
            {"role": "user", "content": [{"type": "input_text", "text": "Weather in "},
                                         {"type": "input_text", "text": "Paris?"}]},
            {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"},
            {"type": "message", "role": "assistant", "id": "msg_1", "status": "completed",
             "content": [{"type": "output_text", "text": "Looking.", "annotations": []}]},
            {"type": "function_call", "id": "fc_1", "call_id": "call_a",
             "name": "get_weather", "arguments": '{"city": "Paris"}'},
            {"type": "function_call", "id": "fc_2", "call_id": "call_b",
             "name": "get_weather", "arguments": ""},
            {"type": "function_call_output", "call_id": "call_a", "output": "sunny"},
            {"type": "function_call_output", "call_id": "call_b", "output": "rainy"}])
    chat = chat_request_from_responses(body)
    assert chat["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "system", "content": "Use tools."},
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": "Looking.", "tool_calls": [
            {"id": "call_a", "type": "function",
             "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
            {"id": "call_b", "type": "function",
             "function": {"name": "get_weather", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_a", "content": "sunny"},
        {"role": "tool", "tool_call_id": "call_b", "content": "rainy"}]
    assert chat["tools"] == [WEATHER]
    assert chat["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}
    assert (chat["parallel_tool_calls"], chat["max_tokens"], chat["temperature"],
            chat["top_p"]) == (False, 100, 0.5, 0.9)
    assert not {"store", "metadata", "input", "instructions"} & set(chat)
    assert validate_chat_request(chat) is chat


def test_a_string_input_is_one_user_message() -> None:
    chat = chat_request_from_responses(sent_by_openai(model="m", input="Hi", stream=False))
    assert chat == {"model": "m", "messages": [{"role": "user", "content": "Hi"}],
                    "stream": False}


def test_images_go_as_image_parts_and_after_tool_messages() -> None:
    image = {"type": "input_image", "image_url": "data:image/png;base64,iVBO", "detail": "low"}
    chat = chat_request_from_responses({"model": "m", "input": [
        {"role": "user", "content": [{"type": "input_text", "text": "Look"}, image]},
        {"type": "function_call", "call_id": "c", "name": "shot", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c",
         "output": [{"type": "input_text", "text": "taken"}, image]}]})
    part = {"type": "image_url", "image_url": {"url": image["image_url"], "detail": "low"}}
    assert chat["messages"][0] == {"role": "user", "content": [
        {"type": "text", "text": "Look"}, part]}
    assert chat["messages"][2:] == [{"role": "tool", "tool_call_id": "c", "content": "taken"},
                                    {"role": "user", "content": [part]}]
    validate_chat_request(chat)


def test_a_function_tool_keeps_strict_and_may_leave_parameters_out() -> None:
    chat = chat_request_from_responses({"model": "m", "input": "x", "tools": [
        {"type": "function", "name": "now", "strict": True, "parameters": None}]})
    assert chat["tools"] == [{"type": "function", "function": {
        "name": "now", "parameters": {"type": "object", "properties": {}}, "strict": True}}]


def test_a_text_format_is_the_response_format() -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    fmt = {"type": "json_schema", "name": "place", "schema": schema, "strict": True}
    body = sent_by_openai(model="m", input="x", text={"format": fmt})
    assert chat_request_from_responses(body)["response_format"] == {
        "type": "json_schema", "json_schema": {"name": "place", "schema": schema,
                                               "strict": True}}
    as_json = chat_request_from_responses({"model": "m", "input": "x",
                                           "text": {"format": {"type": "json_object"}}})
    assert as_json["response_format"] == {"type": "json_object"}
    plain = {"model": "m", "input": "x", "text": {"format": {"type": "text"}}}
    assert "response_format" not in chat_request_from_responses(plain)


@pytest.mark.parametrize(("body", "field", "says"), [
    ({"input": "x"}, "model", "is required"),
    ({"model": "m"}, "input", "is required"),
    ({"model": "m", "input": []}, "input", "at least one"),
    ({"model": "m", "input": "x", "previous_response_id": "resp_1"}, "previous_response_id",
     "keeps no state"),
    ({"model": "m", "input": "x", "conversation": "conv_1"}, "conversation", "keeps no state"),
    ({"model": "m", "input": "x", "background": True}, "background", "keeps no state"),
    ({"model": "m", "input": [{"type": "item_reference", "id": "msg_1"}]}, "input[0].id",
     "does not remember an item 'msg_1'"),
    ({"model": "m", "input": [{"type": "web_search_call", "id": "ws_1"}]}, "input[0].type",
     "'web_search_call' items are not supported"),
    ({"model": "m", "input": [{"role": "tool", "content": "x"}]}, "input[0].role",
     "expected one of"),
    ({"model": "m", "input": [{"role": "assistant", "content": [
        {"type": "input_image", "image_url": "u"}]}]}, "input[0].content[0].type",
     "expected one of"),
    ({"model": "m", "input": [{"role": "user", "content": [
        {"type": "input_image", "file_id": "file_1"}]}]}, "input[0].content[0].image_url",
     "keeps no files"),
    ({"model": "m", "input": [{"type": "function_call", "call_id": "c", "name": "f",
                               "arguments": "[1]"}]}, "input[0].arguments", "JSON object"),
    ({"model": "m", "input": [{"type": "function_call_output", "call_id": "c",
                               "output": "x"}]}, "input[0].call_id", "no earlier function_call"),
    ({"model": "m", "input": "x", "tools": [{"type": "file_search"}, {"type": "mcp"}]},
     "tools", "function tools only; file_search, mcp tools run at OpenAI"),
    ({"model": "m", "input": "x", "tools": [FLAT_WEATHER, FLAT_WEATHER]}, "tools[1].name",
     "two tools are named 'get_weather'"),
    ({"model": "m", "input": "x", "tools": [FLAT_WEATHER],
      "tool_choice": {"type": "web_search"}}, "tool_choice.type", "not 'web_search'"),
    ({"model": "m", "input": "x", "tool_choice": "any"}, "tool_choice", "expected one of"),
    ({"model": "m", "input": "x", "max_output_tokens": 0}, "max_output_tokens", "at least 1"),
    ({"model": "m", "input": "x", "store": "no"}, "store", "true or false"),
    ({"model": "m", "input": "x", "text": {"format": {"type": "json_schema", "name": "n"}}},
     "text.format.schema", "is required"),
])
def test_a_wrong_field_is_named(body: dict[str, Any], field: str, says: str) -> None:
    with pytest.raises(RequestError) as raised:
        chat_request_from_responses(body)
    assert raised.value.field == field
    assert says in raised.value.message
