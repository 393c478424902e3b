"""LlamaIndex as a client of the proxy: its default agent (`FunctionAgent`, a workflow) over
its LiteLLM model class runs a tool loop through the proxy, in front of a model server with no
tool calling (prompt mode, Hermes), streamed (the agent's default) and whole.

Why LiteLLM and not `OpenAILike`: every release of llama-index-llms-openai (which
llama-index-llms-openai-like builds on) requires ``openai<3``, and the other clients of these
tests (pydantic-ai, the Agents SDK) require ``openai>=3``; the two cannot be installed together.
LiteLLM's ``openai/`` provider is the same wire (OpenAI chat completions at a base URL). A model
id LiteLLM does not know is taken as one without function calling, so the test registers the
proxy's model as LiteLLM documents it for a self-hosted model, as a user would.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from clients import TIMEOUT
from upstream import FakeUpstream

litellm = pytest.importorskip("litellm")
workflow = pytest.importorskip("llama_index.core.agent.workflow")
tools = pytest.importorskip("llama_index.core.tools")
llms = pytest.importorskip("llama_index.llms.litellm")

# LiteLLM's provider TypedDicts (see test_litellm.py), and the workflow package listing an
# agent's members, pydantic's deprecated ones among them: warnings of theirs, not the proxy's
pytestmark = [pytest.mark.filterwarnings("ignore:Item.*ReadOnly. qualifier:UserWarning"),
              pytest.mark.filterwarnings("ignore::pydantic.warnings.PydanticDeprecationWarning"),
              pytest.mark.usefixtures("no_leftover_loop")]

MODEL = "openai/hermes"
"""LiteLLM's name for the proxy's model "hermes" (which names the format the proxy writes)."""
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
ANSWER = "It is 21 °C in Paris."
BROKEN = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Par</tool_call>'
"""A call whose JSON is broken (the string and the arguments' object never closed)."""


@pytest.fixture(scope="module", autouse=True)
def _model_registered() -> Iterator[None]:
    """The proxy's model in LiteLLM's model table, with function calling; taken out after."""
    litellm.register_model({MODEL: {"litellm_provider": "openai", "mode": "chat",
                                     "max_input_tokens": 32768, "max_output_tokens": 4096,
                                     "supports_function_calling": True}})
    yield
    litellm.model_cost.pop(MODEL, None)


def _agent(url: str, asked: list[str], streaming: bool) -> Any:
    def get_weather(city: str) -> str:
        """The weather in a city."""
        asked.append(city)
        return f"21 °C in {city}"

    llm = llms.LiteLLM(model=MODEL, api_base=f"{url}/v1", api_key="sk-test", max_retries=0,
                       timeout=TIMEOUT)
    return workflow.FunctionAgent(tools=[tools.FunctionTool.from_defaults(get_weather)],
                                  llm=llm, streaming=streaming)


async def _run(agent: Any) -> str:
    """The agent's final answer; its stream of events read to the end, as a caller does."""
    try:
        handler = agent.run(user_msg="Weather in Paris?")
        async for _ in handler.stream_events():
            pass
        return str(await handler)
    finally:
        # LiteLLM keeps the async openai client it made for this loop in its cache: closed
        # here, in the loop its connections belong to, not collected after the loop is gone
        await litellm.close_litellm_async_clients()


def _answer(url: str, asked: list[str], streaming: bool) -> str:
    # In a thread of its own: asyncio.run on the main thread would drop an event loop another
    # test's client left set there (LiteLLM's sync calls), unclosed.
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, _run(_agent(url, asked, streaming))).result()


@pytest.mark.parametrize("streaming", [True, False], ids=["streamed", "whole"])
def test_function_agent_runs_a_tool_loop(start_proxy, upstream: FakeUpstream,
                                         streaming: bool) -> None:
    upstream.script(CALL, then=(ANSWER,))
    asked: list[str] = []
    answer = _answer(start_proxy(mode="prompt"), asked, streaming)
    assert asked == ["Paris"]
    assert answer == ANSWER
    assert len(upstream.requests) == 2
    assert bool(upstream.requests[0].get("stream")) == streaming
    result = upstream.requests[1]["messages"][-1]
    assert result["role"] == "user"
    assert "<tool_response>" in result["content"] and "21 °C in Paris" in result["content"]


@pytest.mark.parametrize("streaming", [True, False], ids=["streamed", "whole"])
def test_function_agent_does_not_run_a_broken_call(start_proxy, upstream: FakeUpstream,
                                                   streaming: bool) -> None:
    upstream.script(BROKEN)
    asked: list[str] = []
    answer = _answer(start_proxy(mode="prompt"), asked, streaming)
    assert asked == []
    assert answer == BROKEN  # the model's text, as the answer: no call was made of it
    assert len(upstream.requests) == 1
