"""Native tool calling payloads: tools, calls and results in each provider's exact shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolcalls.parsing._models import ToolCall
from toolcalls.providers._native import (
    PROVIDERS,
    native_call_message,
    native_result_message,
    native_result_messages,
    render_native,
    tools_from_native,
)
from toolcalls.tools._gemini import gemini_schema, json_schema_from_gemini
from toolcalls.tools._importers import import_tools
from toolcalls.tools._tool import Tool

FIXTURES = Path(__file__).parents[2] / "fixtures"
WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"location": {"type": "string", "description": "City"}},
    "required": ["location"],
}
WEATHER = Tool(name="get_weather", description="Current weather", parameters=WEATHER_SCHEMA)
CALL = ToolCall(id="call_1", name="get_weather", arguments={"location": "Paris"}, span=(0, 0))


# --- each provider's documented shapes ----------------------------------------------------------


def test_openai_chat_completions() -> None:
    assert render_native([WEATHER], "openai") == {"tools": [{
        "type": "function",
        "function": {"name": "get_weather", "description": "Current weather",
                     "parameters": WEATHER_SCHEMA},
    }]}
    assert native_call_message([CALL], "openai") == [{
        "role": "assistant", "content": None,
        "tool_calls": [{"id": "call_1", "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"location": "Paris"}'}}],
    }]
    assert native_result_message(CALL, "18°C", "openai") == {
        "role": "tool", "tool_call_id": "call_1", "content": "18°C"}


def test_openai_responses() -> None:
    assert render_native([WEATHER], "openai_responses") == {"tools": [{
        "type": "function", "name": "get_weather", "description": "Current weather",
        "parameters": WEATHER_SCHEMA, "strict": False,
    }]}
    assert native_call_message([CALL], "openai_responses", content="Checking.") == [
        {"type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": "Checking."}]},
        {"type": "function_call", "call_id": "call_1", "name": "get_weather",
         "arguments": '{"location": "Paris"}'},
    ]
    assert native_result_message(CALL, {"celsius": 18}, "openai_responses") == {
        "type": "function_call_output", "call_id": "call_1", "output": '{"celsius": 18}'}


def test_anthropic_messages() -> None:
    assert render_native([WEATHER], "anthropic") == {"tools": [{
        "name": "get_weather", "description": "Current weather", "input_schema": WEATHER_SCHEMA,
    }]}
    assert native_call_message([CALL], "anthropic", content="Checking.") == [{
        "role": "assistant",
        "content": [{"type": "text", "text": "Checking."},
                    {"type": "tool_use", "id": "call_1", "name": "get_weather",
                     "input": {"location": "Paris"}}],
    }]
    assert native_result_message(CALL, "no such city", "anthropic", is_error=True) == {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "no such city",
                     "is_error": True}],
    }


def test_gemini() -> None:
    assert render_native([WEATHER, Tool(name="now")], "gemini") == {"tools": [{
        "functionDeclarations": [
            {"name": "get_weather", "description": "Current weather", "parameters": {
                "type": "OBJECT",
                "properties": {"location": {"type": "STRING", "description": "City"}},
                "required": ["location"]}},
            {"name": "now", "description": ""},
        ]}]}
    assert native_call_message([CALL], "gemini") == [{
        "role": "model",
        "parts": [{"functionCall": {"id": "call_1", "name": "get_weather",
                                    "args": {"location": "Paris"}}}],
    }]
    assert native_result_message(CALL, "18°C", "gemini") == {
        "role": "user",
        "parts": [{"functionResponse": {"id": "call_1", "name": "get_weather",
                                        "response": {"result": "18°C"}}}],
    }
    error = native_result_message(CALL, "timeout", "gemini", is_error=True)
    assert error["parts"][0]["functionResponse"]["response"] == {"error": "timeout"}


def test_ollama() -> None:
    assert render_native([WEATHER], "ollama") == render_native([WEATHER], "openai")
    assert native_call_message([CALL], "ollama") == [{
        "role": "assistant", "content": "",
        "tool_calls": [{"function": {"name": "get_weather", "arguments": {"location": "Paris"}}}],
    }]
    assert native_result_message(CALL, "18°C", "ollama") == {
        "role": "tool", "tool_name": "get_weather", "content": "18°C"}


def test_several_results_are_grouped_where_the_provider_wants_one_turn() -> None:
    second = ToolCall(id="call_2", name="get_weather", arguments={"location": "Oslo"},
                      span=(0, 0))
    pairs = [(CALL, "18°C"), (second, "boom")]
    counts = {p: len(native_result_messages(pairs, p, errors=["call_2"])) for p in PROVIDERS}
    assert counts == {"openai": 2, "openai_responses": 2, "anthropic": 1, "gemini": 1,
                      "ollama": 2}
    (anthropic,) = native_result_messages(pairs, "anthropic", errors=["call_2"])
    assert [block.get("is_error", False) for block in anthropic["content"]] == [False, True]


def test_unknown_provider_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match="openai, openai_responses, anthropic, gemini, ollama"):
        render_native([WEATHER], "cohere")


# --- Gemini's schema subset ---------------------------------------------------------------------


def test_gemini_schema_inlines_refs_and_guards_recursion() -> None:
    schema = {
        "type": "object",
        "properties": {"node": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": {"type": "object", "properties": {
            "label": {"type": "string"}, "child": {"$ref": "#/$defs/Node"}}}},
    }
    node = gemini_schema(schema)["properties"]["node"]
    assert node["properties"]["label"] == {"type": "STRING"}
    assert node["properties"]["child"] == {
        "type": "OBJECT", "description": "(recursive or unresolved type)"}
    assert "$defs" not in gemini_schema(schema)


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": ["string", "null"]}, {"type": "STRING", "nullable": True}),
        ({"anyOf": [{"type": "integer"}, {"type": "null"}]}, {"type": "INTEGER", "nullable": True}),
        ({"oneOf": [{"type": "integer"}, {"type": "string"}]},
         {"anyOf": [{"type": "INTEGER"}, {"type": "STRING"}]}),
        ({"type": ["integer", "string"]}, {"anyOf": [{"type": "INTEGER"}, {"type": "STRING"}]}),
        ({"const": "fixed"}, {"type": "STRING", "enum": ["fixed"]}),
        ({"type": "integer", "enum": [1, 2]}, {"type": "INTEGER", "description": "(one of: 1, 2)"}),
        ({"type": "string", "format": "uri", "description": "Link"},
         {"type": "STRING", "description": "Link (format: uri)"}),
        ({"type": "string", "format": "date-time"}, {"type": "STRING", "format": "date-time"}),
        ({"allOf": [{"type": "boolean"}], "description": "Flag"},
         {"type": "BOOLEAN", "description": "Flag"}),
        ({"type": "object", "properties": {"a": {"type": "string"}},
          "additionalProperties": False},
         {"type": "OBJECT", "properties": {"a": {"type": "STRING"}}}),
    ],
)
def test_gemini_schema_subset(schema: dict[str, Any], expected: dict[str, Any]) -> None:
    assert gemini_schema(schema) == expected


# --- goldens over real tool sets ----------------------------------------------------------------

GOLDEN_TOOLSETS = ("mcp-git", "mcp-fetch", "mcp-memory")


def golden_payload(provider: str) -> dict[str, Any]:
    tools = [tool for name in GOLDEN_TOOLSETS for tool in import_tools(
        json.loads((FIXTURES / "toolsets" / f"{name}.json").read_text()))]
    calls = [
        ToolCall(id="call_a", name="git_log", arguments={"repo_path": "/src", "max_count": 3},
                 span=(0, 0)),
        ToolCall(id="call_b", name="fetch", arguments={"url": "https://example.org/ü"},
                 span=(0, 0)),
    ]
    results = [(calls[0], "commit 1\ncommit 2"), (calls[1], {"status": 404, "body": "<html>"})]
    return {
        **render_native(tools, provider),
        "history": [*native_call_message(calls, provider, content="Looking."),
                    *native_result_messages(results, provider, errors=["call_b"])],
    }


@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_golden_payload(provider: str, request: pytest.FixtureRequest) -> None:
    path = FIXTURES / "native" / f"{provider}.json"
    payload = golden_payload(provider)
    if request.config.getoption("--update-goldens"):
        path.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n")
    assert payload == json.loads(path.read_text())


@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_real_tool_sets_read_back_with_the_same_arguments(provider: str) -> None:
    for path in sorted((FIXTURES / "toolsets").glob("*.json")):
        tools = import_tools(json.loads(path.read_text()))
        back = tools_from_native(render_native(tools, provider), provider)
        assert [(t.name, t.description) for t in back] == [(t.name, t.description) for t in tools]
        for before, after in zip(tools, back, strict=True):
            assert set(after.parameters.get("properties", {})) == set(
                before.parameters.get("properties", {})), (path.name, before.name)
            required_after = after.parameters.get("required") or []
            assert required_after == (before.parameters.get("required") or [])


# --- round trips --------------------------------------------------------------------------------

NAMES = st.from_regex(r"[a-zA-Z_][a-zA-Z0-9_]{0,20}", fullmatch=True)
TEXT = st.text(max_size=40)


def scalar_schemas() -> st.SearchStrategy[dict[str, Any]]:
    plain = st.sampled_from(["string", "integer", "number", "boolean"]).map(lambda t: {"type": t})
    nullable = st.sampled_from(["string", "integer"]).map(lambda t: {"type": [t, "null"]})
    enum = st.lists(TEXT, min_size=1, max_size=4, unique=True).map(
        lambda values: {"type": "string", "enum": values})
    return st.one_of(plain, nullable, enum)


def with_description(schema: dict[str, Any], description: str | None) -> dict[str, Any]:
    return schema if description is None else {**schema, "description": description}


def object_schemas(depth: int) -> st.SearchStrategy[dict[str, Any]]:
    leaf = st.builds(with_description, scalar_schemas(), st.none() | TEXT)
    child: st.SearchStrategy[dict[str, Any]] = leaf
    if depth > 0:
        arrays = leaf.map(lambda item: {"type": "array", "items": item})
        child = st.one_of(leaf, arrays, object_schemas(depth - 1))
    return st.dictionaries(NAMES, child, max_size=4).flatmap(
        lambda properties: st.lists(st.sampled_from(sorted(properties)) if properties
                                    else st.nothing(), unique=True).map(
            lambda required: {"type": "object", "properties": properties,
                              **({"required": required} if required else {})}))


tools_strategy = st.builds(Tool, name=NAMES, description=TEXT, parameters=object_schemas(2))


@given(tools_strategy, st.sampled_from(list(PROVIDERS)))
def test_any_tool_round_trips_through_every_provider(tool: Tool, provider: str) -> None:
    payload = json.loads(json.dumps(render_native([tool], provider)))  # as sent on the wire
    (back,) = tools_from_native(payload, provider)
    assert (back.name, back.description, back.parameters) == (
        tool.name, tool.description, tool.parameters)


@given(object_schemas(2))
def test_gemini_schema_conversion_is_reversible_on_the_common_subset(
    schema: dict[str, Any],
) -> None:
    assert json_schema_from_gemini(gemini_schema(schema)) == schema


@given(st.dictionaries(NAMES, st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(NAMES, inner, max_size=3),
    max_leaves=8), max_size=4))
def test_call_arguments_survive_every_history_shape(arguments: dict[str, Any]) -> None:
    call = ToolCall(id="c", name="f", arguments=arguments, span=(0, 0))
    openai = native_call_message([call], "openai")[0]["tool_calls"][0]["function"]
    assert json.loads(openai["arguments"]) == arguments
    responses = native_call_message([call], "openai_responses")[0]
    assert json.loads(responses["arguments"]) == arguments
    assert native_call_message([call], "anthropic")[0]["content"][0]["input"] == arguments
    assert native_call_message([call], "gemini")[0]["parts"][0]["functionCall"]["args"] == (
        arguments)
    assert native_call_message([call], "ollama")[0]["tool_calls"][0]["function"][
        "arguments"] == arguments
