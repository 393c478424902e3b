"""``--budget N`` in prompt mode: the tools block kept within N tokens (`toolcalls.budget`).

The budget's plan picks the mode: full (all tools as they are), compact (shorter
descriptions and schemas), or lazy: the prompt carries the pinned tools and ``tool_search``,
and the model loads what it needs. The proxy answers the model's ``tool_search`` calls itself
and continues the upstream call with the tools found, so the client sees only its own tools
(`MAX_SEARCH_ROUNDS` at most per request).

One budget `Session` per conversation, rebuilt from the request: the proxy keeps no state
between requests (nothing to expire, nothing to leak across users); the tools a conversation
has loaded are the ones its history has called, and those are activated again. The searches
of earlier turns are not in the client's history (the client never saw them): the model sees
their outcome as the tools now in its prompt.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from ..budget._render import render
from ..budget._session import TOOL_SEARCH, Session
from ..parsing._models import ToolCall
from ..providers._native import render_native
from ..tools._tool import Tool

__all__ = ["MAX_SEARCH_ROUNDS", "ToolBudget"]

MAX_SEARCH_ROUNDS = 4
"""Upstream rounds a request may spend on ``tool_search`` before its answer is given as is."""


class ToolBudget:
    """The tools of one request under the budget, and its lazy session if any."""

    def __init__(self, chat: dict[str, Any], catalog: list[Tool], format_name: str,
                 budget: int) -> None:
        self.catalog = catalog
        rendering = render(self.catalog, format_name, budget=budget)
        self.mode = rendering.mode
        self.session: Session | None = None
        self._sent: list[Tool] = list(rendering.plan.tools)
        if self.mode == "lazy":
            self.session = rendering.plan.session(self.catalog)
            for name in _history_calls(chat):
                if name in self.session.catalog:
                    self.session.activate(name)

    def request(self, chat: dict[str, Any]) -> dict[str, Any]:
        """`chat` with the tools this mode sends (compact ones, or the lazy session's)."""
        tools = self.session.request_tools() if self.session else self._sent
        return {**chat, "tools": render_native(tools, "openai")["tools"]}

    def parse_tools(self) -> list[Tool]:
        """What calls are read against: every client tool, and ``tool_search`` when lazy."""
        return [*self.catalog, self.session.search_tool] if self.session else self.catalog

    def searches(self, calls: list[ToolCall]) -> list[ToolCall]:
        """The ``tool_search`` calls among `calls` (none unless lazy)."""
        return [call for call in calls if call.name == TOOL_SEARCH] if self.session else []

    def answered(self, chat: dict[str, Any], content: str,
                 searches: list[ToolCall]) -> dict[str, Any]:
        """`chat` continued: the model's turn with its searches, and their results."""
        assert self.session is not None
        ids = [f"call_{uuid.uuid4().hex[:24]}" for _ in searches]
        turn = {"role": "assistant", "content": content or None, "tool_calls": [
            {"id": call_id, "type": "function",
             "function": {"name": call.name, "arguments": call.arguments_json()}}
            for call_id, call in zip(ids, searches, strict=True)]}
        results = [{"role": "tool", "tool_call_id": call_id,
                    "content": json.dumps(self.session.run(call), ensure_ascii=False)}
                   for call_id, call in zip(ids, searches, strict=True)]
        return {**chat, "messages": [*chat["messages"], turn, *results]}

    def client_calls(self, calls: list[ToolCall]) -> list[ToolCall]:
        return [call for call in calls if call.name != TOOL_SEARCH] if self.session else calls


def _history_calls(chat: dict[str, Any]) -> list[str]:
    return [call["function"]["name"] for message in chat.get("messages", [])
            if isinstance(message, dict) and message.get("role") == "assistant"
            for call in message.get("tool_calls") or []
            if isinstance(call, dict) and isinstance(call.get("function"), dict)]
