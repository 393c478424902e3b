"""Call ids in `read_stream`: the id a call starts with is the id it ends with and has in the
result, which is `read_response`'s, where a text call and a native call would have the same one
(the engine numbers text calls ``call_0``...; a native call without an id gets ``call_<n>``)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from stream_checks import check_event_promises, read_all

import toolcalls
from toolcalls import ToolCallStart

HERMES = '<tool_call>\n{"name": "get_time", "arguments": {"zone": "CET"}}\n</tool_call>'
WEATHER = {"name": "get_weather", "arguments": {"location": "Paris"}}


def started_ids(events: list[Any]) -> list[str]:
    return [event.id for event in events if isinstance(event, ToolCallStart)]


def test_ollama_a_text_call_then_a_native_call_without_an_id() -> None:
    lines = [
        {"model": "qwen3:8b", "message": {"role": "assistant", "content": "Checking. "},
         "done": False},
        {"model": "qwen3:8b", "message": {"role": "assistant", "content": HERMES[:30]},
         "done": False},
        {"model": "qwen3:8b", "message": {"role": "assistant", "content": HERMES[30:]},
         "done": False},
        {"model": "qwen3:8b", "message": {"role": "assistant", "content": "",
                                          "tool_calls": [{"function": WEATHER}]},
         "done": False},
        {"model": "qwen3:8b", "message": {"role": "assistant", "content": ""}, "done": True,
         "done_reason": "stop"},
    ]
    whole = {**lines[-1], "message": {"role": "assistant", "content": "Checking. " + HERMES,
                                      "tool_calls": [{"function": WEATHER}]}}
    expected = toolcalls.read_response(whole, "ollama", format="hermes")
    assert [(c.id, c.name, c.source) for c in expected.calls] == [
        ("call_1", "get_weather", "native"), ("call_0", "get_time", "text")]
    events, result = read_all("ollama", [json.dumps(line) + "\n" for line in lines], "hermes")
    check_event_promises(events, result)
    assert result == expected
    assert started_ids(events) == ["call_0", "call_1"]


def test_gemini_a_native_call_without_an_id_then_a_text_call() -> None:
    def chunk(part: dict[str, Any]) -> dict[str, Any]:
        return {"candidates": [{"content": {"role": "model", "parts": [part]}, "index": 0}],
                "modelVersion": "gemini-2.5-flash"}

    chunks = [chunk({"functionCall": {"name": "get_weather", "args": WEATHER["arguments"]}}),
              chunk({"text": HERMES[:20]}), chunk({"text": HERMES[20:]})]
    whole = {"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "get_weather", "args": WEATHER["arguments"]}},
        {"text": HERMES}]}, "index": 0}], "modelVersion": "gemini-2.5-flash"}
    expected = toolcalls.read_response(whole, "gemini", format="hermes")
    assert [(c.id, c.source) for c in expected.calls] == [("call_0", "native"),
                                                           ("call_1", "text")]
    events, result = read_all("gemini", chunks, "hermes")
    check_event_promises(events, result)
    assert result == expected and started_ids(events) == ["call_0", "call_1"]


def chat_chunk(delta: dict[str, Any]) -> dict[str, Any]:
    return {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}


def test_auto_with_a_model_naming_no_format_gives_the_native_calls_their_ids_first() -> None:
    # The text is held back to the end of the stream, so the native calls come first.
    lines = [
        {"model": "my-model", "message": {"role": "assistant", "content": HERMES},
         "done": False},
        {"model": "my-model", "message": {"role": "assistant", "content": "",
                                          "tool_calls": [{"function": WEATHER}]},
         "done": True, "done_reason": "stop"},
    ]
    whole = {**lines[-1], "message": {"role": "assistant", "content": HERMES,
                                      "tool_calls": [{"function": WEATHER}]}}
    expected = toolcalls.read_response(whole, "ollama", format="auto")
    assert [(c.id, c.source) for c in expected.calls] == [("call_0", "native"),
                                                           ("call_1", "text")]
    events, result = read_all("ollama", lines, "auto")
    check_event_promises(events, result)
    assert result == expected and started_ids(events) == ["call_0", "call_1"]


def test_a_provider_id_after_a_text_call_with_that_id_keeps_it_the_text_call_is_renamed() -> None:
    # The one case a stream cannot foresee: the result still equals read_response's; the text
    # call's events, given before the provider's id came, carry the id it had then.
    native = {"id": "call_0", "type": "function",
              "function": {"name": "get_weather", "arguments": "{}"}}
    finish = chat_chunk({})
    finish["choices"][0]["finish_reason"] = "tool_calls"
    chunks = [chat_chunk({"role": "assistant", "content": HERMES}),
              chat_chunk({"tool_calls": [{"index": 0, **native}]}), finish]
    whole = {"id": "c1", "object": "chat.completion", "created": 0, "model": "m", "choices": [
        {"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": HERMES, "tool_calls": [native]}}]}
    expected = toolcalls.read_response(whole, "openai", format="hermes")
    assert [(c.id, c.source) for c in expected.calls] == [("call_0", "native"),
                                                           ("call_1", "text")]
    events, result = read_all("openai", chunks, "hermes")
    assert result == expected
    assert started_ids(events) == ["call_0", "call_0"]


def _gemini(parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "index": 0}],
            "modelVersion": "gemini-2.5-flash"}


def _chat(message: dict[str, Any]) -> dict[str, Any]:
    return {"object": "chat.completion", "model": "m", "choices": [
        {"index": 0, "finish_reason": "tool_calls", "message": message}]}


_CALLS = [("f", {"a": 1}), ("g", {"b": 2})]
# Each provider's stream (its events or chunks) of two calls given the id "dup", and the whole.
_DUPLICATED: dict[str, tuple[list[Any], dict[str, Any]]] = {
    "openai": (
        [chat_chunk({"tool_calls": [{"index": n, "id": "dup", "function": {
            "name": name, "arguments": json.dumps(args)}}]}) for n, (name, args) in
         enumerate(_CALLS)]
        + [{**chat_chunk({}), "choices": [{"index": 0, "delta": {},
                                           "finish_reason": "tool_calls"}]}],
        _chat({"role": "assistant", "content": None, "tool_calls": [
            {"id": "dup", "type": "function", "function": {"name": name,
                                                           "arguments": json.dumps(args)}}
            for name, args in _CALLS]})),
    "openai_responses": (
        [{"type": "response.output_item.done", "output_index": n, "item": {
            "type": "function_call", "call_id": "dup", "name": name,
            "arguments": json.dumps(args)}} for n, (name, args) in enumerate(_CALLS)],
        {"object": "response", "status": "completed", "output": [
            {"type": "function_call", "call_id": "dup", "name": name,
             "arguments": json.dumps(args)} for name, args in _CALLS]}),
    "anthropic": (
        [event for n, (name, args) in enumerate(_CALLS) for event in (
            {"type": "content_block_start", "index": n, "content_block": {
                "type": "tool_use", "id": "dup", "name": name, "input": args}},
            {"type": "content_block_stop", "index": n})],
        {"type": "message", "role": "assistant", "stop_reason": "tool_use", "content": [
            {"type": "tool_use", "id": "dup", "name": name, "input": args}
            for name, args in _CALLS]}),
    "gemini": (
        [_gemini([{"functionCall": {"id": "dup", "name": name, "args": args}}])
         for name, args in _CALLS],
        _gemini([{"functionCall": {"id": "dup", "name": name, "args": args}}
                 for name, args in _CALLS])),
    "ollama": (
        [{"model": "m", "message": {"role": "assistant", "content": "", "tool_calls": [
            {"id": "dup", "function": {"name": name, "arguments": args}}]}, "done": False}
         for name, args in _CALLS],
        {"model": "m", "done": True, "message": {"role": "assistant", "content": "",
                                                 "tool_calls": [
            {"id": "dup", "function": {"name": name, "arguments": args}}
            for name, args in _CALLS]}}),
}


@pytest.mark.parametrize("provider", _DUPLICATED)
def test_an_id_the_provider_gives_twice_is_not_kept_twice(provider: str) -> None:
    chunks, whole = _DUPLICATED[provider]
    events, result = read_all(provider, chunks, None)
    check_event_promises(events, result)
    assert [(c.id, c.name) for c in result.calls] == [("dup", "f"), ("call_0", "g")]
    assert started_ids(events) == ["dup", "call_0"]
    assert [i.kind for i in result.issues] == ["duplicate_call_id"]
    assert "native call dup (g)" in result.issues[0].message
    expected = toolcalls.read_response(whole, provider, format=None)
    assert [(c.id, c.name, c.arguments) for c in expected.calls] == [
        (c.id, c.name, c.arguments) for c in result.calls]
    assert expected.issues == result.issues


def test_a_native_call_without_a_name_takes_no_number_from_the_calls_after_it() -> None:
    # A stream never starts a call without a name: read_response numbers the calls the same.
    parts = [{"functionCall": {"args": {}}}, {"functionCall": {"name": "get_weather", "args": {}}},
             {"text": HERMES}]
    events, result = read_all("gemini", [_gemini([part]) for part in parts], "hermes")
    check_event_promises(events, result)
    assert [(c.id, c.name) for c in result.calls] == [("call_0", "get_weather"),
                                                      ("call_1", "get_time")]
    assert result == toolcalls.read_response(_gemini(parts), "gemini", format="hermes")


def test_a_call_start_says_whether_it_was_read_from_the_text_or_sent_natively() -> None:
    """The proxy gives text calls fresh ids from `ToolCallStart.source`, never asking back."""
    chunks = [chat_chunk({"content": HERMES}),
              chat_chunk({"tool_calls": [{"index": 0, "id": "call_w", "type": "function",
                                          "function": {"name": "get_weather",
                                                       "arguments": '{"location": "Paris"}'}}]})]
    events, result = read_all("openai", chunks, "hermes")
    check_event_promises(events, result)
    assert [(e.name, e.source) for e in events if isinstance(e, ToolCallStart)] == [
        ("get_time", "text"), ("get_weather", "native")]
