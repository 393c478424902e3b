"""The top-level functions: thin wrappers over the `Format` a name resolves to."""

from __future__ import annotations

import marshal
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

from .._errors import UnknownFormatError
from ._registry import detect_parsed, get_format

if TYPE_CHECKING:  # pydantic costs ~150 ms to import: it loads on the first parse, not here
    from ..tools._tool import Tool
    from ._models import ParseResult
    from .formats._base import Format
    from .stream import StreamParser

__all__ = ["Parser", "parse", "parser", "stream", "to_tools"]

ToolsLike: TypeAlias = "Iterable[Tool | Mapping[str, Any]] | None"


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
    order included). A generator, or a list holding functions, is read every time.

    Two tools of one name raise `ToolDefinitionError` naming both (providers refuse them).
    """
    found = list(_read(tools))
    if len({tool.name for tool in found}) < len(found):
        from ..tools._tool import check_unique_names  # loaded: `found` holds `Tool` objects

        check_unique_names(found)
    return found


def _read(tools: ToolsLike) -> Sequence[Tool]:
    """`to_tools` without the copy: the tools are shared, for the parsers only."""
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
    return _read_anew(tools, seen)


def _read_anew(
    tools: Any, seen: tuple[object, object, tuple[Tool, ...]] | None
) -> tuple[Tool, ...]:
    key = _content_key(tools)
    known = _RECENT_TOOLS.get(key) if key is not None else None
    if known is None:
        from ..tools._importers import import_tools

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
        from ..tools._tool import Tool

        _TOOL_TYPE.append(Tool)
    tool_type = _TOOL_TYPE[0]
    for item in items:  # a loop, not all(...): a generator costs 0.5 µs more
        if type(item) is not tool_type:
            return False
    return True


def parse(
    text: str,
    format: str | Format = "auto",  # noqa: A002 - the concept is called "format" everywhere
    *,
    tools: ToolsLike = None,
    strict: bool = False,
    thinking: bool = False,
    validate: bool = False,
) -> ParseResult:
    """Parse one model response.

    Args:
        text: the model's output, special tokens included.
        format: a format name, alias or model id, ``"auto"`` to detect it, or a `Format`.
            Where none is detected, the result's format is ``"none"``: no calls, the text
            is content (reasoning aside).
        tools: the tools offered to the model; enables name checks and typed arguments.
        strict: raise a `ParseError` for malformed output instead of recording an issue.
        thinking: the prompt opened a reasoning block, so the text starts inside it.
        validate: check each complete call's arguments against its tool's JSON Schema (after
            XML-style values are typed by it) and report what does not fit as issues
            (``missing_argument``, ``unknown_argument``, ``wrong_argument_type``,
            ``invalid_argument_value``), with messages to send back to the model. Local
            ``$ref``s (``#/$defs/...``) are followed; remote ones (``https://...``) are not
            fetched, so they accept any value. Off by
            default: jsonschema runs in the interpreter, ~0.1 ms per call checked (a short
            Qwen3-Coder response with one call, interpreted: 150 µs parsed, 260 µs
            validated); without it the parse runs no schema code at all.

    A call naming a tool by one of its `Tool.aliases` carries the tool's name, and an
    ``alias_used`` issue says which alias the model wrote.
    """
    if not isinstance(text, str):
        raise TypeError(f"parse() needs the response text as str, not {type(text).__name__}")
    declared = _read(tools)
    if format == "auto":
        return _parse_detected(text, declared, strict, thinking, validate)
    return get_format(format).parse(
        text, tools=declared, strict=strict, thinking=thinking, validate=validate
    )


def _parse_detected(
    text: str, declared: Sequence[Tool], strict: bool, thinking: bool, validate: bool = False
) -> ParseResult:
    found, result = detect_parsed(text, declared)
    if result is not None and not strict and not thinking and not validate:
        return result  # detection parsed it already, with these options
    chosen = get_format(found or _no_format())
    return chosen.parse(text, tools=declared, strict=strict, thinking=thinking, validate=validate)


def _no_format() -> Format:
    from .formats._plain import NoFormat

    return NoFormat()


def stream(
    format: str | Format,  # noqa: A002
    *,
    tools: ToolsLike = None,
    strict: bool = False,
    thinking: bool = False,
    validate: bool = False,
) -> StreamParser:
    """A `StreamParser` for one response: ``feed(chunk)``, ``close()``, then ``result()``.

    The options are `parse`'s; with ``validate=True`` the issues of a call's arguments are
    in ``result()`` as soon as its `ToolCallEnd` is returned."""
    return _streamed(format).stream(
        tools=_read(tools), strict=strict, thinking=thinking, validate=validate
    )


def _streamed(format: str | Format) -> Format:  # noqa: A002
    if format == "auto":
        raise UnknownFormatError(
            "format 'auto' detects the format from the whole response, so it cannot stream: "
            "name the format (toolcalls.detect tells it from a response), or parse the whole text"
        )
    return get_format(format)


class Parser:
    """A parser bound to one format and its tools, read once: what `toolcalls.parser` makes.

    ``parser.parse(text)`` is ``toolcalls.parse(text, format, tools=..., strict=...,
    thinking=..., validate=...)``, and ``parser.stream()`` the `StreamParser`
    ``toolcalls.stream`` gives, without reading the tools or looking up the format again. It
    keeps the tools as they were when it was made: for definitions changed since, make a new
    parser.
    """

    __slots__ = ("format", "strict", "thinking", "tools", "validate")

    def __init__(
        self,
        format: str | Format,  # noqa: A002
        *,
        tools: ToolsLike = None,
        strict: bool = False,
        thinking: bool = False,
        validate: bool = False,
    ) -> None:
        self.format: Format | str = "auto" if format == "auto" else get_format(format)
        """The `Format`, or ``"auto"``: detected per response, which `stream` cannot do."""
        self.tools: tuple[Tool, ...] = tuple(to_tools(tools))  # made once: names checked
        self.strict = strict
        self.thinking = thinking
        self.validate = validate

    def parse(self, text: str) -> ParseResult:
        """Parse one whole response."""
        if not isinstance(text, str):
            raise TypeError(f"parse() needs the response text as str, not {type(text).__name__}")
        if isinstance(self.format, str):  # "auto"
            return _parse_detected(text, self.tools, self.strict, self.thinking, self.validate)
        return self.format.parse(
            text, tools=self.tools, strict=self.strict, thinking=self.thinking,
            validate=self.validate,
        )

    def stream(self) -> StreamParser:
        """A new `StreamParser` for one response (``UnknownFormatError`` for ``"auto"``)."""
        return _streamed(self.format).stream(
            tools=self.tools, strict=self.strict, thinking=self.thinking, validate=self.validate
        )

    def __repr__(self) -> str:
        name = self.format if isinstance(self.format, str) else self.format.name
        return f"toolcalls.parser({name!r}, tools=<{len(self.tools)} tools>)"


def parser(
    format: str | Format,  # noqa: A002
    *,
    tools: ToolsLike = None,
    strict: bool = False,
    thinking: bool = False,
    validate: bool = False,
) -> Parser:
    """A reusable `Parser` for one format and tool set, the way `re.compile` makes a pattern:
    the tools are read and the format found once, not with every response.

    ``format="auto"`` detects the format of each response in `Parser.parse`; `Parser.stream`
    then raises `UnknownFormatError`.
    """
    return Parser(format, tools=tools, strict=strict, thinking=thinking, validate=validate)
