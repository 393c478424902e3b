"""Anthropic Messages requests checked and translated into Chat Completions requests
(`toolcalls.serve._anthropic_request`), against the bodies the real SDKs send."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import httpx2
import openai
import pytest
from test_requests import WEATHER, call

from toolcalls.serve._anthropic_request import chat_request_from_messages
from toolcalls.serve._requests import RequestError, validate_chat_request

# --- chat_request_from_messages -----------------------------------------------------------------

_MESSAGE = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": [],
            "stop_reason": "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1}}
_COMPLETION = {"id": "c", "object": "chat.completion", "created": 0, "model": "m", "choices": [
    {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": ""}}]}


def _captured(reply: dict[str, Any]) -> tuple[httpx2.Client, list[dict[str, Any]]]:
    """An HTTP client that answers `reply` and keeps the JSON bodies the SDK sent."""
    sent: list[dict[str, Any]] = []

    def handle(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        return httpx2.Response(200, json=reply)

    return httpx2.Client(transport=httpx2.MockTransport(handle)), sent


def sent_by_anthropic(**params: Any) -> dict[str, Any]:
    """The request body the real `anthropic` SDK sends for `messages.create(**params)`."""
    http, sent = _captured(_MESSAGE)
    client = anthropic.Anthropic(api_key="k", base_url="http://proxy.test", http_client=http)
    client.messages.create(**params)
    return sent[0]


def sent_by_openai(chat: dict[str, Any]) -> dict[str, Any]:
    """The body the real `openai` SDK sends for `chat`: its own fields as keyword arguments
    (an unknown keyword is a TypeError there), the others as ``extra_body``."""
    http, sent = _captured(_COMPLETION)
    client = openai.OpenAI(api_key="k", base_url="http://proxy.test/v1", http_client=http)
    own = {"model", "messages", "max_tokens", "tools", "tool_choice", "parallel_tool_calls",
           "stop", "temperature", "top_p", "stream", "user"}
    client.chat.completions.create(**{k: v for k, v in chat.items() if k in own},
                                   extra_body={k: v for k, v in chat.items() if k not in own})
    return sent[0]


PNG = {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}
ANTHROPIC_WEATHER = {"name": "get_weather", "description": "The weather in a city",
                     "input_schema": WEATHER["function"]["parameters"]}


def test_a_whole_anthropic_conversation_becomes_the_equivalent_chat_request() -> None:
    body = sent_by_anthropic(
        model="claude-x", max_tokens=256,
        system=[{"type": "text", "text": "Be brief."}, {"type": "text", "text": "Be kind."}],
        messages=[
            {"role": "user", "content": [{"type": "text", "text": "Weather here?"},
                                         {"type": "image", "source": PNG}]},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "Two cities.", "signature": "sig"},
                {"type": "redacted_thinking", "data": "xyz"},
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "toolu_1", "name": "get_weather",
                 "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "toolu_2", "name": "get_weather",
                 "input": {"city": "Zürich"}},
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"},
                {"type": "tool_result", "tool_use_id": "toolu_2", "is_error": True, "content": [
                    {"type": "text", "text": "no station"},
                    {"type": "image", "source": {"type": "url", "url": "https://x.test/a.png"}},
                ]},
                {"type": "text", "text": "And tomorrow?"},
            ]},
        ],
        tools=[ANTHROPIC_WEATHER],
        tool_choice={"type": "any", "disable_parallel_tool_use": True},
        stop_sequences=["END"], metadata={"user_id": "u-1"},
        # Older SDKs take these as arguments; this one has dropped them, clients still send them.
        extra_body={"temperature": 0.5, "top_p": 0.9, "top_k": 40},
    )
    chat = chat_request_from_messages(body)
    assert chat == {
        "model": "claude-x",
        "max_tokens": 256,
        "messages": [
            {"role": "system", "content": "Be brief.\nBe kind."},
            {"role": "user", "content": [
                {"type": "text", "text": "Weather here?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
            ]},
            {"role": "assistant", "content": "Checking.", "tool_calls": [
                call("toolu_1"), call("toolu_2", arguments='{"city": "Zürich"}')]},
            {"role": "tool", "tool_call_id": "toolu_1", "content": "sunny"},
            {"role": "tool", "tool_call_id": "toolu_2", "content": "Error: no station"},
            {"role": "user", "content": [
                {"type": "image_url", "image_url": {"url": "https://x.test/a.png"}},
                {"type": "text", "text": "And tomorrow?"},
            ]},
        ],
        "tools": [WEATHER],
        "tool_choice": "required",
        "parallel_tool_calls": False,
        "stop": ["END"],
        "temperature": 0.5,
        "top_p": 0.9,
        "top_k": 40,
        "user": "u-1",
    }
    assert validate_chat_request(chat) is chat
    assert sent_by_openai(chat) == chat


@pytest.mark.parametrize(
    ("choice", "fields"),
    [
        ({"type": "auto"}, {"tool_choice": "auto"}),
        ({"type": "none"}, {"tool_choice": "none"}),
        ({"type": "any"}, {"tool_choice": "required"}),
        ({"type": "tool", "name": "get_weather"},
         {"tool_choice": {"type": "function", "function": {"name": "get_weather"}}}),
        ({"type": "auto", "disable_parallel_tool_use": False}, {"tool_choice": "auto"}),
        ({"type": "auto", "disable_parallel_tool_use": True},
         {"tool_choice": "auto", "parallel_tool_calls": False}),
    ],
)
def test_tool_choice_is_translated(choice: dict[str, Any], fields: dict[str, Any]) -> None:
    body = sent_by_anthropic(model="m", max_tokens=5, tools=[ANTHROPIC_WEATHER],
                             tool_choice=choice, messages=[{"role": "user", "content": "Hi"}])
    chat = chat_request_from_messages(body)
    assert {k: chat[k] for k in ("tool_choice", "parallel_tool_calls") if k in chat} == fields
    validate_chat_request(chat)


def test_plain_strings_stay_strings_and_stream_is_kept() -> None:
    body = sent_by_anthropic(model="m", max_tokens=5, system="Be brief.", stream=True,
                             messages=[{"role": "user", "content": "Hi"},
                                       {"role": "assistant", "content": "Hello."},
                                       {"role": "user", "content": [{"type": "text",
                                                                     "text": "Bye"}]}])
    assert chat_request_from_messages(body) == {
        "model": "m", "max_tokens": 5, "stream": True,
        "messages": [{"role": "system", "content": "Be brief."},
                     {"role": "user", "content": "Hi"},
                     {"role": "assistant", "content": "Hello."},
                     {"role": "user", "content": "Bye"}],
    }


def test_fields_without_a_chat_twin_are_left_out() -> None:
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "Hi"}],
            "thinking": {"type": "enabled", "budget_tokens": 1024}, "service_tier": "auto"}
    assert set(chat_request_from_messages(body)) == {"model", "max_tokens", "messages"}


def _anthropic(**fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "m", "max_tokens": 5,
                            "messages": [{"role": "user", "content": "Hi"}]}
    return body | fields


def _used(then: Any) -> list[dict[str, Any]]:
    """A tool_use turn, then a user turn whose content is `then`."""
    use = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}
    return [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": [use]},
            {"role": "user", "content": then}]


@pytest.mark.parametrize(
    ("body", "field", "says"),
    [
        ("hi", "", "expected an object"),
        ({"max_tokens": 5, "messages": []}, "model", "is required"),
        (_anthropic(max_tokens=None), "max_tokens", "expected an integer"),
        ({"model": "m", "messages": [{"role": "user", "content": "Hi"}]}, "max_tokens",
         "is required"),
        (_anthropic(max_tokens=0), "max_tokens", "at least 1"),
        (_anthropic(messages=[]), "messages", "at least one"),
        (_anthropic(messages=[{"role": "system", "content": "x"}]), "messages[0].role",
         "'assistant'"),
        (_anthropic(messages=[{"role": "user"}]), "messages[0].content", "is required"),
        (_anthropic(messages=[{"role": "user", "content": 3}]), "messages[0].content",
         "expected an array"),
        (_anthropic(messages=[{"role": "user", "content": [{"type": "tool_use"}]}]),
         "messages[0].content[0].type", "'tool_result'"),
        (_anthropic(messages=[{"role": "user", "content": [{"type": "text"}]}]),
         "messages[0].content[0].text", "is required"),
        (_anthropic(messages=[{"role": "user", "content": [{"type": "image", "source": {
            "type": "file", "file_id": "f"}}]}]),
         "messages[0].content[0].source.type", "'base64'"),
        (_anthropic(messages=[{"role": "user", "content": [{"type": "image", "source": {
            "type": "base64", "data": "AA=="}}]}]),
         "messages[0].content[0].source.media_type", "is required"),
        (_anthropic(messages=[{"role": "user", "content": [{"type": "document", "source": {}}]}]),
         "messages[0].content[0].type", "document blocks"),
        (_anthropic(messages=[{"role": "assistant", "content": [{"type": "tool_result"}]}]),
         "messages[0].content[0].type", "'tool_use'"),
        (_anthropic(messages=[{"role": "assistant", "content": [
            {"type": "tool_use", "id": "t", "name": "f", "input": "{}"}]}]),
         "messages[0].content[0].input", "expected an object"),
        (_anthropic(messages=[{"role": "assistant", "content": [
            {"type": "thinking", "signature": "s"}]}]),
         "messages[0].content[0].thinking", "is required"),
        (_anthropic(messages=[{"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_9", "content": "x"}]}]),
         "messages[0].content[0].tool_use_id", "no earlier tool_use block"),
        (_anthropic(messages=_used([{"type": "tool_result", "tool_use_id": "toolu_1",
                                     "content": [{"type": "tool_use"}]}])),
         "messages[2].content[0].content[0].type", "'text'"),
        (_anthropic(messages=_used([{"type": "tool_result", "tool_use_id": "toolu_1",
                                     "is_error": "yes"}])),
         "messages[2].content[0].is_error", "true or false"),
        (_anthropic(system=5), "system", "expected an array"),
        (_anthropic(system=[{"type": "image"}]), "system[0].type", "'text'"),
        (_anthropic(tools=[{"type": "web_search_20250305", "name": "web_search"}]),
         "tools[0].input_schema", "server tool"),
        (_anthropic(tools=[{"name": "f", "input_schema": []}]), "tools[0].input_schema",
         "expected an object"),
        (_anthropic(tools=[{"input_schema": {"type": "object"}}]), "tools[0].name",
         "is required"),
        (_anthropic(tools=[ANTHROPIC_WEATHER, ANTHROPIC_WEATHER]), "tools[1].name", "two tools"),
        (_anthropic(tool_choice={"type": "required"}), "tool_choice.type", "'any'"),
        (_anthropic(tools=[ANTHROPIC_WEATHER], tool_choice={"type": "tool"}),
         "tool_choice.name", "is required"),
        (_anthropic(tools=[ANTHROPIC_WEATHER], tool_choice={"type": "tool", "name": "x"}),
         "tool_choice.name", "no tool named 'x'"),
        (_anthropic(tool_choice={"type": "auto", "disable_parallel_tool_use": 1}),
         "tool_choice.disable_parallel_tool_use", "true or false"),
        (_anthropic(stop_sequences="END"), "stop_sequences", "expected an array"),
        (_anthropic(stop_sequences=["a", 1]), "stop_sequences[1]", "expected a string"),
        (_anthropic(temperature="hot"), "temperature", "expected a number"),
        (_anthropic(top_k=0.5), "top_k", "expected an integer"),
        (_anthropic(stream="y"), "stream", "true or false"),
        (_anthropic(metadata=[]), "metadata", "expected an object"),
        (_anthropic(metadata={"user_id": 7}), "metadata.user_id", "expected a string"),
    ],
)
def test_a_wrong_anthropic_field_is_named(body: Any, field: str, says: str) -> None:
    with pytest.raises(RequestError) as caught:
        chat_request_from_messages(body)
    assert (caught.value.field, says in caught.value.message) == (field, True), caught.value
