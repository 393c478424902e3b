"""Two tools of one name (two MCP servers that each have ``search``): a `ToolDefinitionError`
naming both and how to tell them apart, wherever tools are read, rendered or budgeted; never a
request with two functions of one name, never one of them dropped."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import toolcalls
from toolcalls import Tool, ToolDefinitionError
from toolcalls.budget import Session, choose, native_deferral
from toolcalls.providers import render_native
from toolcalls.providers._native import PROVIDERS
from toolcalls.tools import from_mcp, import_tools

LISTING = {"tools": [{"name": "search", "description": "Search.",
                      "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}]}
GITHUB = from_mcp(LISTING, server="github")
JIRA = from_mcp(LISTING, server="jira")
BOTH = [*GITHUB, Tool(name="other", description="Other."), *JIRA]
NAMES_BOTH = r"two tools are named 'search': tool #0 \(from 'github'\) and tool #2 \(from 'jira'\)"


def raises_naming_both(action: Callable[[], Any]) -> None:
    with pytest.raises(ToolDefinitionError, match=NAMES_BOTH) as raised:
        action()
    assert "prefix='jira_'" in str(raised.value)  # how to fix it


def test_reading_tools_of_one_name_raises_naming_both_sources() -> None:
    raises_naming_both(lambda: toolcalls.to_tools(BOTH))
    raises_naming_both(lambda: import_tools(BOTH))
    raises_naming_both(lambda: toolcalls.to_tools([t.model_dump() for t in BOTH]))
    with pytest.raises(ToolDefinitionError, match="'f' is given twice"):
        toolcalls.to_tools([{"name": "f"}, {"name": "f"}])


def test_a_prefix_keeps_two_servers_tools_apart() -> None:
    tools = [*from_mcp(LISTING, server="github", prefix="github_"),
             *import_tools(LISTING, source="jira", prefix="jira_")]
    assert [(tool.name, tool.source) for tool in toolcalls.to_tools(tools)] == [
        ("github_search", "github"), ("jira_search", "jira")]
    text = '<tool_call>\n{"name": "jira_search", "arguments": {"q": "bug"}}\n</tool_call>'
    assert toolcalls.parse(text, "hermes", tools=tools).calls[0].name == "jira_search"


def test_parsing_against_tools_of_one_name_raises() -> None:
    text = '<tool_call>\n{"name": "search", "arguments": {}}\n</tool_call>'
    raises_naming_both(lambda: toolcalls.parse(text, "hermes", tools=BOTH))
    raises_naming_both(lambda: toolcalls.parse(text, tools=BOTH))
    raises_naming_both(lambda: toolcalls.stream("hermes", tools=BOTH))
    raises_naming_both(lambda: toolcalls.parser("hermes", tools=BOTH))


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_no_provider_request_declares_two_functions_of_one_name(provider: str) -> None:
    raises_naming_both(lambda: render_native(BOTH, provider))
    raises_naming_both(lambda: toolcalls.budget.render(BOTH, provider))


@pytest.mark.parametrize("fmt", toolcalls.list_formats())
def test_no_prompt_declares_two_tools_of_one_name(fmt: str) -> None:
    raises_naming_both(lambda: toolcalls.budget.render(BOTH, fmt))


def test_budget_sessions_plans_and_deferral_keep_both_or_raise() -> None:
    # On main a Session kept one `search` of the two, silently.
    raises_naming_both(lambda: Session(BOTH))
    raises_naming_both(lambda: choose(BOTH))
    raises_naming_both(lambda: native_deferral(BOTH, "anthropic"))
    raises_naming_both(lambda: toolcalls.budget.budget_report(BOTH))


def test_a_tool_named_like_the_search_tool_is_refused_where_lazy_loading_adds_it() -> None:
    mine = [Tool(name="tool_search", description="Mine."), Tool(name="x", description="X.")]
    with pytest.raises(ToolDefinitionError, match="'tool_search'.*rename it"):
        Session(mine)
    with pytest.raises(ToolDefinitionError, match="'tool_search'.*rename it"):
        native_deferral(mine, "anthropic", search="client")
    assert Session(mine, pinned=["tool_search", "x"]).deferred == []  # nothing to search
    assert choose(mine).mode == "full"  # lazy is no option, the others are
    assert choose(mine).costs["lazy"].eligible is False
