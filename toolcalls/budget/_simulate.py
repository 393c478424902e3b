"""What a whole session costs under each tool strategy, with prompt caching: `simulate`.

The plan (`toolcalls.budget._plan`) prices the session start. A session is many requests, and
each re-reads the tools block and the whole history; providers bill a prefix identical to the
previous request's at a cached price. Lazy mode saves on the tools block, but pays elsewhere:

- **round trips**: a request to search, one to load, before the tool can be called;
- **search results kept in the history**, re-read by every later request;
- **definitions paid twice** when loading rewrites the tools block (in the ``tool_search``
  result in the history, and in the block);
- **cache busting**: the tools block comes before the conversation, so rewriting it makes the
  whole history uncached (and, at Anthropic, re-written at the cache-write price).

The model. A request is a list of segments (the tools block, then each history entry); its
cached part is the longest run of leading segments equal to the previous request's, the rest is
uncached (we assume the cache never expires between requests of one session). Costs are in
units of one uncached input token; output tokens are left out (the same answers in every
strategy, but for a few short ``tool_search`` calls). A turn adds the user's message, then for
each round trip the model's calls and their results, then the answer: `Turn.tokens` in all,
in equal parts. A turn that calls tools takes two requests (call, then answer); lazy
strategies add, for tools not yet loaded:

- ``lazy_search``: per tool, a ``tool_search(query)`` request whose results (names and one line,
  `DEFAULT_SEARCH_LIMIT`) stay in the history, then a ``tool_search(name)`` request;
- ``lazy_by_name``: one ``tool_search(names=[...])`` request for all of them (the index in the
  ``tool_search`` description already names every tool);
- ``pinned``: as ``lazy_by_name``, with the trace's most used tools pinned (sent in full);
- ``native``: the provider's own deferral (`toolcalls.budget.native_deferral`, Anthropic and
  OpenAI Responses only): the tools block is the deferral's (every unpinned tool deferred, a
  client ``tool_search`` tool) and never changes, so the cache holds; per tool not yet loaded,
  one search request whose answer (``tool_reference`` blocks, a ``tool_search_output`` item)
  loads the tool and the next hits (`NATIVE_SEARCH_LIMIT` in all, as `_results` picks them) in
  full into the conversation, each definition paid once, counted as the provider counts a tool
  (`provider_cost`, the marginal cost of one more tool). Offered only for those two providers.

Each lazy strategy loads in the tools block (``load="tools"``, what OpenAI Chat Completions,
Gemini and Ollama need) or in the conversation (``load="messages"``, see
`toolcalls.budget._session`), by default as the provider allows (`load_mode_for`).

"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..tools._importers import import_tools
from ..tools._tool import Tool
from ._counts import ToolsCost, counter_for, provider_cost, tools_cost
from ._deferral import (
    NATIVE_SEARCH_LIMIT,
    NativeDeferral,
    NativeProvider,
    client_search_tool,
    native_deferral,
)
from ._plan import LazyPays, Plan, compact_tool
from ._plan import choose as choose_by_budget
from ._prices import Prices, resolve_prices
from ._profiles import native_payload
from ._search import DEFAULT_SEARCH_LIMIT
from ._session import DEFAULT_MAX_ACTIVE, LoadMode, Session, index_text, load_mode_for
from ._tokens import TokenCounter, count_tokens
from ._traces import Trace, UsageProfile

__all__ = [
    "STRATEGIES",
    "Simulation",
    "Strategy",
    "StrategyCost",
    "choose",
    "session_pricing",
    "simulate",
]

Strategy = Literal["full", "compact", "lazy_search", "lazy_by_name", "pinned", "native"]
STRATEGIES: tuple[Strategy, ...] = ("full", "compact", "lazy_search", "lazy_by_name", "pinned",
                                    "native")

CALL_TOKENS = 20
"""A ``tool_search`` call in the history: the call's envelope and a few words of query."""

