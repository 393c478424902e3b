"""``--budget N`` in prompt mode: compact tools, or lazy ones the model searches for, its
searches answered by the proxy and never shown to the client."""

from __future__ import annotations

import json

import pytest
from clients import chat_streamed, chat_whole, named, openai_client
from upstream import USAGE, FakeUpstream

from toolcalls import ToolCall, get_format
from toolcalls.budget import render
from toolcalls.tools import import_tools

FMT = get_format("qwen3_coder")
TOOLS = [{"type": "function", "function": {
    "name": f"tool_{i}", "description": f"Look up record kind {i} in the archive. " * 8,
    "parameters": {"type": "object", "properties": {
        "key": {"type": "string", "description": "The record key, as printed on the card."},
        "year": {"type": "integer", "description": "The year the record was filed in."}},
        "required": ["key"]}}} for i in range(40)]


def _budget_for(mode: str) -> int:
    """A budget at which the plan for TOOLS is `mode`."""
    for budget in range(200, 20000, 200):
        if render(TOOLS, "qwen3_coder", budget=budget).mode == mode:
            return budget
    raise AssertionError(f"no budget gives {mode}")


def _text(tool: str, **arguments: object) -> str:
    return FMT.render_calls([ToolCall(id="x", name=tool, arguments=arguments,
                                      source="native")])


REQUEST = {"model": "qwen3_coder", "tools": TOOLS,
           "messages": [{"role": "user", "content": "Find card AB-1 of kind 7."}]}


def test_compact_tools_are_shorter(start_proxy, upstream: FakeUpstream) -> None:
    budget = _budget_for("compact")
    chat_whole(openai_client(start_proxy(mode="prompt", budget=budget)), **REQUEST)
    system = upstream.requests[0]["messages"][0]["content"]
    full = FMT.render_tools(import_tools(TOOLS))
    assert system == render(TOOLS, "qwen3_coder", budget=budget).content
    assert len(system) < len(full) and "tool_39" in system


@pytest.mark.parametrize("stream", [False, True])
def test_lazy_searches_are_answered_by_the_proxy(start_proxy, upstream: FakeUpstream,
                                                 stream) -> None:
    budget = _budget_for("lazy")
    upstream.script(_text("tool_search", name="tool_7"),
                    then=("Found it. " + _text("tool_7", key="AB-1"),))
    client = openai_client(start_proxy(mode="prompt", budget=budget))
    asked = {"stream_options": {"include_usage": True}} if stream else {}
    answer = (chat_streamed if stream else chat_whole)(client, **REQUEST, **asked)
    assert named(answer["calls"]) == [("tool_7", {"key": "AB-1"})]
    assert answer["finish"] == "tool_calls" and answer["content"] == "Found it."
    assert answer["usage"]["completion_tokens"] == 2 * USAGE["completion_tokens"]
    first, second = upstream.requests
    assert "<name>tool_search</name>" in first["messages"][0]["content"]
    assert "<name>tool_7</name>" not in first["messages"][0]["content"]  # not loaded yet
    assert "<name>tool_7</name>" in second["messages"][0]["content"]
    searched = second["messages"][-1]["content"]
    assert "tool_7" in searched and json.dumps("tool_7") in searched  # the search's result


def test_history_calls_stay_loaded(start_proxy, upstream: FakeUpstream) -> None:
    budget = _budget_for("lazy")
    history = [*REQUEST["messages"],
               {"role": "assistant", "content": None, "tool_calls": [
                   {"id": "call_1", "type": "function",
                    "function": {"name": "tool_12", "arguments": '{"key": "Z"}'}}]},
               {"role": "tool", "tool_call_id": "call_1", "content": "filed 1999"}]
    upstream.script("Done.")
    chat_whole(openai_client(start_proxy(mode="prompt", budget=budget)),
               **{**REQUEST, "messages": history})
    system = upstream.requests[0]["messages"][0]["content"]
    assert "<name>tool_12</name>" in system and "<name>tool_13</name>" not in system
