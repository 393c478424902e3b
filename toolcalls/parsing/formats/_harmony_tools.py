"""The tools block of gpt-oss's chat template: a TypeScript-like ``namespace functions``.

A port of the ``render_tool_namespace`` and ``render_typescript_type`` macros of gpt-oss's own
template (``fixtures/render/gpt_oss/template.jinja``), quirks included, so the prompt is the
one the template writes character for character: every property ends with ``,``, even after a
``// default:`` comment; nested object properties sit on a new line after a run of spaces; an
array of objects wider than 50 characters becomes ``any[]``; ``anyOf`` is ``any``; a
description spanning lines stays one ``//`` comment.

`toolcalls.tools._typescript` writes the layout OpenAI documents for its own models (openai/harmony
``docs/format.md``), which differs in these details; it is the one to count OpenAI's tokens
with, this one is the one to prompt gpt-oss with.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...tools._tool import Tool
from ._template_json import tojson

__all__ = ["harmony_namespace", "typescript_type"]

_ARRAY_ITEMS = {"string": "string[]", "number": "number[]", "integer": "number[]",
                "boolean": "boolean[]"}
_SCALARS = {"number": "number", "integer": "number", "boolean": "boolean"}
# Whitespace the template leaves where a macro call is not trimmed (its source indentation).
_NESTED_TYPE_GAP = "\n" + " " * 16
_VARIANT_DEFAULT_GAP = " " * 20


def harmony_namespace(tools: Sequence[Tool], namespace: str = "functions") -> str:
    """``## functions`` ... ``} // namespace functions``, as the template writes it."""
    blocks = "".join(map(_function, tools))
    return f"## {namespace}\n\nnamespace {namespace} {{\n\n{blocks}}} // namespace {namespace}"


def _function(tool: Tool) -> str:
    head = f"// {tool.description}\ntype {tool.name} = "
    properties = tool.parameters.get("properties")
    if not properties or not isinstance(properties, Mapping):
        return head + "() => any;\n\n"
    required = tool.parameters.get("required") or []
    body = "".join(_parameter(name, spec, required) for name, spec in properties.items())
    return f"{head}(_: {{\n{body}}}) => any;\n\n"


def _parameter(name: str, spec: Any, required: Sequence[str]) -> str:
    spec = spec if isinstance(spec, Mapping) else {}
    comment = f"// {spec['description']}\n" if spec.get("description") else ""
    optional = "" if name in required else "?"
    return f"{comment}{name}{optional}: {typescript_type(spec, required)}{_default(spec)},\n"


def _default(spec: Mapping[str, Any]) -> str:
    if "default" not in spec:
        return ""
    default = spec["default"]
    if spec.get("enum"):
        return f", // default: {_text(default)}"
    if spec.get("oneOf"):
        return f"// default: {_text(default)}"
    return f", // default: {tojson(default)}"


def _text(value: Any) -> str:
    # The template concatenates the raw default; Jinja would fail on a non-string one.
    return value if isinstance(value, str) else tojson(value)


def typescript_type(spec: Mapping[str, Any], required: Sequence[str] = ()) -> str:
    """The type the template writes for one property schema."""
    kind = spec.get("type")
    if kind == "array":
        return _array(spec, required)
    if isinstance(kind, list) and kind:
        return " | ".join(map(str, kind))
    if spec.get("oneOf"):
        return _one_of(spec["oneOf"], required)
    if kind == "string":
        if spec.get("enum"):
            return '"' + '" | "'.join(map(str, spec["enum"])) + '"'
        return "string | null" if spec.get("nullable") else "string"
    if isinstance(kind, str) and kind in _SCALARS:
        return _SCALARS[kind]
    if kind == "object":
        return _object(spec)
    return "any"


def _array(spec: Mapping[str, Any], required: Sequence[str]) -> str:
    items = spec.get("items")
    if not items or not isinstance(items, Mapping):
        written = "any[]"
    elif isinstance(items.get("type"), str) and items["type"] in _ARRAY_ITEMS:
        written = _ARRAY_ITEMS[items["type"]]
    else:
        inner = typescript_type(items, required)
        written = "any[]" if inner == "object | object" or len(inner) > 50 else inner + "[]"
    return written + " | null" if spec.get("nullable") else written


def _one_of(variants: Sequence[Any], required: Sequence[str]) -> str:
    # The template means to write "any" for unions of objects, but the flag it sets inside
    # its loop never leaves the loop (a Jinja scoping rule), so every union is spelled out.
    written = []
    for variant in variants:
        variant = variant if isinstance(variant, Mapping) else {}
        text = typescript_type(variant, required)
        if variant.get("description"):
            text += f"// {variant['description']}"
        if "default" in variant:
            text += f"{_VARIANT_DEFAULT_GAP}// default: {tojson(variant['default'])}"
        written.append(text)
    return " | \n".join(written)


def _object(spec: Mapping[str, Any]) -> str:
    properties = spec.get("properties")
    if not properties or not isinstance(properties, Mapping):
        return "object"
    required = spec.get("required") or []
    members = []
    for name, member in properties.items():
        optional = "" if name in required else "?"
        member = member if isinstance(member, Mapping) else {}
        members.append(f"{name}{optional}: {_NESTED_TYPE_GAP}{typescript_type(member, required)}")
    return "{\n" + ", ".join(members) + "}"