NAME_TOKENS = 6
"""One more tool name in a ``tool_search(names=[...])`` call."""

PINNED_COUNT = 5
"""How many of the trace's most used tools the ``pinned`` strategy pins."""


@dataclass(frozen=True)
class StrategyCost:
    """One strategy over a whole session."""

    strategy: Strategy
    cost: float
    """In uncached input tokens."""
    requests: int
    input_tokens: int
    cached_tokens: int
    tools_block_changes: int
    cumulative: tuple[float, ...]
    """Cost after each turn."""


@dataclass(frozen=True)
class Simulation:
    """Every strategy's cost over one trace, and the cheapest."""

    trace: str
    provider: str
    prices: Prices
    load: LoadMode
    costs: dict[Strategy, StrategyCost] = field(default_factory=dict)

    @property
    def cheapest(self) -> Strategy:
        """The recommendation: the lowest cost, the most useful strategy on a tie."""
        return min(self.costs, key=lambda strategy: (self.costs[strategy].cost,
                                                     STRATEGIES.index(strategy)))

    def versus_full(self, strategy: Strategy) -> float:
        """How much more (positive) or less than ``full`` the strategy costs, as a fraction."""
        full = self.costs["full"].cost
        return self.costs[strategy].cost / full - 1 if full else 0.0

    def table(self) -> str:
        lines = [f"{self.trace}: {len(self.costs['full'].cumulative)} turns, {self.provider} "
                 f"prices (cached {self.prices.cached}x, write {self.prices.cache_write}x), "
                 f"lazy loads in {self.load}",
                 f"{'strategy':<14}{'cost':>11}{'vs full':>9}{'requests':>10}{'cached':>8}"]
        for strategy, entry in self.costs.items():
            versus = "—" if strategy == "full" else f"{self.versus_full(strategy):+.0%}"
            cached = entry.cached_tokens / entry.input_tokens if entry.input_tokens else 0.0
            lines.append(f"{strategy:<14}{entry.cost:>11,.0f}{versus:>9}{entry.requests:>10}"
                         f"{cached:>8.0%}")
        lines.append(f"cheapest: {self.cheapest}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "trace": self.trace, "provider": self.provider, "load": self.load,
            "prices": {"cached": self.prices.cached, "cache_write": self.prices.cache_write},
            "cheapest": self.cheapest,
            "strategies": {
                strategy: {"cost": round(entry.cost, 1), "requests": entry.requests,
                           "input_tokens": entry.input_tokens,
                           "cached_tokens": entry.cached_tokens,
                           "tools_block_changes": entry.tools_block_changes,
                           "versus_full": round(self.versus_full(strategy), 4),
                           "cumulative": [round(value, 1) for value in entry.cumulative]}
                for strategy, entry in self.costs.items()
            },
        }


