"""Checks of JSON values in the requests clients send the proxy: each returns the value when it
is what the field needs, else raises `RequestError` naming the field (``messages[2].content:
expected a string, got an array``), which the app answers with 400 in the API's own error
shape. Used by every inbound API's request checks, as ``check.string(value, field)``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ._errors import ProxyError

__all__ = ["MAX_DEPTH", "RequestError", "array", "at", "boolean", "check_strict_json", "integer",
           "json_object", "kind", "number", "obj", "one_of", "optional", "required", "shown",
           "string"]

MAX_DEPTH = 128
"""How deep a request's JSON may nest (objects and arrays): tool schemas nest a few levels,
and the code that reads them (schemas, prompts) recurses."""


class RequestError(ProxyError, ValueError):
    """A request the proxy cannot take (400): `field` is where (``messages[2].content``),
    `message` what is wrong; ``str()`` reads ``"messages[2].content: expected a string or
    ..."``."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(400, f"{field}: {message}" if field else message,
                         param=field or None)
        self.field = field
        self.message = message

    @property
    def said(self) -> str:
        return str(self) if self.field else f"the request body: {self}"


def obj(value: Any, field: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RequestError(field, f"expected an object, got {kind(value)}")
    return value


def array(value: Any, field: str, *, empty: bool = True) -> list[Any]:
    if not isinstance(value, list):
        raise RequestError(field, f"expected an array, got {kind(value)}")
    if not empty and not value:
        raise RequestError(field, "expected at least one item")
    return value


def string(value: Any, field: str, *, empty: bool = True) -> str:
    if not isinstance(value, str):
        raise RequestError(field, f"expected a string, got {kind(value)}")
    if not empty and not value:
        raise RequestError(field, "expected a non-empty string")
    return value


def boolean(value: Any, field: str) -> bool:
    if not isinstance(value, bool):
        raise RequestError(field, f"expected true or false, got {kind(value)}")
    return value


def integer(value: Any, field: str, *, minimum: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise RequestError(field, f"expected an integer, got {kind(value)}")
    if minimum is not None and value < minimum:
        raise RequestError(field, f"expected an integer of at least {minimum}, got {value}")
    return value


def number(value: Any, field: str) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise RequestError(field, f"expected a number, got {kind(value)}")
    return float(value)


def one_of(value: Any, field: str, allowed: Sequence[str]) -> str:
    if value not in allowed:
        listed = ", ".join(repr(choice) for choice in allowed)
        raise RequestError(field, f"expected one of {listed}, got {shown(value)}")
    return str(value)


def required(body: Mapping[str, Any], key: str, field: str) -> Any:
    if key not in body:
        raise RequestError(at(field, key), "is required")
    return body[key]


def optional(body: Mapping[str, Any], key: str, field: str,
              check: Callable[[Any, str], Any]) -> None:
    """`check` the value of `key` when it is there (null counts as absent, as OpenAI's)."""
    if body.get(key) is not None:
        check(body[key], at(field, key))


def at(field: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{field}[{key}]"
    return f"{field}.{key}" if field else key


def kind(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
             int: "a number", float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def shown(value: Any) -> str:
    return repr(value) if isinstance(value, str | int | float | bool) else kind(value)


def json_object(text: str, field: str) -> dict[str, Any]:
    """Call arguments as a JSON string: an object (an empty string is no arguments)."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except RecursionError:
        raise RequestError(field, f"JSON nested more than {MAX_DEPTH} deep") from None
    except ValueError as error:
        raise RequestError(field, f"expected a JSON object in a string: {error}") from None
    if not isinstance(value, dict):
        raise RequestError(field, f"expected a JSON object in a string, got {kind(value)}")
    check_strict_json(value, field)
    return value


def check_strict_json(value: Any, field: str = "") -> None:
    """`value` (JSON as Python decodes it) is strict JSON: no NaN or Infinity (nor a number too
    large for a float, which decodes as infinity), no lone surrogate in a string or key, nested
    at most `MAX_DEPTH` deep. Python's json reads all of these; the proxy could not write them
    on as JSON, nor as UTF-8. Raises `RequestError` naming the first field that is not."""
    stack: list[tuple[Any, str, int]] = [(value, field, 0)]
    while stack:
        node, where, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise RequestError(where, f"JSON nested more than {MAX_DEPTH} deep")
        if isinstance(node, dict):
            items: Any = node.items()
        elif isinstance(node, list):
            items = enumerate(node)
        else:
            _check_scalar(node, where)
            continue
        for key, item in items:
            if isinstance(key, str) and not _utf8(key):
                raise RequestError(where, f"the key {key!r} holds a lone surrogate (not UTF-8)")
            if isinstance(item, dict | list):
                stack.append((item, at(where, key), depth + 1))
            else:
                _check_scalar(item, where, key)


def _check_scalar(value: Any, where: str, key: str | int | None = None) -> None:
    if isinstance(value, str):
        if not _utf8(value):
            raise RequestError(where if key is None else at(where, key),
                               "holds a lone surrogate: not text UTF-8 can carry")
    elif isinstance(value, float) and not math.isfinite(value):
        said = "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"
        raise RequestError(where if key is None else at(where, key),
                           f"{said} is not a JSON number (nor is one too large for a float)")


def _utf8(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
