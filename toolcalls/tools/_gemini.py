"""Gemini's schema dialect, both ways.

Gemini's ``functionDeclarations[].parameters`` takes a subset of OpenAPI 3.0 schemas, not JSON
Schema: types are enum names (``OBJECT``, ``STRING``...), "may be null" is ``nullable: true``
instead of a ``"null"`` type, there is no ``$ref``, ``const``, ``oneOf``, ``allOf`` or
``additionalProperties``, ``enum`` is for strings, and only a few ``format`` values are accepted
(``enum``/``date-time`` for strings, ``float``/``double`` and ``int32``/``int64`` for numbers).
`gemini_schema` converts a JSON Schema into that subset, keeping meaning where it can and moving
what it cannot express into the description; `json_schema_from_gemini` reads it back.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ._refs import resolve_ref

__all__ = ["gemini_schema", "json_schema_from_gemini"]

_GEMINI_KEYS = frozenset({
    "description", "title", "enum", "format", "maxItems", "minItems", "minProperties",
    "maxProperties", "minLength", "maxLength", "pattern", "default", "minimum", "maximum",
    "required",
})
_FORMATS = {
    "STRING": {"enum", "date-time"},
    "NUMBER": {"float", "double"},
    "INTEGER": {"int32", "int64"},
}
_JSON_TYPES = ("string", "number", "integer", "boolean", "array", "object", "null")


def gemini_schema(
    schema: Mapping[str, Any], root: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """A JSON Schema rewritten into Gemini's OpenAPI subset."""
    return _to_gemini(schema, root if root is not None else schema, frozenset())


def _to_gemini(schema: Any, root: Mapping[str, Any], seen: frozenset[str]) -> dict[str, Any]:
    if not isinstance(schema, Mapping):
        return {}
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = resolve_ref(ref, root)
        if target is None or ref in seen:
            return {"type": "OBJECT", "description": "(recursive or unresolved type)"}
        merged = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        return _to_gemini(merged, root, seen | {ref})
    all_of = schema.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], Mapping):
        merged = {**all_of[0], **{k: v for k, v in schema.items() if k != "allOf"}}
        return _to_gemini(merged, root, seen)
    out: dict[str, Any] = {key: schema[key] for key in _GEMINI_KEYS if key in schema}
    notes: list[str] = []
    _convert_type(schema, out, root, seen)
    _convert_values(schema, out, notes)
    if isinstance(schema.get("properties"), Mapping):
        out["type"] = out.get("type", "OBJECT")
        out["properties"] = {name: _to_gemini(sub, root, seen)
                             for name, sub in schema["properties"].items()}
    if "items" in schema:
        out["items"] = _to_gemini(schema["items"], root, seen)
    if "format" in out and out["format"] not in _FORMATS.get(out.get("type", ""), ()):
        notes.append(f"(format: {out.pop('format')})")
    if notes:
        out["description"] = " ".join([out.get("description", ""), *notes]).strip()
    return {key: out[key] for key in sorted(out, key=_key_order)}


def _convert_type(schema: Mapping[str, Any], out: dict[str, Any], root: Mapping[str, Any],
                  seen: frozenset[str]) -> None:
    variants = schema.get("anyOf", schema.get("oneOf"))
    declared = schema.get("type")
    names = declared if isinstance(declared, list) else [declared] if declared else []
    if "null" in names:
        out["nullable"] = True
    concrete = [name for name in names if name != "null"]
    if len(concrete) == 1:
        out["type"] = str(concrete[0]).upper()
    elif len(concrete) > 1:
        out["anyOf"] = [{"type": str(name).upper()} for name in concrete]
    if isinstance(variants, list):
        non_null = [v for v in variants if not (isinstance(v, Mapping) and v.get("type") == "null")]
        if len(non_null) < len(variants):
            out["nullable"] = True
        converted = [_to_gemini(v, root, seen) for v in non_null]
        if len(converted) == 1:
            out.update({k: v for k, v in converted[0].items() if k not in out})
        elif converted:
            out["anyOf"] = converted


def _convert_values(schema: Mapping[str, Any], out: dict[str, Any], notes: list[str]) -> None:
    """``const`` and non-string ``enum`` have no Gemini form: strings stay, others become notes."""
    values = [schema["const"]] if "const" in schema else schema.get("enum")
    if not isinstance(values, list):
        return
    if all(isinstance(value, str) for value in values):
        out["enum"] = values
        out.setdefault("type", "STRING")
    else:
        out.pop("enum", None)
        listed = ", ".join(json.dumps(v, ensure_ascii=False) for v in values)
        notes.append(f"(one of: {listed})")


def json_schema_from_gemini(schema: Any) -> Any:
    """A Gemini/OpenAPI-subset schema read back as JSON Schema."""
    if isinstance(schema, list):
        return [json_schema_from_gemini(item) for item in schema]
    if not isinstance(schema, Mapping):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type":
            name = str(value).lower()
            if name in _JSON_TYPES:
                out["type"] = name
        elif key == "properties" and isinstance(value, Mapping):
            out["properties"] = {n: json_schema_from_gemini(sub) for n, sub in value.items()}
        elif key in ("items", "anyOf"):
            out[key] = json_schema_from_gemini(value)
        elif key == "example":
            out["examples"] = [value]
        elif key not in ("nullable", "propertyOrdering") and (key, value) != ("format", "enum"):
            out[key] = value
    if schema.get("nullable") is True:
        _allow_null(out)
    return out


def _allow_null(schema: dict[str, Any]) -> None:
    if isinstance(schema.get("type"), str):
        schema["type"] = [schema["type"], "null"]
    elif isinstance(schema.get("anyOf"), list):
        schema["anyOf"] = [*schema["anyOf"], {"type": "null"}]


_ORDER = ("type", "format", "title", "description", "nullable", "enum", "anyOf", "properties",
          "required", "items")


def _key_order(key: str) -> tuple[int, str]:
    """A stable, readable key order (type first), so goldens do not depend on dict history."""
    return (_ORDER.index(key) if key in _ORDER else len(_ORDER), key)
