"""Lazy tool loading for one conversation: a `Session` holds which tools the model has loaded.

In lazy mode the model starts with the pinned tools, and a ``tool_search`` meta-tool whose
description lists every other tool by name and one line. ``tool_search(query=…)`` ranks the
catalog (`toolcalls.budget._search`); ``tool_search(name=…)`` returns a tool's full definition and
activates it, so the next request carries it.

The activation set is per session, never global. It keeps a stable order: pinned tools, then
``tool_search`` (whose index never changes), then active tools in the order they were first
activated, so consecutive requests share the longest possible prefix. At most `max_active` tools
are active besides the pinned ones; activating one more evicts the least recently used (activated
or called), reports it, and never touches a pinned tool. `check_calls` flags calls to tools the
model never loaded, or that were evicted.

Where a tool's definition goes once loaded is the session's `load` mode:

- ``"tools"``: the tools block of the next request carries it. Every activation rewrites the
  block, which comes before the conversation, so it busts the prompt cache of everything after
  it, and the definition is paid twice (once in the ``tool_search`` result kept in the history,
  once in the block). Needed where the provider only accepts calls to tools it was sent in
  ``tools`` (OpenAI Chat Completions, Gemini, Ollama).
- ``"messages"``: the definition lives only in the ``tool_search`` result, appended to the
  conversation, the way OpenAI's Responses ``tool_search`` (``tool_search_output``) and
  Anthropic's tool search (``tool_reference`` blocks) load deferred tools; `request_tools` never
  changes, so the cached prefix survives every load. Prompt formats can always do this: the
  system prompt is ours. `LOAD_IN_MESSAGES` lists where it is allowed; `load_mode_for` picks.

``tool_search(names=[…])`` loads several tools in one round trip (the model knows their names
from the index); ``tool_search(query=…)`` answers with names and one line each, at most
`DEFAULT_SEARCH_LIMIT` of them, so search results kept in the history stay small. Deferral can
be per server: ``Session(tools, defer=["github"])`` defers the tools whose `Tool.source` (the MCP
server) or `Tool.category` is named, and sends every other tool in full, as if pinned.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .._errors import ToolDefinitionError, ToolNotFoundError
from ..parsing._models import ParseIssue, ParseResult, ToolCall
from ..tools._read import ToolsLike, to_tools
from ..tools._tool import Tool
from ._profiles import native_payload
from ._search import DEFAULT_MIN_SCORE, DEFAULT_SEARCH_LIMIT, ToolIndex

__all__ = [
    "DEFAULT_MAX_ACTIVE",
    "INDEX_LINE_CHARS",
    "LOAD_IN_MESSAGES",
    "SEARCH_LINE_CHARS",
    "TOOL_SEARCH",
    "Activation",
    "LoadMode",
    "Session",
    "index_text",
    "load_mode_for",
    "summary_line",
    "tool_search_tool",
]

LoadMode = Literal["tools", "messages"]
"""Where a loaded tool's definition goes: the tools block, or the conversation (see above)."""

LOAD_IN_MESSAGES = frozenset({"openai_responses", "responses", "anthropic"})
"""Native payloads whose API accepts tools loaded in the conversation: OpenAI Responses
(``tool_search_output`` items, https://platform.openai.com/docs/guides/tools-tool-search) and
Anthropic (``tool_reference`` blocks of its tool search tool,
https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/tool-search-tool). Prompt formats
are allowed too (`load_mode_for`)."""

DEFAULT_MAX_ACTIVE = 20
"""The seed design's ceiling on activated tools (pinned tools do not count)."""

INDEX_LINE_CHARS = 48
"""Longest one-line summary in the lazy index, in characters (about 10 tokens)."""

SEARCH_LINE_CHARS = 80
"""Longest one-line description of a search result, in characters."""

TOOL_SEARCH = "tool_search"

SUGGESTED_NAMES = 3
"""How many unknown names of one ``tool_search(names=[...])`` get ``did_you_mean`` suggestions
(each is a search of the whole catalog); the others are only said to be unknown."""


def check_search_name(tools: Iterable[Tool]) -> None:
    """Raise `ToolDefinitionError` when one of `tools` is named ``tool_search``: lazy loading
    sends a tool of that name, and every call to it would be taken for a search."""
    for tool in tools:
        if tool.name == TOOL_SEARCH:
            raise ToolDefinitionError(
                f"a tool is named {TOOL_SEARCH!r} (source {tool.source!r}), the name of the tool "
                "lazy loading adds to find the deferred ones: rename it, or pin every tool")

_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)[.!?](?=\s|$)|\n")

_SEARCH_DESCRIPTION = (
    "Load tools on demand. The tools below are available but not loaded: call "
    "tool_search(names=[...]) to load the ones you need (their full definitions are returned, "
    "then you can call them), or tool_search(query=...) with keywords to find tools for a task."
)


