"""Call ids in the client API's own style (`apis.InboundApi.call_id`): in repair mode an
Anthropic client gets ``toolu_`` ids even where the upstream's native ids are vLLM's
``chatcmpl-tool-...``, one per upstream id; an OpenAI client keeps the upstream's."""

from __future__ import annotations

import re

import pytest
from clients import anthropic_client, chat_streamed, chat_whole, openai_client
from upstream import FakeUpstream

TOOLU = re.compile(r"toolu_[0-9a-f]{24}")
WEATHER = {"name": "get_weather", "description": "The weather in a city.",
           "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}
NATIVE = [{"id": f"chatcmpl-tool-{n}a9f", "type": "function",
           "function": {"name": "get_weather", "arguments": f'{{"city": "{city}"}}'}}
          for n, city in enumerate(["Paris", "Oslo"])]
ASKED = [{"role": "user", "content": "Weather in Paris and Oslo?"}]


@pytest.mark.parametrize("stream", [False, True])
def test_an_anthropic_client_gets_toolu_ids_for_native_calls(
        start_proxy, upstream: FakeUpstream, stream: bool) -> None:
    upstream.script("", native_calls=NATIVE)
    client = anthropic_client(start_proxy(mode="repair"))
    request = {"model": "m", "max_tokens": 100, "messages": ASKED, "tools": [WEATHER]}
    if stream:
        with client.messages.stream(**request) as streamed:  # type: ignore[arg-type]
            message = streamed.get_final_message()
    else:
        message = client.messages.create(**request)  # type: ignore[arg-type]
    uses = [block for block in message.content if block.type == "tool_use"]
    assert [use.input for use in uses] == [{"city": "Paris"}, {"city": "Oslo"}]
    ids = [use.id for use in uses]
    assert all(TOOLU.fullmatch(ident) for ident in ids) and len(set(ids)) == 2


def test_the_anthropic_ids_work_in_the_next_turn(start_proxy, upstream: FakeUpstream) -> None:
    upstream.script("", native_calls=NATIVE[:1], then=("Sunny.",))
    client = anthropic_client(start_proxy(mode="repair"))
    request = {"model": "m", "max_tokens": 100, "tools": [WEATHER]}
    first = client.messages.create(messages=ASKED, **request)  # type: ignore[arg-type]
    [use] = [block for block in first.content if block.type == "tool_use"]
    second = client.messages.create(messages=[  # type: ignore[arg-type]
        *ASKED, {"role": "assistant", "content": first.content},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id,
                                      "content": "sunny"}]}], **request)
    assert second.content[0].text == "Sunny."  # type: ignore[union-attr]
    sent = upstream.requests[-1]["messages"]
    assert sent[-2]["tool_calls"][0]["id"] == sent[-1]["tool_call_id"] == use.id


def test_an_openai_client_keeps_the_upstream_ids(start_proxy, upstream: FakeUpstream) -> None:
    client = openai_client(start_proxy(mode="repair"))
    tools = [{"type": "function", "function": {"name": "get_weather",
                                               "parameters": WEATHER["input_schema"]}}]
    for ask in (chat_whole, chat_streamed):
        upstream.script("", native_calls=NATIVE)
        answer = ask(client, model="m", messages=ASKED, tools=tools)
        assert [ident for ident, _, _ in answer["calls"]] == [call["id"] for call in NATIVE]
