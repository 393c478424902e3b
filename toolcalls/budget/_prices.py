"""Input prices with prompt caching, as ratios to one uncached input token: what `simulate`
and `toolcalls.budget.choose` price sessions at.

Prices (`PRICES`) are ratios to the uncached input price, from the providers' price pages:
Anthropic cache reads 0.1x and 5-minute cache writes 1.25x
(https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching#pricing); OpenAI cached
input 0.1x for the GPT-5 family ($0.125 vs $1.25 per million, https://openai.com/api/pricing/;
0.5x for gpt-4o), no write premium; Gemini 2.5 implicit caching 0.25x
(https://ai.google.dev/gemini-api/docs/pricing, "context caching" rows); ``none``: no caching.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["PRICES", "Prices", "resolve_prices"]


@dataclass(frozen=True)
class Prices:
    """Input prices relative to one uncached input token."""

    cached: float
    """A token read from the prompt cache."""
    cache_write: float = 1.0
    """An uncached token (written to the cache as it is read: 1.25 at Anthropic)."""


PRICES: Mapping[str, Prices] = {
    "openai": Prices(cached=0.1),
    "anthropic": Prices(cached=0.1, cache_write=1.25),
    "gemini": Prices(cached=0.25),
    "none": Prices(cached=1.0),
}
"""Default prices per provider (sources in the module docstring)."""


def resolve_prices(prices: Prices | str | None, provider: str) -> Prices:
    """``prices`` itself, the ones named in `PRICES`, or by default the provider's (OpenAI's
    for a provider or prompt format without its own)."""
    if isinstance(prices, Prices):
        return prices
    if prices is not None and prices not in PRICES:
        raise ValueError(f"unknown prices {prices!r}: {', '.join(PRICES)}, or Prices(...)")
    return PRICES[prices] if prices is not None else PRICES.get(provider.lower(),
                                                                PRICES["openai"])