def simulate(
    tools: Any,
    session: Trace | UsageProfile,
    *,
    cost: ToolsCost | None = None,
    provider: str = "openai",
    prices: Prices | str | None = None,
    load: LoadMode | None = None,
    encoding: str | TokenCounter | None = None,
    model: str | None = None,
    pinned: Iterable[str] = (),
    strategies: Iterable[Strategy] | None = None,
    search_limit: int = DEFAULT_SEARCH_LIMIT,
) -> Simulation:
    """Price ``session`` (a recorded `Trace` or a `UsageProfile`) under each strategy.

    Args:
        tools: the catalog (anything `toolcalls.to_tools` takes).
        cost: tokens of a tools block (default: `tools_cost(provider, encoding, model=model)`).
        provider: a provider or prompt format: its prices and where lazy mode may load.
        prices: `Prices`, or a name in `PRICES` (``"none"``: no caching); default
            ``PRICES[provider]``, OpenAI's for a prompt format.
        load: where lazy strategies put loaded definitions (default: `load_mode_for`).
        pinned: tools the ``pinned`` strategy pins, besides the trace's most used ones, and
            the ``native`` strategy pins.
        strategies: those to price; default `STRATEGIES`, ``native`` only where the provider
            has it (anthropic, openai_responses).
    """
    catalog = import_tools(tools)
    count = cost or tools_cost(provider, encoding, model=model)
    trace = session.trace(catalog, count) if isinstance(session, UsageProfile) else session
    unknown = sorted(trace.tool_names() - {tool.name for tool in catalog})
    if unknown:
        raise ValueError(f"the trace uses tools not in the catalog: {', '.join(unknown)}")
    mode: LoadMode = load or load_mode_for(provider)
    price = resolve_prices(prices, provider)
    # Search results and loaded definitions are text in the conversation: counted with the
    # provider's (or model's) tokenizer, as the tools block is.
    text_counter = counter_for(native_payload(provider) or provider, model, encoding)
    native = _native_provider(provider)
    chosen = tuple(strategies) if strategies is not None else tuple(
        strategy for strategy in STRATEGIES if strategy != "native" or native is not None)
    pinned = tuple(pinned)
    deferral = None
    if "native" in chosen:
        if native is None:
            raise ValueError(f"the native strategy is for anthropic or openai_responses, "
                             f"not {provider!r}")
        deferral = native_deferral(catalog, native, pinned=pinned, model=model,
                                   encoding=encoding)
    native_cost = None if deferral is None else (
        deferral, provider_cost(deferral.provider, model=model, encoding=encoding))
    runner = _Runner(catalog, count, price, text_counter, search_limit, native_cost)
    pins = (*pinned, *(name for name, _ in Counter(
        name for turn in trace.turns for name in turn.tools).most_common(PINNED_COUNT)))
    costs = {strategy: runner.run(trace, strategy, mode, tuple(dict.fromkeys(pins)))
             for strategy in chosen}
    return Simulation(trace.name, provider, price, mode, costs)


def session_pricing(
    session: Trace | UsageProfile, prices: Prices | None = None, load: LoadMode = "tools"
) -> LazyPays:
    """What `choose_by_budget` asks of the session it plans for: whether both lazy strategies
    (search then load, load by name) cost no more than full over ``session``, as `simulate`
    prices them at ``prices`` (default: OpenAI's) with definitions loaded as ``load`` says."""

    def lazy_pays(tools: Sequence[Tool], cost: ToolsCost, pinned: tuple[str, ...]) -> bool:
        priced = simulate(tools, session, cost=cost, prices=prices, load=load, pinned=pinned,
                          strategies=("full", "lazy_search", "lazy_by_name"))
        full = priced.costs["full"].cost
        return max(priced.costs["lazy_search"].cost, priced.costs["lazy_by_name"].cost) <= full

    return lazy_pays


def choose(
    tools: Sequence[Tool],
    budget: int | None = None,
    *,
    cost: ToolsCost | None = None,
    pinned: Iterable[str] = (),
    max_active: int = DEFAULT_MAX_ACTIVE,
    session: Trace | UsageProfile | None = None,
    prices: Prices | None = None,
    load: LoadMode = "tools",
) -> Plan:
    """The most useful mode that fits ``budget`` tokens (full, else compact, else lazy).

    Args:
        tools: the whole catalog.
        budget: tokens the tool definitions may take at session start (None: no limit).
        cost: tokens of a tool list as the model reads it (default: OpenAI, o200k_base).
        pinned: tools lazy mode always sends in full.
        max_active: the highest activation ceiling a lazy session may have.
        session: the session to price lazy mode over (a `Trace` or a `UsageProfile`); lazy is
            not chosen where it costs more than full over it.
        prices: cached and uncached input prices for that pricing (default: OpenAI's).
        load: where the lazy session loads definitions (``tools`` block or ``messages``).

    The policy is `toolcalls.budget._plan.choose`, a floor below; this adds the pricing of
    ``session`` by `simulate`.
    """
    pricing = None if session is None else session_pricing(session, prices, load)
    return choose_by_budget(tools, budget, cost=cost, pinned=pinned, max_active=max_active,
                            lazy_pays=pricing)


