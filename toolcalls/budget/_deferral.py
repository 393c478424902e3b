"""Provider-native deferral: the provider keeps deferred tools out of the prompt, and a search
loads them into the conversation, so the tools block never changes and the cache survives.

``native_deferral(tools, "anthropic" | "openai_responses", search=…)`` renders the request's
``tools``: pinned tools in full, every other tool marked ``"defer_loading": true``, and a search
tool. Shapes follow the installed SDKs' types (the tests validate against them):

- **Anthropic** (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/tool-search-tool):
  ``search="regex"`` or ``"bm25"`` adds Anthropic's server tool
  (``{"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"}``, or the
  ``bm25`` variant); Anthropic runs the search, nothing is left for the client. ``"client"``
  (the default) adds a custom ``tool_search`` tool the client answers: `tool_reference_result`
  turns the model's call into the ``tool_result`` block whose content is one
  ``{"type": "tool_reference", "tool_name": …}`` per tool found, which loads those definitions.
  Deferred tools are invisible to the model until found, so the client tool's description lists
  their names (``list_names=False`` leaves them out).
- **OpenAI Responses** (https://platform.openai.com/docs/guides/tools-tool-search): the
  ``tool_search`` tool, hosted (``search="server"``) or client-executed (``"client"``, the
  default: ``execution: "client"`` with our description and parameters). Deferred functions are
  grouped in one ``namespace`` per MCP server (`Tool.source`) or `Tool.category` where the
  catalog has them (``defer_loading`` goes on the functions inside, as OpenAI asks), else
  listed as functions. `tool_search_output` answers a client ``tool_search_call`` with the
  ``tool_search_output`` item holding the loaded tools' definitions. `toolcalls.read_response`
  reads a client ``tool_search_call`` item as a call named ``tool_search`` (the hosted search's
  items go to the result's ``reasoning_blocks``); `search_calls` picks those calls out of a
  response, of either provider.

Both answers run the search on a `Session` (toolcalls' own `ToolIndex` ranking, loads by name),
at most `NATIVE_SEARCH_LIMIT` tools per search because each one found is loaded in full. A
search with no hit answers an empty list, not an error.

What the session starts with (`NativeDeferral.tokens`, the provider's count from
`toolcalls.budget._counts`): Anthropic reads the pinned tools, the client search tool and its
tool-use system prompt; deferred definitions are not in the prompt. The server search tool's own
prompt is not published and not counted. OpenAI still shows a deferred function's name and
description (its parameters are deferred), and a namespace's name and description only: counted
as functions without parameters, an estimate, since OpenAI does not publish that rendering.

Session-start tokens on the fixture tool sets (nothing pinned; Anthropic counted for
claude-sonnet-4-6, with its 497-token tool-use system prompt; OpenAI with o200k_base; server:
Anthropic's regex/bm25 tool, OpenAI's hosted tool_search):

                               Anthropic                   OpenAI Responses
    tool set            tools     full  client  server      full  client  server
    github-all             86   23,174   1,002     497    15,154   3,328   3,247
    github-default         43   12,233     795     497     7,847   1,855   1,774
    bfcl-multi-turn       128   15,029   1,103     497     9,768   6,656   6,575
    playwright-mcp         25    4,949     722     497     2,506     757     676
    mcp-github-legacy      26    4,970     729     497     1,839     664     583
    mcp-filesystem         14    2,413     677     497     1,175   1,006     925
    codex-cli               7    2,170     650     497     1,193     627     546

Anthropic's deferral hides every deferred tool (96% less on github-all with the client search,
whose description lists the 86 names). OpenAI's per-function deferral keeps each name and
description in view and defers only the parameters (78% less); grouped in a namespace
(`Tool.source`), github-all starts at 482 tokens (97% less). Tiny catalogs save little: the
search tool costs what a few tools do.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .._errors import ToolNotFoundError
from ..parsing._models import ToolCall
from ..providers._response_reader import read_response
from ..tools._importers import import_tools
from ..tools._tool import Tool
from ._counts import DEFAULT_ANTHROPIC_MODEL, provider_cost
from ._session import TOOL_SEARCH, Session, check_search_name
from ._tokens import TokenCounter, anthropic_tool_system_prompt

__all__ = [
    "ANTHROPIC_SEARCH_TOOLS",
    "NATIVE_SEARCH_LIMIT",
    "NativeDeferral",
    "NativeProvider",
    "SearchKind",
    "native_deferral",
    "search_calls",
    "tool_reference_result",
    "tool_search_output",
]

NativeProvider = Literal["anthropic", "openai_responses"]
SearchKind = Literal["client", "server", "regex", "bm25"]

NATIVE_SEARCH_LIMIT = 5
"""Tools one search loads: each is loaded in full, and Anthropic's own search loads 3-5."""

