"""Gemma 4's tool declarations, written as its chat template writes them
(fixtures/render/gemma4/template.jinja, macros ``format_function_declaration``,
``format_parameters`` and ``format_argument``)::

    <|tool>declaration:get_weather{description:<|"|>Weather now<|"|>,parameters:{properties:{
    city:{description:<|"|>A city<|"|>,type:<|"|>STRING<|"|>}},required:[<|"|>city<|"|>],
    type:<|"|>OBJECT<|"|>}}<tool|>

(one line: broken here to fit).

FunctionGemma's declarations (``<start_function_declaration>`` ... with ``<escape>`` quotes) are
written the same way with its tokens: the layout its model card shows (no copy of its template
could be compared here). The template's quirks are kept, since the model was trained on them:
a property's schema keeps only its description, enum, items, nullable, properties, required and
type; a parameters object without ``type`` leaves its brace open; a value other than a string,
a boolean, a mapping or a list is written as Python prints it (``None``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from ...tools._tool import Tool

__all__ = ["declarations"]

_STANDARD_KEYS: Final = ("description", "type", "properties", "required", "nullable")


def declarations(tools: Sequence[Tool], open_: str, close: str, quote: str) -> str:
    """Every tool's ``OPEN declaration:...CLOSE``, one after the other, strings quoted by
    `quote` (Gemma 4: ``<|tool>``, ``<tool|>``, ``<|"|>``)."""
    writer = _Writer(quote)
    return "".join(f"{open_}{writer.declaration(tool).strip()}{close}" for tool in tools)


class _Writer:
    """The template's macros for one quote token."""

    def __init__(self, quote: str) -> None:
        self.quote = quote

    def declaration(self, tool: Tool) -> str:
        out = f"declaration:{tool.name}{{description:{self.quote}{tool.description}{self.quote}"
        params = tool.parameters
        if params:
            out += ",parameters:{"
            if params.get("properties"):
                out += "properties:{" + self.parameters(params["properties"]) + "},"
            if params.get("required"):
                out += "required:[" + self.quoted_list(params["required"]) + "],"
            if params.get("type"):
                out += f"type:{self.quote}{_upper(params['type'])}{self.quote}}}"
        return out + "}"

    def parameters(self, properties: dict[str, Any]) -> str:
        """``format_parameters``: each property (but the standard keys) and its schema."""
        written = [
            f"{key}:{{{self.property(value)}}}"
            for key, value in _dictsort(properties)
            if key not in _STANDARD_KEYS
        ]
        return ",".join(written)

    def property(self, value: Any) -> str:
        """The inside of one property's braces: its kept schema fields, then its type."""
        parts: list[str] = []
        if _get(value, "description"):
            parts.append(f"description:{self.quote}{_get(value, 'description')}{self.quote}")
        kind = _upper(_get(value, "type"))
        if kind == "STRING" and _get(value, "enum"):
            parts.append("enum:" + self.argument(value["enum"]))
        elif kind == "ARRAY" and isinstance(_get(value, "items"), dict) and value["items"]:
            parts.append("items:{" + self.items(value["items"]) + "}")
        if _get(value, "nullable"):
            parts.append("nullable:true")
        if kind == "OBJECT":
            inner = value.get("properties")
            nested = inner if isinstance(inner, dict) else value
            parts.append("properties:{" + self.parameters(nested) + "}")
            if value.get("required"):
                parts.append("required:[" + self.quoted_list(value["required"]) + "]")
        parts.append(f"type:{self.quote}{kind}{self.quote}")
        return ",".join(parts)

    def items(self, items: dict[str, Any]) -> str:
        written: list[str] = []
        for key, value in _dictsort(items):
            if value is None:
                continue
            if key == "properties":
                inner = self.parameters(value) if isinstance(value, dict) else ""
                written.append("properties:{" + inner + "}")
            elif key == "required":
                written.append("required:[" + self.quoted_list(value) + "]")
            elif key == "type":
                upper = _upper(value) if isinstance(value, str) else [_upper(v) for v in value]
                written.append("type:" + self.argument(upper))
            else:
                written.append(f"{key}:{self.argument(value)}")
        return ",".join(written)

    def argument(self, value: Any) -> str:
        """``format_argument``: a value in the template's syntax (keys quoted)."""
        if isinstance(value, str):
            return self.quote + value + self.quote
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, dict):
            members = (f"{self.quote}{key}{self.quote}:{self.argument(item)}"
                       for key, item in _dictsort(value))
            return "{" + ",".join(members) + "}"
        if isinstance(value, list | tuple):
            return "[" + ",".join(self.argument(item) for item in value) + "]"
        return str(value)

    def quoted_list(self, items: Any) -> str:
        return ",".join(f"{self.quote}{item}{self.quote}" for item in items)


def _dictsort(mapping: dict[str, Any]) -> list[tuple[str, Any]]:
    """Jinja's ``dictsort``: by key, ignoring case, ties in their order."""
    return sorted(mapping.items(), key=lambda item: str(item[0]).lower())


def _get(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else None


def _upper(value: Any) -> str:
    """Jinja's ``upper`` on a schema's type: a missing one is empty."""
    return "" if value is None else str(value).upper()