def _native_provider(provider: str) -> NativeProvider | None:
    lowered = provider.lower()
    if lowered == "anthropic":
        return "anthropic"
    return "openai_responses" if lowered in ("openai_responses", "responses") else None


class _Runner:
    """Replays a trace request by request, pricing each against the one before."""

    def __init__(self, catalog: list[Tool], cost: ToolsCost, prices: Prices,
                 encoding: str | TokenCounter, search_limit: int,
                 native: tuple[NativeDeferral, ToolsCost] | None = None) -> None:
        self.catalog = catalog
        self.native = native
        """The provider's deferral and its count of a tool list, for the ``native`` strategy."""
        self._native_definitions: dict[str, int] = {}
        self.cost = cost
        self.prices = prices
        self.encoding = encoding
        self.search_limit = search_limit
        self._block_costs: dict[tuple[str, ...], int] = {}
        self._definitions: dict[str, int] = {}
        self.full_tokens = cost(catalog)
        self.compact_tokens = cost([compact_tool(tool) for tool in catalog])

    def run(self, trace: Trace, strategy: Strategy, load: LoadMode,
            pins: tuple[str, ...]) -> StrategyCost:
        meter = _Meter(self.prices)
        if strategy == "native":
            return self._run_native(trace, meter)
        session: Session | None = None
        if strategy in ("full", "compact"):
            block = self.full_tokens if strategy == "full" else self.compact_tokens
            meter.set_tools(strategy, block)
        else:
            session = Session(self.catalog, pinned=pins if strategy == "pinned" else (),
                              max_active=len(self.catalog), load=load)
            self._set_block(meter, session)
        for number, turn in enumerate(trace.turns):
            share = _Share(turn.tokens, 3 if turn.tools else 2)
            meter.append(f"user {number}", share.next())
            if session is not None:
                new = [name for name in dict.fromkeys(turn.tools) if not session.is_loaded(name)]
                if new:
                    self._load(meter, session, new, strategy == "lazy_search", number)
            _finish_turn(meter, share, number, calls=bool(turn.tools))
        return meter.result(strategy)

    def _run_native(self, trace: Trace, meter: _Meter) -> StrategyCost:
        """The provider's own deferral: a fixed tools block, one search per tool not loaded."""
        assert self.native is not None
        deferral = self.native[0]
        meter.set_tools("native", deferral.tokens)
        loaded = set(deferral.pinned)
        for number, turn in enumerate(trace.turns):
            share = _Share(turn.tokens, 3 if turn.tools else 2)
            meter.append(f"user {number}", share.next())
            for name in dict.fromkeys(turn.tools):
                if name not in loaded:
                    meter.request()  # the model searches; the answer loads the hits in full
                    found = [hit for hit in self._hits(name, NATIVE_SEARCH_LIMIT)
                             if hit not in loaded]
                    loaded.update(found)
                    meter.append(f"search {number}.{name}", CALL_TOKENS + sum(
                        self._native_definition(hit) for hit in found))
            _finish_turn(meter, share, number, calls=bool(turn.tools))
        return meter.result("native")

    def _native_definition(self, name: str) -> int:
        """One loaded definition, as the provider counts one more tool beside the search tool."""
        if name not in self._native_definitions:
            assert self.native is not None
            count = self.native[1]
            base = client_search_tool(())
            tool = next(tool for tool in self.catalog if tool.name == name)
            self._native_definitions[name] = count([base, tool]) - count([base])
        return self._native_definitions[name]

    def _load(self, meter: _Meter, session: Session, new: list[str], searching: bool,
              number: int) -> None:
        batches = [[name] for name in new] if searching else [new]
        for step, batch in enumerate(batches):
            if searching:
                meter.request()  # the model asks tool_search(query) ...
                meter.append(f"search {number}.{step}", CALL_TOKENS + self._results(batch[0]))
            meter.request()  # ... then loads by name
            for name in batch:
                session.activate(name)
            definitions = sum(self._definition(name) for name in batch)
            meter.append(f"load {number}.{step}",
                         CALL_TOKENS + NAME_TOKENS * (len(batch) - 1) + definitions)
            self._set_block(meter, session)

    def _set_block(self, meter: _Meter, session: Session) -> None:
        names = tuple(tool.name for tool in session.request_tools())
        if names not in self._block_costs:
            self._block_costs[names] = self.cost(session.request_tools())
        meter.set_tools("|".join(names), self._block_costs[names])

    def _results(self, name: str) -> int:
        """A search's answer: the tool found and the next ones, a name and a line each."""
        hits = [tool for tool in self.catalog if tool.name in self._hits(name, self.search_limit)]
        return count_tokens(index_text(hits, 80), self.encoding)

    def _hits(self, name: str, limit: int) -> list[str]:
        """What a search for ``name`` finds: it, then the tools after it in the catalog."""
        position = next(i for i, tool in enumerate(self.catalog) if tool.name == name)
        return [tool.name for tool in [*self.catalog[position:], *self.catalog[:position]]][:limit]

    def _definition(self, name: str) -> int:
        if name not in self._definitions:
            tool = next(tool for tool in self.catalog if tool.name == name)
            text = json.dumps({"name": tool.name, "description": tool.description,
                               "parameters": tool.parameters}, ensure_ascii=False)
            self._definitions[name] = count_tokens(text, self.encoding)
        return self._definitions[name]


