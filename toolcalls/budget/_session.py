"""Lazy tool loading for one conversation: a `Session` holds which tools the model has loaded.

In lazy mode the model starts with the pinned tools, and a ``tool_search`` meta-tool whose
description lists every other tool by name and one line. ``tool_search(query=…)`` ranks the
catalog (`toolcalls.budget._search`); ``tool_search(name=…)`` returns a tool's full definition and
activates it, so the next request carries it.

The activation set is per session, never global. It keeps a stable order: pinned tools, then
``tool_search`` (whose index never changes), then active tools in the order they were first
activated, so consecutive requests share the longest possible prefix and prompt caching keeps
working. At most `max_active` tools are active besides the pinned ones; activating one more
evicts the least recently used (activated or called), reports it, and never touches a pinned
tool. `check_calls` flags calls to tools the model never loaded, or that were evicted.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._errors import ToolNotFoundError
from ..parsing._models import ParseIssue, ParseResult, ToolCall
from ..tools._tool import Tool
from ._search import DEFAULT_MIN_SCORE, DEFAULT_SEARCH_LIMIT, ToolIndex

__all__ = [
    "DEFAULT_MAX_ACTIVE",
    "INDEX_LINE_CHARS",
    "TOOL_SEARCH",
    "Activation",
    "Session",
    "index_text",
    "summary_line",
    "tool_search_tool",
]

DEFAULT_MAX_ACTIVE = 20
"""The seed design's ceiling on activated tools (pinned tools do not count)."""

INDEX_LINE_CHARS = 48
"""Longest one-line summary in the lazy index, in characters (about 10 tokens)."""

TOOL_SEARCH = "tool_search"

_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)[.!?](?=\s|$)|\n")

_SEARCH_DESCRIPTION = (
    "Load tools on demand. The tools below are available but not loaded: call "
    "tool_search(name=...) to load one (its full definition is returned, then you can call "
    "it), or tool_search(query=...) with keywords to find tools for a task."
)


def summary_line(description: str, max_chars: int = INDEX_LINE_CHARS) -> str:
    """The first sentence of ``description``, cut at a word boundary to ``max_chars``."""
    text = description.strip()
    end = _SENTENCE_END.search(text)
    sentence = (text[: end.start()] if end else text).strip()
    if len(sentence) <= max_chars:
        return sentence
    cut = sentence[: max_chars - 1]
    if " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:-") + "…"


def index_text(tools: Iterable[Tool], max_chars: int = INDEX_LINE_CHARS) -> str:
    """One ``name: summary`` line per tool: the catalog as lazy mode shows it."""
    lines = []
    for tool in tools:
        summary = summary_line(tool.description, max_chars)
        lines.append(f"{tool.name}: {summary}" if summary else tool.name)
    return "\n".join(lines)


def tool_search_tool(deferred: Sequence[Tool], max_chars: int = INDEX_LINE_CHARS) -> Tool:
    """The ``tool_search`` meta-tool, its description carrying the index of ``deferred``."""
    return Tool(
        name=TOOL_SEARCH,
        description=f"{_SEARCH_DESCRIPTION}\n\n{index_text(deferred, max_chars)}",
        parameters={
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Keywords for the task"},
                "name": {"type": "string", "description": "Exact name of a tool to load"},
            },
        },
    )


@dataclass(frozen=True)
class Activation:
    """What activating one tool did."""

    tool: Tool
    evicted: tuple[str, ...] = ()
    """Tools deactivated to stay within the ceiling, least recently used first."""
    newly_active: bool = True
    """False when the tool was already active or pinned."""


