"""The Anthropic ``thread`` field (message threads: the server keeps the conversation):
the proxy keeps none, so it answers as a server that cannot thread the request
(`_anthropic_request.ThreadsNotKept`), and the Anthropic SDK's ``tool_runner``, on its
defaults, drops ``thread`` and sends the whole history."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import httpx
import pytest
from clients import anthropic_client
from upstream import FakeUpstream

CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
ASKED = [{"role": "user", "content": "What is the weather in Paris?"}]


@anthropic.beta_tool
def get_weather(city: str) -> str:
    """The weather in a city.

    Args:
        city: The city's name.
    """
    return json.dumps({"city": city, "sky": "sunny"})


@pytest.mark.parametrize("stream", [False, True])
def test_tool_runner_on_its_defaults_completes_a_two_turn_loop(
        start_proxy, upstream: FakeUpstream, stream: bool) -> None:
    upstream.script(CALL, then=("It is sunny in Paris.",))
    client = anthropic_client(start_proxy(mode="prompt", format="hermes"))
    runner = client.beta.messages.tool_runner(model="qwen3", max_tokens=200, messages=ASKED,
                                              tools=[get_weather], stream=stream)
    if stream:
        messages = [each.get_final_message() for each in runner]
    else:
        messages = list(runner)
    assert [message.stop_reason for message in messages] == ["tool_use", "end_turn"]
    assert messages[-1].content[0].text == "It is sunny in Paris."  # type: ignore[union-attr]
    first, second = upstream.requests  # a refused request never reaches the upstream
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    # the second turn carries the whole history: question, call, result
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "user"]
    assert "sunny" in second["messages"][-1]["content"]


def test_a_thread_is_refused_in_anthropic_shape_saying_what_to_do(start_proxy,
                                                                   upstream) -> None:
    response = httpx.post(f"{start_proxy()}/v1/messages", timeout=10, json={
        "model": "m", "max_tokens": 10, "messages": ASKED, "thread": {"type": "create"}})
    assert response.status_code == 400
    error: dict[str, Any] = response.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert error["details"] == {"error_code": "thread_unsupported_request",
                                "unsupported": ["thread"]}
    assert "send the whole conversation in messages, without thread" in error["message"]
    assert upstream.requests == []


def test_a_thread_asked_by_hand_is_an_sdk_error_naming_it(start_proxy, upstream) -> None:
    client = anthropic_client(start_proxy())
    with pytest.raises(anthropic.BadRequestError) as raised:
        client.messages.create(model="m", max_tokens=10, messages=ASKED,  # type: ignore[arg-type]
                               extra_body={"thread": {"type": "create"}})
    assert "keeps no message threads" in str(raised.value)
