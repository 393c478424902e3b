"""Tools under a token budget: exact offline token counts per provider, rendering that fits,
the mode (native, prompt, compact, lazy) each model wants, sessions that load tools as they are
needed, tool search, what a whole session costs per strategy with prompt caching (`simulate`),
the providers' own deferral (`native_deferral`: Anthropic's tool search and ``tool_reference``,
OpenAI's ``tool_search`` and ``tool_search_output``), and tool results cut to size.

>>> from toolcalls import Tool
>>> from toolcalls.budget import count_openai_tools
>>> count_openai_tools([Tool(name="f")]) > 0
True

Its modules stand in floors; each imports only from its own floor or those below it
(`tests/test_layers.py` checks):

1. **counting**: what a tool list costs as each provider's model reads it. `_tokens`
   (tiktoken, the OpenAI and Anthropic renderings), `_model_tokens` (a model's own tokenizer),
   `_profiles` (how tools reach each provider: native payload or prompt format), `_counts`
   (`provider_cost`, `tools_cost`), `_truncate` (tool results cut to a token count).
2. **search and sessions**: lazy loading in one conversation. `_search` (BM25, and the
   embedding rankers of `_semantic` and `_minilm`), `_session` (`Session`, the
   ``tool_search`` index), `_deferral` (the providers' own deferral).
3. **planning**: `_plan`, the policy that picks full, compact or lazy mode for a budget. A
   `Plan` hands out its `Session` and its native deferral, so it stands above them; it prices
   lazy mode over a whole session only through the pricing it is given (``lazy_pays``).
4. **cost simulation**: `_prices`, `_traces` (the sessions replayed), `_simulate` (`simulate`,
   and the public `choose`: the planner given the simulator's pricing of a ``session``).
5. **rendering**: `_render`, the entry points (`render`, `budget_report`) that count, plan
   and price for one provider or format.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_attributes, lazy_dir

if TYPE_CHECKING:
    from .._errors import EncodingError as EncodingError
    from ._deferral import NativeDeferral as NativeDeferral
    from ._deferral import native_deferral as native_deferral
    from ._deferral import search_calls as search_calls
    from ._plan import Plan as Plan
    from ._plan import compact_tool as compact_tool
    from ._prices import Prices as Prices
    from ._profiles import Profile as Profile
    from ._profiles import select_mode as select_mode
    from ._render import BudgetReport as BudgetReport
    from ._render import Rendering as Rendering
    from ._render import budget_report as budget_report
    from ._render import render as render
    from ._search import ToolIndex as ToolIndex
    from ._session import Activation as Activation
    from ._session import Session as Session
    from ._simulate import Simulation as Simulation
    from ._simulate import choose as choose
    from ._simulate import simulate as simulate
    from ._tokens import TiktokenCounter as TiktokenCounter
    from ._tokens import TokenCounter as TokenCounter
    from ._tokens import count_anthropic_tools as count_anthropic_tools
    from ._tokens import count_openai_tools as count_openai_tools
    from ._tokens import count_tokens as count_tokens
    from ._tokens import get_encoding as get_encoding
    from ._tokens import openai_tools_text as openai_tools_text
    from ._traces import Trace as Trace
    from ._traces import UsageProfile as UsageProfile
    from ._traces import sample_trace as sample_trace
    from ._traces import sample_traces as sample_traces
    from ._truncate import truncate_result as truncate_result

# tiktoken, pydantic and the vocabularies load on first use (see `toolcalls._lazy`); by floor.
_COUNTING = {
    **dict.fromkeys(["TiktokenCounter", "TokenCounter", "count_anthropic_tools",
                     "count_openai_tools", "count_tokens", "get_encoding", "openai_tools_text"],
                    "._tokens"),
    "EncodingError": ".._errors",  # an encoding or tokenizer it cannot load
    "Profile": "._profiles",
    "select_mode": "._profiles",
    "truncate_result": "._truncate",
}
_SESSIONS = {
    "ToolIndex": "._search",
    "Activation": "._session",
    "Session": "._session",
    "NativeDeferral": "._deferral",
    "native_deferral": "._deferral",
    "search_calls": "._deferral",
}
_PLANNING = {
    "Plan": "._plan",
    "compact_tool": "._plan",
}
_SIMULATION = {
    "Prices": "._prices",
    "Trace": "._traces",
    "UsageProfile": "._traces",
    "sample_trace": "._traces",
    "sample_traces": "._traces",
    "Simulation": "._simulate",
    "choose": "._simulate",  # the planner, given the simulator's pricing of a session
    "simulate": "._simulate",
}
_RENDERING = {
    "BudgetReport": "._render",
    "Rendering": "._render",
    "budget_report": "._render",
    "render": "._render",
}
_LAZY = {**_COUNTING, **_SESSIONS, **_PLANNING, **_SIMULATION, **_RENDERING}
__all__ = sorted(_LAZY)
__getattr__ = lazy_attributes(__name__, _LAZY)
__dir__ = lazy_dir(__name__, _LAZY)