class Session:
    """The lazy-loading state of one conversation over one tool catalog."""

    def __init__(
        self,
        tools: Iterable[Tool],
        *,
        pinned: Iterable[str] = (),
        max_active: int = DEFAULT_MAX_ACTIVE,
        search_limit: int = DEFAULT_SEARCH_LIMIT,
        min_score: float = DEFAULT_MIN_SCORE,
    ) -> None:
        if max_active < 1:
            raise ValueError(f"max_active must be at least 1, not {max_active}")
        self.index = ToolIndex(tools)
        self.catalog: Mapping[str, Tool] = self.index.tools
        self._canonical = {
            alias: tool.name for tool in self.catalog.values() for alias in tool.all_names()
        }
        self.pinned: tuple[str, ...] = tuple(
            dict.fromkeys(self._require(name).name for name in pinned)
        )
        self.max_active = max_active
        self.search_limit = search_limit
        self.min_score = min_score
        self.deferred = [tool for name, tool in self.catalog.items() if name not in self.pinned]
        self.search_tool = tool_search_tool(self.deferred)
        self._active: list[str] = []  # activation order: what requests carry, stable
        self._last_used: dict[str, int] = {}
        self._clock = 0
        self._evicted: set[str] = set()

    @property
    def active(self) -> tuple[str, ...]:
        """Active tools besides the pinned ones, in the order the requests carry them."""
        return tuple(self._active)

    def request_tools(self) -> list[Tool]:
        """The tools to send now: pinned, ``tool_search``, then the active tools."""
        pinned = [self.catalog[name] for name in self.pinned]
        return [*pinned, self.search_tool, *(self.catalog[name] for name in self._active)]

    def is_loaded(self, name: str) -> bool:
        """The model may call ``name`` (a tool's name or alias) now."""
        canonical = self._canonical.get(name, name)
        return canonical in self.pinned or canonical in self._last_used or name == TOOL_SEARCH

    def activate(self, name: str) -> Activation:
        """Load ``name`` (or an alias): pinned or active tools are only marked used; others may
        evict the least recently used."""
        tool = self._require(name)
        name = tool.name
        if name in self.pinned or name in self._last_used:
            self._touch(name)
            return Activation(tool, newly_active=False)
        evicted: list[str] = []
        while len(self._active) >= self.max_active:
            oldest = min(self._active, key=self._last_used.__getitem__)
            self._active.remove(oldest)
            del self._last_used[oldest]
            self._evicted.add(oldest)
            evicted.append(oldest)
        self._active.append(name)
        self._evicted.discard(name)
        self._touch(name)
        return Activation(tool, tuple(evicted))

    def search(self, query: str, limit: int | None = None) -> list[dict[str, str]]:
        """Name and description of the best tools for ``query``; loaded tools are skipped."""
        hits = self.index.search(
            query,
            limit=self.search_limit if limit is None else min(limit, self.search_limit),
            min_score=self.min_score,
            exclude=[*self.pinned, *self._active],
        )
        return [{"name": hit.name, "description": hit.description} for hit in hits]

    def tool_search(self, query: str | None = None, name: str | None = None) -> dict[str, Any]:
        """Run the meta-tool: what to return to the model, as a JSON-ready dict."""
        if name:
            return self._load(name)
        if query:
            found = self.search(query)
            if not found:
                return {"tools": [], "note": "no tool matches; try other keywords"}
            return {"tools": found}
        return {"error": "call tool_search with query=<keywords> or name=<tool name>"}

    def run(self, call: ToolCall) -> dict[str, Any]:
        """Run a model's ``tool_search`` call (its arguments checked, never trusted)."""
        query, name = call.arguments.get("query"), call.arguments.get("name")
        if not isinstance(query, str | None) or not isinstance(name, str | None):
            return {"error": "query and name must be strings"}
        return self.tool_search(query=query, name=name)

    def check_calls(self, calls: ParseResult | Iterable[ToolCall]) -> list[ParseIssue]:
        """Issues for calls to tools that are not loaded; calls to loaded tools count as use."""
        issues: list[ParseIssue] = []
        for call in calls.calls if isinstance(calls, ParseResult) else calls:
            if self.is_loaded(call.name):
                if call.name != TOOL_SEARCH:
                    self._touch(self._canonical.get(call.name, call.name))
                continue
            issues.append(self._not_loaded_issue(call))
        return issues

    def _load(self, name: str) -> dict[str, Any]:
        if name not in self._canonical:
            suggestions = [hit["name"] for hit in self.search(name, limit=5)]
            return {"error": f"no tool is named {name!r}", "did_you_mean": suggestions}
        activation = self.activate(name)
        tool = activation.tool
        loaded = {"name": tool.name, "description": tool.description,
                  "parameters": tool.parameters}
        if tool.help:
            loaded["help"] = tool.help  # the longer notes are for exactly this moment
        return {"loaded": loaded, "evicted": list(activation.evicted)}

    def _not_loaded_issue(self, call: ToolCall) -> ParseIssue:
        canonical = self._canonical.get(call.name)
        if canonical is None:
            kind, why = "unknown_tool", "no tool has this name"
        elif canonical in self._evicted:
            kind, why = "evicted_tool", "it was unloaded to make room for other tools"
        else:
            kind, why = "inactive_tool", "it was never loaded"
        hint = f"; call tool_search(name={canonical!r}) first" if canonical else ""
        return ParseIssue(kind=kind, message=f"{call.name!r} cannot be called: {why}{hint}",
                          span=call.span)

    def _touch(self, name: str) -> None:
        self._clock += 1
        if name not in self.pinned:
            self._last_used[name] = self._clock

    def _require(self, name: str) -> Tool:
        try:
            return self.catalog[self._canonical[name]]
        except KeyError:
            close = difflib.get_close_matches(name, self._canonical, n=3, cutoff=0.6)
            hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
            raise ToolNotFoundError(
                f"no tool named {name!r} in this session's catalog{hint} "
                "(tool_search(query) lists the tools that exist)"
            ) from None
