"""What the writers share (`toolcalls.providers._write_options`): finish reasons and token
usage read
from any provider's words, and written in each provider's own (checked with the SDKs)."""

from __future__ import annotations

from typing import Any

import pytest
from written import OPTIONS, TEXT_ONLY, validators

from toolcalls.providers import write_response, write_stream
from toolcalls.providers._registry import PROVIDERS, get_provider
from toolcalls.providers._write_options import TokenCounts, WriteOptions, finish_kind, token_counts


@pytest.mark.parametrize(("reason", "kind"), [
    ("stop", "stop"), ("end_turn", "stop"), ("STOP", "stop"), ("completed", "stop"),
    ("length", "length"), ("max_tokens", "length"), ("MAX_TOKENS", "length"),
    ("max_output_tokens", "length"), ("tool_use", "tool_calls"), ("SAFETY", "content_filter"),
    ("refusal", "content_filter"), ("something_new", None), (None, None),
])
def test_a_finish_reason_means_the_same_whoever_said_it(reason: str | None,
                                                        kind: str | None) -> None:
    assert finish_kind(reason) == kind


@pytest.mark.parametrize("usage", [
    {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10},
    {"input_tokens": 7, "output_tokens": 3},
    {"promptTokenCount": 7, "candidatesTokenCount": 3, "totalTokenCount": 10},
    {"prompt_token_count": 7, "candidates_token_count": 3},
    {"prompt_eval_count": 7, "eval_count": 3},
])
def test_token_counts_are_read_from_any_providers_usage(usage: dict[str, Any]) -> None:
    assert token_counts(usage) == TokenCounts(7, 3)
    assert token_counts(usage).total == 10  # type: ignore[union-attr]


def test_usage_without_counts_is_none() -> None:
    assert token_counts(None) is None
    assert token_counts({"prompt_tokens": None, "completion_tokens": 3}) is None


def _cut_off(provider: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    options = WriteOptions(OPTIONS["model"], OPTIONS["id"], OPTIONS["created"],
                           finish_reason="max_tokens", usage={"input_tokens": 7,
                                                              "output_tokens": 3})
    writer = get_provider(provider)
    whole, chunk = validators()[provider]
    response = writer.write_response(TEXT_ONLY, options)
    stream = writer.write_stream(TEXT_ONLY, options)
    whole(response)
    for event in stream:
        chunk(event)
    return response, stream


def test_openai_chat_says_length_and_sends_usage_in_a_last_chunk() -> None:
    response, stream = _cut_off("openai")
    assert response["choices"][0]["finish_reason"] == "length"
    assert response["usage"] == {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
    assert stream[-2]["choices"][0]["finish_reason"] == "length"
    assert (stream[-1]["choices"], stream[-1]["usage"]) == ([], response["usage"])


def test_anthropic_says_max_tokens_with_its_usage() -> None:
    response, stream = _cut_off("anthropic")
    assert (response["stop_reason"], response["usage"]) == (
        "max_tokens", {"input_tokens": 7, "output_tokens": 3})
    assert stream[0]["message"]["usage"]["input_tokens"] == 7
    assert stream[-2]["delta"]["stop_reason"] == "max_tokens"
    assert stream[-2]["usage"] == {"output_tokens": 3}


def test_responses_says_incomplete_for_max_output_tokens() -> None:
    response, stream = _cut_off("openai_responses")
    assert (response["status"], response["incomplete_details"]) == (
        "incomplete", {"reason": "max_output_tokens"})
    assert response["usage"]["total_tokens"] == 10
    assert (stream[-1]["type"], stream[-1]["response"]) == ("response.incomplete", response)


def test_gemini_says_max_tokens_with_its_usage_metadata() -> None:
    response, stream = _cut_off("gemini")
    assert response["candidates"][0]["finishReason"] == "MAX_TOKENS"
    assert response["usageMetadata"] == {"promptTokenCount": 7, "candidatesTokenCount": 3,
                                         "totalTokenCount": 10}
    assert stream[-1]["candidates"][0]["finishReason"] == "MAX_TOKENS"


def test_ollama_says_length_with_its_counts() -> None:
    response, stream = _cut_off("ollama")
    assert (response["done_reason"], response["prompt_eval_count"],
            response["eval_count"]) == ("length", 7, 3)
    assert stream[-1] == {**response, "message": {"role": "assistant", "content": ""}}


def test_calls_end_a_turn_as_tool_calls_whatever_the_reason_said() -> None:
    assert WriteOptions(finish_reason="length").finish(True) == "tool_calls"
    assert WriteOptions(finish_reason="tool_use").finish(False) == "stop"
    assert WriteOptions(finish_reason="unheard_of").finish(False) == "stop"


ANTHROPIC_USAGE = {"input_tokens": 377, "cache_creation_input_tokens": 0,
                   "cache_read_input_tokens": 0, "output_tokens": 51,
                   "service_tier": "standard"}


def test_a_providers_own_usage_goes_back_to_it_as_it_came_and_to_others_as_counts() -> None:
    read = TEXT_ONLY.model_copy(update={"provider": "anthropic", "finish_reason": "max_tokens",
                                        "usage": ANTHROPIC_USAGE})
    anthropic = write_response(read, "anthropic", **OPTIONS)
    assert (anthropic["usage"], anthropic["stop_reason"]) == (ANTHROPIC_USAGE, "max_tokens")
    openai = write_response(read, "openai", **OPTIONS)
    assert openai["usage"] == {"prompt_tokens": 377, "completion_tokens": 51,
                               "total_tokens": 428}
    assert openai["choices"][0]["finish_reason"] == "length"
    for provider in PROVIDERS:
        validators()[provider][0](write_response(read, provider, **OPTIONS))


def test_ollama_counters_and_durations_go_back_on_the_last_chunk() -> None:
    usage = {"prompt_eval_count": 26, "eval_count": 298, "total_duration": 5191566416,
             "load_duration": 2154458, "prompt_eval_duration": 383809000,
             "eval_duration": 4799921000}
    read = TEXT_ONLY.model_copy(update={"provider": "ollama", "usage": usage})
    assert write_stream(read, "ollama", **OPTIONS)[-1].items() >= usage.items()
