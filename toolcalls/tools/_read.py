"""Reading tool lists: `to_tools`, and the cache that makes a list given again cost nothing.

Every entry point that takes ``tools=`` (parsing, the provider readers, sessions, the call
checks) reads them here, once. The `Tool` model needs pydantic (~150 ms to import), and
`toolcalls.parse` without tools must not load it: this module imports the model and the
importers inside the functions that first meet a definition.
"""

from __future__ import annotations

import marshal
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

if TYPE_CHECKING:
    from ._tool import Tool

__all__ = ["ToolSource", "ToolsLike", "read_tools", "to_tools"]


class ToolSource(Protocol):
    """An object that holds tools of its own (the runtime's `ToolRegistry`): every ``tools=``
    takes it, through the definitions it hands out, without the tools layer knowing it."""

    def __toolcalls_tools__(self) -> Sequence[Tool]: ...


ToolsLike: TypeAlias = "Iterable[Tool | Mapping[str, Any]] | ToolSource | None"


_RECENT_TOOLS: dict[bytes, tuple[Tool, ...]] = {}
"""Tool lists given as data, by their content (`_content_key`): the same definitions are
passed with every response, and checking them (schemas included) costs ~40 short parses."""
_RECENT_LIMIT = 32

_SEEN: dict[int, tuple[object, object, tuple[Tool, ...]]] = {}
"""Tool lists given as data, by the identity of the object given: (the object, a deep copy of
it as it was when read, or None until it is given a second time, and its tools). Most callers
pass the very same list with every response: comparing it with its copy (``==``, in C) costs
a fifth of making its content key (4 tools, busy machine: 2 µs against 10 µs; ``json.dumps``,
the key before, 40 µs). It still reads the whole list: `toolcalls.parser` skips even that.
An entry holds the object itself, so no other object can take its identity while it lives."""


def to_tools(tools: ToolsLike) -> list[Tool]:
    """Tools from any shape `toolcalls.tools.import_tools` reads (OpenAI, Anthropic, Gemini, MCP,
    bare definitions, Python functions or `Tool` objects); the one reader of tool lists.

    Definitions given again are not read again. The very same list (or tuple, or dict) is
    recognized while it stays ``==`` to what it was, so one changed in place (a tool appended
    or replaced, a nested schema edited) is read anew; only a change that ``==`` cannot see
    (a key moved to the end of its dict, ``1`` replaced by ``1.0`` or ``True``) keeps the tools
    read before. Equal definitions in new objects are found by their content (types and key
    order included). A generator, or a list holding functions, is read every time. A
    `ToolSource` (a registry) hands over its own definitions, which it keeps up to date.

    Two tools of one name raise `ToolDefinitionError` naming both (providers refuse them).
    """
    found = list(read_tools(tools))
    if len({tool.name for tool in found}) < len(found):
        from ._tool import check_unique_names  # pydantic: loaded already, `found` holds Tools

        check_unique_names(found)
    return found


def read_tools(tools: ToolsLike) -> Sequence[Tool]:
    """`to_tools` without the copy: the tools are shared, for the parsers and provider readers
    only (never handed to a caller, who could change the list)."""
    if tools is None:  # the common case loads nothing more
        return ()
    if isinstance(tools, _SEQUENCES) and _all_tools(tools):
        return tools  # already read (`Tool` is frozen)
    seen = _SEEN.get(id(tools))
    if seen is not None and seen[0] is tools:
        try:
            if tools == seen[1]:
                return seen[2]
        except Exception:  # noqa: BLE001, S110 - changed into what cannot compare: read it
            pass
    # After the cache lookups, so the lists given again pay nothing for it.
    held = getattr(tools, "__toolcalls_tools__", None)
    if held is not None:
        return tuple(held())
    return _read_anew(tools, seen)


def _read_anew(
    tools: Any, seen: tuple[object, object, tuple[Tool, ...]] | None
) -> tuple[Tool, ...]:
    key = _content_key(tools)
    known = _RECENT_TOOLS.get(key) if key is not None else None
    if known is None:
        from ._importers import import_tools  # pydantic: only once a definition is given

        # Read from a copy when remembered: a `Tool` keeps the nested dicts of its schema,
        # and a later change to the caller's dicts must not reach the tools handed out.
        known = tuple(import_tools(tools if key is None else marshal.loads(key)))
        if key is not None:
            _remember(_RECENT_TOOLS, key, known)
    if key is not None:
        # The copy is made the second time the object is given: a caller who builds a new
        # list for every response would pay for a copy each time and never use it.
        again = seen is not None and seen[0] is tools
        _remember(_SEEN, id(tools), (tools, _snapshot(tools) if again else None, known))
    return known


def _content_key(tools: object) -> bytes | None:
    """`tools` as bytes that only equal content gives (types and key order included), or None
    when it holds anything but plain data (functions, `Tool` objects, dict subclasses).

    marshal version 2 writes no back-references and no interning: the bytes depend on the
    content alone. It is 4x faster than ``json.dumps``, which also conflated 1, 1.0 and True.
    """
    if not isinstance(tools, list | tuple | dict):
        return None
    try:
        return marshal.dumps(tools, 2)
    except ValueError:  # an object marshal does not write, or nesting too deep
        return None


def _snapshot(tools: object) -> object:
    """A deep copy of `tools` to compare it with later; it shares the strings and numbers,
    so comparing finds most of them identical. None for data nested too deep to copy."""
    import copy  # here: `import toolcalls` stays light, and only a list given twice needs it

    try:
        return copy.deepcopy(tools)
    except RecursionError:
        return None


def _remember(table: dict[Any, Any], key: object, value: object) -> None:
    if len(table) >= _RECENT_LIMIT:
        try:
            del table[next(iter(table))]  # the oldest
        except (KeyError, RuntimeError, StopIteration):  # another thread changed the table
            pass
    table[key] = value  # one assignment: another thread sees the old entry or the new one


_SEQUENCES = (list, tuple)  # not list | tuple, which makes a new union at every call
_TOOL_TYPE: list[type] = []
"""`Tool`, once a `Tool` exists: importing it in the function took 2 µs of every call."""


def _all_tools(items: list[Any] | tuple[Any, ...]) -> bool:
    if not _TOOL_TYPE:
        from ._tool import Tool  # pydantic: only once a list is given

        _TOOL_TYPE.append(Tool)
    tool_type = _TOOL_TYPE[0]
    for item in items:  # a loop, not all(...): a generator costs 0.5 µs more
        if type(item) is not tool_type:
            return False
    return True
