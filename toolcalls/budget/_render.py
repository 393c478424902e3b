"""Render a tool catalog for a provider or a text format, within a token budget.

``render(tools, "openai", budget=2000)`` picks a mode with `toolcalls.budget.choose` and
returns the provider's request payload (native rendering); ``render(tools, "qwen3_coder")``
returns the tools block of that model's system prompt (prompt rendering). Costs are counted as
each provider's model reads the tools (`toolcalls.budget._counts.provider_cost`): OpenAI's
namespace text, Anthropic's tool JSON plus its tool-use system prompt for the model family,
Gemini's function declarations, the chat template's tools block for Ollama, the format's own
tools block for prompt formats, each with the model's tokenizer where one is installed.

`budget_report` gives what each mode costs, for the ``toolcalls budget`` command.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..parsing._registry import get_format
from ..providers._native import render_native
from ..tools._importers import import_tools
from ..tools._tool import Tool
from ._counts import count_target, counter_for, tools_cost
from ._model_tokens import counter_name
from ._plan import MIN_ACTIVE, MODES, Mode, Plan, plural
from ._prices import Prices, resolve_prices
from ._profiles import native_payload
from ._session import DEFAULT_MAX_ACTIVE, load_mode_for
from ._simulate import choose
from ._tokens import TokenCounter
from ._traces import Trace, UsageProfile

__all__ = [
    "BudgetReport",
    "Rendering",
    "budget_report",
    "plan_report",
    "render",
    "render_tools_for",
]


@dataclass(frozen=True)
class Rendering:
    """Tools rendered for one provider or format, in the mode the budget allowed."""

    format: str
    """A provider payload name (``openai``, ``anthropic``…) or a text format name."""
    content: str | dict[str, Any]
    """The request payload (native) or the system-prompt tools block (prompt)."""
    plan: Plan
    """The mode chosen, its cost, and for lazy mode the session to carry on with."""

    @property
    def mode(self) -> Mode:
        return self.plan.mode

    @property
    def tokens(self) -> int:
        return self.plan.tokens


def _encoding_label(format: str, model: str | None,  # noqa: A002
                    encoding: str | TokenCounter | None) -> str:
    return counter_name(counter_for(count_target(format), model, encoding))


def render(
    tools: Any,
    format: str,  # noqa: A002 - the concept is called "format" everywhere
    *,
    budget: int | None = None,
    encoding: str | TokenCounter | None = None,
    pinned: Iterable[str] = (),
    max_active: int = DEFAULT_MAX_ACTIVE,
    session: Trace | UsageProfile | None = None,
    prices: Prices | str | None = None,
    model: str | None = None,
) -> Rendering:
    """Tools for ``format`` (a provider: openai, responses, anthropic, gemini, ollama; or a
    text format name, alias or model id), in the most useful mode that fits ``budget``.

    The budget is in the provider's tokens (`tools_cost`); ``model`` (a Claude model, an Ollama
    tag, a Hugging Face id) makes the count that model's, ``encoding`` forces a tokenizer.
    ``session`` (a `Trace` or `UsageProfile`): lazy mode is not chosen where it costs more than
    full over it, at ``prices`` (default: the provider's, `toolcalls.budget._prices.PRICES`).
    """
    catalog = import_tools(tools)
    plan = choose(catalog, budget, cost=tools_cost(format, encoding, model=model),
                  pinned=pinned, max_active=max_active,
                  **_session_options(format, session, prices))
    return Rendering(format, render_tools_for(plan.tools, format), plan)


def render_tools_for(tools: Sequence[Tool], format: str) -> str | dict[str, Any]:  # noqa: A002
    """The payload (provider) or the prompt tools block (text format) for exactly ``tools``."""
    payload = native_payload(format)
    if payload:
        return render_native(list(tools), payload)
    return get_format(format).render_tools(tools)


@dataclass(frozen=True)
class BudgetReport:
    """What each mode costs for one catalog, and what the policy chose."""

    tool_count: int
    format: str
    encoding: str
    budget: int | None
    tokens: dict[Mode, int]
    """Session-start tokens of each mode."""
    eligible: dict[Mode, bool]
    chosen: Mode
    fits: bool
    lazy_max_active: int | None
    """The activation ceiling of a lazy session (lowered so it never costs more than full)."""
    lazy_ceiling_tokens: int | None
    """Tokens of a lazy session with its largest tools loaded up to the ceiling."""
    why_not: dict[Mode, str] = field(default_factory=dict)
    """Why each mode the policy may not choose is out, in words."""

    @property
    def full_tokens(self) -> int:
        return self.tokens["full"]

    @property
    def chosen_tokens(self) -> int:
        return self.tokens[self.chosen]

    def saving(self, mode: Mode) -> float:
        """Fraction of the full cost that ``mode`` saves (negative: it costs more)."""
        return 1 - self.tokens[mode] / self.full_tokens if self.full_tokens else 0.0

    def table(self, title: str) -> str:
        """The report as the plain-text table ``toolcalls budget`` prints."""
        budget = "none" if self.budget is None else f"{self.budget:,}"
        lines = [f"{title}: {self.tool_count} tools, {self.format} rendering, "
                 f"{self.encoding}, budget {budget}",
                 f"{'mode':<9}{'tokens':>9}{'saving':>9}"]
        for mode in MODES:
            saving = "—" if mode == "full" else f"{self.saving(mode):.0%}"
            note = "" if self.eligible[mode] else f"   (not used: {self._why_not(mode)})"
            if mode == "lazy" and self.lazy_ceiling_tokens is not None:
                loaded = plural(self.lazy_max_active or 0, "tool")
                note = (f"   at session start; {self.lazy_ceiling_tokens:,} with {loaded} "
                        "loaded")
            lines.append(f"{mode:<9}{self.tokens[mode]:>9,}{saving:>9}{note}")
        lines.append(self.verdict())
        return "\n".join(lines)

    def verdict(self) -> str:
        """One sentence: the mode chosen and its cost, whether it fits the budget and by how
        much, and what to do when it does not.

        ``toolcalls budget`` ends its table with it and ``toolcalls render`` prints it on
        stderr: the same words and numbers for the same tools, format and budget.
        """
        line = f"chosen: {self.chosen} mode, {self.chosen_tokens:,} tokens"
        if self.chosen != "full":
            line += f" (full: {self.full_tokens:,}, saves {self.saving(self.chosen):.0%})"
        if self.budget is None:
            return line + "; no budget was set, so any size fits"
        if self.fits:
            spare = self.budget - self.chosen_tokens
            return line + f"; it fits the budget of {self.budget:,} with {spare:,} to spare"
        if self.chosen == "lazy" and self.chosen_tokens <= self.budget:
            return line + (f" at session start; it does not fit the budget of {self.budget:,} "
                           f"once {plural(MIN_ACTIVE, 'tool')} are loaded: raise the budget, "
                           "or pin or send fewer tools")
        over = f"{self.chosen_tokens - self.budget:,} over"
        if self.chosen == "lazy":  # what it needs grows as tools load: no one number fits
            return line + (f", the cheapest; no mode fits the budget of {self.budget:,} (this "
                           f"one is {over} at session start alone): raise the budget, or "
                           "send fewer tools")
        return line + (f", the cheapest; no mode fits the budget of {self.budget:,} (this one "
                       f"is {over}): raise the budget to {self.chosen_tokens:,}, or send fewer "
                       "tools")

    def _why_not(self, mode: Mode) -> str:
        return self.why_not.get(mode) or "it would cost more than full"

    def to_dict(self) -> dict[str, Any]:
        """The JSON of ``toolcalls budget --json``."""
        return {
            "tools": self.tool_count,
            "format": self.format,
            "encoding": self.encoding,
            "budget": self.budget,
            **{f"{mode}_tokens": self.tokens[mode] for mode in MODES},
            "savings": {mode: round(self.saving(mode), 4) for mode in MODES},
            "eligible": self.eligible,
            "chosen": self.chosen,
            "chosen_tokens": self.chosen_tokens,
            "fits": self.fits,
            "lazy_max_active": self.lazy_max_active,
            "lazy_ceiling_tokens": self.lazy_ceiling_tokens,
        }


def budget_report(
    tools: Any,
    encoding: str | TokenCounter | None = None,
    budget: int | None = None,
    *,
    format: str = "openai",  # noqa: A002
    pinned: Iterable[str] = (),
    max_active: int = DEFAULT_MAX_ACTIVE,
    session: Trace | UsageProfile | None = None,
    prices: Prices | str | None = None,
    model: str | None = None,
) -> BudgetReport:
    """Tokens of each mode for ``tools`` sent to ``format`` (default: OpenAI natively), counted
    as that provider (and ``model``) reads them; ``session`` and ``prices`` as in `render`."""
    catalog = import_tools(tools)
    plan = choose(catalog, budget, cost=tools_cost(format, encoding, model=model),
                  pinned=pinned, max_active=max_active,
                  **_session_options(format, session, prices))
    return plan_report(plan, len(catalog), format=format, encoding=encoding, model=model)


def plan_report(
    plan: Plan,
    tool_count: int,
    *,
    format: str,  # noqa: A002
    encoding: str | TokenCounter | None = None,
    model: str | None = None,
) -> BudgetReport:
    """The report of a plan already chosen (``toolcalls render`` has the rendering's plan)."""
    lazy = plan.costs["lazy"]
    return BudgetReport(
        tool_count=tool_count,
        format=format,
        encoding=_encoding_label(format, model, encoding),
        budget=plan.budget,
        tokens={mode: plan.costs[mode].tokens for mode in MODES},
        eligible={mode: plan.costs[mode].eligible for mode in MODES},
        chosen=plan.mode,
        fits=plan.fits,
        lazy_max_active=lazy.max_active if lazy.eligible else None,
        lazy_ceiling_tokens=lazy.ceiling_tokens if lazy.eligible else None,
        why_not={mode: plan.costs[mode].why_not for mode in MODES if plan.costs[mode].why_not},
    )


def _session_options(
    format: str,  # noqa: A002
    session: Trace | UsageProfile | None,
    prices: Prices | str | None,
) -> dict[str, Any]:
    """`choose`'s session pricing for ``format``: its prices and where lazy mode loads."""
    if session is None:
        return {}
    return {"session": session, "prices": resolve_prices(prices, format),
            "load": load_mode_for(format)}
