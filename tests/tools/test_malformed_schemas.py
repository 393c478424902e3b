"""Tool schemas of the wrong shape: a `ToolDefinitionError` saying what to fix when they are
read, never an exception of another kind later (parsing, validating, rendering, counting)."""

from __future__ import annotations

from typing import Any

import pytest

import toolcalls
from toolcalls import Tool, ToolDefinitionError
from toolcalls.budget import count_openai_tools
from toolcalls.tools import from_gemini, typescript_namespace
from toolcalls.tools._schema import MAX_SCHEMA_NESTING


def nested(depth: int, kind: str) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        schema = ({"type": "object", "properties": {"a": schema}} if kind == "properties"
                  else {"type": "array", "items": schema} if kind == "items"
                  else {"anyOf": [schema]})
    return schema


def params(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


BROKEN = {
    "type [[]]": params(a={"type": [[]]}),  # TypeError: unhashable type: 'list' on main
    "type a dict": params(a={"type": {"x": 1}}),
    "type a number": params(a={"type": 5}),
    "top type a dict": {"type": {"x": 1}},
    "properties a list": {"type": "object", "properties": [{"a": 1}]},
    "required not a list": {**params(a={"type": "string"}), "required": "a"},
    "enum not a list": params(a={"enum": "abc"}),
    "items a list (2020-12)": params(a={"type": "array", "items": [{"type": "string"}]}),
    "a property schema a list": params(a=[1]),
    # RecursionError on main, from the importer or jsonschema
    "properties thousands deep": params(a=nested(3000, "properties")),
    "items thousands deep": params(a=nested(3000, "items")),
    "anyOf thousands deep": params(a=nested(3000, "anyOf")),
}


@pytest.mark.parametrize("schema", BROKEN.values(), ids=BROKEN.keys())
def test_a_broken_schema_is_a_tool_definition_error(schema: dict[str, Any]) -> None:
    with pytest.raises(ToolDefinitionError, match="tool 'f'"):
        toolcalls.to_tools([{"name": "f", "parameters": schema}])
    with pytest.raises(ToolDefinitionError):
        Tool(name="f", parameters=schema)


def test_too_deep_says_how_deep_and_what_to_do() -> None:
    with pytest.raises(ToolDefinitionError, match=f"more than {MAX_SCHEMA_NESTING} .* \\$defs"):
        Tool(name="f", parameters=params(a=nested(MAX_SCHEMA_NESTING, "items")))
    with pytest.raises(ToolDefinitionError, match="result_schema nests"):
        Tool(name="f", result_schema=nested(3000, "items"))
    Tool(name="f", parameters=params(a=nested(MAX_SCHEMA_NESTING // 2 - 2, "properties")))


ODD_BUT_VALID = {
    "boolean subschemas": params(a=True, b=False, c={"type": "array", "items": False}),
    "items a list (draft-07)": {"$schema": "http://json-schema.org/draft-07/schema#",
                                **params(a={"type": "array", "items": [{"type": "string"}]})},
    "ref to the root": params(a={"$ref": "#"}),
    "empty enum": params(a={"enum": []}),
    "mixed enum": params(a={"enum": [1, "x", None, [1], {"a": 1}, 1.5, True]}),
    "properties named like keywords": params(type={"type": "string"},
                                             properties={"type": "object"}),
    "required but not listed": {**params(), "required": ["x"]},
    "a lone surrogate in a description": params(a={"type": "string", "description": "\ud800"}),
    "NaN default": params(a={"type": "number", "default": float("nan")}),
    "nested near the limit": params(a=nested(MAX_SCHEMA_NESTING // 2 - 2, "properties")),
}
CALL = "<tool_call>\n<function=f>\n<parameter=a>\n{}\n</parameter>\n</function>\n</tool_call>"


def _renders_tools(name: str) -> bool:
    """Whether the format writes a tools section at all (Jamba's template is not public:
    its module raises NotImplementedError rather than guess one)."""
    try:
        toolcalls.get_format(name).render_tools(toolcalls.to_tools([{"name": "f"}]))
    except NotImplementedError:
        return False
    return True


RENDERING_FORMATS = [name for name in toolcalls.list_formats() if _renders_tools(name)]


@pytest.mark.parametrize("schema", ODD_BUT_VALID.values(), ids=ODD_BUT_VALID.keys())
def test_an_odd_valid_schema_parses_renders_and_counts(schema: dict[str, Any]) -> None:
    tools = toolcalls.to_tools([{"name": "f", "description": "d", "parameters": schema}])
    for value in ("x", '{"a": [1]}'):
        text = CALL.format(value)
        whole = toolcalls.parse(text, "qwen3_coder", tools=tools, validate=True)
        parser = toolcalls.stream("qwen3_coder", tools=tools, validate=True)
        for char in text:
            parser.feed(char)
        parser.close()
        assert parser.result() == whole
    typescript_namespace(tools)
    count_openai_tools(tools)
    # bool subschemas: TypeError in qwen3_coder's renderer on main
    for target in [*RENDERING_FORMATS, "openai", "anthropic", "gemini", "ollama",
                   "openai_responses"]:
        toolcalls.budget.render(tools, target)
        toolcalls.budget.render(tools, target, budget=10)


def test_a_gemini_declaration_nested_thousands_deep_is_a_tool_definition_error() -> None:
    schema: dict[str, Any] = {"type": "STRING"}
    for _ in range(3000):
        schema = {"type": "ARRAY", "items": schema}
    declaration = {"name": "f", "parameters": {"type": "OBJECT", "properties": {"a": schema}}}
    with pytest.raises(ToolDefinitionError, match="nests more than"):  # RecursionError on main
        from_gemini([declaration])
