"""The budget policy: send every tool in full, in compact form, or lazily behind ``tool_search``.

Three renderings of one catalog, from most to least useful:

- **full**: every tool with its whole schema.
- **compact**: every tool, with the description cut to its first sentence and the schema stripped
  of what cannot change which arguments are valid (titles, examples, ``$comment``, ``$schema``)
  and of property descriptions that only restate the property's name; other descriptions keep
  their first sentence. `compact_schema` never touches a validation keyword, and the tests check
  on generated instances that the compact schema accepts and rejects exactly what the full one
  does.
- **lazy**: pinned tools in full, plus the ``tool_search`` meta-tool carrying a one-line index of
  the rest (see `toolcalls.budget._session`); the model loads full schemas on demand.

`choose` walks that ladder and takes the first mode that fits the budget, so a tool set is only
degraded as far as the budget needs. A mode that costs more than full is never chosen: for a
small catalog the index and the meta-tool cost more than the tools themselves. Lazy mode costs
more as tools are activated, so its plan also lowers the activation ceiling until the session at
its ceiling (the largest tools all loaded) still costs no more than full, and fits the budget;
if fewer than `MIN_ACTIVE` tools could then be loaded, lazy mode is not useful and not chosen.

Given a pricing of the session it plans for (``lazy_pays``, a `LazyPays`), lazy mode is also
priced over the whole session, and is not eligible where it says lazy loading costs more than
full over it: round trips, search results in the history and cache busting can outweigh the
smaller tools block. The simulator that prices sessions with prompt caching sits a floor above
this module: `toolcalls.budget.choose` (`toolcalls.budget._simulate.choose`) takes
``session=UsageProfile(...)`` or a `Trace` and passes its pricing here.

Costs are token counts of the rendering the model reads, passed in as a `ToolsCost` function:
OpenAI's namespace rendering for native tools, a format's prompt rendering for prompt-based ones
(`toolcalls.budget._render` builds both).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from ..tools._tool import Tool
from ._counts import ToolsCost
from ._deferral import NativeDeferral, SearchKind, native_deferral
from ._search import identifier_tokens
from ._session import (
    DEFAULT_MAX_ACTIVE,
    TOOL_SEARCH,
    LoadMode,
    Session,
    check_search_name,
    summary_line,
    tool_search_tool,
)
from ._tokens import DEFAULT_ENCODING, TokenCounter, count_openai_tools

if TYPE_CHECKING:
    from ..tools._read import ToolsLike

__all__ = [
    "ANNOTATIONS",
    "COMPACT_DESCRIPTION_CHARS",
    "COMPACT_PROPERTY_CHARS",
    "MIN_ACTIVE",
    "MODES",
    "LazyPays",
    "Mode",
    "ModeCost",
    "Plan",
    "choose",
    "compact_schema",
    "compact_tool",
    "lazy_tools",
    "mode_costs",
    "openai_cost",
    "plural",
]

Mode = Literal["full", "compact", "lazy"]
MODES: tuple[Mode, ...] = ("full", "compact", "lazy")
"""The modes, most useful first: the order `choose` tries them in."""

LazyPays = Callable[[Sequence[Tool], ToolsCost, tuple[str, ...]], bool]
"""Whether lazy mode pays over the session a plan is for: given the catalog, the cost of a tool
list and the pinned tools, True when loading tools lazily costs no more than sending them all
(`toolcalls.budget._simulate.session_pricing` makes one from a `Trace` or `UsageProfile`)."""

ANNOTATIONS = frozenset({"title", "examples", "example", "$comment", "$schema", "deprecated",
                         "readOnly", "writeOnly"})
"""Schema keywords that never change which instances validate (JSON Schema annotations, plus
OpenAPI's ``example``). ``$schema`` names a dialect that no provider reads; ``default`` and
``format`` stay, the first because it tells the model something, the second because some
validators assert it."""

COMPACT_DESCRIPTION_CHARS = 160
"""Longest tool description in compact mode."""

COMPACT_PROPERTY_CHARS = 80
"""Longest description of a schema inside a tool's parameters in compact mode."""

MIN_ACTIVE = 3
"""The fewest tools a lazy session must be able to load at once to be worth choosing."""

# JSON Schema keywords whose values are subschemas: a map of them, one, or a list of them.
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions",
                          "dependentSchemas"})
_SCHEMA_ONE = frozenset({"additionalProperties", "additionalItems", "unevaluatedProperties",
                         "unevaluatedItems", "contains", "not", "if", "then", "else",
                         "propertyNames", "items"})
_SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
# Words that say nothing beyond a property's name and type ("The ID of the booking").
_FILLER = frozenset(identifier_tokens("name value string number text optional required "
                                      "specified given provided"))


def openai_cost(encoding: str | TokenCounter = DEFAULT_ENCODING) -> ToolsCost:
    """What OpenAI bills for sending tools natively (the namespace rendering)."""
    return lambda tools: count_openai_tools(tools, encoding)


# -- compact ---------------------------------------------------------------------------------


