"""Errors a provider sends: a whole error body (`read_response`) or an error mid-stream
(`read_stream`) is a result with a ``provider_error`` issue and ``finish_reason`` "error",
not an exception; calls left open fail, what came before is kept."""

from __future__ import annotations

import json
from typing import Any

import pytest
from stream_checks import FIXTURES

import toolcalls
from toolcalls import ArgumentsDelta, TextDelta, ToolCallFailed, ToolCallStart

BODIES = [  # (body, provider detected, what the message says)
    ({"error": {"message": "Rate limit reached for gpt-4o", "type": "requests",
                "param": None, "code": "rate_limit_exceeded"}},
     "openai", "(requests, rate_limit_exceeded): Rate limit reached for gpt-4o"),
    ({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
     "anthropic", "(overloaded_error): Overloaded"),
    ({"error": {"code": 503, "message": "The model is overloaded. Please try again later.",
                "status": "UNAVAILABLE"}},
     "gemini", "(UNAVAILABLE, 503): The model is overloaded. Please try again later."),
    ({"error": 'model "llama9" not found, try pulling it first'},
     "ollama", ': model "llama9" not found, try pulling it first'),
]


@pytest.mark.parametrize(("body", "provider", "said"), BODIES,
                         ids=[provider for _, provider, _ in BODIES])
def test_an_error_body_is_a_result_with_the_providers_message(
    body: dict[str, Any], provider: str, said: str
) -> None:
    for response in (body, json.dumps(body)):
        result = toolcalls.read_response(response)
        assert result.provider == provider and result.finish_reason == "error"
        assert result.calls == [] and result.content == ""
        [issue] = result.issues
        assert issue.kind == "provider_error" and issue.message.endswith(said)
        assert toolcalls.read_response(body, provider) == result


def test_a_failed_responses_response_keeps_its_output_and_says_the_error() -> None:
    response = {"object": "response", "status": "failed", "model": "gpt-4o",
                "error": {"code": "server_error", "message": "The server had an error"},
                "output": [{"type": "message", "role": "assistant", "content": [
                    {"type": "output_text", "text": "Partial answer", "annotations": []}]}]}
    result = toolcalls.read_response(response)
    assert result.provider == "openai_responses" and result.finish_reason == "failed"
    assert result.content == "Partial answer"
    assert [i.kind for i in result.issues] == ["provider_error"]
    assert "server_error" in result.issues[0].message


def chat_chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"id": "gen-1", "object": "chat.completion.chunk", "created": 0,
            "model": "openai/gpt-4o", "choices": [
                {"index": 0, "delta": delta, "finish_reason": finish}], **extra}


def test_an_openrouter_error_chunk_mid_stream_fails_the_open_call() -> None:
    # OpenRouter's mid-stream error: an "error" beside a choice finished with "error".
    chunks = [
        chat_chunk({"role": "assistant", "content": "Let me look."}),
        chat_chunk({"tool_calls": [{"index": 0, "id": "call_a", "type": "function",
                                    "function": {"name": "get_weather", "arguments": ""}}]}),
        chat_chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"locat'}}]}),
        chat_chunk({"content": ""}, "error", provider="OpenAI",
                   error={"code": "server_error",
                          "message": "Provider disconnected unexpectedly"}),
    ]
    text = "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks) + "data: [DONE]\n\n"
    for feed in (chunks, [text]):
        parser = toolcalls.read_stream("openai", format="hermes")
        events = [event for chunk in feed for event in parser.feed(chunk)] + parser.close()
        kinds = [type(e) for e in events]
        assert kinds == [TextDelta, ToolCallStart, ArgumentsDelta, ToolCallFailed]
        result = parser.result()
        assert result.content == "Let me look." and result.calls == []
        assert result.finish_reason == "error"
        assert [i.kind for i in result.issues] == ["provider_error", "truncated_call"]
        assert result.issues[0].message.endswith(
            "(server_error): Provider disconnected unexpectedly")
        assert result.incomplete[0].raw == '{"locat'


