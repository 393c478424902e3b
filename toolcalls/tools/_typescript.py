"""OpenAI's TypeScript-like rendering of function tools, the text its models actually read.

OpenAI does not show the model the JSON of a function definition: it rewrites the tools into a
``namespace functions`` block of TypeScript-like types in the system (or developer) message, the
layout openai/harmony documents in ``docs/format.md`` ("Function calling")::

    namespace functions {

    // Gets the current weather in the provided location.
    type get_current_weather = (_: {
    // The city and state, e.g. San Francisco, CA
    location: string,
    format?: "celsius" | "fahrenheit", // default: celsius
    }) => any;

    } // namespace functions

This module is an independent implementation of that layout. Descriptions become ``//``
comments above what they describe, optional properties get ``?``, enums and consts become
literal unions, ``anyOf``/``oneOf``/type lists become unions, ``nullable`` adds ``| null``,
arrays become ``T[]``, nested objects are written inline and indented, ``$ref`` is resolved
against the root schema, and defaults trail the property as ``// default: value``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from ._schema import resolve_ref
from ._tool import Tool

__all__ = ["schema_to_typescript", "typescript_namespace"]

_INDENT = "  "
_SCALARS = {"string": "string", "number": "number", "integer": "number", "boolean": "boolean",
            "null": "null", "object": "object", "array": "any[]"}


def typescript_namespace(tools: Iterable[Tool], namespace: str = "functions") -> str:
    """The ``namespace functions { ... } // namespace functions`` block for ``tools``."""
    blocks = [_function_block(tool) for tool in tools]
    return f"namespace {namespace} {{\n\n" + "".join(blocks) + f"}} // namespace {namespace}"


def _function_block(tool: Tool) -> str:
    lines = _comment_lines(tool.description, "")
    parameters = tool.parameters
    if _has_properties(parameters):
        body = _object_body(parameters, parameters, "", frozenset())
        lines.append(f"type {tool.name} = (_: {{\n{body}}}) => any;")
    else:
        lines.append(f"type {tool.name} = () => any;")
    return "\n".join(lines) + "\n\n"


def schema_to_typescript(schema: Mapping[str, Any], root: Mapping[str, Any] | None = None) -> str:
    """The TypeScript-like type of one JSON Schema, as OpenAI writes a property's type."""
    return _type(schema, root if root is not None else schema, "", frozenset())


def _type(schema: Any, root: Mapping[str, Any], indent: str, seen: frozenset[str]) -> str:
    if not isinstance(schema, Mapping):
        return "any"  # `true` / `{}`-like schemas accept anything
    rendered = _base_type(schema, root, indent, seen)
    if schema.get("nullable") is True and "null" not in rendered.split(" | "):
        rendered += " | null"
    return rendered


def _base_type(schema: Mapping[str, Any], root: Mapping[str, Any], indent: str,
               seen: frozenset[str]) -> str:
    if isinstance(schema.get("$ref"), str):
        return _ref_type(schema["$ref"], root, indent, seen)
    if "const" in schema:
        return _literal(schema["const"])
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return " | ".join(_literal(value) for value in schema["enum"])
    for union_key in ("anyOf", "oneOf"):
        variants = schema.get(union_key)
        if isinstance(variants, list) and variants:
            return _union(_type(variant, root, indent, seen) for variant in variants)
    all_of = schema.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1:
        return _type(all_of[0], root, indent, seen)
    declared = schema.get("type")
    if isinstance(declared, list):
        return _union(_typed(schema, str(name), root, indent, seen) for name in declared)
    if isinstance(declared, str):
        return _typed(schema, declared, root, indent, seen)
    if _has_properties(schema):
        return _typed(schema, "object", root, indent, seen)
    return "any"


def _typed(schema: Mapping[str, Any], name: str, root: Mapping[str, Any], indent: str,
           seen: frozenset[str]) -> str:
    if name == "array" and "items" in schema:
        item = _type(schema["items"], root, indent, seen)
        is_union = " | " in item and not item.startswith("{")
        return f"({item})[]" if is_union else f"{item}[]"
    if name == "object" and _has_properties(schema):
        inner = indent + _INDENT
        return "{\n" + _object_body(schema, root, inner, seen) + indent + "}"
    return _SCALARS.get(name, "any")


def _object_body(schema: Mapping[str, Any], root: Mapping[str, Any], indent: str,
                 seen: frozenset[str]) -> str:
    """One line per property (plus its comment lines), each ending in a newline."""
    required = schema.get("required")
    required_names = set(required) if isinstance(required, list) else set()
    lines: list[str] = []
    for name, prop in schema["properties"].items():
        prop_schema = prop if isinstance(prop, Mapping) else {}
        lines.extend(_comment_lines(prop_schema.get("description"), indent))
        marker = "" if name in required_names else "?"
        line = f"{indent}{name}{marker}: {_type(prop_schema, root, indent, seen)},"
        if "default" in prop_schema:
            line += f" // default: {_default(prop_schema['default'])}"
        lines.append(line)
    return "".join(line + "\n" for line in lines)


def _ref_type(ref: str, root: Mapping[str, Any], indent: str, seen: frozenset[str]) -> str:
    if ref in seen:
        return "any"  # a recursive type: say "anything" rather than loop
    target = resolve_ref(ref, root)
    return "any" if target is None else _type(target, root, indent, seen | {ref})


def _comment_lines(text: Any, indent: str) -> list[str]:
    if not isinstance(text, str) or not text.strip():
        return []
    return [f"{indent}// {line}".rstrip() for line in text.strip().splitlines()]


def _has_properties(schema: Mapping[str, Any]) -> bool:
    properties = schema.get("properties")
    return isinstance(properties, Mapping) and bool(properties)


def _union(parts: Iterable[str]) -> str:
    unique = list(dict.fromkeys(parts))
    return "any" if "any" in unique else " | ".join(unique)


def _literal(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _default(value: Any) -> str:
    """Defaults as harmony writes them: a string bare, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
