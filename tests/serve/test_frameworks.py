"""Agent frameworks on their default configuration run a whole tool loop through the proxy, in
front of a model server with no tool calling (prompt mode, Hermes), whole and streamed.

Each framework is the real package users install (pydantic-ai, LangChain with LangGraph's
`create_agent`); the model server is the fake upstream replaying a Hermes call, then an
answer. The checks: the framework ran the tool with the model's arguments, its final answer
is the model's text, and the upstream got the tool's result back in the model's own format.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import openai
import pytest
from langchain.agents import create_agent
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from upstream import FakeUpstream

CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
ANSWER = "It is 21 °C in Paris."
MODEL = "hermes"
"""The model id the clients send: it names the format the proxy writes and reads."""


def get_weather(city: str) -> str:
    """The weather in a city."""
    RAN.append(city)
    return f"21 °C in {city}"


RAN: list[str] = []


@pytest.fixture
def loop(start_proxy: Callable[..., str], upstream: FakeUpstream) -> str:
    """The proxy's URL, its upstream scripted: a call, then the answer."""
    RAN.clear()
    upstream.script(CALL, then=(ANSWER,))
    return start_proxy(mode="prompt")


def assert_loop_ran(upstream: FakeUpstream, answer: str) -> None:
    assert RAN == ["Paris"]
    assert answer == ANSWER
    assert len(upstream.requests) == 2
    result = upstream.requests[1]["messages"][-1]
    assert result["role"] == "user"
    assert "<tool_response>" in result["content"] and "21 °C in Paris" in result["content"]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_pydantic_ai_agent(loop: str, upstream: FakeUpstream, stream: bool) -> None:
    async def run() -> str:
        # a client of the test's own, closed in the loop that used it (the provider's shared
        # one would be collected after its loop closed)
        async with openai.AsyncOpenAI(base_url=f"{loop}/v1", api_key="sk-test",
                                      max_retries=0, timeout=30) as client:
            model = OpenAIChatModel(MODEL, provider=OpenAIProvider(openai_client=client))
            agent = Agent(model, tools=[get_weather])
            if not stream:
                return (await agent.run("Weather in Paris?")).output
            async with agent.run_stream("Weather in Paris?") as streamed:
                return await streamed.get_output()

    answer = asyncio.run(run())
    assert_loop_ran(upstream, answer)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_langchain_agent_with_chat_openai(loop: str, upstream: FakeUpstream,
                                                     stream: bool) -> None:
    model = ChatOpenAI(model=MODEL, base_url=f"{loop}/v1", api_key="sk-test",
                       streaming=stream, max_retries=0, timeout=30)
    agent = create_agent(model, [tool(get_weather)])
    state: dict[str, Any] = agent.invoke({"messages": [("user", "Weather in Paris?")]})
    assert_loop_ran(upstream, state["messages"][-1].content)
