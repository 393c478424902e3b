"""The top-level functions: thin wrappers over the `Format` a name resolves to."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .._errors import UnknownFormatError
from ..tools._read import ToolsLike, read_tools, to_tools
from ._registry import detect_parsed, get_format

if TYPE_CHECKING:  # pydantic costs ~150 ms to import: it loads on the first parse, not here
    from ..tools._tool import Tool
    from ._models import ParseResult
    from .formats._base import Format
    from .stream import StreamParser

__all__ = ["Parser", "parse", "parser", "stream"]


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
    declared = read_tools(tools)
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
    from .formats._plain import NoFormat  # a format module: loaded on first use, like all

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
        tools=read_tools(tools), strict=strict, thinking=thinking, validate=validate
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