ANTHROPIC_SEARCH_TOOLS: Mapping[str, dict[str, str]] = {
    "regex": {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"},
    "bm25": {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
}
"""Anthropic's server-side tool search tools (``anthropic.types.ToolSearchTool*Param``)."""

_ALIASES: Mapping[str, NativeProvider] = {
    "anthropic": "anthropic",
    "openai_responses": "openai_responses",
    "responses": "openai_responses",
}

_CLIENT_DESCRIPTION = (
    "Find and load tools. More tools exist than are loaded: call tool_search(query=...) with "
    "keywords for a task to load the best matches, or tool_search(names=[...]) to load tools by "
    "name. Loaded tools can be called right after."
)

_CLIENT_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "Keywords for the task"},
        "names": {"type": "array", "items": {"type": "string"},
                  "description": "Exact names of tools to load"},
    },
}


@dataclass(frozen=True)
class NativeDeferral:
    """A catalog rendered for a provider's own deferral, and what it costs at session start."""

    provider: NativeProvider
    search: SearchKind
    content: dict[str, Any]
    """The request fields: ``{"tools": [...]}``, sent unchanged on every request."""
    pinned: tuple[str, ...]
    deferred: tuple[str, ...]
    tokens: int
    """Tokens at session start, counted as the provider reads tools (see the module docstring)."""
    full_tokens: int
    """Tokens of every tool sent in full, by the same count."""
    namespaces: Mapping[str, str]
    """Deferred tool name -> its OpenAI namespace (empty: no namespaces, or Anthropic)."""
    catalog: tuple[Tool, ...]

    @property
    def saving(self) -> float:
        """Fraction of the full cost saved at session start."""
        return 1 - self.tokens / self.full_tokens if self.full_tokens else 0.0

    def session(self) -> Session:
        """The `Session` that answers client searches: tools load in the conversation, never
        evicted (a loaded definition stays in the history), `NATIVE_SEARCH_LIMIT` per search."""
        return Session(self.catalog, pinned=self.pinned, load="messages",
                       max_active=max(1, len(self.catalog)), search_limit=NATIVE_SEARCH_LIMIT)

    def answer(self, session: Session, call: ToolCall) -> dict[str, Any]:
        """The provider's answer to a client search ``call``: a ``tool_result`` block
        (Anthropic) or a ``tool_search_output`` item (OpenAI Responses)."""
        if self.provider == "anthropic":
            return tool_reference_result(session, call)
        return tool_search_output(session, call, self.namespaces)


