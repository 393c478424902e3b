"""``POST /v1/messages/count_tokens`` (`toolcalls.serve._count_tokens`), through the real
Anthropic SDK: counted by the upstream's ``/tokenize`` where it has one, else estimated with
the shipped tiktoken encoding, and labelled which in ``x-toolcalls-token-count``."""

from __future__ import annotations

import anthropic
import pytest
from clients import anthropic_client
from upstream import FakeUpstream

from toolcalls.budget._tokens import count_tokens
from toolcalls.serve._count_tokens import PER_MESSAGE, estimate

WEATHER = {"name": "get_weather", "description": "The weather in a city.",
           "input_schema": {"type": "object", "properties": {"city": {"type": "string"}},
                            "required": ["city"]}}
ASKED = [{"role": "user", "content": "What is the weather in Paris?"}]


def _counted(url: str, **request: object) -> tuple[int, str]:
    raw = anthropic_client(url).messages.with_raw_response.count_tokens(
        model="qwen3", messages=ASKED, **request)  # type: ignore[arg-type]
    return raw.parse().input_tokens, raw.headers["x-toolcalls-token-count"]


def test_without_tokenize_upstream_the_count_is_a_labelled_estimate(
        start_proxy, upstream: FakeUpstream) -> None:
    url = start_proxy(mode="repair")
    tokens, how = _counted(url)
    assert how == "estimate"
    assert tokens == count_tokens(ASKED[0]["content"]) + 2 * PER_MESSAGE
    with_tools, _ = _counted(url, tools=[WEATHER])
    assert with_tools > tokens  # the tools are counted too
    assert upstream.requests == []  # nothing generated


def test_in_prompt_mode_the_estimate_counts_the_tools_written_into_the_prompt(
        start_proxy, upstream: FakeUpstream) -> None:
    repair, _ = _counted(start_proxy(mode="repair"), tools=[WEATHER])
    prompt, how = _counted(start_proxy(mode="prompt", format="hermes"), tools=[WEATHER])
    assert how == "estimate"
    assert prompt > repair  # the hermes system prompt around the tools


def test_an_upstream_with_tokenize_counts(start_proxy, upstream: FakeUpstream) -> None:
    upstream.tokenize_count = 42
    # a proxy of its own: one that met an upstream without /tokenize never asks it again
    tokens, how = _counted(start_proxy(mode="repair", timeout=599.0), tools=[WEATHER],
                           system="Be brief.")
    assert (tokens, how) == (42, "upstream")
    [asked] = upstream.tokenized
    assert asked["model"] == "qwen3" and asked["add_generation_prompt"] is True
    assert asked["messages"] == [{"role": "system", "content": "Be brief."}, *ASKED]
    assert asked["tools"][0]["function"]["name"] == "get_weather"


def test_a_llamacpp_upstream_counts_its_templated_prompt(start_proxy,
                                                         upstream: FakeUpstream) -> None:
    upstream.tokenize_count, upstream.tokenize_style = 17, "llamacpp"
    url = start_proxy(mode="repair", timeout=598.0)  # a proxy of its own, as above
    assert _counted(url) == (17, "upstream")
    chat, template, text = upstream.tokenized
    assert "messages" in chat and template == {"model": "qwen3", "messages": ASKED}
    assert text == {"content": f"<|user|>{ASKED[0]['content']}", "add_special": True}
    upstream.tokenized.clear()
    assert _counted(url) == (17, "upstream")
    assert [sorted(asked) for asked in upstream.tokenized] == [  # learnt: no chat form tried
        ["messages", "model"], ["add_special", "content"]]


def test_a_wrong_request_is_named_in_anthropic_shape(start_proxy, upstream) -> None:
    client = anthropic_client(start_proxy())
    with pytest.raises(anthropic.BadRequestError) as raised:
        client.messages.count_tokens(model="m", messages=[])
    assert "messages" in str(raised.value)


def test_estimate_counts_text_parts_and_calls() -> None:
    body = {"messages": [
        {"role": "user", "content": [{"type": "text", "text": "one"},
                                     {"type": "image_url", "image_url": {"url": "data:"}}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}]}
    first = estimate({"messages": body["messages"][:1]})
    assert first == count_tokens("one") + 2 * PER_MESSAGE  # the image counts nothing
    assert estimate(body) > first + PER_MESSAGE
