"""Parse and render the body of a pythonic tool-call list (Llama 3.2, Llama 4, LFM2).

The model writes a Python list of calls with keyword arguments and literal values::

    [get_weather(city="San Francisco", metric="celsius"),
     register_user(name='John', age=37, role=None, tags=['a', 'b'], meta={"k": 1.5})]

`parse_pythonic_calls` reads exactly that text (no surrounding prose or markers) with the
LALR grammar ``toolcalls/parsing/grammars/pythonic.lark`` and returns ``[(name, arguments), ...]``.
Values map to JSON types: tuples and sets become lists, dict keys become strings, and
``true``/``false``/``null`` are read like ``True``/``False``/``None``. Strings decode as Python
reads them (a raw CR becomes LF), but raw newlines are allowed in short strings too.
Positional arguments are rejected by the grammar. Malformed input raises `PythonicSyntaxError`,
and so do values JSON arguments may not hold, as in every format (`.._json`): a string
with a surrogate code point (``"\\ud800"``: Python does not pair surrogate escapes) and
arguments nested deeper than the JSON reader's limit. Non-finite floats (``1e400``) are
refused by the grammar and the ``real`` rule.
"""

from __future__ import annotations

import ast
import functools
import math
import re
from typing import Any, cast

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from .._json import MAX_DEPTH, SURROGATE, deeper_than

__all__ = [
    "PythonicSyntaxError",
    "decode_string_literal",
    "format_pythonic_call",
    "format_pythonic_value",
    "parse_pythonic_calls",
]

Call = tuple[str, dict[str, Any]]


class PythonicSyntaxError(ValueError):
    """The text is not a well-formed pythonic tool-call list; `pos` is the character offset."""

    def __init__(self, message: str, pos: int) -> None:
        super().__init__(f"{message} (at offset {pos})")
        self.reason = message
        self.pos = pos


# Backslash escapes Python understands in a non-raw string; any other one is kept as written.
_KNOWN_ESCAPES = frozenset("\n\r\\'\"abfnrtv01234567xuUN")
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)


def _keep_unknown_escape(match: re.Match[str]) -> str:
    return match[0] if match[1] in _KNOWN_ESCAPES else "\\" + match[0]


# What only Python's own reading gets right: escapes, newline translation, invalid characters.
_NOT_PLAIN = re.compile(r"[\\\r\x00\ud800-\udfff]")


def _decode_string(token: Token) -> str:
    return decode_string_literal(str(token), token.start_pos or 0)


def decode_string_literal(text: str, pos: int = 0) -> str:
    """Decode one string literal as Python does, also allowing raw newlines in short strings."""
    start = 1 if text[0] in "rRuU" else 0
    quote = text[start]
    triple = text.startswith(quote * 3, start) and len(text) - start >= 6
    body = text[start + 3 : -3] if triple else text[start + 1 : -1]
    if _NOT_PLAIN.search(body) is None:  # its own value: no compile() (short parse -15%)
        return body
    if not triple:
        # A short string's body has no bare quote, so triple-quoting it keeps its meaning.
        text = text[:start] + quote * 3 + text[start + 1 : -1] + quote * 3
    if text[0] not in "rR" and "\\" in text:
        text = _ESCAPE.sub(_keep_unknown_escape, text)  # avoids Python's invalid-escape warning
    try:
        value = ast.literal_eval(text)
    except (SyntaxError, ValueError) as exc:  # bad \x, \N{...}, NUL or surrogate characters
        raise PythonicSyntaxError(f"invalid string literal: {exc}", pos) from None
    if not isinstance(value, str):
        raise PythonicSyntaxError("invalid string literal", pos)
    if SURROGATE.search(value):  # Python reads "\ud83d\ude00" as two: no UTF-8 for either
        raise PythonicSyntaxError("a lone surrogate in a string literal", pos)
    return value