def compact_tool(tool: Tool) -> Tool:
    """``tool`` with its first-sentence description and `compact_schema` parameters."""
    return tool.model_copy(update={
        "description": summary_line(tool.description, COMPACT_DESCRIPTION_CHARS),
        "parameters": compact_schema(tool.parameters),
    })


def compact_schema(schema: Any, name: str | None = None) -> Any:
    """A schema valid for exactly the same instances, with annotations dropped.

    ``name`` is the property the schema describes, if any: a description made only of the
    name's words (and filler such as "the" or "value") is dropped, others keep their first
    sentence. Only schema positions are rewritten: a property called ``title`` stays, and
    values of ``enum``, ``const`` or ``default`` are data, copied as they are.
    """
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ANNOTATIONS:
            continue
        if key == "description":
            if isinstance(value, str) and (short := _short_description(value, name)):
                out[key] = short
            elif not isinstance(value, str):
                out[key] = value
        elif key in _SCHEMA_MAPS and isinstance(value, dict):
            named = key == "properties"
            out[key] = {k: compact_schema(v, k if named else None) for k, v in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [compact_schema(item) for item in value]
        elif key in _SCHEMA_ONE:
            out[key] = compact_schema(value)
        else:
            out[key] = value
    return out


def _short_description(text: str, name: str | None) -> str:
    if name is not None and set(identifier_tokens(text)) <= set(identifier_tokens(name)) | _FILLER:
        return ""
    return summary_line(text, COMPACT_PROPERTY_CHARS)


# -- lazy ------------------------------------------------------------------------------------


def lazy_tools(tools: Sequence[Tool], pinned: Iterable[str] = ()) -> list[Tool]:
    """What a lazy session sends first: the pinned tools, then ``tool_search`` with the index."""
    keep = set(pinned)
    deferred = [tool for tool in tools if tool.name not in keep]
    check_search_name(tools)  # its calls would be taken for searches
    return [*(tool for tool in tools if tool.name in keep), tool_search_tool(deferred)]


# -- choosing ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ModeCost:
    """One mode's cost, and whether the policy may choose it."""

    mode: Mode
    tokens: int
    """Tokens at session start."""
    tools: tuple[Tool, ...]
    """What is sent at session start."""
    eligible: bool
    """False for a mode that would cost more than full, or a lazy session too small to use."""
    fits: bool
    """It fits the budget (lazy: at session start, and at its ceiling)."""
    max_active: int | None = None
    """Lazy mode: the activation ceiling that keeps the session within full and the budget."""
    ceiling_tokens: int | None = None
    """Lazy mode: tokens with `max_active` of the largest tools loaded."""
    why_not: str = ""
    """Why the policy may not choose it, in words ("" when it may)."""


@dataclass(frozen=True)
class Plan:
    """The rendering `choose` picked, with what the alternatives cost."""

    mode: Mode
    tools: tuple[Tool, ...]
    """The tools to send at session start."""
    tokens: int
    full_tokens: int
    budget: int | None
    fits: bool
    """False when no mode fits the budget: the plan is then the cheapest eligible mode."""
    pinned: tuple[str, ...] = ()
    max_active: int | None = None
    """Lazy mode: the session's activation ceiling (see `ModeCost.max_active`)."""
    costs: Mapping[Mode, ModeCost] = field(default_factory=dict)
    """Every mode's cost, the chosen one included."""

    @property
    def saving(self) -> float:
        """Fraction of the full cost saved at session start."""
        return 1 - self.tokens / self.full_tokens if self.full_tokens else 0.0

    def session(self, catalog: ToolsLike, *, load: LoadMode = "tools") -> Session:
        """The `Session` that carries a lazy plan (its pinned tools and ceiling); `catalog` is
        `Tool` objects or raw definitions, whatever `toolcalls.to_tools` reads.

        ``load="messages"`` keeps the tools block fixed and loads definitions in the
        conversation, where the provider allows it (`toolcalls.budget._session.load_mode_for`).
        """
        if self.mode != "lazy" or self.max_active is None:
            raise ValueError(f"only a lazy plan has a session; this plan is {self.mode!r}")
        return Session(catalog, pinned=self.pinned, max_active=self.max_active, load=load)

    def native_deferral(
        self, catalog: ToolsLike, provider: str, *, search: SearchKind = "client",
        model: str | None = None,
    ) -> NativeDeferral:
        """The provider's own deferral of ``catalog`` with this plan's pinned tools
        (`toolcalls.budget._deferral`): Anthropic or OpenAI Responses keep the deferred tools
        out of the prompt, at fewer tokens than lazy mode's index for the same pins."""
        return native_deferral(catalog, provider, search=search, pinned=self.pinned,
                               model=model)


def mode_costs(
    tools: Sequence[Tool],
    cost: ToolsCost,
    *,
    budget: int | None = None,
    pinned: Iterable[str] = (),
    max_active: int = DEFAULT_MAX_ACTIVE,
) -> dict[Mode, ModeCost]:
    """The cost of each mode for ``tools``, which ones the policy may choose, which ones fit."""
    tools = list(tools)
    full = cost(tools)
    compact = [compact_tool(tool) for tool in tools]
    compact_tokens = cost(compact)
    return {
        "full": ModeCost("full", full, tuple(tools), eligible=True,
                         fits=budget is None or full <= budget),
        "compact": ModeCost("compact", compact_tokens, tuple(compact),
                            eligible=compact_tokens < full,
                            fits=budget is None or compact_tokens <= budget,
                            why_not="" if compact_tokens < full else
                            "shortening the descriptions saves nothing: they are short already"),
        "lazy": _lazy_cost(tools, cost, full, budget, tuple(pinned), max_active),
    }


def _lazy_cost(
    tools: list[Tool],
    cost: ToolsCost,
    full: int,
    budget: int | None,
    pinned: tuple[str, ...],
    max_active: int,
) -> ModeCost:
    if any(tool.name == TOOL_SEARCH for tool in tools):  # lazy would send two of that name
        return ModeCost("lazy", full, tuple(tools), eligible=False, fits=False,
                        why_not=f"a tool is already named {TOOL_SEARCH}")
    start = lazy_tools(tools, pinned)
    start_tokens = cost(start)
    deferred = [tool for tool in tools if tool.name not in set(pinned)]
    largest = sorted(deferred, key=lambda tool: cost([tool]), reverse=True)[:max_active]
    needed = max(1, min(MIN_ACTIVE, len(deferred)))
    within_full = _largest_ceiling(start, largest, cost, full)
    within_budget = within_full if budget is None else _largest_ceiling(
        start, largest, cost, min(full, budget))
    fits = budget is None or (start_tokens <= budget and within_budget >= needed)
    # Not fitting, lazy may still be the cheapest mode: then load as few tools as it takes to
    # stay nearest the budget.
    ceiling = within_budget if fits or budget is None else max(within_budget, 1)
    return ModeCost("lazy", start_tokens, tuple(start),
                    eligible=start_tokens < full and within_full >= needed, fits=fits,
                    max_active=ceiling, ceiling_tokens=cost([*start, *largest[:ceiling]]),
                    why_not=_lazy_why_not(start_tokens, full, within_full, needed))


def _lazy_why_not(start_tokens: int, full: int, within_full: int, needed: int) -> str:
    if start_tokens >= full:
        return "its index and search tool cost as much as the tools themselves"
    if within_full < needed:
        some = "no tool" if needed == 1 else f"fewer than {needed} tools"
        return f"{some} could be loaded before it costs more than full"
    return ""


def plural(count: int, noun: str) -> str:
    """``1 tool``, ``3 tools``: the count with its noun agreeing."""
    return f"{count:,} {noun}" if count == 1 else f"{count:,} {noun}s"


def _largest_ceiling(start: list[Tool], largest: list[Tool], cost: ToolsCost, limit: int) -> int:
    """The most of the largest tools that can be loaded with ``start`` within ``limit``."""
    low, high = 0, len(largest)
    while low < high:  # cost grows with every tool added: binary search
        middle = (low + high + 1) // 2
        if cost([*start, *largest[:middle]]) <= limit:
            low = middle
        else:
            high = middle - 1
    return low


def choose(
    tools: Sequence[Tool],
    budget: int | None = None,
    *,
    cost: ToolsCost | None = None,
    pinned: Iterable[str] = (),
    max_active: int = DEFAULT_MAX_ACTIVE,
    lazy_pays: LazyPays | None = None,
) -> Plan:
    """The most useful mode that fits ``budget`` tokens (full, else compact, else lazy).

    Args:
        tools: the whole catalog.
        budget: tokens the tool definitions may take at session start (None: no limit).
        cost: tokens of a tool list as the model reads it (default: OpenAI, o200k_base).
        pinned: tools lazy mode always sends in full.
        max_active: the highest activation ceiling a lazy session may have.
        lazy_pays: the pricing of the session planned for; lazy is not chosen where it says
            lazy loading costs more than full (None: lazy is priced at session start only).
            `toolcalls.budget.choose` makes it from a ``session``.
    """
    pins = tuple(dict.fromkeys(pinned))
    unknown = set(pins) - {tool.name for tool in tools}
    if unknown:
        raise ValueError(f"pinned tools not in the catalog: {', '.join(sorted(unknown))}")
    count = cost or openai_cost()
    costs = mode_costs(tools, count, budget=budget, pinned=pins, max_active=max_active)
    if lazy_pays is not None and costs["lazy"].eligible and not lazy_pays(tools, count, pins):
        costs["lazy"] = replace(costs["lazy"], eligible=False, why_not=(
            "over the session planned for it costs more than full (searches, loaded tools and "
            "cache misses outweigh the smaller tools block)"))
    eligible = [costs[mode] for mode in MODES if costs[mode].eligible]
    fitting = [entry for entry in eligible if entry.fits]
    picked = fitting[0] if fitting else min(eligible, key=lambda entry: entry.tokens)
    return Plan(
        mode=picked.mode, tools=picked.tools, tokens=picked.tokens,
        full_tokens=costs["full"].tokens, budget=budget, fits=bool(fitting), pinned=pins,
        max_active=picked.max_active, costs=costs,
    )
