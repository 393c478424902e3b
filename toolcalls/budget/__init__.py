"""Tools under a token budget: exact offline token counts per provider, rendering that fits,
the mode (native, prompt, compact, lazy) each model wants, sessions that load tools as they are
needed, tool search, what a whole session costs per strategy with prompt caching (`simulate`),
the providers' own deferral (`native_deferral`: Anthropic's tool search and ``tool_reference``,
OpenAI's ``tool_search`` and ``tool_search_output``), and tool results cut to size.

>>> from toolcalls import Tool
>>> from toolcalls.budget import count_openai_tools
>>> count_openai_tools([Tool(name="f")]) > 0
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_attributes

if TYPE_CHECKING:
    from ._deferral import NativeDeferral as NativeDeferral
    from ._deferral import native_deferral as native_deferral
    from ._deferral import search_calls as search_calls
    from ._plan import Plan as Plan
    from ._plan import choose as choose
    from ._plan import compact_tool as compact_tool
    from ._profiles import Profile as Profile
    from ._profiles import select_mode as select_mode
    from ._render import BudgetReport as BudgetReport
    from ._render import Rendering as Rendering
    from ._render import budget_report as budget_report
    from ._render import render as render
    from ._search import ToolIndex as ToolIndex
    from ._session import Activation as Activation
    from ._session import Session as Session
    from ._simulate import Prices as Prices
    from ._simulate import Simulation as Simulation
    from ._simulate import Trace as Trace
    from ._simulate import UsageProfile as UsageProfile
    from ._simulate import simulate as simulate
    from ._tokens import TiktokenCounter as TiktokenCounter
    from ._tokens import TokenCounter as TokenCounter
    from ._tokens import count_anthropic_tools as count_anthropic_tools
    from ._tokens import count_openai_tools as count_openai_tools
    from ._tokens import count_tokens as count_tokens
    from ._tokens import get_encoding as get_encoding
    from ._tokens import openai_tools_text as openai_tools_text
    from ._truncate import truncate_result as truncate_result

# tiktoken, pydantic and the vocabularies load on first use (see `toolcalls._lazy`).
_LAZY = {
    "NativeDeferral": "._deferral",
    "native_deferral": "._deferral",
    "search_calls": "._deferral",
    "Plan": "._plan",
    "choose": "._plan",
    "compact_tool": "._plan",
    "Profile": "._profiles",
    "select_mode": "._profiles",
    "BudgetReport": "._render",
    "Rendering": "._render",
    "budget_report": "._render",
    "render": "._render",
    "ToolIndex": "._search",
    "Activation": "._session",
    "Session": "._session",
    "Prices": "._simulate",
    "Simulation": "._simulate",
    "Trace": "._simulate",
    "UsageProfile": "._simulate",
    "simulate": "._simulate",
    "TiktokenCounter": "._tokens",
    "TokenCounter": "._tokens",
    "count_anthropic_tools": "._tokens",
    "count_openai_tools": "._tokens",
    "count_tokens": "._tokens",
    "get_encoding": "._tokens",
    "openai_tools_text": "._tokens",
    "truncate_result": "._truncate",
}
__all__ = sorted(_LAZY)
__getattr__ = lazy_attributes(__name__, _LAZY)
