"""Typed values for the raw text of XML-style tool-call parameters.

Qwen3-Coder, GLM, MiniMax-M2 and DeepSeek DSML write argument values as bare text;
the JSON Schema of the parameter decides what the text becomes. The rules:

* `strip_value_newlines` drops at most one newline ("\\n" or "\\r\\n") at each end,
  the ones the chat templates put around a value.
* No schema, a schema naming no type, or "string": the text exactly as is. Only these values
  may be streamed as text (`streams_as_string`).
* Local `$ref`s (``#/$defs/Address``, ``#/definitions/Address``, as pydantic writes them) are
  followed where they decide the type: the property's own schema and its anyOf/oneOf/allOf
  branches (`toolcalls.tools._refs.property_schema`). A cyclic ref is followed once; remote refs
  (``https://...``) are not followed: such a schema names no type.
* Otherwise whitespace around the text is ignored and `null` (any case) or Python's
  `None` is None: XML formats cannot spell null otherwise, the Qwen3-Coder template
  renders None as `None`, and ollama, vLLM and SGLang read `null` as None for any
  non-string type.
* Type lists are sets: integer, number, boolean, object, array, then unknown type names
  are tried in that order, and the text as a string last if "string" is allowed.
* integer: `007`, or an integral decimal such as `140.0` or `1e3`; never `2026-01-15`,
  nor a decimal that overflows a double (`1e309`: kept as text with a problem).
  number: an int when integral and below 2**53 (`100.0` -> 100), else a finite float.
* boolean: `true`/`false` in any case (the Qwen3-Coder template renders Python's
  `True`), and `1`/`0` as vLLM accepts; `yes`/`no` are refused rather than guessed.
* Never NaN, Infinity or a float that overflows a double, in any type: JSON arguments
  cannot hold them (`toolcalls.parsing._json`); object/array values follow the JSON reader's rules
  (no lone surrogate, nesting at most its limit deep).
* object/array: JSON, else a Python literal of JSON values (`{'a': True}`: the
  Qwen3-Coder template renders lists with Python's repr). Text with a backslash skips
  that fallback, as Python and JSON escapes differ.
* Unknown type names and typeless anyOf/oneOf branches accept JSON, else the text.
  Aliases: int, float, double, bool, str, dict, list. Without "type", anyOf/oneOf (each
  branch's types), allOf (the types every typed branch allows), enum/const values and
  "properties"/"items" give the types; "nullable" adds null. Branches nested deeper than
  `MAX_SCHEMA_DEPTH` allow any JSON value.

`coerce` never raises and never drops a value: when nothing fits it returns the text
unchanged with a short description of the problem.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable
from decimal import Decimal
from functools import partial
from typing import Any, Final

from ..tools._refs import MAX_SCHEMA_DEPTH
from ._json import MAX_DEPTH, SURROGATE, loads

__all__ = [
    "coerce",
    "decode_json_value",
    "streams_as_string",
    "strip_value_newlines",
]

_ALIASES = {
    "int": "integer", "float": "number", "double": "number", "bool": "boolean",
    "str": "string", "dict": "object", "list": "array",
}  # fmt: skip
_KNOWN: Final = frozenset({"string", "integer", "number", "boolean", "null", "object", "array"})
_STRING: Final = frozenset({"string"})
_ONE_TYPE: Final[dict[str, frozenset[str]]] = {}
"""The types of ``{"type": NAME}`` by NAME, as `_types` found them."""
_PY_TYPES = (
    (bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"),
    (dict, "object"), (list, "array"), (type(None), "null"),
)  # fmt: skip
_BOOLEANS: Final = {"true": True, "1": True, "false": False, "0": False}
_INT_RE: Final = re.compile(r"[+-]?[0-9]+")
_NUMBER_RE: Final = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_EXACT_FLOAT_LIMIT = 2**53
_MAX_INT_DIGITS = 4000
_MAX_LITERAL_CHARS = 100_000
_LITERAL_ERRORS = (ValueError, TypeError, SyntaxError, MemoryError, RecursionError)


def strip_value_newlines(raw: str) -> str:
    """Remove at most one leading and one trailing newline ("\\n" or "\\r\\n")."""
    head = 2 if raw.startswith("\r\n") else 1 if raw.startswith("\n") else 0
    rest = len(raw) - head
    tail = 2 if rest >= 2 and raw.endswith("\r\n") else 1 if rest >= 1 and raw.endswith("\n") else 0
    return raw[head : len(raw) - tail]  # one slice: a long value is not copied twice


def streams_as_string(schema: dict[str, Any] | None) -> bool:
    """Tell whether the final value is certainly the text itself, so it can be streamed."""
    return _types(schema) == _STRING


def coerce(text: str, schema: dict[str, Any] | None) -> tuple[Any, str | None]:
    """Convert parameter text by its schema; return (value, None) or (text, problem)."""
    types = _types(schema)
    if types == _STRING:
        return text, None
    stripped = text.strip()
    if stripped.lower() == "null" or stripped == "None":
        return None, None
    unknown: list[Callable[[str], Any]] = [_json] if types - _KNOWN else []
    for convert in [convert for name, convert in _ORDER if name in types] + unknown:
        try:
            return convert(stripped), None
        except (ValueError, RecursionError):
            continue
    if "string" in types or types - _KNOWN:
        return text, None
    return text, f"expected {' or '.join(sorted(types))}, got {_preview(text)}"


def decode_json_value(text: str) -> tuple[Any, str | None]:
    """Decode a DSML `string="false"` value as JSON; return (value, None) or (text, problem)."""
    try:
        return _json(text.strip()), None
    except (ValueError, RecursionError):
        return text, f"expected a JSON value, got {_preview(text)}"


# ---------------------------------------------------------------- schema -> type names


def _types(schema: Any) -> frozenset[str]:
    """Return the type names a schema allows; a schema that names none means string."""
    if not isinstance(schema, dict):
        return _STRING
    declared = schema.get("type")
    if isinstance(declared, str) and schema.get("nullable") is not True:
        # the common schema, looked up for every value: what _declared makes of it, kept
        simple = _ONE_TYPE.get(declared)
        if simple is None:
            simple = frozenset(_declared({"type": declared}, MAX_SCHEMA_DEPTH)) or _STRING
            if len(_ONE_TYPE) < 256:  # type names come from tool definitions: a few
                _ONE_TYPE[declared] = simple
        return simple
    found = _declared(schema, MAX_SCHEMA_DEPTH)
    return frozenset(found) if found else _STRING


def _declared(schema: dict[str, Any], depth: int) -> set[str]:
    """Return the type names a schema itself declares, possibly none."""
    found = _names(schema.get("type"))
    if not found:
        found = _branches(schema.get("anyOf"), depth) | _branches(schema.get("oneOf"), depth)
    if not found:
        found = _shared(schema.get("allOf"), depth)
    if not found:
        found = _value_types(schema)
    if not found and schema.keys() & {"properties", "additionalProperties"}:
        found = {"object"}
    if not found and schema.keys() & {"items", "prefixItems"}:
        found = {"array"}
    if found and schema.get("nullable") is True:
        found.add("null")
    return found


def _names(declared: Any) -> set[str]:
    """Normalise a "type" keyword (a name or a list of names) to canonical names."""
    names = [declared] if isinstance(declared, str) else declared
    if not isinstance(names, list):
        return set()
    return {_ALIASES.get(n.lower(), n.lower()) for n in names if isinstance(n, str)}


def _branches(branches: Any, depth: int) -> set[str]:
    """Union the types of anyOf/oneOf branches; a typeless branch allows anything."""
    if not isinstance(branches, list):
        return set()
    if depth <= 0:
        return {"any"}
    found: set[str] = set()
    for branch in branches:
        found |= (_declared(branch, depth - 1) if isinstance(branch, dict) else set()) or {"any"}
    return found


def _shared(branches: Any, depth: int) -> set[str]:
    """The types every typed allOf branch allows (a branch naming no type restricts none)."""
    if not isinstance(branches, list) or depth <= 0:
        return set()
    found: set[str] | None = None
    for branch in branches:
        types = _declared(branch, depth - 1) if isinstance(branch, dict) else set()
        if types:
            found = types if found is None else found & types
    return found or set()


def _value_types(schema: dict[str, Any]) -> set[str]:
    """Infer types from enum or const values."""
    values = schema.get("enum")
    if not isinstance(values, list):
        values = [schema["const"]] if "const" in schema else []
    return {next((n for k, n in _PY_TYPES if isinstance(v, k)), "any") for v in values}


# ---------------------------------------------------------------- text -> value


def _integer(text: str) -> int:
    """Parse an integer, accepting integral decimals such as 140.0 or 1e3."""
    if _INT_RE.fullmatch(text):
        return int(text)
    if not _NUMBER_RE.fullmatch(text):
        raise ValueError("not a number")
    number = Decimal(text)
    if number.adjusted() > _MAX_INT_DIGITS or number != number.to_integral_value():
        raise ValueError("not an integer in range")
    if not math.isfinite(float(text)):  # 1e309: a number JSON readers cannot hold either
        raise ValueError("out of range")
    return int(number)


def _number(text: str) -> int | float:
    """Parse a number: int when integral and exactly representable, else float."""
    if _INT_RE.fullmatch(text):
        return int(text)
    if not _NUMBER_RE.fullmatch(text):
        raise ValueError("not a number")
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("out of range")
    return int(value) if value.is_integer() and abs(value) < _EXACT_FLOAT_LIMIT else value


def _boolean(text: str) -> bool:
    """Parse true/false in any case, or 1/0."""
    if text.lower() not in _BOOLEANS:
        raise ValueError("not a boolean")
    return _BOOLEANS[text.lower()]


def _container(kind: type[Any], text: str) -> Any:
    """Decode a JSON dict or list, falling back to a Python literal."""
    try:
        value = _json(text)
    except (ValueError, RecursionError):
        value = _python_literal(text)
    if not isinstance(value, kind):
        raise ValueError(f"not a {kind.__name__}")
    return value


def _python_literal(text: str) -> Any:
    """Evaluate a Python dict or list literal that holds only JSON values."""
    if "\\" in text or len(text) > _MAX_LITERAL_CHARS or not text.startswith(("{", "[")):
        raise ValueError("not JSON")
    try:
        value = ast.literal_eval(text)
    except _LITERAL_ERRORS as error:
        raise ValueError("not a JSON or Python literal") from error
    if not _is_json_like(value, MAX_DEPTH):
        raise ValueError("literal holds non-JSON values")
    return value


def _is_json_like(value: Any, depth: int) -> bool:
    """Tell whether a Python literal maps one to one onto JSON the JSON reader accepts: finite
    numbers, strings without lone surrogates, at most `depth` containers deep."""
    if isinstance(value, dict | list) and depth <= 0:
        return False
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_json_like(k, depth) and _is_json_like(v, depth - 1)
                   for k, v in value.items())
    if isinstance(value, list):
        return all(_is_json_like(item, depth - 1) for item in value)
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, str):
        return SURROGATE.search(value) is None
    return value is None or isinstance(value, int)


def _json(text: str) -> Any:
    """Decode strict JSON: NaN, Infinity, overflowing floats, lone surrogates and nesting
    deeper than the JSON reader's limit are refused (`toolcalls.parsing._json.loads`)."""
    return loads(text)


def _preview(text: str) -> str:
    """Quote the text for a problem message, shortened to about 40 characters."""
    return repr(text) if len(text) <= 40 else repr(text[:37]) + "..."


_ORDER: tuple[tuple[str, Callable[[str], Any]], ...] = (
    ("integer", _integer), ("number", _number), ("boolean", _boolean),
    ("object", partial(_container, dict)), ("array", partial(_container, list)),
)  # fmt: skip
