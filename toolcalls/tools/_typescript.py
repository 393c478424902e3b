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
literal unions, ``oneOf`` and type lists become unions, ``nullable`` adds ``| null``,
arrays become ``T[]``, nested objects are written inline and indented, ``$ref`` is resolved
against the root schema, and defaults trail the property as ``// default: value``.

Where openai-harmony's renderer (the ``openai-harmony`` package, 0.0.8) departs from its own
documentation, this module follows the renderer, since that is the text the model reads: a
property's ``title`` is kept, as a ``// Title`` line and an empty ``//`` line above its
description; a tool whose parameters are an object without properties reads ``(_: {\n})``;
string defaults are quoted unless the property has an enum; ``anyOf`` reads ``any``; a tool
description has every line commented, a property description only its first; a nested object
is indented four spaces, its closing brace too, and has its description written a second time
after the colon; an object without properties reads ``{ }`` over two lines. Known departures,
each worth a token or two on the fixture tool sets: the renderer writes ``oneOf`` as a
multi-line union, ``$ref``, ``const`` and an untyped ``enum`` as ``any``, and an array of an
enum without parentheses; this module writes what the schema says.
tests/budget/test_counts.py checks the counts against the renderer on every fixture tool set
(all within 0.6%, the test allows 2%).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from ._refs import resolve_ref
from ._tool import Tool

__all__ = ["schema_to_typescript", "typescript_namespace"]

_INDENT = "    "  # openai-harmony's renderer indents nested objects by four
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
    elif parameters:  # an object schema with no properties: harmony still writes the braces
        lines.append(f"type {tool.name} = (_: {{\n}}) => any;")
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
    if "anyOf" in schema:  # openai-harmony's renderer writes every anyOf as `any`
        return "any"
    variants = schema.get("oneOf")
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
    if name == "object":
        inner = indent + _INDENT
        body = _object_body(schema, root, inner, seen) if _has_properties(schema) else ""
        return _repeated_description(schema, inner) + indent + "{\n" + body + inner + "}"
    return _SCALARS.get(name, "any")


def _repeated_description(schema: Mapping[str, Any], inner: str) -> str:
    """The renderer writes a nested object's description again, between the colon and brace."""
    text = schema.get("description")
    if not isinstance(text, str) or not text.strip():
        return ""
    return f"{inner}// {text.lstrip()}\n"


def _object_body(schema: Mapping[str, Any], root: Mapping[str, Any], indent: str,
                 seen: frozenset[str]) -> str:
    """One line per property (plus its comment lines), each ending in a newline."""
    required = schema.get("required")
    required_names = set(required) if isinstance(required, list) else set()
    lines: list[str] = []
    for name, prop in schema["properties"].items():
        prop_schema = prop if isinstance(prop, Mapping) else {}
        lines.extend(_title_lines(prop_schema.get("title"), indent))
        lines.extend(_property_comment(prop_schema.get("description"), indent))
        marker = "" if name in required_names else "?"
        line = f"{indent}{name}{marker}: {_type(prop_schema, root, indent, seen)},"
        if "default" in prop_schema:
            line += f" // default: {_default(prop_schema)}"
        lines.append(line)
    return "".join(line + "\n" for line in lines)


def _ref_type(ref: str, root: Mapping[str, Any], indent: str, seen: frozenset[str]) -> str:
    if ref in seen:
        return "any"  # a recursive type: say "anything" rather than loop
    target = resolve_ref(ref, root)
    return "any" if target is None else _type(target, root, indent, seen | {ref})


def _comment_lines(text: Any, indent: str) -> list[str]:
    """A tool's description: every line commented, as the renderer writes it (blank ones too)."""
    if not isinstance(text, str) or not text.strip():
        return []
    return [f"{indent}// {line}" for line in text.strip("\n").splitlines()]


def _property_comment(text: Any, indent: str) -> list[str]:
    """A property's description: the renderer comments only its first line, the rest stay bare."""
    if not isinstance(text, str) or not text.strip():
        return []
    return [f"{indent}// {text.lstrip()}"]


def _title_lines(title: Any, indent: str) -> list[str]:
    """A property's title, kept as OpenAI's renderer keeps it: its line, then an empty comment."""
    if not isinstance(title, str) or not title.strip():
        return []
    return [f"{indent}// {title.strip()}", f"{indent}//"]


def _has_properties(schema: Mapping[str, Any]) -> bool:
    properties = schema.get("properties")
    return isinstance(properties, Mapping) and bool(properties)


def _union(parts: Iterable[str]) -> str:
    unique = list(dict.fromkeys(parts))
    return "any" if "any" in unique else " | ".join(unique)


def _literal(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _default(schema: Mapping[str, Any]) -> str:
    """A default as openai-harmony's renderer writes it: JSON, but a string bare after an enum."""
    value = schema["default"]
    if isinstance(value, str) and "enum" in schema:
        return value
    return json.dumps(value, ensure_ascii=False)
