"""The tools one agent can run, each with where it comes from, under a name every API takes.

A `ToolRegistry` holds `RuntimeTool`s in the order they were added. Adding a tool gives it a
name the providers accept (``^[a-zA-Z][a-zA-Z0-9_-]{0,63}$``): a tool of an MCP server or an
OpenAPI service is namespaced ``server__tool``, a dynamic tool whose name is taken becomes
``dynamic__tool``, a name with other characters is sanitized, and what cannot be made valid
and unique raises `ToolNameError`. The registry renders wherever tools are taken
(``toolcalls.budget.render(registry, "hermes")``, ``render_native``, budget ``Session``,
``toolcalls.decoding.grammar``), through the definitions it hands out (`definitions`).

>>> from toolcalls.runtime import ToolRegistry, tool
>>> @tool
... def search(query: str) -> str:
...     "Search the web."
...     return query
>>> registry = ToolRegistry([search])
>>> registry.add(search, server="github").name
'github__search'
>>> registry.names()
['search', 'github__search']
>>> registry.without_source("mcp").names()
['search']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from typing import Any

from .._errors import ToolCallsError, ToolNotFoundError
from ..tools._calls import closest_names
from ..tools._tool import Tool
from ._results import NotFound
from ._tool import RuntimeTool, function_tool

__all__ = ["NAME_PATTERN", "ToolNameError", "ToolRegistry", "sanitize_name"]

NAME_PATTERN = re.compile(r"[a-zA-Z][a-zA-Z0-9_-]{0,63}")
"""What every provider accepts as a function name (matched whole)."""
_MAX_NAME = 64
_INVALID_CHARACTERS = re.compile(r"[^a-zA-Z0-9_-]")
_LEADING_NON_LETTERS = re.compile(r"^[^a-zA-Z]+")

AnyTool = RuntimeTool | Callable[..., Any]
"""What the registry takes: a `RuntimeTool`, or a plain function (wrapped by `function_tool`)."""


class ToolNameError(ToolCallsError, ValueError):
    """A tool's name cannot be made valid, or unique in its registry (the message says how to
    name it)."""


def sanitize_name(name: str) -> str | None:
    """``name`` as providers take it: other characters become ``_``, leading non-letters go,
    and it is cut at 64 characters; None when no letter is left to start it."""
    cleaned = _LEADING_NON_LETTERS.sub("", _INVALID_CHARACTERS.sub("_", name))
    return cleaned[:_MAX_NAME] or None


class ToolRegistry:
    """Tools by name, in the order added, each knowing its origin and server."""

    def __init__(self, tools: Iterable[AnyTool] = (), *, separator: str = "__",
                 prefix_servers: bool = True) -> None:
        """``separator`` joins a server and a tool name; ``prefix_servers=False`` keeps a
        server's tool under its own name until another tool has it."""
        self.separator = separator
        self.prefix_servers = prefix_servers
        self._tools: dict[str, RuntimeTool] = {}
        self._plain: dict[str, str] = {}  # registered name -> the name the tool came with
        self._definitions: tuple[Tool, ...] | None = None
        self.add_all(tools)

    # -- adding --------------------------------------------------------------------------------

    def add(self, tool: AnyTool, *, origin: str | None = None, server: str | None = None,
            name: str | None = None) -> RuntimeTool:
        """Register ``tool``; returns it as registered (renamed, with origin and server).

        ``server`` without ``origin`` marks a builtin tool as ``mcp``. ``name`` is taken as
        given, and must be valid and free."""
        runtime = tool if isinstance(tool, RuntimeTool) else function_tool(tool)
        server = server if server is not None else runtime.server
        if origin is None:
            origin = "mcp" if server is not None and runtime.origin == "builtin" else runtime.origin
        registered = self._free_name(runtime.name, origin, server, name)
        placed = _renamed(runtime, registered, origin, server)
        self._tools[registered] = placed
        self._plain[registered] = runtime.name
        self._definitions = None
        return placed

    def add_all(self, tools: Iterable[AnyTool], *, origin: str | None = None,
                server: str | None = None) -> list[RuntimeTool]:
        """`add` each of ``tools`` (one origin and server for all)."""
        return [self.add(each, origin=origin, server=server) for each in tools]

    def remove(self, name: str) -> RuntimeTool:
        """Take the tool registered as exactly ``name`` out of this registry (a server that went
        away, a dynamic tool being redefined); raises `ToolNotFoundError` when there is none."""
        if name not in self._tools:
            raise ToolNotFoundError(f"cannot remove {name!r}: no tool is registered under it")
        self._plain.pop(name)
        self._definitions = None
        return self._tools.pop(name)

    def _free_name(self, plain: str, origin: str, server: str | None,
                   explicit: str | None) -> str:
        if explicit is not None:
            if not NAME_PATTERN.fullmatch(explicit):
                raise ToolNameError(f"{explicit!r} is not a valid tool name: use letters, "
                                    "digits, '_' and '-', starting with a letter, 64 at most")
            return self._unless_taken(explicit, explicit)
        prefix = server or (origin if origin != "builtin" else None)
        candidates = [] if server and self.prefix_servers else [plain]
        if prefix:
            candidates.append(f"{prefix}{self.separator}{plain}")
        for candidate in candidates:
            cleaned = sanitize_name(candidate)
            if cleaned is None:
                raise ToolNameError(f"the tool name {plain!r} has no letter to start a valid "
                                    "name: register it with name='...'")
            if cleaned not in self._tools:
                return cleaned
        return self._unless_taken(candidates[-1], sanitize_name(candidates[-1]) or plain)

    def _unless_taken(self, wanted: str, name: str) -> str:
        if name not in self._tools:
            return name
        holder = self._tools[name]
        raise ToolNameError(
            f"the name {name!r} (for {wanted!r}) is taken by a tool from "
            f"{_where(holder)}: register the new tool with name='...', or give it a server")

    # -- looking up ----------------------------------------------------------------------------

    def find(self, name: str) -> RuntimeTool | None:
        """The tool a call names: its registered name, else the one tool with that alias, else
        the one tool that came with that name before it was namespaced (``search`` finds
        ``github__search`` while no other server has a ``search``; never a dynamic tool); None
        when none, or several, match."""
        exact = self._tools.get(name)
        if exact is not None:
            return exact
        by_alias = self._by_alias(name)
        if len(by_alias) == 1:
            return self._tools[by_alias[0]]
        by_plain = self._by_plain(name)
        return self._tools[by_plain[0]] if len(by_plain) == 1 and not by_alias else None

    def resolve(self, name: str) -> RuntimeTool | NotFound:
        """`find`, or the `NotFound` the model reads: the closest names (every candidate when
        ``name`` is ambiguous), and the available ones."""
        found = self.find(name)
        if found is not None:
            return found
        closest = tuple(self._by_alias(name)) or tuple(self._by_plain(name))
        if not closest:
            closest = closest_names(name, self._every_name())
        return NotFound(name, closest, tuple(self._tools))

    def _by_alias(self, name: str) -> list[str]:
        return [key for key, tool in self._tools.items() if name in tool.definition.aliases]

    def _by_plain(self, name: str) -> list[str]:
        # a tool the model made (origin dynamic) answers only to its own name: after a builtin
        # ``shell`` is removed, a call to ``shell`` must not reach ``dynamic__shell``, which the
        # rules written for ``shell`` do not cover
        return [key for key, plain in self._plain.items()
                if plain == name and self._tools[key].origin != "dynamic"]

    def _every_name(self) -> dict[str, str]:
        known = {plain: key for key, plain in self._plain.items()}
        for key, tool in self._tools.items():
            known.update(dict.fromkeys(tool.definition.aliases, key))
        known.update({key: key for key in self._tools})
        return known

    # -- derived registries --------------------------------------------------------------------

    def without_source(self, origin_or_server: str) -> ToolRegistry:
        """A registry without the tools of that origin (``"mcp"``: every MCP tool) or of that
        server (``"github"``)."""
        return self.only(lambda tool: origin_or_server not in (tool.origin, tool.server))

    def without(self, names: Iterable[str]) -> ToolRegistry:
        """A registry without the tools of these registered names."""
        dropped = set(names)
        return self.only(lambda tool: tool.name not in dropped)

    def only(self, predicate: Callable[[RuntimeTool], bool]) -> ToolRegistry:
        """A registry of the tools ``predicate`` keeps, names unchanged."""
        return self._derived({key: tool for key, tool in self._tools.items() if predicate(tool)})

    def replace(self, name: str, tool: AnyTool) -> ToolRegistry:
        """A registry where ``tool`` takes the place of the tool ``name`` finds, with its name,
        origin and server; raises `ToolNotFoundError` when there is none."""
        old = self.resolve(name)
        if isinstance(old, NotFound):
            raise ToolNotFoundError(f"cannot replace {name!r}: {old.message}")
        new = tool if isinstance(tool, RuntimeTool) else function_tool(tool)
        placed = _renamed(new, old.name, old.origin, old.server)
        return self._derived({key: placed if key == old.name else kept
                              for key, kept in self._tools.items()})

    def _derived(self, tools: dict[str, RuntimeTool]) -> ToolRegistry:
        derived = ToolRegistry(separator=self.separator, prefix_servers=self.prefix_servers)
        derived._tools = tools
        derived._plain = {key: self._plain[key] for key in tools}
        return derived

    # -- what the model sees ---------------------------------------------------------------------

    def definitions(self) -> list[Tool]:
        """The `Tool` definitions, in order: what every ``tools=`` of toolcalls takes."""
        return list(self.__toolcalls_tools__())

    def __toolcalls_tools__(self) -> Sequence[Tool]:
        if self._definitions is None:
            self._definitions = tuple(tool.definition for tool in self._tools.values())
        return self._definitions

    def list_schemas(self) -> list[dict[str, Any]]:
        """Each tool as data, with where it comes from (for listings and UIs)."""
        return [{"name": tool.name, "description": tool.definition.description,
                 "parameters": tool.definition.parameters, "origin": tool.origin,
                 "server": tool.server, "aliases": list(tool.definition.aliases),
                 "is_dangerous": tool.definition.is_dangerous}
                for tool in self._tools.values()]

    def plain_name(self, name: str) -> str:
        """The name the tool registered as ``name`` came with, before namespacing."""
        return self._plain[name]

    def names(self) -> list[str]:
        """The registered names, in order."""
        return list(self._tools)

    def __iter__(self) -> Iterator[RuntimeTool]:
        return iter(list(self._tools.values()))

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        """Whether a tool is registered under exactly this name (aliases: `find`)."""
        return name in self._tools

    def __repr__(self) -> str:
        return f"ToolRegistry({self.names()!r})"


def _renamed(tool: RuntimeTool, name: str, origin: str, server: str | None) -> RuntimeTool:
    definition = tool.definition.model_copy(update={"name": name, "source": server or "builtin"})
    return replace(tool, definition=definition, origin=origin, server=server)


def _where(tool: RuntimeTool) -> str:
    return f"server {tool.server!r}" if tool.server else f"origin {tool.origin!r}"
