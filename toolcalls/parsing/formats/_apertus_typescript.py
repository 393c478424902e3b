"""The tools block of Apertus' chat template: each tool as a TypeScript-like type declaration.

    // Get the weather
    type get_weather = (_: {
    // The city
    city: string,
    unit?: "c" | "f", // default: "c"
    }) => any;

Written as the template's ``render_tools`` and ``render_typescript_type`` macros write it, blanks
included: the line break and indent the macros leave inside nested objects and before a
``oneOf`` variant's default are the template's own (rendered with ``trim_blocks`` and
``lstrip_blocks``, as transformers renders chat templates). Rendering only: nothing here is
read while parsing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ...tools._tool import Tool
from ._template_json import tojson

__all__ = ["typescript_tools"]

_SCALARS: Final = {
    "string": "string", "number": "number", "integer": "number", "boolean": "boolean",
}
_NESTED_GAP: Final = "\n" + " " * 16  # before a nested property's type (an unstripped {{ }})
_DEFAULT_GAP: Final = " " * 20  # before a oneOf variant's default


def typescript_tools(tools: Sequence[Tool]) -> str:
    """Every tool's declaration, one after another."""
    return "\n".join(_declaration(tool) for tool in tools)


def _declaration(tool: Tool) -> str:
    head = f"// {tool.description}\ntype {tool.name} = "
    parameters = tool.parameters
    properties = parameters.get("properties")
    if not parameters or not properties or not isinstance(properties, Mapping):
        return head + "() => any;"
    required = parameters.get("required") or []
    lines = [_parameter(name, spec, required) for name, spec in properties.items()]
    return head + "(_: {\n" + ",\n".join(lines) + "\n}) => any;"


def _schema(value: Any) -> Mapping[str, Any]:
    """A subschema as a mapping: a boolean one (``true``: anything) has no keys to write."""
    return value if isinstance(value, Mapping) else {}


def _parameter(name: str, spec: Any, required: Sequence[str]) -> str:
    spec = _schema(spec)
    described = f"// {spec['description']}\n" if spec.get("description") else ""
    optional = "" if name in required else "?"
    return f"{described}{name}{optional}: {_type(spec, required)}{_default(spec)}"


def _default(spec: Mapping[str, Any]) -> str:
    if "default" not in spec:
        return ""
    default = spec["default"]
    if spec.get("enum"):
        return f", // default: {default}"
    if spec.get("oneOf"):
        return f"// default: {default}"
    return f", // default: {tojson(default)}"


def _type(spec: Any, required: Sequence[str]) -> str:
    spec = _schema(spec)
    kind = spec.get("type")
    if kind == "array":
        return _array(spec, required)
    if isinstance(kind, list) and kind:
        return " | ".join(str(item) for item in kind)
    if spec.get("oneOf") and isinstance(spec["oneOf"], list):
        return _one_of(spec["oneOf"], required)
    if kind == "string":
        if spec.get("enum"):
            return '"' + '" | "'.join(str(item) for item in spec["enum"]) + '"'
        return "string" + _nullable(spec)
    if isinstance(kind, str) and kind in _SCALARS:
        return _SCALARS[kind]
    if kind == "object":
        return _object(spec)
    return "any"


def _array(spec: Mapping[str, Any], required: Sequence[str]) -> str:
    items = spec.get("items")
    if not items or not isinstance(items, Mapping):
        return "any[]" + _nullable(spec)
    kind = items.get("type")
    if kind in ("string", "number", "integer", "boolean"):
        return _SCALARS[kind] + "[]" + _nullable(spec)
    inner = _type(items, required)
    written = "any[]" if inner == "object | object" or len(inner) > 50 else inner + "[]"
    return written + _nullable(spec)


def _one_of(variants: Sequence[Any], required: Sequence[str]) -> str:
    # The template's test for object variants sets a variable inside its loop, which Jinja
    # scopes to the loop: it never holds, and every variant is written.
    written = []
    for variant in map(_schema, variants):
        text = _type(variant, required)
        if variant.get("description"):
            text += "// " + str(variant["description"])
        if "default" in variant:
            text += f"{_DEFAULT_GAP}// default: {tojson(variant['default'])}"
        written.append(text)
    return " | \n".join(written)


def _object(spec: Mapping[str, Any]) -> str:
    properties = spec.get("properties")
    if not properties or not isinstance(properties, Mapping):
        return "object"
    required = spec.get("required") or []
    written = [
        f"{name}{'' if name in required else '?'}: {_NESTED_GAP}{_type(sub, required)}"
        for name, sub in properties.items()
    ]
    return "{\n" + ", ".join(written) + "}"


def _nullable(spec: Mapping[str, Any]) -> str:
    return " | null" if spec.get("nullable") else ""