def native_deferral(
    tools: Any,
    provider: str,
    *,
    search: SearchKind = "client",
    pinned: Iterable[str] = (),
    defer: Iterable[str] | None = None,
    list_names: bool = True,
    model: str | None = None,
    encoding: str | TokenCounter | None = None,
) -> NativeDeferral:
    """``tools`` rendered for ``provider``'s native deferral (see the module docstring).

    Args:
        provider: ``anthropic`` or ``openai_responses`` (``responses``).
        search: ``client`` (we answer the searches), or the provider's own search:
            ``regex``/``bm25`` for Anthropic, ``server`` for OpenAI.
        pinned: tools always sent in full, never deferred.
        defer: the servers (`Tool.source`) or categories to defer; None defers every unpinned
            tool.
        list_names: Anthropic client search: list the deferred tools' names in its description.
        model, encoding: the count, as in `toolcalls.budget.render`.
    """
    target = _ALIASES.get(provider.lower())
    if target is None:
        raise ValueError(f"native deferral is for anthropic or openai_responses, not {provider!r}")
    allowed = ("client", "regex", "bm25") if target == "anthropic" else ("client", "server")
    if search not in allowed:
        raise ValueError(f"{target} search is one of {', '.join(allowed)}, not {search!r}")
    catalog = tuple(import_tools(tools))
    pins = _pins(catalog, pinned, defer)
    kept = [tool for tool in catalog if tool.name in pins]
    deferred = [tool for tool in catalog if tool.name not in pins]
    if deferred and search == "client":
        check_search_name(catalog)
    cost = provider_cost(target, model=model, encoding=encoding)
    if target == "anthropic":
        content, seen = _anthropic_tools(kept, deferred, search, list_names)
        namespaces: dict[str, str] = {}
    else:
        namespaces = _namespaces(deferred)
        content, seen = _responses_tools(kept, deferred, search, namespaces)
    # A request with only Anthropic's server tool still gets the tool-use system prompt.
    tokens = cost(seen) if seen or target != "anthropic" else anthropic_tool_system_prompt(
        model or DEFAULT_ANTHROPIC_MODEL)
    return NativeDeferral(
        provider=target, search=search, content=content, pinned=pins,
        deferred=tuple(tool.name for tool in deferred), tokens=tokens,
        full_tokens=cost(list(catalog)), namespaces=namespaces, catalog=catalog,
    )


def _pins(catalog: Sequence[Tool], pinned: Iterable[str], defer: Iterable[str] | None,
          ) -> tuple[str, ...]:
    """The tools sent in full: ``pinned`` (names or aliases), and those ``defer`` leaves out."""
    pinned = tuple(pinned)
    by_name = {alias: tool.name for tool in catalog for alias in tool.all_names()}
    unknown = sorted(set(pinned) - set(by_name))
    if unknown:
        raise ToolNotFoundError(f"pinned tools not in the catalog: {', '.join(unknown)}")
    servers = None if defer is None else frozenset(defer)
    kept = [tool.name for tool in catalog if servers is not None
            and tool.source not in servers and tool.category not in servers]
    return tuple(dict.fromkeys([*(by_name[name] for name in pinned), *kept]))


# -- Anthropic -------------------------------------------------------------------------------


def _anthropic_tools(
    kept: list[Tool], deferred: list[Tool], search: SearchKind, list_names: bool
) -> tuple[dict[str, Any], list[Tool]]:
    """The ``tools`` field, and the tools the model reads at session start."""
    rendered = [_anthropic_tool(tool) for tool in kept]
    rendered += [{**_anthropic_tool(tool), "defer_loading": True} for tool in deferred]
    if search in ANTHROPIC_SEARCH_TOOLS:
        return {"tools": [*rendered, dict(ANTHROPIC_SEARCH_TOOLS[search])]}, kept
    searcher = client_search_tool(deferred if list_names else ())
    return {"tools": [*rendered, _anthropic_tool(searcher)]}, [*kept, searcher]


def _anthropic_tool(tool: Tool) -> dict[str, Any]:
    return {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}


def client_search_tool(listed: Sequence[Tool]) -> Tool:
    names = ", ".join(tool.name for tool in listed)
    description = f"{_CLIENT_DESCRIPTION}\n\nTools to load: {names}" if names else (
        _CLIENT_DESCRIPTION)
    return Tool(name=TOOL_SEARCH, description=description, parameters=_CLIENT_PARAMETERS)


def tool_reference_result(session: Session, call: ToolCall) -> dict[str, Any]:
    """The ``tool_result`` block answering an Anthropic client search ``call``: one
    ``tool_reference`` per tool found or named (unknown names are said in a text block)."""
    found, problems = _run(session, call)
    content: list[dict[str, Any]] = [{"type": "tool_reference", "tool_name": name}
                                     for name in found]
    if problems:
        content.append({"type": "text", "text": "; ".join(problems)})
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call.id, "content": content}
    if problems and not found:
        block["is_error"] = True
    return block


# -- OpenAI Responses --------------------------------------------------------------------------


def _namespaces(deferred: list[Tool]) -> dict[str, str]:
    """Deferred tool -> namespace: its MCP server, else its category; none if no tool has one."""
    return {tool.name: group for tool in deferred if (group := _group(tool)) is not None}


def _group(tool: Tool) -> str | None:
    if tool.source != "builtin":
        return tool.source
    return tool.category


