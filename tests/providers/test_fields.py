"""`toolcalls.providers._fields`: a native call's arguments are JSON that every encoder and
UTF-8 can write back, or the call fails, as in the text readers; whole and streamed, for every
provider, whether the arguments come as JSON text or already decoded."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

import toolcalls
from toolcalls.providers import PROVIDERS as REGISTERED
from toolcalls.providers import get_provider
from toolcalls.providers._fields import decode_arguments, json_problem
from toolcalls.providers.openai_chat import OpenAIChat

NOT_JSON_TEXT = {
    "nan": '{"city": NaN}',
    "infinity": '{"city": Infinity}',
    "-infinity": '{"city": -Infinity}',
    "overflow": '{"city": 1e400}',
    "escaped surrogate": '{"city": "\\ud800"}',
    "raw surrogate": '{"city": "\ud800"}',
    "surrogate key": '{"\\udc00": 1}',
    "deep": '{"city": ' + "[" * 300 + "]" * 300 + "}",
}
NOT_JSON_DECODED = {
    "nan": {"city": math.nan},
    "infinity": {"city": math.inf},
    "-infinity": {"city": [-math.inf]},
    "surrogate": {"city": {"name": "\ud800"}},
    "surrogate key": {"\udc00": 1},
}
NOT_JSON_PYTHON = {  # a caller's dict, not decoded JSON: what the whole reader takes
    "not JSON": {"city": {1, 2}},
    "int key": {"city": {1: "a"}},
}


@pytest.mark.parametrize("arguments", [*NOT_JSON_TEXT.values(), *NOT_JSON_DECODED.values(),
                                       *NOT_JSON_PYTHON.values()],
                         ids=[*(f"text-{k}" for k in NOT_JSON_TEXT),
                              *(f"decoded-{k}" for k in NOT_JSON_DECODED),
                              *(f"python-{k}" for k in NOT_JSON_PYTHON)])
def test_arguments_no_encoder_can_write_back_are_refused_with_the_reason(
    arguments: Any
) -> None:
    decoded, problem = decode_arguments(arguments)
    assert decoded is None and problem.startswith("arguments ")


def test_arguments_json_can_write_are_taken() -> None:
    value = {"city": "Zürich", "n": [1, 2.5, None, True], "deep": json.loads("[" * 199 + "]" * 199)}
    assert decode_arguments(value) == (value, "")
    assert decode_arguments(json.dumps(value)) == (value, "")
    assert json_problem(value) == ""


def test_json_problem_is_iterative_at_any_depth() -> None:
    value: Any = []
    for _ in range(100_000):
        value = [value]
    assert json_problem(value) == "nest deeper than 200"


# -- every provider, whole and streamed -----------------------------------------------------------


CHAT = tuple(name for name in REGISTERED if isinstance(get_provider(name), OpenAIChat))
"""The Chat Completions shapes: OpenAI's and the providers built on it (Mistral's calls are
OpenAI's; it also sends the object)."""


def whole(provider: str, arguments: Any) -> dict[str, Any]:
    """A response of `provider` with one native call of `arguments` (JSON text for the APIs
    that send text, an object for the others, as each may also come)."""
    if provider in CHAT:
        return {"model": "gpt-4o", "choices": [{"finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": None, "tool_calls": [{
                "id": "call_a", "type": "function",
                "function": {"name": "weather", "arguments": arguments}}]}}]}
    if provider == "openai_responses":
        return {"object": "response", "model": "gpt-4o", "status": "completed", "output": [{
            "type": "function_call", "id": "fc_1", "call_id": "call_a", "name": "weather",
            "arguments": arguments}]}
    if provider == "anthropic":
        return {"type": "message", "model": "claude", "stop_reason": "tool_use", "content": [{
            "type": "tool_use", "id": "call_a", "name": "weather", "input": arguments}]}
    if provider == "gemini":
        return {"modelVersion": "gemini-2.5", "candidates": [{"finishReason": "STOP",
            "content": {"parts": [{"functionCall": {"id": "call_a", "name": "weather",
                                                    "args": arguments}}]}}]}
    if provider == "ollama":
        return {"model": "qwen3", "done": True, "done_reason": "stop", "message": {
            "role": "assistant", "content": "", "tool_calls": [{
                "id": "call_a", "function": {"name": "weather", "arguments": arguments}}]}}
    raise AssertionError(f"no response of {provider!r} with one native call: add its shape to "
                         "whole() and streamed() (docs/adding-a-provider.md §7)")


