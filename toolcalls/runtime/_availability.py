"""Which tools an agent gets: its ``tools`` list of patterns, resolved against a registry.

Patterns:

==================== ============================================================
``"*"``              every tool
``"@github"``        every tool of the server (or OpenAPI service) ``github``
``"@github/search"`` that server's ``search`` (its name before namespacing, or the
                     registered ``github__search``; a glob works: ``"@git/git_*"``)
``"fs_*"``           registered names matching the glob (``*``, ``?``, ``[abc]``)
``"shell"``          that tool (by name, alias or un-namespaced name, see `find`)
``"!shell"``         any pattern above after ``!``: left out
==================== ============================================================

Exclusions apply after every inclusion, wherever they stand in the list (``["!shell", "*"]``
and ``["*", "!shell"]`` give the same tools): the list reads as a set, not a script. Then three
rules that configuration sets for a whole program:

- ``explicit_only``: tools a wildcard (``*``, ``@server``, a glob) never brings in; they come
  only by their own name (an agent-spawning tool, a destructive one);
- ``always``: added whatever the patterns say, exclusions included (a sub-agent's ``summary``);
- ``never``: removed whatever else says, ``always`` included (a sub-agent cannot spawn agents).

A pattern that brings in or leaves out nothing is most likely a typo that would silently widen
or narrow what the agent may do: `check_availability` lists them, `resolve_availability` warns
(`UnmatchedToolPattern`) or, with ``strict=True``, raises `AvailabilityError`.

>>> from toolcalls.runtime import ToolRegistry, tool
>>> registry = ToolRegistry([tool(lambda: 1, name="fs_read"), tool(lambda: 1, name="shell"),
...                          tool(lambda: 1, name="spawn_agent")])
>>> resolve_availability(["*", "!shell"], registry, explicit_only=["spawn_agent"])
['fs_read']
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase

from .._errors import ToolCallsError
from ._registry import ToolRegistry
from ._tool import RuntimeTool

__all__ = [
    "Availability",
    "AvailabilityError",
    "UnmatchedToolPattern",
    "check_availability",
    "resolve_availability",
]

_GLOB_CHARACTERS = frozenset("*?[")


class AvailabilityError(ToolCallsError, LookupError):
    """Strict mode: a tools pattern matches no tool (the message names each one)."""


class UnmatchedToolPattern(UserWarning):
    """A tools pattern matched no tool, so it changed nothing: most likely a typo."""


@dataclass(frozen=True)
class Availability:
    """What a tools list resolves to, and what in it matched nothing."""

    names: tuple[str, ...]
    """The available tools' registered names, in registry order."""
    unmatched: tuple[str, ...] = ()
    """Patterns (and ``always`` / ``never`` entries) that matched no tool."""


def resolve_availability(patterns: Sequence[str], registry: ToolRegistry, *,
                         always: Iterable[str] = (), never: Iterable[str] = (),
                         explicit_only: Iterable[str] = (), strict: bool = False) -> list[str]:
    """The registered names ``patterns`` make available, in registry order (rules in the
    module docstring); a pattern that matches nothing warns, or raises with ``strict``."""
    found = check_availability(patterns, registry, always=always, never=never,
                               explicit_only=explicit_only)
    if found.unmatched:
        listed = ", ".join(repr(pattern) for pattern in found.unmatched)
        message = (f"these tool patterns match no tool: {listed}; check their spelling "
                   f"against the registry's names ({', '.join(registry.names()) or 'none'})")
        if strict:
            raise AvailabilityError(message)
        warnings.warn(message, UnmatchedToolPattern, stacklevel=2)
    return list(found.names)


def check_availability(patterns: Sequence[str], registry: ToolRegistry, *,
                       always: Iterable[str] = (), never: Iterable[str] = (),
                       explicit_only: Iterable[str] = ()) -> Availability:
    """`resolve_availability` without warnings: the names and the unmatched patterns."""
    tools = list(registry)
    unmatched: list[str] = []
    hidden = _named(explicit_only, tools, registry, [])
    included: set[str] = set()
    excluded: set[str] = set()
    for pattern in patterns:
        if pattern.startswith("!"):
            # An exclusion reaches explicit-only tools too: "!agent_*" leaves out "agent_spawn".
            excluded |= _named([pattern[1:]], tools, registry, unmatched, report=pattern)
        else:
            matched = _named([pattern], tools, registry, unmatched)
            included |= matched - hidden if _is_wildcard(pattern) else matched
    kept = (included - excluded) | _named(always, tools, registry, unmatched)
    kept -= _named(never, tools, registry, unmatched)
    return Availability(tuple(t.name for t in tools if t.name in kept), tuple(unmatched))


def _named(entries: Iterable[str], tools: list[RuntimeTool], registry: ToolRegistry,
           unmatched: list[str], *, report: str | None = None) -> set[str]:
    """The registered names the entries stand for; an entry matching none goes to
    ``unmatched`` (as ``report`` when given)."""
    names: set[str] = set()
    for entry in entries:
        matched = _matches(entry, tools, registry)
        if not matched:
            unmatched.append(report or entry)
        names |= matched
    return names


def _is_wildcard(pattern: str) -> bool:
    """Whether the pattern can stand for tools it does not name (explicit-only ones stay out)."""
    if pattern == "*" or bool(_GLOB_CHARACTERS & set(pattern)):
        return True
    return pattern.startswith("@") and "/" not in pattern


def _matches(pattern: str, tools: list[RuntimeTool], registry: ToolRegistry) -> set[str]:
    """The registered names one pattern (without its ``!``) stands for."""
    if pattern == "*":
        return {tool.name for tool in tools}
    if pattern.startswith("@"):
        return _server_matches(pattern[1:], tools, registry)
    if _GLOB_CHARACTERS & set(pattern):
        return {tool.name for tool in tools if fnmatchcase(tool.name, pattern)}
    found = registry.find(pattern)
    return {found.name} if found is not None else set()


def _server_matches(pattern: str, tools: list[RuntimeTool], registry: ToolRegistry) -> set[str]:
    server, _, wanted = pattern.partition("/")
    own = [tool for tool in tools if tool.server == server]
    return {tool.name for tool in own
            if not wanted or fnmatchcase(registry.plain_name(tool.name), wanted)
            or fnmatchcase(tool.name, wanted)}
