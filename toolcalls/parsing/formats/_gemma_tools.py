"""Gemma 4's tool declarations, written as its chat template writes them
(fixtures/render/gemma4/template.jinja, macros ``format_function_declaration``,
``format_parameters`` and ``format_argument``)::

    <|tool>declaration:get_weather{description:<|"|>Weather now<|"|>,parameters:{properties:{
    city:{description:<|"|>A city<|"|>,type:<|"|>STRING<|"|>}},required:[<|"|>city<|"|>],
    type:<|"|>OBJECT<|"|>}}<tool|>

(one line: broken here to fit).

The template's quirks are kept, since the model was trained on them: a property's schema keeps
only its description, enum, items, nullable, properties, required and type; a parameters object
without ``type`` leaves its brace open; a value other than a string, a boolean, a mapping or a
list is written as Python prints it (``None``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from ...tools._tool import Tool

__all__ = ["declarations"]

TOOL_OPEN: Final = "<|tool>"
TOOL_CLOSE: Final = "<tool|>"
QUOTE: Final = '<|"|>'
_STANDARD_KEYS: Final = ("description", "type", "properties", "required", "nullable")


def declarations(tools: Sequence[Tool]) -> str:
    """Every tool's ``<|tool>declaration:...<tool|>``, one after the other."""
    return "".join(f"{TOOL_OPEN}{_declaration(tool).strip()}{TOOL_CLOSE}" for tool in tools)


def _declaration(tool: Tool) -> str:
    out = f"declaration:{tool.name}{{description:{QUOTE}{tool.description}{QUOTE}"
    params = tool.parameters
    if params:
        out += ",parameters:{"
        if params.get("properties"):
            out += "properties:{" + _parameters(params["properties"]) + "},"
        if params.get("required"):
            out += "required:[" + _quoted_list(params["required"]) + "],"
        if params.get("type"):
            out += f"type:{QUOTE}{_upper(params['type'])}{QUOTE}}}"
    return out + "}"


def _parameters(properties: dict[str, Any]) -> str:
    """``format_parameters``: each property (but the standard keys) and its schema."""
    written = [
        f"{key}:{{{_property(value)}}}"
        for key, value in _dictsort(properties)
        if key not in _STANDARD_KEYS
    ]
    return ",".join(written)


def _property(value: Any) -> str:
    """The inside of one property's braces: its kept schema fields, then its type."""
    parts: list[str] = []
    if _get(value, "description"):
        parts.append(f"description:{QUOTE}{_get(value, 'description')}{QUOTE}")
    kind = _upper(_get(value, "type"))
    if kind == "STRING" and _get(value, "enum"):
        parts.append("enum:" + argument(value["enum"]))
    elif kind == "ARRAY" and isinstance(_get(value, "items"), dict) and value["items"]:
        parts.append("items:{" + _items(value["items"]) + "}")
    if _get(value, "nullable"):
        parts.append("nullable:true")
    if kind == "OBJECT":
        inner = value.get("properties")
        nested = inner if isinstance(inner, dict) else value
        parts.append("properties:{" + _parameters(nested) + "}")
        if value.get("required"):
            parts.append("required:[" + _quoted_list(value["required"]) + "]")
    parts.append(f"type:{QUOTE}{kind}{QUOTE}")
    return ",".join(parts)


def _items(items: dict[str, Any]) -> str:
    written: list[str] = []
    for key, value in _dictsort(items):
        if value is None:
            continue
        if key == "properties":
            inner = _parameters(value) if isinstance(value, dict) else ""
            written.append("properties:{" + inner + "}")
        elif key == "required":
            written.append("required:[" + _quoted_list(value) + "]")
        elif key == "type":
            upper = _upper(value) if isinstance(value, str) else [_upper(v) for v in value]
            written.append("type:" + argument(upper))
        else:
            written.append(f"{key}:{argument(value)}")
    return ",".join(written)


def argument(value: Any, quote_keys: bool = True) -> str:
    """``format_argument``: a value in the template's syntax (keys quoted by default)."""
    if isinstance(value, str):
        return QUOTE + value + QUOTE
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        members = (
            f"{QUOTE + key + QUOTE if quote_keys else key}:{argument(item, quote_keys)}"
            for key, item in _dictsort(value)
        )
        return "{" + ",".join(members) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(argument(item, quote_keys) for item in value) + "]"
    return str(value)


def _quoted_list(items: Any) -> str:
    return ",".join(f"{QUOTE}{item}{QUOTE}" for item in items)


def _dictsort(mapping: dict[str, Any]) -> list[tuple[str, Any]]:
    """Jinja's ``dictsort``: by key, ignoring case, ties in their order."""
    return sorted(mapping.items(), key=lambda item: str(item[0]).lower())


def _get(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else None


def _upper(value: Any) -> str:
    """Jinja's ``upper`` on a schema's type: a missing one is empty."""
    return "" if value is None else str(value).upper()
