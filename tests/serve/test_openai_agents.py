"""The OpenAI Agents SDK as a client of the proxy, on its default model class
(`OpenAIResponsesModel`, which speaks the Responses API): an agent with one function tool runs
a tool loop through the proxy, whole (`Runner.run`) and streamed (`Runner.run_streamed`)."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from clients import TIMEOUT
from upstream import FakeUpstream

agents = pytest.importorskip("agents")
openai = pytest.importorskip("openai")

CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'


def _agent(client: Any, asked: list[str]) -> Any:
    """An agent whose one tool records the cities it is asked about; no tracing (no network)."""
    agents.set_tracing_disabled(True)

    @agents.function_tool
    def get_weather(city: str) -> str:
        """The weather in a city."""
        asked.append(city)
        return f"sunny in {city}"

    model = agents.OpenAIResponsesModel(model="hermes", openai_client=client)
    return agents.Agent(name="weather", instructions="Be brief.", tools=[get_weather],
                        model=model)


async def _run(url: str, asked: list[str], streamed: bool) -> Any:
    """The agent's final output, its client pointed at the proxy at `url`."""
    client = openai.AsyncOpenAI(base_url=f"{url}/v1", api_key="sk-test", timeout=TIMEOUT,
                                max_retries=0)
    agent = _agent(client, asked)
    try:
        if not streamed:
            return (await agents.Runner.run(agent, "The weather in Paris?")).final_output
        run = agents.Runner.run_streamed(agent, "The weather in Paris?")
        async for _ in run.stream_events():
            pass
        return run.final_output
    finally:
        await client.close()


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "run_streamed"])
@pytest.mark.parametrize("mode", ["prompt", "repair"])
def test_agent_runs_a_tool_loop(start_proxy, upstream: FakeUpstream, mode, streamed) -> None:
    upstream.script(CALL, then=("It is sunny in Paris.",))
    asked: list[str] = []
    # In a thread of its own: asyncio.run on the main thread would drop an event loop another
    # test's client left set there (LiteLLM's), unclosed, to be collected at a random later
    # point, where its ResourceWarning is an error.
    with ThreadPoolExecutor(1) as pool:
        final = pool.submit(asyncio.run, _run(start_proxy(mode=mode), asked, streamed)).result()
    assert final == "It is sunny in Paris."
    assert asked == ["Paris"]
    assert len(upstream.requests) == 2
    history = json.dumps(upstream.requests[1]["messages"])
    assert "sunny in Paris" in history  # the tool's output went back to the model