def test_openrouters_recorded_error_chunk_after_finish_length_keeps_length() -> None:
    path = FIXTURES / "openai_chat" / "openrouter_minimax_reasoning_cut_by_length.sse"
    parser = toolcalls.read_stream("openai")
    parser.feed(path.read_bytes())
    parser.close()
    result = parser.result()
    assert result.finish_reason == "length"
    assert [(i.kind, i.message) for i in result.issues] == [
        ("provider_error", "the provider sent an error (400): Token limit reached")]


def test_an_error_chunk_with_no_choices_is_not_read_as_text() -> None:
    parser = toolcalls.read_stream("openai")
    parser.feed(chat_chunk({"role": "assistant", "content": "Hi"}))
    parser.feed({"error": {"message": "Internal error", "code": 500}})
    parser.feed(chat_chunk({"content": " there"}))  # read, as anything after; its own
    # finish reason, if the provider gives one after the error, is kept
    parser.feed(chat_chunk({}, "stop"))
    parser.close()
    result = parser.result()
    assert result.content == "Hi there" and result.finish_reason == "stop"
    assert [i.kind for i in result.issues] == ["provider_error"]


ANTHROPIC = (  # an SSE capture: long lines as sent
    """\
event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"location\\": \\"Par"}}

event: error
data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}

"""  # noqa: E501
)


def test_an_anthropic_error_event_fails_the_open_tool_use() -> None:
    parser = toolcalls.read_stream("anthropic")
    events = parser.feed(ANTHROPIC) + parser.close()
    assert [type(e) for e in events] == [ToolCallStart, ArgumentsDelta, ToolCallFailed]
    result = parser.result()
    assert result.finish_reason == "error" and result.calls == []
    assert [i.kind for i in result.issues] == ["provider_error", "truncated_call"]
    assert result.issues[0].message.endswith("(overloaded_error): Overloaded")


def test_a_responses_error_event_and_a_failed_response() -> None:
    added = {"type": "response.output_item.added", "output_index": 0, "item": {
        "type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather",
        "arguments": ""}}
    delta = {"type": "response.function_call_arguments.delta", "output_index": 0,
             "item_id": "fc_1", "delta": '{"loc'}
    error = {"type": "error", "code": "server_error", "message": "Something went wrong",
             "param": None, "sequence_number": 3}
    parser = toolcalls.read_stream("openai_responses")
    events = [e for chunk in (added, delta, error) for e in parser.feed(chunk)] + parser.close()
    assert [type(e) for e in events] == [ToolCallStart, ArgumentsDelta, ToolCallFailed]
    assert parser.result().finish_reason == "error"
    assert parser.result().issues[0].message.endswith("(server_error): Something went wrong")

    failed = {"type": "response.failed", "response": {
        "object": "response", "status": "failed", "output": [],
        "error": {"code": "server_error", "message": "The server had an error"}}}
    parser = toolcalls.read_stream("openai_responses")
    events = [e for chunk in (added, delta, failed) for e in parser.feed(chunk)] + parser.close()
    assert type(events[-1]) is ToolCallFailed
    assert parser.result().finish_reason == "failed"
    assert [i.kind for i in parser.result().issues] == ["provider_error", "truncated_call"]


@pytest.mark.parametrize(("provider", "first", "error"), [
    ("gemini", {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hel"}]},
                                "index": 0}]},
     {"error": {"code": 500, "message": "Internal error encountered.", "status": "INTERNAL"}}),
    ("ollama", {"model": "qwen3:8b", "message": {"role": "assistant", "content": "Hel"},
                "done": False},
     {"error": "an error was encountered while running the model"}),
])
def test_a_gemini_or_ollama_error_line_mid_stream(
    provider: str, first: dict[str, Any], error: dict[str, Any]
) -> None:
    parser = toolcalls.read_stream(provider)
    parser.feed(first)
    parser.feed(error)
    parser.close()
    result = parser.result()
    assert result.content == "Hel" and result.finish_reason == "error"
    assert [i.kind for i in result.issues] == ["provider_error"]
