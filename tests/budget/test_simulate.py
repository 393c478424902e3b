"""The session cost model: strategies priced request by request, with prompt caching."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolcalls import Tool, to_tools
from toolcalls.budget import Prices, Trace, UsageProfile, choose, render, simulate
from toolcalls.budget._counts import tools_cost
from toolcalls.budget._prices import PRICES
from toolcalls.budget._simulate import STRATEGIES
from toolcalls.budget._traces import Turn

FIXTURES = Path(__file__).parents[2] / "fixtures"
TRACES = sorted((FIXTURES / "traces").glob("*.json"))


def toolset(name: str) -> list[Tool]:
    return to_tools(json.loads((FIXTURES / "toolsets" / name).read_text("utf-8")))


GITHUB = toolset("github-mcp-server-all.json")
ISSUE_PROFILE = UsageProfile(turns=50, distinct_tools=15, turn_tokens=300)
"""The issue's measurement: 50 turns on github-all, a new tool every 3-4 turns."""


def test_the_issues_caching_effect_is_reproduced_and_gone_when_loading_in_messages() -> None:
    busting = simulate(GITHUB, ISSUE_PROFILE, provider="openai", load="tools")
    assert round(busting.versus_full("lazy_search"), 2) == pytest.approx(1.14, abs=0.02)
    assert busting.costs["lazy_search"].tools_block_changes == 15
    assert busting.cheapest == "compact"
    keeping = simulate(GITHUB, ISSUE_PROFILE, provider="openai", load="messages")
    assert keeping.costs["lazy_search"].tools_block_changes == 0
    assert keeping.versus_full("lazy_search") < 0 and keeping.versus_full("lazy_by_name") < -0.2
    assert keeping.cheapest in ("lazy_by_name", "pinned")


def test_without_caching_busting_costs_nothing_and_lazy_saves() -> None:
    plain = simulate(GITHUB, ISSUE_PROFILE, prices="none", load="tools")
    cached = simulate(GITHUB, ISSUE_PROFILE, prices="openai", load="tools")
    assert plain.prices == PRICES["none"] and plain.costs["full"].cached_tokens > 0
    assert plain.versus_full("lazy_by_name") < 0 < cached.versus_full("lazy_by_name")
    with pytest.raises(ValueError, match="unknown prices"):
        simulate(GITHUB, ISSUE_PROFILE, prices="cheap")


def test_cached_prefix_is_priced_at_the_cached_rate() -> None:
    tool = Tool(name="f", description="Do f.")
    trace = Trace("two", (Turn((), 100), Turn((), 100)))
    free = simulate([tool], trace, prices=Prices(cached=0.0), strategies=("full",))
    paid = simulate([tool], trace, prices=Prices(cached=1.0), strategies=("full",))
    entry = paid.costs["full"]
    assert entry.requests == 2 and entry.cost == entry.input_tokens
    assert free.costs["full"].cost == entry.input_tokens - entry.cached_tokens
    assert entry.cumulative[-1] == entry.cost and len(entry.cumulative) == 2


def test_round_trips_per_strategy() -> None:
    trace = Trace("task", (Turn(("issue_read", "search_code", "get_file_contents"), 900),))
    priced = simulate(GITHUB, trace, load="messages")
    requests = {strategy: entry.requests for strategy, entry in priced.costs.items()}
    # call + answer; by name adds one load; search-then-load adds a search and a load per tool
    assert requests == {"full": 2, "compact": 2, "lazy_search": 8, "lazy_by_name": 3,
                        "pinned": 2}


def test_anthropic_bills_cache_writes() -> None:
    # The same count for both (each provider's own differs): only the prices are compared.
    trace, cost = Trace("one", (Turn((), 100),)), tools_cost("openai")
    anthropic = simulate(GITHUB, trace, provider="anthropic", strategies=("full",), cost=cost)
    openai = simulate(GITHUB, trace, provider="openai", strategies=("full",), cost=cost)
    assert anthropic.costs["full"].cost == pytest.approx(1.25 * openai.costs["full"].cost)
    assert anthropic.load == "messages" and openai.load == "tools"


@pytest.mark.parametrize("path", TRACES, ids=[path.stem for path in TRACES])
def test_every_example_trace_names_real_tools_and_is_priced(path: Path) -> None:
    data = json.loads(path.read_text("utf-8"))
    trace = Trace.load(path)
    tools = toolset(data["toolset"])
    assert trace.tool_names() <= {tool.name for tool in tools} and data["description"]
    for provider in ("openai", "anthropic"):
        priced = simulate(tools, trace, provider=provider)
        native = {"native"} if provider == "anthropic" else set()
        assert set(priced.costs) == set(STRATEGIES) - {"native"} | native
        assert priced.costs[priced.cheapest].cost == min(entry.cost
                                                         for entry in priced.costs.values())
        for entry in priced.costs.values():
            assert len(entry.cumulative) == len(trace.turns)
            assert list(entry.cumulative) == sorted(entry.cumulative)


def test_a_trace_naming_unknown_tools_is_refused() -> None:
    with pytest.raises(ValueError, match="not in the catalog: nope"):
        simulate(GITHUB, Trace("bad", (Turn(("nope",)),)))