@v_args(inline=True)
class _Builder(Transformer[Token, Any]):
    """Builds Python values bottom-up while the LALR parser reduces."""

    def start(self, *calls: Call) -> list[Call]:
        return list(calls)

    def call(self, name: str, *kwargs: tuple[Token, Any]) -> Call:
        arguments: dict[str, Any] = {}
        for key, value in kwargs:
            if key in arguments:
                raise PythonicSyntaxError(f"repeated argument {str(key)!r}", key.start_pos or 0)
            arguments[str(key)] = value
        return name, arguments

    def dotted_name(self, *parts: Token) -> str:
        return ".".join(parts)

    def kwarg(self, name: Token, value: Any) -> tuple[Token, Any]:
        return name, value

    def string(self, *tokens: Token) -> str:
        return "".join(_decode_string(token) for token in tokens)

    def integer(self, token: Token) -> int:
        try:
            return int(token)
        except ValueError:  # more digits than int() converts
            raise PythonicSyntaxError("integer literal too long", token.start_pos or 0) from None

    def real(self, token: Token) -> float:
        value = float(token)
        if not math.isfinite(value):
            raise PythonicSyntaxError("float literal out of range", token.start_pos or 0)
        return value

    def true(self, _token: Token) -> bool:
        return True

    def false(self, _token: Token) -> bool:
        return False

    def none(self, _token: Token) -> None:
        return None

    def list_value(self, *items: Any) -> list[Any]:
        return list(items)

    tuple_value = list_value
    set_value = list_value

    def pair(self, key: str | int | float, value: Any) -> tuple[str, Any]:
        return (key if isinstance(key, str) else repr(key)), value

    def dict_value(self, *pairs: tuple[str, Any]) -> dict[str, Any]:
        return dict(pairs)


@functools.cache
def _parser() -> Lark:
    return Lark.open_from_package(
        "toolcalls.parsing", "pythonic.lark", ("grammars",), parser="lalr", transformer=_Builder()
    )


def _syntax_error(exc: UnexpectedInput, text: str) -> PythonicSyntaxError:
    if isinstance(exc, UnexpectedToken) and exc.token.type != "$END":
        pos = exc.token.start_pos or 0
        if {"NAME", "RPAR"} <= exc.expected:
            return PythonicSyntaxError(
                f"expected name=value or ')', got {str(exc.token)!r}"
                " (tool-call arguments must be named)",
                pos,
            )
        expected = ", ".join(sorted(exc.expected)).replace("$END", "end of input")
        return PythonicSyntaxError(f"unexpected {str(exc.token)!r}, expected {expected}", pos)
    if isinstance(exc, UnexpectedCharacters):
        pos = exc.pos_in_stream or 0
        return PythonicSyntaxError(f"unexpected character {text[pos : pos + 1]!r}", pos)
    return PythonicSyntaxError("unexpected end of input", len(text))


def parse_pythonic_calls(text: str) -> list[Call]:
    """Parse ``[f(a=1), g()]`` (or a bare ``f(a=1)``) into ``[("f", {"a": 1}), ("g", {})]``."""
    parser = _parser()  # outside the try: a broken grammar must not look like bad input
    try:
        calls = cast(list[Call], parser.parse(text))
    except PythonicSyntaxError:
        raise
    except UnexpectedInput as exc:
        raise _syntax_error(exc, text) from None
    except (LarkError, ValueError, OverflowError) as exc:
        raise PythonicSyntaxError(f"unreadable tool-call list: {exc}", 0) from None
    except RecursionError:
        raise PythonicSyntaxError("tool-call list nested too deeply", 0) from None
    for _name, arguments in calls:  # the JSON reader's limit, with the arguments object
        if deeper_than(arguments, MAX_DEPTH):
            raise PythonicSyntaxError(f"arguments nested deeper than {MAX_DEPTH}", 0)
    return calls


def format_pythonic_value(value: Any) -> str:
    """Render a JSON-compatible value as Python source that `parse_pythonic_calls` reads back."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"cannot render non-finite float {value!r}")
        return float.__repr__(value)
    if isinstance(value, str):
        return str.__repr__(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(format_pythonic_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(_format_pair(key, item) for key, item in value.items()) + "}"
    raise TypeError(f"cannot render {type(value).__name__} as a pythonic value")


def _format_pair(key: Any, value: Any) -> str:
    if not isinstance(key, str):
        raise TypeError(f"dict keys must be str, not {type(key).__name__}")
    return f"{str.__repr__(key)}: {format_pythonic_value(value)}"


def format_pythonic_call(name: str, arguments: dict[str, Any]) -> str:
    """Render one call as ``name(a=1, b='x')``."""
    rendered = (f"{key}={format_pythonic_value(value)}" for key, value in arguments.items())
    return f"{name}({', '.join(rendered)})"