class _Share:
    """A turn's tokens in equal parts (the last part takes the remainder)."""

    def __init__(self, tokens: int, parts: int) -> None:
        self.left, self.parts = tokens, parts

    def next(self) -> int:
        part = self.left // self.parts if self.parts > 1 else self.left
        self.left, self.parts = self.left - part, self.parts - 1
        return part


class _Meter:
    """The prompt as segments, the previous request's segments, and the bill so far."""

    def __init__(self, prices: Prices) -> None:
        self.prices: Prices = prices
        self.tools: tuple[str, int] = ("", 0)
        self.history: list[tuple[str, int]] = []
        self.previous: list[tuple[str, int]] = []
        self.cost = 0.0
        self.requests = self.input = self.cached = self.block_changes = 0
        self.cumulative: list[float] = []

    def set_tools(self, key: str, tokens: int) -> None:
        if self.tools[0] and self.tools[0] != key:
            self.block_changes += 1
        self.tools = (key, tokens)

    def append(self, key: str, tokens: int) -> None:
        self.history.append((key, tokens))

    def request(self) -> None:
        prompt = [self.tools, *self.history]
        cached = 0
        for mine, theirs in zip(prompt, self.previous, strict=False):
            if mine != theirs:
                break
            cached += mine[1]
        total = sum(tokens for _, tokens in prompt)
        self.cost += cached * self.prices.cached + (total - cached) * self.prices.cache_write
        self.requests += 1
        self.input += total
        self.cached += cached
        self.previous = prompt

    def end_turn(self) -> None:
        self.cumulative.append(self.cost)

    def result(self, strategy: Strategy) -> StrategyCost:
        return StrategyCost(strategy, self.cost, self.requests, self.input, self.cached,
                            self.block_changes, tuple(self.cumulative))


def _finish_turn(meter: _Meter, share: _Share, number: int, *, calls: bool) -> None:
    """The turn's last requests: the calls (when it made any), then the answer."""
    if calls:
        meter.request()
        meter.append(f"calls {number}", share.next())
    meter.request()
    meter.append(f"answer {number}", share.next())
    meter.end_turn()
