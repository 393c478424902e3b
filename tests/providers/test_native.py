"""Native tool calling through the dispatch (`toolcalls.providers._native`): every provider.

Each provider's own shapes are tested beside its module (test_openai_chat_api.py, ...).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from weather import CALL, WEATHER

from toolcalls.parsing._models import ToolCall
from toolcalls.providers._native import (
    PROVIDERS,
    native_call_message,
    native_result_messages,
    render_native,
    tools_from_native,
)
from toolcalls.testing import names, schemas, tools
from toolcalls.tools._importers import import_tools
from toolcalls.tools._tool import Tool

FIXTURES = Path(__file__).parents[2] / "fixtures"


# --- dispatch ------------------------------------------------------------------------------------


MESSAGES_FOR_TWO_RESULTS = {"openai": 2, "openai_responses": 2, "anthropic": 1, "gemini": 1,
                            "ollama": 2, "mistral": 2}
"""How many messages each API wants two results of one turn in: a fact of its documentation,
checked here against what `render_results` does (one per call, or all in one turn)."""


def test_several_results_are_grouped_where_the_provider_wants_one_turn() -> None:
    missing = set(PROVIDERS) - set(MESSAGES_FOR_TWO_RESULTS)
    assert not missing, (f"add {sorted(missing)} to MESSAGES_FOR_TWO_RESULTS: how many messages "
                         "the API wants two results in (docs/adding-a-provider.md §7)")
    second = ToolCall(id="call_2", name="get_weather", arguments={"location": "Oslo"},
                      span=(0, 0))
    pairs = [(CALL, "18°C"), (second, "boom")]
    counts = {p: len(native_result_messages(pairs, p, errors=["call_2"])) for p in PROVIDERS}
    assert counts == MESSAGES_FOR_TWO_RESULTS
    (anthropic,) = native_result_messages(pairs, "anthropic", errors=["call_2"])
    assert [block.get("is_error", False) for block in anthropic["content"]] == [False, True]


def test_unknown_provider_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match=re.escape(", ".join(PROVIDERS))):
        render_native([WEATHER], "cohere")


# --- goldens over real tool sets ----------------------------------------------------------------

GOLDEN_TOOLSETS = ("mcp-git", "mcp-fetch", "mcp-memory")


def golden_payload(provider: str) -> dict[str, Any]:
    tools = [tool for name in GOLDEN_TOOLSETS for tool in import_tools(
        json.loads((FIXTURES / "toolsets" / f"{name}.json").read_text()))]
    calls = [
        ToolCall(id="call_a", name="git_log", arguments={"repo_path": "/src", "max_count": 3},
                 span=(0, 0)),
        ToolCall(id="call_b", name="fetch", arguments={"url": "https://example.org/ü"},
                 span=(0, 0)),
    ]
    results = [(calls[0], "commit 1\ncommit 2"), (calls[1], {"status": 404, "body": "<html>"})]
    return {
        **render_native(tools, provider),
        "history": [*native_call_message(calls, provider, content="Looking."),
                    *native_result_messages(results, provider, errors=["call_b"])],
    }


@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_golden_payload(provider: str, request: pytest.FixtureRequest) -> None:
    path = FIXTURES / "native" / f"{provider}.json"
    payload = golden_payload(provider)
    if request.config.getoption("--update-goldens"):
        path.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n")
    assert payload == json.loads(path.read_text())


@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_real_tool_sets_read_back_with_the_same_arguments(provider: str) -> None:
    for path in sorted((FIXTURES / "toolsets").glob("*.json")):
        tools = import_tools(json.loads(path.read_text()))
        back = tools_from_native(render_native(tools, provider), provider)
        assert [(t.name, t.description) for t in back] == [(t.name, t.description) for t in tools]
        for before, after in zip(tools, back, strict=True):
            assert set(after.parameters.get("properties", {})) == set(
                before.parameters.get("properties", {})), (path.name, before.name)
            required_after = after.parameters.get("required") or []
            assert required_after == (before.parameters.get("required") or [])


# --- round trips --------------------------------------------------------------------------------

@given(tools(max_size=1, parameters=schemas(2)).map(lambda drawn: drawn[0]),
       st.sampled_from(list(PROVIDERS)))
def test_any_tool_round_trips_through_every_provider(tool: Tool, provider: str) -> None:
    payload = json.loads(json.dumps(render_native([tool], provider)))  # as sent on the wire
    (back,) = tools_from_native(payload, provider)
    assert (back.name, back.description, back.parameters) == (
        tool.name, tool.description, tool.parameters)


@given(st.dictionaries(names(), st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(names(), inner, max_size=3),
    max_leaves=8), max_size=4))
def test_call_arguments_survive_every_history_shape(arguments: dict[str, Any]) -> None:
    call = ToolCall(id="c", name="f", arguments=arguments, span=(0, 0))
    openai = native_call_message([call], "openai")[0]["tool_calls"][0]["function"]
    assert json.loads(openai["arguments"]) == arguments
    responses = native_call_message([call], "openai_responses")[0]
    assert json.loads(responses["arguments"]) == arguments
    assert native_call_message([call], "anthropic")[0]["content"][0]["input"] == arguments
    assert native_call_message([call], "gemini")[0]["parts"][0]["functionCall"]["args"] == (
        arguments)
    assert native_call_message([call], "ollama")[0]["tool_calls"][0]["function"][
        "arguments"] == arguments
