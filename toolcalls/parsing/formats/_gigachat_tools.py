"""GigaChat 3's tools block: each tool as a TypeScript type in ``namespace functions``.

GigaChat 3 and 3.1's templates (fixtures/render/gigachat3/) describe tools in TypeScript, not
JSON Schema:

    namespace functions {
    // Get the weather.
    type get_weather = (_: {
      // The city.
      city: string,
      days?: number, // default: 1
    }) => any;

    } // namespace functions

A property's description lines and a few schema keywords (``format``, ``minimum``...) become
``//`` comments before it, an optional one gets ``?``, a default a trailing comment. Values
shown in comments are written as Jinja's ``~`` writes them: Python's ``str``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from ...tools._tool import Tool

__all__ = ["tools_namespace"]

SHOWN_KEYWORDS: Final = ("format", "maxItems", "maximum", "minItems", "minimum", "pattern")
STEP: Final = "  "


def _comments(text: str, indent: str) -> str:
    return "".join(f"{indent}// {line}\n" for line in text.split("\n") if line.strip())


def _keyword_comments(schema: dict[str, Any], indent: str) -> str:
    """The shown keywords, in the order the schema has them."""
    out = []
    for key, value in schema.items():
        if key in SHOWN_KEYWORDS:
            shown = f'"{value}"' if isinstance(value, str) else str(value)
            out.append(f"{indent}// {key}: {shown}\n")
    return "".join(out)


def _default_comment(schema: dict[str, Any]) -> str:
    if "default" not in schema and "defalut_value" not in schema:  # sic: the template's key
        return ""
    default = schema.get("default", schema.get("defalut_value"))
    return f' // default: "{default}"' if isinstance(default, str) else f" // default: {default}"


def _property(key: str, schema: Any, required: Sequence[str], indent: str) -> str:
    schema = schema if isinstance(schema, dict) else {}  # a boolean subschema: anything
    head = _comments(schema["description"], indent) if "description" in schema else ""
    optional = "" if key in required else "?"
    written = typescript(schema, indent + STEP)
    return (f"{head}{_keyword_comments(schema, indent)}{indent}{key}{optional}: {written},"
            f"{_default_comment(schema)}\n")


def _extra_properties(schema: dict[str, Any], indent: str) -> str:
    """``additionalProperties`` as an index signature (``true``: any value)."""
    if "additionalProperties" not in schema:
        return ""
    extra = schema["additionalProperties"]
    if extra is True:
        extra = {"type": "any"}
    if not isinstance(extra, dict):
        return ""
    return f"{indent}[key: string]: {typescript(extra, indent + STEP)}\n"


def _object(schema: dict[str, Any], indent: str) -> str:
    required = schema.get("required", [])
    members = "".join(_property(key, value, required, indent)
                      for key, value in schema.get("properties", {}).items())
    return "{\n" + members + _extra_properties(schema, indent) + indent[: len(indent) - 2] + "}"


def _enum(values: list[Any], quoted: bool) -> str:
    return " | ".join(f'"{value}"' if quoted else str(value) for value in values)


def typescript(schema: Any, indent: str = "") -> str:
    """A JSON schema as the template's ``json_schema_to_typescript`` writes it."""
    if not isinstance(schema, dict):  # a boolean subschema, or draft-07's list of items
        return "any"
    kind = schema.get("type")
    if kind == "object":
        return _object(schema, indent)
    if kind == "string":
        if schema.get("enum"):
            return _enum(schema["enum"], quoted=True)
        return "Date" if schema.get("format", "none") in ("date-time", "date") else "string"
    if kind in ("number", "integer"):
        return _enum(schema["enum"], quoted=False) if schema.get("enum") else "number"
    if kind == "boolean":
        return "boolean"
    if kind == "array":
        return typescript(schema["items"], indent) + "[]" if "items" in schema else "Array<any>"
    return "any"


def _tool(tool: Tool) -> str:
    lines = [f"// {line}" for line in tool.description.split("\n") if line.strip()]
    parameters = tool.parameters
    if parameters and parameters.get("properties"):
        signature = f"type {tool.name} = (_: {typescript(parameters, STEP)}) => "
    else:
        signature = f"type {tool.name} = () => "
    return "\n".join([*lines, signature + "any;\n"])


def tools_namespace(tools: Sequence[Tool]) -> str:
    """``namespace functions { ... } // namespace functions``: every tool's type."""
    sections = ["namespace functions {", *map(_tool, tools), "} // namespace functions"]
    return "\n".join(sections)
