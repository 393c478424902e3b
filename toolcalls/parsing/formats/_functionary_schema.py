"""Functionary v3.2's tools block: each tool as a TypeScript type in ``namespace functions``.

    // Supported function definitions that should be called when necessary.
    namespace functions {

    // Weather for a city
    type get_weather = (_: {
    // The city.
    city: string,
    days?: number,
    }) => any;

    } // namespace functions

Written as the model's chat template writes it (MeetKai's ``json_to_ts_schema`` macros), quirks
included: a type it cannot name is written empty (``a: ,``), values in comments are written as
Python's ``str`` writes them (``Default=False.``), examples only after a comment.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from ...tools._tool import Tool

__all__ = ["typescript_functions"]

NONE: Final = "<|NONE|>"
"""What the template's macros return for "no comment" and "no format"."""
_LIMITS: Final = (("maximum", "Maximum"), ("minimum", "Minimum"),
                  ("maxLength", "Maximum length"), ("minLength", "Minimum length"))
_MISSING: Final = object()


def typescript_functions(tools: Sequence[Tool]) -> str:
    """The ``namespace functions`` block of `tools`."""
    parts = ["// Supported function definitions that should be called when necessary.\n"
             "namespace functions {\n\n"]
    for tool in tools:
        parameters: Mapping[str, Any] = tool.parameters or {}
        parts.append(f"// {tool.description or ''}\ntype {tool.name}")
        if parameters and parameters.get("properties"):
            body = _properties(parameters["properties"], parameters.get("required", []), 0)
            parts.append(f" = (_: {{{body}\n}}) => any;\n\n")
        else:
            parts.append(" = () => any;\n\n")
    parts.append("} // namespace functions")
    return "".join(parts)


def _type(param: Mapping[str, Any]) -> str:
    """``get_param_type``: the type, integers as ``number``; "" when the schema names none."""
    if "type" in param:
        raw = param["type"]
        written = " | ".join(map(str, raw)) if isinstance(raw, list | tuple) else str(raw)
    elif "oneOf" in param:
        kinds: list[Any] = []
        for item in param["oneOf"]:  # a list, not a set: a type may be a list (unhashable)
            if "type" in item and item["type"] not in kinds:
                kinds.append(item["type"])
        written = " | ".join(map(str, kinds))
    else:
        return ""
    return "number" if written in ("integer", "float") else written


def _format(param: Mapping[str, Any]) -> str:
    if "format" in param:
        return str(param["format"])
    if "oneOf" not in param:
        return NONE
    last = param["oneOf"][-1].get("format", _MISSING)
    return "".join(str(item["format"]) + ("" if item["format"] == last else " or ")
                   for item in param["oneOf"] if "format" in item)


def _comment(param: Mapping[str, Any]) -> str:
    """``get_param_info``: the ``//`` comment line of a parameter, or `NONE`."""
    fmt = _format(param)
    if not ("description" in param or "default" in param or fmt != NONE
            or any(param.get(field) for field, _ in _LIMITS)):
        return NONE
    line = "//"
    if "description" in param:
        description = str(param["description"])
        line += " " + (description if description.endswith(".") else description + ".")
    if "default" in param:
        default = str(param["default"])
        line += f' Default="{default}".' if param.get("type", "any") == "string" else (
            f" Default={default}.")
    if fmt != NONE:
        line += " Format=" + fmt
    for field, label in _LIMITS:
        if field in param:
            line += f" {label}={param[field]}"
    return line


def _enum(options: Sequence[Any]) -> str:
    written = []
    for value in options:
        written.append(f'"{value}"' if isinstance(value, str) else str(value))
        if value != options[-1]:
            written.append(" | ")
    return "".join(written)


def _notes(offset: str, comment: str, examples: Iterable[Any]) -> str:
    """The comment line, then one ``//`` line per example."""
    lines = "" if comment == NONE else "\n" + offset + comment
    return lines + "".join(f"\n{offset}// " + str(e).replace("'", '"') for e in examples)


def _array(name: str | None, param: Mapping[str, Any], depth: int) -> str:
    """``get_array_typescript``."""
    offset = "    " * depth
    items = param.get("items", {})
    if not items:
        return f"\n{offset}{name}: []" if name else f"\n{offset}[]"
    kind = _type(items)
    if kind == "object":
        head = f"\n{offset}{name}: {{" if name else f"\n{offset}{{"
        body = _properties(items.get("properties", {}), items.get("required", []), depth + 1)
        return f"{head}{body}\n{offset}}}[]"
    if kind == "array":
        inner = _array(None, items, depth + 1)
        return f"\n{inner}[]" if not name else f"\n{offset}{name}: {inner.strip()}[]"
    if "enum" in items:
        listed = _enum(items["enum"])
        return f"({listed})[]" if name is None else f"\n{offset}{name}: ({listed})[]"
    return f"\n{kind}[]" if name is None else f"\n{offset}{name}: {kind}[],"


def _properties(properties: Mapping[str, Any], required: Any, depth: int) -> str:
    """``get_parameter_typescript``: one declaration per parameter, nested ones indented."""
    offset = "    " * depth
    out = []
    for name, param in properties.items():
        if not isinstance(param, Mapping):
            continue
        comment = _comment(param)
        examples = [f"Example {name}:", *param["examples"]] if "examples" in param else []
        declared = name if required is None or name in required else name + "?"
        kind = _type(param)
        if kind == "object":
            body = _properties(param.get("properties", {}), param.get("required", []), depth + 1)
            out.append(f"{_notes(offset, comment, examples)}\n{offset}{declared}: {{{body}"
                       f"\n{offset}}},")
        elif kind == "array" and isinstance(param.get("items"), Mapping) and (
                "type" in param["items"]):
            written = _array(declared, param, depth)
            out.append(_notes(offset, comment, examples)
                       + (written if written.endswith(",") else written + ","))
        else:
            if kind == "array":
                declared += ": [],"
            else:
                kind = _enum(param["enum"]) if "enum" in param else kind
                kind += " | null" if param.get("nullable") else ""
                declared += f": {kind},"
            notes = _notes(offset, comment, examples) if comment != NONE else ""
            out.append(f"{notes}\n{offset}{declared}")
    return "".join(out)
