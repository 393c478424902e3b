"""render() and budget_report(): providers and prompt formats, within a budget."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolcalls import Tool, to_tools
from toolcalls.budget._counts import count_gemini_tools, tools_cost
from toolcalls.budget._model_tokens import model_counter
from toolcalls.budget._profiles import native_payload
from toolcalls.budget._render import budget_report, plan_report, render, render_tools_for
from toolcalls.budget._session import TOOL_SEARCH
from toolcalls.budget._tokens import count_anthropic_tools, count_openai_tools, count_tokens
from toolcalls.parsing._registry import get_format, list_formats
from toolcalls.providers._native import tools_from_native

TOOLSETS = Path(__file__).parents[2] / "fixtures" / "toolsets"


def toolset(name: str) -> list[Tool]:
    return to_tools(json.loads((TOOLSETS / f"{name}.json").read_text("utf-8")))


PROVIDERS = ["openai", "openai_responses", "anthropic", "gemini", "ollama"]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_without_a_budget_every_tool_is_sent_natively(provider: str) -> None:
    tools = toolset("mcp-git")
    rendering = render(tools, provider)
    assert rendering.mode == "full" and rendering.plan.fits
    assert isinstance(rendering.content, dict)
    assert [t.name for t in tools_from_native(rendering.content, provider)] == [
        t.name for t in tools]
    # Counted as that provider's model reads the tools; Ollama's through the template's block.
    expected = {
        "openai": count_openai_tools, "openai_responses": count_openai_tools,
        "anthropic": count_anthropic_tools, "gemini": count_gemini_tools,
        "ollama": lambda tools: count_tokens(get_format("ollama").render_tools(tools)),
    }[provider]
    assert rendering.tokens == expected(tools)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_tight_budget_sends_the_search_tool_natively(provider: str) -> None:
    tools = toolset("github-mcp-server-all")
    rendering = render(tools, provider, budget=2000, pinned=["get_me"])
    assert rendering.mode == "lazy" and rendering.tokens <= 2000
    sent = tools_from_native(rendering.content, provider)
    assert [tool.name for tool in sent] == ["get_me", TOOL_SEARCH]


NO_TOOLS_SECTION = {"minimax_m3": "MiniMax-M3's chat template, and so its tools block, is not "
                                  "public: render_tools writes nothing to count",
                    "step3": "Step-3's chat template could not be fetched whole, so its tools "
                             "block is unknown: render_tools writes nothing to count"}


def test_only_the_listed_formats_write_no_tools_section() -> None:
    tools = toolset("mcp-time")
    silent = {name for name in list_formats() if not get_format(name).render_tools(tools)}
    assert silent == set(NO_TOOLS_SECTION)


# "ollama" names Ollama's native API in render(); its prompt format is "ollama_json".
@pytest.mark.parametrize("name", [name for name in list_formats()
                                  if name != "ollama" and name not in NO_TOOLS_SECTION])
def test_prompt_formats_are_counted_in_their_own_rendering(name: str) -> None:
    tools = toolset("playwright-mcp")
    rendering = render(tools, name)
    assert rendering.content == get_format(name).render_tools(tools)
    assert rendering.tokens == model_counter(name).count(rendering.content)
    lazy = render(tools, name, budget=rendering.plan.costs["compact"].tokens - 1)
    assert lazy.mode == "lazy" and TOOL_SEARCH in lazy.content
    assert lazy.tokens == tools_cost(name)(list(lazy.plan.tools)) < rendering.tokens


def test_a_model_id_picks_its_format() -> None:
    tools = toolset("mcp-time")
    assert render(tools, "ollama_json").content == get_format("ollama").render_tools(tools)
    by_model = render(tools, "Qwen/Qwen3-Coder-30B-A3B-Instruct")
    assert by_model.content == get_format("qwen3_coder").render_tools(tools)


def test_provider_names_map_to_payloads() -> None:
    assert native_payload("azure") == "openai"
    assert native_payload("DeepSeek") == "openai"
    assert native_payload("responses") == "openai_responses"
    assert native_payload("ollama") == "ollama"  # the payload wins over the format's name
    assert native_payload("vllm") is None and native_payload("hermes") is None


def test_a_session_renders_what_it_activates() -> None:
    tools = toolset("github-mcp-server-all")
    rendering = render(tools, "anthropic", budget=3000)
    session = rendering.plan.session(tools)
    session.tool_search(name="search_code")
    payload = render_tools_for(session.request_tools(), "anthropic")
    assert [tool["name"] for tool in payload["tools"]] == [TOOL_SEARCH, "search_code"]


def test_a_session_takes_raw_definitions_as_to_tools_does() -> None:
    raw = json.loads((TOOLSETS / "github-mcp-server-all.json").read_text("utf-8"))
    plan = render(raw, "anthropic", budget=3000).plan
    session = plan.session(raw)
    assert list(session.catalog) == [tool.name for tool in to_tools(raw)]
    assert session.tool_search(name="search_code")
    assert [tool.name for tool in session.request_tools()][-1] == "search_code"


def test_budget_report_gives_every_mode_and_the_savings() -> None:
    report = budget_report(toolset("github-mcp-server-all"), "o200k_base", 5000)
    data = report.to_dict()
    assert {"full_tokens", "lazy_tokens", "chosen", "chosen_tokens"} <= set(data)
    assert data["chosen"] == "lazy" and data["chosen_tokens"] == data["lazy_tokens"] <= 5000
    assert data["full_tokens"] == count_openai_tools(toolset("github-mcp-server-all"))
    assert data["savings"]["lazy"] == pytest.approx(1 - data["lazy_tokens"] / data["full_tokens"],
                                                    abs=1e-4)
    assert data["lazy_ceiling_tokens"] <= 5000


@pytest.mark.parametrize(("format", "budget"), [("openai", None), ("openai", 300),
                                               ("hermes", 900), ("anthropic", 1000)])
def test_a_rendering_reports_as_budget_report_does(format: str, budget: int | None) -> None:
    tools = toolset("playwright-mcp")
    rendering = render(tools, format, budget=budget)
    report = plan_report(rendering.plan, len(tools), format=format)
    assert report == budget_report(tools, budget=budget, format=format)
    assert report.verdict() == report.table("t").splitlines()[-1]
    head = f"chosen: {rendering.mode} mode, {rendering.tokens:,} tokens"
    assert report.verdict().startswith(head)


def test_cl100k_counts_differ_from_o200k() -> None:
    tools = toolset("mcp-filesystem")
    assert budget_report(tools, "cl100k_base").full_tokens == count_openai_tools(
        tools, "cl100k_base") != budget_report(tools).full_tokens


def test_the_table_says_why_a_mode_is_not_used_and_counts_in_words() -> None:
    table = budget_report(toolset("mcp-fetch"), budget=30).table("t")
    assert "(not used: no tool could be loaded before it costs more than full)" in table
    assert table.splitlines()[-1] == (
        "chosen: compact mode, 115 tokens (full: 183, saves 37%), the cheapest; no mode fits "
        "the budget of 30 (this one is 85 over): raise the budget to 115, or send fewer tools")
    one_loaded = budget_report(toolset("playwright-mcp"), budget=300).table("t")
    assert "656 with 1 tool loaded" in one_loaded and "1 tools" not in one_loaded


def test_a_fitting_verdict_says_how_much_is_left() -> None:
    report = budget_report(toolset("mcp-filesystem"), budget=3000)
    assert report.verdict() == ("chosen: full mode, 1,175 tokens; it fits the budget of 3,000 "
                                "with 1,825 to spare")
    assert report.why_not == {}