def test_traces_read_both_turn_spellings() -> None:
    trace = Trace.from_dict({"turn_tokens": 50, "turns": [["a"], {"tools": ["b"], "tokens": 9}]})
    assert trace.turns == (Turn(("a",), 50), Turn(("b",), 9))


def test_a_profile_spreads_new_tools_over_the_session() -> None:
    trace = ISSUE_PROFILE.trace(GITHUB, lambda tools: sum(len(t.description) for t in tools))
    firsts = [number for number, turn in enumerate(trace.turns)
              if turn.tools[0] not in {name for earlier in trace.turns[:number]
                                       for name in earlier.tools}]
    assert len(trace.turns) == 50 and len(firsts) == 15
    assert firsts[0] == 0 and firsts[-1] >= 45


def test_the_plan_never_chooses_lazy_where_the_session_costs_more() -> None:
    budget = 3000  # full and compact do not fit: lazy would be chosen on session start alone
    assert choose(GITHUB, budget).mode == "lazy"
    plan = choose(GITHUB, budget, session=ISSUE_PROFILE, load="tools")
    assert plan.mode != "lazy" and not plan.costs["lazy"].eligible
    kept = choose(GITHUB, budget, session=ISSUE_PROFILE, load="messages")
    assert kept.mode == "lazy"


def test_render_prices_the_session_for_its_provider() -> None:
    rewriting = render(GITHUB, "openai", budget=3000, session=ISSUE_PROFILE)
    assert rewriting.mode != "lazy"  # Chat Completions: loads rewrite the tools block
    keeping = render(GITHUB, "anthropic", budget=3000, session=ISSUE_PROFILE)
    assert keeping.mode == "lazy"  # loads go in the conversation: the cache survives


def test_a_lazy_plan_opens_a_session_that_loads_in_messages() -> None:
    plan = choose(GITHUB, 3000, session=ISSUE_PROFILE, load="messages")
    session = plan.session(GITHUB, load="messages")
    assert session.load == "messages" and plan.session(GITHUB).load == "tools"
    assert session.request_tools() == list(plan.tools)  # the block sent first, kept after


def test_search_results_and_definitions_are_counted_with_the_models_tokenizer() -> None:
    pytest.importorskip("tokenizers")
    qwen = "Qwen/Qwen3-Coder-30B-A3B-Instruct"
    block = tools_cost("qwen3_coder", model=qwen)  # the same tools block in both runs
    own = simulate(GITHUB, ISSUE_PROFILE, provider="qwen3_coder", model=qwen, cost=block)
    o200k = simulate(GITHUB, ISSUE_PROFILE, provider="qwen3_coder", model=qwen, cost=block,
                     encoding="o200k_base")
    assert own.costs["full"].cost == o200k.costs["full"].cost  # no text loaded in the history
    assert own.costs["lazy_search"].input_tokens != o200k.costs["lazy_search"].input_tokens


# -- native: the provider's own deferral ---------------------------------------------------------


@pytest.mark.parametrize("provider", ["anthropic", "openai_responses"])
@pytest.mark.parametrize("prices", [None, "none"])
def test_native_keeps_the_block_and_ranks_between_search_and_by_name(
    provider: str, prices: str | None
) -> None:
    priced = simulate(GITHUB, ISSUE_PROFILE, provider=provider, prices=prices)
    native = priced.costs["native"]
    assert native.tools_block_changes == 0
    cost = {strategy: entry.cost for strategy, entry in priced.costs.items()}
    # One round trip per search, not two, and a block that never changes: below lazy_search
    # and full; but five definitions loaded per search cost more than loading by name.
    assert cost["lazy_by_name"] < cost["native"] < cost["lazy_search"] < cost["full"]
    assert priced.cheapest == "pinned" != "native"


def test_native_is_offered_only_where_the_provider_defers() -> None:
    assert "native" not in simulate(GITHUB, ISSUE_PROFILE, provider="openai").costs
    assert "native" not in simulate(GITHUB, ISSUE_PROFILE, provider="gemini").costs
    with pytest.raises(ValueError, match="native strategy"):
        simulate(GITHUB, ISSUE_PROFILE, provider="openai", strategies=("native",))


def test_native_searches_once_per_tool_not_yet_loaded_and_pays_the_definitions_once() -> None:
    trace = Trace("task", (Turn(("issue_read", "search_code"), 900), Turn(("issue_read",), 300)))
    priced = simulate(GITHUB, trace, provider="anthropic", prices="none",
                      strategies=("native",))
    # Turn 1: a search per tool (search_code is not among issue_read's next hits), the call,
    # the answer; turn 2: issue_read is loaded, no search.
    assert priced.costs["native"].requests == 2 + 2 + 2
    again = simulate(GITHUB, Trace("again", (*trace.turns, Turn(("issue_read",), 300))),
                     provider="anthropic", prices="none", strategies=("native",))
    assert again.costs["native"].requests == priced.costs["native"].requests + 2


def test_native_recommended_only_where_cheapest() -> None:
    trace = Trace.load(FIXTURES / "traces" / "github-maintainer-50.json")
    priced = simulate(GITHUB, trace, provider="anthropic")
    cost = {strategy: entry.cost for strategy, entry in priced.costs.items()}
    assert cost["native"] < min(cost["lazy_search"], cost["lazy_by_name"], cost["pinned"])
    assert priced.cheapest == min(cost, key=cost.__getitem__) == "compact"
