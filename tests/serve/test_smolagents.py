"""smolagents as a client of the proxy, on its default path: a `ToolCallingAgent` over
`OpenAIServerModel` (its OpenAI-compatible model class) runs a tool loop through the proxy, in
front of a model server with no tool calling (prompt mode, Hermes), whole and streamed
(``stream_outputs=True``).

The agent asks for a call on every step (``tool_choice: "required"``) and ends by calling its
own ``final_answer`` tool, so the model writes two calls: the weather tool's, then the answer.
smolagents sends a tool's result back as a user message (its "Observation"), not as a ``tool``
message, so the upstream sees it as the client wrote it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from clients import TIMEOUT
from upstream import FakeUpstream

smolagents = pytest.importorskip("smolagents")
tool = smolagents.tool  # by this name: smolagents reads the decorator from the tool's source

CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
ANSWER = "It is 21 °C in Paris."
FINAL = ('<tool_call>\n{"name": "final_answer", "arguments": {"answer": '
         f'{json.dumps(ANSWER)}}}}}\n</tool_call>')
BROKEN = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Par</tool_call>'
"""A call whose JSON is broken (the string and the arguments' object never closed)."""


@pytest.fixture
def asked() -> list[str]:
    """The cities the weather tool was run for."""
    return []


@pytest.fixture
def model(start_proxy, upstream: FakeUpstream) -> Iterator[Any]:
    """smolagents' OpenAI-compatible model pointed at a prompt-mode proxy; its client closed
    after the test (the model opens it when made)."""
    made = smolagents.OpenAIServerModel(
        model_id="hermes", api_base=f"{start_proxy(mode='prompt')}/v1", api_key="sk-test",
        client_kwargs={"timeout": TIMEOUT, "max_retries": 0})
    yield made
    made.client.close()


def _agent(model: Any, asked: list[str], stream: bool) -> Any:
    @tool
    def get_weather(city: str) -> str:
        """The weather in a city.

        Args:
            city: The city's name.
        """
        asked.append(city)
        return f"21 °C in {city}"

    return smolagents.ToolCallingAgent(tools=[get_weather], model=model, max_steps=3,
                                       stream_outputs=stream,
                                       verbosity_level=smolagents.LogLevel.OFF)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_tool_calling_agent_runs_a_tool_loop(model, upstream: FakeUpstream, asked: list[str],
                                             stream: bool) -> None:
    upstream.script(CALL, then=(FINAL,))
    answer = _agent(model, asked, stream).run("Weather in Paris?")
    assert asked == ["Paris"]
    assert answer == ANSWER
    assert len(upstream.requests) == 2
    assert "tools" not in upstream.requests[0]  # prompt mode: the tools are in the prompt
    observation = upstream.requests[1]["messages"][-1]
    assert observation["role"] == "user"
    assert "21 °C in Paris" in json.dumps(observation["content"], ensure_ascii=False)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_tool_calling_agent_does_not_run_a_broken_call(model, upstream: FakeUpstream,
                                                       asked: list[str], stream: bool) -> None:
    upstream.script(BROKEN, then=(FINAL,))
    answer = _agent(model, asked, stream).run("Weather in Paris?")
    assert asked == []
    assert answer == ANSWER
    assert len(upstream.requests) == 2
    # the broken call came back as the model's text, and the agent said so on its next step
    replied = upstream.requests[1]["messages"][-2]
    assert replied["role"] == "assistant"
    assert json.dumps(replied["content"]) == json.dumps([{"type": "text", "text": BROKEN}])