def _responses_tools(
    kept: list[Tool], deferred: list[Tool], search: SearchKind, namespaces: Mapping[str, str]
) -> tuple[dict[str, Any], list[Tool]]:
    rendered: list[dict[str, Any]] = [_function(tool) for tool in kept]
    seen = list(kept)
    groups: dict[str, list[Tool]] = {}
    for tool in deferred:
        group = namespaces.get(tool.name)
        if group is None:
            rendered.append({**_function(tool), "defer_loading": True})
            seen.append(Tool(name=tool.name, description=tool.description))
        else:
            groups.setdefault(group, []).append(tool)
    for group, members in groups.items():
        description = _namespace_description(group, members)
        rendered.append({"type": "namespace", "name": group, "description": description,
                         "tools": [{**_function(tool), "defer_loading": True}
                                   for tool in members]})
        seen.append(Tool(name=group, description=description))
    if search == "server":
        return {"tools": [*rendered, {"type": "tool_search"}]}, seen
    searcher = client_search_tool(())
    rendered.append({"type": "tool_search", "execution": "client",
                     "description": searcher.description, "parameters": searcher.parameters})
    return {"tools": rendered}, [*seen, searcher]


def _function(tool: Tool) -> dict[str, Any]:
    return {"type": "function", "name": tool.name, "description": tool.description,
            "parameters": tool.parameters, "strict": False}


def _namespace_description(group: str, members: Sequence[Tool]) -> str:
    """What the model sees of a namespace before searching it: what its tools are called."""
    return f"Tools of {group}: {', '.join(tool.name for tool in members)}"


def tool_search_output(
    session: Session, call: ToolCall, namespaces: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The ``tool_search_output`` item answering a client ``tool_search_call``: the found or
    named tools' definitions, in their namespaces where they have one. The item has no place
    for a message: a name that matches no tool loads nothing, as a search without a hit."""
    found, _ = _run(session, call)
    groups = namespaces or {}
    loaded: list[dict[str, Any]] = []
    by_namespace: dict[str, dict[str, Any]] = {}
    for name in found:
        definition = _function(session.catalog[name])
        group = groups.get(name)
        if group is None:
            loaded.append(definition)
            continue
        if group not in by_namespace:
            members = [session.catalog[n] for n, g in groups.items() if g == group]
            by_namespace[group] = {"type": "namespace", "name": group,
                                   "description": _namespace_description(group, members),
                                   "tools": []}
            loaded.append(by_namespace[group])
        by_namespace[group]["tools"].append(definition)
    return {"type": "tool_search_output", "call_id": call.id, "execution": "client",
            "status": "completed", "tools": loaded}


def search_calls(response: Any, provider: str | None = None) -> list[ToolCall]:
    """The client searches of a response (an SDK object, its dict or JSON text), what
    `NativeDeferral.answer` takes: the calls named ``tool_search`` that `toolcalls.read_response`
    reads, an OpenAI Responses client ``tool_search_call`` (its ``call_id`` as id) or an
    Anthropic ``tool_use`` of the client search tool. The provider's own searches are not calls
    (the reader keeps them in ``reasoning_blocks``); what is not a response gives none."""
    try:
        result = read_response(response, provider, format=None)
    except ValueError:  # not JSON, or not a response's shape
        return []
    return [call for call in result.calls if call.name == TOOL_SEARCH]


# -- both ----------------------------------------------------------------------------------------


def _run(session: Session, call: ToolCall) -> tuple[list[str], list[str]]:
    """Run a search call on ``session``: the deferred tools it loads (searched, or named) and
    what could not be done, in words."""
    answer = session.run(call)
    if "error" in answer:
        return [], [str(answer["error"])]
    problems = [str(error["error"]) for error in answer.get("errors", ())]
    if "tools" in answer:  # a query: activate what it found, loaded by reference
        names = [hit["name"] for hit in answer["tools"]]
        for name in names:
            session.activate(name)
        return names, problems
    loaded = answer["loaded"]  # by name or names: the definitions loaded
    definitions: list[dict[str, Any]] = loaded if isinstance(loaded, list) else [loaded]
    names = [str(definition["name"]) for definition in definitions]
    return [name for name in names if name not in session.pinned], problems