def load_mode_for(format: str) -> LoadMode:  # noqa: A002
    """``messages`` where loading in the conversation keeps the tools usable, else ``tools``.

    ``format`` is a native payload name (openai, openai_responses, anthropic, gemini, ollama) or
    a prompt format; a prompt format's system prompt is ours, so loading in messages always works.
    """
    lowered = format.lower()
    if lowered in LOAD_IN_MESSAGES:
        return "messages"
    return "tools" if native_payload(lowered) else "messages"


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
                "names": {"type": "array", "items": {"type": "string"}},
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
        tools: ToolsLike,
        *,
        pinned: Iterable[str] = (),
        max_active: int = DEFAULT_MAX_ACTIVE,
        search_limit: int = DEFAULT_SEARCH_LIMIT,
        min_score: float = DEFAULT_MIN_SCORE,
        load: LoadMode = "tools",
        defer: Iterable[str] | None = None,
    ) -> None:
        """``tools``: `Tool` objects or raw definitions, whatever `toolcalls.to_tools` reads.
        ``defer``: the servers (`Tool.source`) or categories whose tools are deferred; the
        others are sent in full, as pinned. None (the default) defers every unpinned tool."""
        if max_active < 1:
            raise ValueError(f"max_active must be at least 1, not {max_active}")
        if load not in ("tools", "messages"):
            raise ValueError(f"load is 'tools' or 'messages', not {load!r}")
        self.index = ToolIndex(to_tools(tools))
        self.catalog: Mapping[str, Tool] = self.index.tools
        self._canonical = {
            alias: tool.name for tool in self.catalog.values() for alias in tool.all_names()
        }
        servers = None if defer is None else frozenset(defer)
        kept = [tool.name for tool in self.catalog.values() if not _deferred(tool, servers)]
        self.pinned: tuple[str, ...] = tuple(
            dict.fromkeys([*(self._require(name).name for name in pinned), *kept])
        )
        self.load: LoadMode = load
        self.max_active = max_active
        self.search_limit = search_limit
        self.min_score = min_score
        self.deferred = [tool for name, tool in self.catalog.items() if name not in self.pinned]
        if self.deferred:
            check_search_name(self.catalog.values())
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
        """The tools to send now: pinned, ``tool_search``, then the active tools (in
        ``messages`` mode the active tools are in the conversation: the list never changes)."""
        pinned = [self.catalog[name] for name in self.pinned]
        if self.load == "messages":
            return [*pinned, self.search_tool]
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
        """Name and one-line description of the best tools for ``query`` (loaded tools are
        skipped): enough to choose, little to keep in the history; loading gives the rest."""
        hits = self.index.search(
            query,
            limit=self.search_limit if limit is None else min(limit, self.search_limit),
            min_score=self.min_score,
            exclude=[*self.pinned, *self._active],
        )
        return [{"name": hit.name, "description": summary_line(hit.description,
                                                                SEARCH_LINE_CHARS)}
                for hit in hits]

    def tool_search(
        self,
        query: str | None = None,
        name: str | None = None,
        names: Sequence[str] | None = None,
    ) -> dict[str, Any]:
        """Run the meta-tool: what to return to the model, as a JSON-ready dict.

        ``names`` loads several tools in one call: ``{"loaded": [...], "evicted": [...]}``, and
        ``errors`` for names that match no tool (the others still load).
        """
        if names:
            return self._load_many([*names, *([name] if name else [])])
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
        names = call.arguments.get("names")
        if not isinstance(query, str | None) or not isinstance(name, str | None):
            return {"error": "query and name must be strings"}
        if names is not None and not (isinstance(names, list)
                                      and all(isinstance(item, str) for item in names)):
            return {"error": "names must be a list of tool names"}
        return self.tool_search(query=query, name=name, names=names)

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
            return self._no_such_tool(name)
        activation = self.activate(name)
        return {"loaded": _definition(activation.tool), "evicted": list(activation.evicted)}

    def _load_many(self, names: list[str]) -> dict[str, Any]:
        unique = list(dict.fromkeys(names))
        known = [name for name in unique if name in self._canonical]
        if len(known) > self.max_active:
            return {"error": f"at most {self.max_active} tools can be loaded at once, "
                             f"not {len(known)}"}
        loaded: list[dict[str, Any]] = []
        evicted: list[str] = []
        for name in known:
            activation = self.activate(name)
            loaded.append(_definition(activation.tool))
            evicted += activation.evicted
        answer: dict[str, Any] = {"loaded": loaded, "evicted": evicted}
        unknown = [name for name in unique if name not in self._canonical]
        # A search costs as much as the catalog is large: only the first few unknown names get
        # suggestions, so thousands of them cost one pass each, not a search each.
        errors = [self._no_such_tool(name, suggest=index < SUGGESTED_NAMES)
                  for index, name in enumerate(unknown)]
        if errors:
            answer["errors"] = errors
        return answer

    def _no_such_tool(self, name: str, *, suggest: bool = True) -> dict[str, Any]:
        if not suggest:
            return {"error": f"no tool is named {name!r}"}
        suggestions = [hit["name"] for hit in self.search(name, limit=5)]
        return {"error": f"no tool is named {name!r}", "did_you_mean": suggestions}

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


def _definition(tool: Tool) -> dict[str, Any]:
    """What loading ``tool`` returns to the model: its whole definition."""
    loaded: dict[str, Any] = {"name": tool.name, "description": tool.description,
                              "parameters": tool.parameters}
    if tool.help:
        loaded["help"] = tool.help  # the longer notes are for exactly this moment
    return loaded


def _deferred(tool: Tool, servers: frozenset[str] | None) -> bool:
    """``tool`` waits behind ``tool_search``: ``servers`` names its server or category."""
    if servers is None:
        return True
    return tool.source in servers or (tool.category is not None and tool.category in servers)
