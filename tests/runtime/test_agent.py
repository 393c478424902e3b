"""The agent loop: one three-turn conversation against every provider shape, with the real
SDK clients talking to a scripted model server on 127.0.0.1 (and a text-format model behind
`toolcalls serve`); approvals, denials, step limits, cut calls, cancellation, lazy tools."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx
import ollama
import openai
import pytest
from google import genai
from servers import ServerThread

from toolcalls import TextDelta, ToolCallEnd, ToolCallStart
from toolcalls.budget import Session
from toolcalls.runtime import (
    Agent,
    AgentError,
    AgentResult,
    AnthropicModel,
    ApprovalNeeded,
    CancelToken,
    Executor,
    Finished,
    GeminiModel,
    Model,
    ModelRequest,
    OllamaModel,
    OpenAIChatModel,
    Permissions,
    PromptModel,
    ResponseRead,
    RuntimeTool,
    ScriptedModel,
    ToolFinished,
    tool,
)
from toolcalls.serve import ServeConfig, create_app

from .model_server import ModelServer, Turn

PROVIDERS = Path(__file__).resolve().parents[2] / "fixtures" / "providers"

TURNS: list[Turn] = [
    ("Let me look.", [("get_weather", {"city": "Paris"})]),
    ("", [("get_weather", {"city": "Berlin"}), ("to_fahrenheit", {"celsius": 18})]),
    ("Paris is 21 °C; Berlin 18 °C, which is 64.4 °F.", []),
]
EXECUTIONS = [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Berlin"}),
              ("to_fahrenheit", {"celsius": 18.0})]  # the function's type: float


def in_any_order(executed: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """Executions compared as a multiset: the calls of one response run in parallel, in any
    order (the steps' order is checked by their batches)."""
    return sorted(json.dumps(execution, sort_keys=True) for execution in executed)


class Tools:
    """The conversation's tools, recording each execution."""

    def __init__(self) -> None:
        self.executed: list[tuple[str, dict[str, Any]]] = []

        @tool
        def get_weather(city: str) -> str:
            """The temperature in a city, in °C."""
            self.executed.append(("get_weather", {"city": city}))
            return {"Paris": "21 °C", "Berlin": "18 °C"}[city]

        @tool
        def to_fahrenheit(celsius: float) -> float:
            """Convert °C to °F."""
            self.executed.append(("to_fahrenheit", {"celsius": celsius}))
            return celsius * 9 / 5 + 32

        self.all: list[RuntimeTool] = [get_weather, to_fahrenheit]


@pytest.fixture
def serve() -> Iterator[Callable[[Any], str]]:
    running: list[ServerThread] = []

    def start(app: Any) -> str:
        running.append(ServerThread(app).start())
        return running[-1].url

    yield start
    for server in running:
        server.stop()


def openai_model(serve: Callable[[Any], str], server: ModelServer) -> Model:
    client = openai.AsyncOpenAI(base_url=f"{serve(server.app)}/v1", api_key="test", max_retries=0)
    return OpenAIChatModel(client, "gpt-4o")


def anthropic_model(serve: Callable[[Any], str], server: ModelServer) -> Model:
    client = anthropic.AsyncAnthropic(base_url=serve(server.app), api_key="test", max_retries=0)
    return AnthropicModel(client, "scripted-claude", max_tokens=1024)


def gemini_model(serve: Callable[[Any], str], server: ModelServer) -> Model:
    # an httpx client of its own: else the SDK takes aiohttp where installed, which warns
    http = {"base_url": serve(server.app), "httpx_async_client": httpx.AsyncClient()}
    return GeminiModel(genai.Client(api_key="test", http_options=http), "gemini-3-flash")


def ollama_model(serve: Callable[[Any], str], server: ModelServer) -> Model:
    return OllamaModel(ollama.AsyncClient(host=serve(server.app)), "qwen3")


def prompt_model(serve: Callable[[Any], str], server: ModelServer) -> Model:
    client = openai.AsyncOpenAI(base_url=f"{serve(server.app)}/v1", api_key="test", max_retries=0)
    return PromptModel(OpenAIChatModel(client, "qwen3", format=None), "hermes")


def proxied_model(serve: Callable[[Any], str], server: ModelServer) -> Model:
    """A model with no tool calling, behind `toolcalls serve` in prompt mode."""
    proxy = serve(create_app(ServeConfig(upstream=f"{serve(server.app)}/v1", format="hermes",
                                         mode="prompt")))
    client = openai.AsyncOpenAI(base_url=f"{proxy}/v1", api_key="test", max_retries=0)
    return OpenAIChatModel(client, "qwen3")


SHAPES: dict[str, tuple[Callable[..., Model], str | None]] = {
    "openai": (openai_model, None),
    "anthropic": (anthropic_model, None),
    "gemini": (gemini_model, None),
    "ollama": (ollama_model, None),
    "prompt-mode": (prompt_model, "hermes"),
    "text-model-behind-serve": (proxied_model, "hermes"),
}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("shape", list(SHAPES))
def test_three_turn_conversation_runs_the_same_calls_for_every_provider_shape(
        shape: str, stream: bool, serve: Callable[[Any], str]) -> None:
    make, text_format = SHAPES[shape]
    server, tools = ModelServer(TURNS, text_format=text_format), Tools()
    agent = Agent(make(serve, server), tools.all, system="Answer briefly.", stream=stream)
    result = run(agent, "Weather in Paris and Berlin, and Berlin in °F?")
    assert in_any_order(tools.executed) == in_any_order(EXECUTIONS)
    assert (result.stop, result.answer) == ("answer", TURNS[2][0])
    assert [len(step.batch.results) for step in result.steps if step.batch] == [1, 2]
    assert len(server.requests) == 3


def test_results_go_back_in_each_api_shape(serve: Callable[[Any], str]) -> None:
    sent: dict[str, Any] = {}
    for shape in ("openai", "anthropic", "prompt-mode"):
        make, text_format = SHAPES[shape]
        server = ModelServer(TURNS, text_format=text_format)
        run(Agent(make(serve, server), Tools().all), "Weather?")
        sent[shape] = server.requests[1]["messages"]
    openai_result = sent["openai"][-1]
    assert (openai_result["role"], openai_result["content"]) == ("tool", "21 °C")
    assert openai_result["tool_call_id"] == sent["openai"][-2]["tool_calls"][0]["id"]
    (block,) = sent["anthropic"][-1]["content"]
    assert (block["type"], block["content"]) == ("tool_result", "21 °C")
    assert "<tool_response>" in sent["prompt-mode"][-1]["content"]
    assert "<tool_call>" in sent["prompt-mode"][-2]["content"]


def test_prompt_mode_sends_no_native_tools_and_writes_them_into_the_system_prompt(
        serve: Callable[[Any], str]) -> None:
    server = ModelServer(TURNS, text_format="hermes")
    run(Agent(prompt_model(serve, server), Tools().all, system="Answer briefly."), "Hi")
    first = server.requests[0]
    assert "tools" not in first
    system = first["messages"][0]
    assert system["role"] == "system" and system["content"].startswith("Answer briefly.")
    assert "get_weather" in system["content"] and "<tools>" in system["content"]


def test_sync_clients_run_in_a_worker_thread(serve: Callable[[Any], str]) -> None:
    server, tools = ModelServer(TURNS), Tools()
    client = openai.OpenAI(base_url=f"{serve(server.app)}/v1", api_key="test", max_retries=0)
    for stream in (False, True):
        tools.executed.clear()
        server.requests.clear()
        agent = Agent(OpenAIChatModel(client, "gpt-4o"), tools.all, stream=stream)
        assert agent.run_sync("Weather?").answer == TURNS[2][0]
        assert in_any_order(tools.executed) == in_any_order(EXECUTIONS)


def test_events_give_text_deltas_calls_and_results_in_order(
        serve: Callable[[Any], str]) -> None:
    server = ModelServer(TURNS)
    agent = Agent(openai_model(serve, server), Tools().all, stream=True)

    async def collect() -> list[Any]:
        try:
            return [event async for event in agent.events("Weather?")]
        finally:
            await close_client(agent.model)

    events = asyncio.run(collect())
    kinds = [type(event) for event in events]
    assert TextDelta in kinds and kinds[-1] is Finished
    assert kinds.count(ToolCallStart) == kinds.count(ToolCallEnd) == 3
    assert kinds.count(ResponseRead) == 3 and kinds.count(ToolFinished) == 3
    first_result = kinds.index(ToolFinished)
    assert kinds.index(ToolCallEnd) < kinds.index(ResponseRead) < first_result
    assert "".join(event.text for event in events if isinstance(event, TextDelta)) == (
        TURNS[0][0] + TURNS[2][0])


def test_ask_suspends_the_loop_and_resume_runs_the_call() -> None:
    tools = Tools()
    model = scripted(TURNS)
    agent = Agent(model, tools.all, permissions=Permissions(ask=["get_weather"]))
    waiting = agent.run_sync("Weather?")
    assert waiting.stop == "approval" and tools.executed == []
    (pending,) = waiting.pending
    assert pending.call.name == "get_weather" and agent.pending == [pending]
    with pytest.raises(AgentError, match="resume"):
        agent.run_sync("Another question")
    again = agent.resume_sync({pending.call.id: "always"})  # trusted for the session after
    assert again.stop == "answer" and agent.pending == []
    assert in_any_order(tools.executed) == in_any_order(EXECUTIONS)
    assert len(model.requests) == 3


def test_approval_needed_events_name_each_waiting_call() -> None:
    agent = Agent(scripted(TURNS), Tools().all, permissions=Permissions(ask=["get_weather"]))

    async def collect() -> list[Any]:
        return [event async for event in agent.events("Weather?")]

    needed = [event for event in asyncio.run(collect()) if isinstance(event, ApprovalNeeded)]
    assert [event.pending.call.arguments for event in needed] == [{"city": "Paris"}]


def test_a_denied_call_is_a_result_the_model_reads() -> None:
    tools, model = Tools(), scripted(TURNS)
    agent = Agent(model, tools.all, permissions=Permissions(deny=["to_fahrenheit"]))
    result = agent.run_sync("Weather?")
    assert result.stop == "answer"
    assert in_any_order(tools.executed) == in_any_order(EXECUTIONS[:2])
    denial = model.requests[2].messages[-1]
    assert denial["role"] == "tool" and "denied" in denial["content"].lower()


def test_resume_without_waiting_calls_is_an_agent_error() -> None:
    with pytest.raises(AgentError, match="nothing to resume"):
        Agent(scripted(TURNS), Tools().all).resume_sync({"call_1": "yes"})


def test_an_executor_brings_its_own_permissions() -> None:
    with pytest.raises(AgentError, match="set them on it"):
        Agent(scripted(TURNS), Executor(Tools().all), permissions=Permissions(ask=["x"]))


def test_a_client_error_keeps_the_history_and_run_tries_again(
        serve: Callable[[Any], str]) -> None:
    server, tools = ModelServer(TURNS), Tools()
    model = openai_model(serve, server)
    agent = Agent(model, tools.all)
    url = model.client.base_url  # type: ignore[attr-defined]
    model.client = model.client.with_options(base_url="http://127.0.0.1:9/v1")  # type: ignore[attr-defined]
    with pytest.raises(openai.APIConnectionError):
        agent.run_sync("Weather?")
    assert agent.messages == [{"role": "user", "content": "Weather?"}]
    model.client = model.client.with_options(base_url=url)  # type: ignore[attr-defined]
    assert run(agent, None).answer == TURNS[2][0]
    assert in_any_order(tools.executed) == in_any_order(EXECUTIONS)


def test_max_steps_stops_a_model_that_never_answers() -> None:
    tools = Tools()
    model = scripted([TURNS[0]] * 5)
    result = Agent(model, tools.all, max_steps=3).run_sync("Weather?")
    assert result.stop == "max_steps" and result.answer is None
    assert len(result.steps) == 3 and len(tools.executed) == 3


def test_a_call_cut_by_max_tokens_is_reported_to_the_model_and_written_again() -> None:
    cut = (PROVIDERS / "anthropic" / "claude37_tool_use_cut_by_max_tokens.sse")
    model = ScriptedModel([cut, anthropic_answer("Done.")], provider="anthropic", format=None)
    result = Agent(model, [], stream=True).run_sync("Go")
    assert (result.stop, result.answer) == ("answer", "Done.")
    assert result.steps[0].batch is None and result.steps[0].response.incomplete
    told = model.requests[1].messages[-1]
    assert told["role"] == "user" and "could not be read" in told["content"]


def test_a_malformed_call_beside_good_ones_is_reported_after_their_results() -> None:
    tools = Tools()
    broken = '<tool_call>{"name": "get_weather", "arguments": {"city": "Par</tool_call>'
    native = {"id": "call_1", "type": "function",
              "function": {"name": "get_weather", "arguments": '{"city": "Berlin"}'}}
    first = {"choices": [{"message": {"role": "assistant", "content": broken,
                                      "tool_calls": [native]}}]}
    model = ScriptedModel([first, scripted([TURNS[2]]).responses[0]], format="hermes")
    assert Agent(model, tools.all).run_sync("Weather?").stop == "answer"
    assert tools.executed == [("get_weather", {"city": "Berlin"})]
    *_, result, told = model.requests[1].messages
    assert (result["role"], result["content"]) == ("tool", "18 °C")
    assert told["role"] == "user" and "could not be read" in told["content"]


def test_cancel_while_the_model_answers_stops_the_loop() -> None:
    class Hanging(Model):
        async def send(self, request: ModelRequest, *, stream: bool) -> Any:
            await asyncio.sleep(3600)

    async def run() -> Any:
        token = CancelToken()
        asyncio.get_running_loop().call_later(0.05, token.cancel)
        return await asyncio.wait_for(Agent(Hanging(), []).run("Hi", cancel=token), 30)

    assert asyncio.run(run()).stop == "cancelled"


def test_lazy_session_sends_tool_search_then_the_tool_it_loaded() -> None:
    tools = Tools()
    search = ("", [("tool_search", {"query": "fahrenheit"})])
    load = ("", [("tool_search", {"name": "to_fahrenheit"})])
    model = scripted([search, load, ("", [("to_fahrenheit", {"celsius": 0})]), ("32 °F.", [])])
    definitions = [runtime_tool.definition for runtime_tool in tools.all]
    agent = Agent(model, tools.all, session=Session(definitions, max_active=1))
    assert agent.run_sync("0 °C in °F?").answer == "32 °F."
    assert [t.name for t in model.requests[1].tools] == ["tool_search"]
    assert [t.name for t in model.requests[2].tools] == ["tool_search", "to_fahrenheit"]
    assert tools.executed == [("to_fahrenheit", {"celsius": 0})]


def test_recorded_real_responses_replay_a_whole_loop() -> None:
    calls: list[str] = []

    @tool
    def get_capital(country: str) -> str:
        """The capital of a country."""
        calls.append(country)
        return {"UK": "London"}[country]

    chat = PROVIDERS / "openai_chat"
    model = ScriptedModel([chat / "gpt4o_mini_tool_call.sse",
                           chat / "gpt4o_mini_text_after_tool.sse"])
    result = Agent(model, [get_capital], stream=True).run_sync("Capital of the UK?")
    assert calls == ["UK"]
    assert result.answer == "The capital of the UK is London."


def run(agent: Agent, prompt: str | None) -> AgentResult:
    """`agent.run(prompt)`, its client closed in the same event loop (an async client's
    connections belong to the loop that opened them)."""
    async def main() -> AgentResult:
        try:
            return await agent.run(prompt)
        finally:
            await close_client(agent.model)

    return asyncio.run(main())


async def close_client(model: Model) -> None:
    inner = model.model if isinstance(model, PromptModel) else model
    client = inner.client  # type: ignore[attr-defined]
    if isinstance(client, genai.Client):
        await client.aio.aclose()
        await client._api_client._http_options.httpx_async_client.aclose()
    else:
        await client.close()


def test_anthropic_thinking_goes_back_signed_before_the_calls() -> None:
    @tool
    def get_user_country() -> str:
        """The user's country."""
        return "Mexico"

    recorded = PROVIDERS / "anthropic" / "claude_sonnet4_thinking_tool_use.json"
    model = ScriptedModel([recorded, anthropic_answer("Mexico.")], provider="anthropic")
    assert Agent(model, [get_user_country]).run_sync("Where am I?").answer == "Mexico."
    _, turn, results = model.requests[1].messages
    assert [block["type"] for block in turn["content"]] == ["thinking", "text", "tool_use"]
    assert turn["content"][0]["signature"]
    assert results["content"][0]["tool_use_id"] == turn["content"][2]["id"]


def test_gemini_calls_go_back_with_their_thought_signatures() -> None:
    @tool
    def get_capital(country: str) -> str:
        """The capital of a country."""
        return "Paris"

    recorded = PROVIDERS / "gemini" / "gemini25pro_function_call_thought_signature.json"
    answer = {"candidates": [{"content": {"role": "model", "parts": [{"text": "Paris."}]}}]}
    model = ScriptedModel([recorded, answer], provider="gemini", format=None)
    assert Agent(model, [get_capital]).run_sync("Capital of France?").answer == "Paris."
    user, turn, results = model.requests[1].messages
    (part,) = turn["parts"]
    assert part["functionCall"]["args"] == {"country": "France"}
    assert part["thoughtSignature"].startswith("Ct8DAXLI2n")
    assert results["parts"][0]["functionResponse"]["response"] == {"result": "Paris"}


def scripted(turns: list[Turn]) -> ScriptedModel:
    """The turns as whole OpenAI Chat responses."""
    responses = []
    for number, (text, calls) in enumerate(turns):
        tool_calls = [{"id": f"call_{number}_{index}", "type": "function",
                       "function": {"name": name, "arguments": json.dumps(arguments)}}
                      for index, (name, arguments) in enumerate(calls)]
        message = {"role": "assistant", "content": text or None, "tool_calls": tool_calls}
        responses.append({"choices": [{"index": 0, "message": message}]})
    return ScriptedModel(responses)


def anthropic_answer(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "assistant", "stop_reason": "end_turn",
            "content": [{"type": "text", "text": text}]}