def streamed(provider: str, arguments: Any) -> list[dict[str, Any]]:
    """The same call as `provider` streams it: JSON text in two pieces where the API streams
    pieces of text, else the whole call in one chunk."""
    text = arguments if isinstance(arguments, str) else None
    cut = len(text) // 2 if text is not None else 0
    if provider in CHAT and text is None:  # a server that sends the object
        return [{"model": "gpt-4o", "choices": [{"index": 0, "delta": {"tool_calls": [{
                    "index": 0, "id": "call_a", "type": "function",
                    "function": {"name": "weather", "arguments": arguments}}]}}]},
                {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}]
    if provider == "openai_responses" and text is None:  # no deltas: the done item's
        item = {"type": "function_call", "id": "fc_1", "call_id": "call_a", "name": "weather"}
        return [{"type": "response.output_item.added", "output_index": 0,
                 "item": {**item, "arguments": ""}},
                {"type": "response.output_item.done", "output_index": 0,
                 "item": {**item, "arguments": arguments}}]
    if provider in CHAT and text is not None:
        return [{"model": "gpt-4o", "choices": [{"index": 0, "delta": {"tool_calls": [{
                    "index": 0, "id": "call_a", "type": "function",
                    "function": {"name": "weather", "arguments": text[:cut]}}]}}]},
                {"choices": [{"index": 0, "delta": {"tool_calls": [{
                    "index": 0, "function": {"arguments": text[cut:]}}]}}]},
                {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}]
    if provider == "openai_responses" and text is not None:
        item = {"type": "function_call", "id": "fc_1", "call_id": "call_a", "name": "weather"}
        return [{"type": "response.created", "response": {"model": "gpt-4o"}},
                {"type": "response.output_item.added", "output_index": 0,
                 "item": {**item, "arguments": ""}},
                {"type": "response.function_call_arguments.delta", "output_index": 0,
                 "item_id": "fc_1", "delta": text[:cut]},
                {"type": "response.function_call_arguments.delta", "output_index": 0,
                 "item_id": "fc_1", "delta": text[cut:]},
                {"type": "response.output_item.done", "output_index": 0,
                 "item": {**item, "arguments": text}}]
    if provider == "anthropic":
        block = {"type": "tool_use", "id": "call_a", "name": "weather", "input": {}}
        pieces = [text[:cut], text[cut:]] if text is not None else []
        if text is None:
            block["input"] = arguments
        return [{"type": "message_start", "message": {"model": "claude", "content": []}},
                {"type": "content_block_start", "index": 0, "content_block": block},
                *({"type": "content_block_delta", "index": 0,
                   "delta": {"type": "input_json_delta", "partial_json": piece}}
                  for piece in pieces),
                {"type": "content_block_stop", "index": 0}]
    return [whole(provider, arguments)]


PROVIDERS = list(REGISTERED)


def read(provider: str, arguments: Any, stream: bool) -> tuple[toolcalls.ParseResult, list[Any]]:
    if not stream:
        return toolcalls.read_response(whole(provider, arguments), provider), []
    reader = toolcalls.read_stream(provider)
    events = [event for chunk in streamed(provider, arguments) for event in reader.feed(chunk)]
    events += reader.close()
    return reader.result(), events


def cases() -> list[Any]:
    found = []
    for provider in PROVIDERS:
        for name, text in NOT_JSON_TEXT.items():
            found.append(pytest.param(provider, text, id=f"{provider}-text-{name}"))
        for name, value in NOT_JSON_DECODED.items():
            found.append(pytest.param(provider, value, id=f"{provider}-decoded-{name}"))
    return found


@pytest.mark.parametrize(("provider", "arguments"), cases())
@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_a_native_call_whose_arguments_are_not_json_fails_with_invalid_arguments(
    provider: str, arguments: Any, stream: bool
) -> None:
    result, events = read(provider, arguments, stream)
    assert result.calls == [] and len(result.incomplete) == 1
    assert [issue.kind for issue in result.issues] == ["invalid_arguments"]
    assert "native call call_a (weather): arguments " in result.issues[0].message
    json.loads(result.model_dump_json())  # the failed call's raw text is written too
    if stream:
        assert not any(isinstance(event, toolcalls.ToolCallEnd) for event in events)
        assert isinstance(events[-1], toolcalls.ToolCallFailed)


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_a_native_call_that_passes_writes_as_strict_json_and_utf8(
    provider: str, stream: bool
) -> None:
    arguments = '{"city": "Zürich 😀", "n": 1e300, "m": -0.0}'
    if provider in ("anthropic", "gemini", "ollama") and not stream:
        arguments = json.loads(arguments)
    result, _ = read(provider, arguments, stream)
    (call,) = result.calls
    assert call.arguments == {"city": "Zürich 😀", "n": 1e300, "m": -0.0}
    json.dumps(call.arguments, allow_nan=False).encode("utf-8")
    call.arguments_json().encode("utf-8")
