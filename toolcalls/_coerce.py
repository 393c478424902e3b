"""Typed values for the raw text of XML-style tool-call parameters.

Qwen3-Coder (`<parameter=k>v</parameter>`), GLM (`<arg_value>`), MiniMax-M2
(`<parameter name=..>`) and DeepSeek DSML write argument values as bare text. The
JSON Schema of the parameter decides what that text becomes:

* Newlines: the templates put one newline after the opening and before the closing
  tag, so `strip_value_newlines` removes at most one of each ("\\n" or "\\r\\n").
* No schema, a schema that names no type, or type "string": the text exactly as is.
  Such values are the ones `streams_as_string` lets a parser stream as they arrive.
* Otherwise surrounding whitespace is ignored, and the literal `null` (any case) or
  Python's `None` becomes None: XML formats have no other spelling of null, the
  Qwen3-Coder template writes Python None as `None`, and ollama, vLLM and SGLang all
  turn `null` into None for any non-string type.
* Candidates are tried in a fixed order, whatever the order of a type list (JSON Schema
  type lists are sets): integer, number, boolean, object, array, then any unknown type
  name, and the text as a string last if "string" is allowed.
* integer: `42`, `007`, and integral decimals such as `140.0` or `1e3`; not `2026-01-15`.
* number: an integral value below 2**53 becomes an int (`100.0` -> 100), else a float.
  `nan`, `inf` and out-of-range values are rejected.
* boolean: `true`/`false` in any case (the Qwen3-Coder template renders Python bools
  as `True`/`False`), and `1`/`0` as vLLM does. `yes`/`no` are rejected, not guessed.
* object/array: JSON; failing that, a Python literal (`{'a': True}`, the repr the
  Qwen3-Coder template gives lists) if it holds only JSON values. Text containing a
  backslash skips this fallback, since Python and JSON escapes differ.
* Unknown type names (`"any"`, a typeless branch of anyOf) accept JSON, else the text.
* Aliases seen in real tool definitions: int, float, double, bool, str, dict, list.
* Without "type", anyOf/oneOf branches, enum/const values, or keywords such as
  "properties"/"items" give the types; `"nullable": true` adds null. `$ref` is not
  resolved: a schema that names no type is taken as a string.

`coerce` never raises and never drops a value: when no candidate fits it returns the
text unchanged with a short description of the problem.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

__all__ = ["coerce", "decode_json_value", "streams_as_string", "strip_value_newlines"]

_ALIASES = {
    "int": "integer", "float": "number", "double": "number", "bool": "boolean",
    "str": "string", "dict": "object", "list": "array",
}
_KNOWN = frozenset({"string", "integer", "number", "boolean", "null", "object", "array"})
_STRING = frozenset({"string"})
_INT_RE = re.compile(r"[+-]?[0-9]+")
_NUMBER_RE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_EXACT_FLOAT_LIMIT = 2**53
_MAX_INT_DIGITS = 4000
_MAX_LITERAL_CHARS = 100_000
_LITERAL_ERRORS = (ValueError, TypeError, SyntaxError, MemoryError, RecursionError)


def strip_value_newlines(raw: str) -> str:
    """Remove at most one leading and one trailing newline ("\\n" or "\\r\\n")."""
    head = 2 if raw.startswith("\r\n") else 1 if raw.startswith("\n") else 0
    raw = raw[head:]
    tail = 2 if raw.endswith("\r\n") else 1 if raw.endswith("\n") else 0
    return raw[: len(raw) - tail]


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
    for convert in _converters(types):
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
    found = _declared(schema) if isinstance(schema, dict) else set()
    return frozenset(found) if found else _STRING


def _declared(schema: dict[str, Any]) -> set[str]:
    """Return the type names a schema itself declares, possibly none."""
    found = _names(schema.get("type"))
    if not found:
        found = _branches(schema.get("anyOf")) | _branches(schema.get("oneOf"))
    if not found:
        found = _value_types(schema)
    if not found:
        found = _keyword_types(schema)
    if found and schema.get("nullable") is True:
        found.add("null")
    return found


def _names(declared: Any) -> set[str]:
    """Normalise a "type" keyword (a name or a list of names) to canonical names."""
    names = [declared] if isinstance(declared, str) else declared
    if not isinstance(names, list):
        return set()
    return {_ALIASES.get(n.lower(), n.lower()) for n in names if isinstance(n, str)}


def _branches(branches: Any) -> set[str]:
    """Union the types of anyOf/oneOf branches; a typeless branch allows anything."""
    if not isinstance(branches, list):
        return set()
    found: set[str] = set()
    for branch in branches:
        found |= (_declared(branch) if isinstance(branch, dict) else set()) or {"any"}
    return found


def _value_types(schema: dict[str, Any]) -> set[str]:
    """Infer types from enum or const values."""
    values = schema.get("enum")
    if not isinstance(values, list):
        values = [schema["const"]] if "const" in schema else []
    return {_json_type(value) for value in values}


def _json_type(value: Any) -> str:
    """Name the JSON type of a decoded value."""
    for kind, name in ((bool, "boolean"), (int, "integer"), (float, "number"),
                       (str, "string"), (dict, "object"), (list, "array")):
        if isinstance(value, kind):
            return name
    return "null" if value is None else "any"


def _keyword_types(schema: dict[str, Any]) -> set[str]:
    """Infer object or array from structural keywords of a typeless schema."""
    if schema.keys() & {"properties", "additionalProperties", "patternProperties"}:
        return {"object"}
    return {"array"} if schema.keys() & {"items", "prefixItems"} else set()


# ---------------------------------------------------------------- text -> value


def _converters(types: frozenset[str]) -> list[Callable[[str], Any]]:
    """List the converters to try for these types, in precedence order."""
    chosen = [convert for name, convert in _ORDER if name in types]
    return chosen + [_json] if types - _KNOWN else chosen


def _integer(text: str) -> int:
    """Parse an integer, accepting integral decimals such as 140.0 or 1e3."""
    if _INT_RE.fullmatch(text):
        return int(text)
    number = _decimal(text)
    if number != number.to_integral_value():
        raise ValueError("not integral")
    return int(number)


def _decimal(text: str) -> Decimal:
    """Parse a decimal literal exactly, refusing absurd exponents."""
    if not _NUMBER_RE.fullmatch(text):
        raise ValueError("not a number")
    number = Decimal(text)
    if number.adjusted() > _MAX_INT_DIGITS:
        raise ValueError("out of range")
    return number


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
    word = text.lower()
    if word in ("true", "1"):
        return True
    if word in ("false", "0"):
        return False
    raise ValueError("not a boolean")


def _object(text: str) -> dict[str, Any]:
    """Parse a JSON object, or a Python dict literal holding JSON values."""
    value = _container(text)
    if not isinstance(value, dict):
        raise ValueError("not an object")
    return value


def _array(text: str) -> list[Any]:
    """Parse a JSON array, or a Python list literal holding JSON values."""
    value = _container(text)
    if not isinstance(value, list):
        raise ValueError("not an array")
    return value


def _container(text: str) -> Any:
    """Decode JSON, falling back to a Python literal of JSON-compatible values."""
    try:
        return _json(text)
    except (ValueError, RecursionError):
        if "\\" in text or len(text) > _MAX_LITERAL_CHARS or text[:1] not in ("{", "["):
            raise
    try:
        value = ast.literal_eval(text)
    except _LITERAL_ERRORS as error:
        raise ValueError("not a JSON or Python literal") from error
    if not _is_json_like(value):
        raise ValueError("literal holds non-JSON values")
    return value


def _is_json_like(value: Any) -> bool:
    """Tell whether a Python literal maps one to one onto JSON."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_json_like(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_is_json_like(item) for item in value)
    if isinstance(value, float):
        return math.isfinite(value)
    return value is None or isinstance(value, (str, int))


def _json(text: str) -> Any:
    """Decode strict JSON: NaN and Infinity are refused."""
    return json.loads(text, parse_constant=_refuse_constant)


def _refuse_constant(name: str) -> Any:
    """Reject the non-standard JSON constants NaN, Infinity and -Infinity."""
    raise ValueError(f"{name} is not JSON")


def _preview(text: str) -> str:
    """Quote the text for a problem message, shortened to about 40 characters."""
    return repr(text) if len(text) <= 40 else repr(text[:37]) + "..."


_ORDER: tuple[tuple[str, Callable[[str], Any]], ...] = (
    ("integer", _integer), ("number", _number), ("boolean", _boolean),
    ("object", _object), ("array", _array),
)
