"""The public surface: exported names, tool shapes, errors, strict mode, OpenAI output."""

from __future__ import annotations

import json

import pytest

import toolcalls

CALL = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}}


def test_all_is_the_locked_public_surface() -> None:
    assert sorted(toolcalls.__all__) == toolcalls.__all__
    for name in toolcalls.__all__:
        assert hasattr(toolcalls, name), name
    assert toolcalls.ToolCall.__module__ == "toolcalls"


@pytest.mark.parametrize(
    "definition",
    [
        {"type": "function", "function": {"name": "get_weather", "parameters": SCHEMA}},
        {"name": "get_weather", "description": "d", "input_schema": SCHEMA},
        {"name": "get_weather", "description": "d", "inputSchema": SCHEMA},
        {"name": "get_weather", "parameters": SCHEMA},
    ],
    ids=["openai", "anthropic", "mcp", "bare"],
)
def test_tool_accepts_every_provider_shape(definition: dict) -> None:
    (tool,) = toolcalls.to_tools([definition])
    assert tool.name == "get_weather" and tool.parameters == SCHEMA


def test_invalid_tool_definition_says_what_is_expected() -> None:
    with pytest.raises(toolcalls.ToolDefinitionError, match="tool #1"):
        toolcalls.to_tools([{"name": "ok"}, {"description": "no name"}])


def test_unknown_format_names_the_closest() -> None:
    with pytest.raises(toolcalls.UnknownFormatError, match="'hermes'") as caught:
        toolcalls.parse("x", "hermse")
    assert isinstance(caught.value, LookupError)


def test_lookup_by_alias_and_model_id() -> None:
    assert toolcalls.get_format("Hermes3").name == "hermes"
    assert toolcalls.get_format("NousResearch/Hermes-3-Llama-3.1-8B").name == "hermes"


def test_detect_recognises_the_format() -> None:
    assert toolcalls.detect(CALL) == "hermes"
    assert toolcalls.detect("just words") is None
    assert toolcalls.parse(CALL).calls[0].name == "get_weather"


def test_openai_tool_calls_carry_json_string_arguments() -> None:
    (call,) = toolcalls.parse(CALL, "hermes").tool_calls()
    assert call["type"] == "function" and call["id"] == "call_0"
    assert json.loads(call["function"]["arguments"]) == {"city": "Paris"}


def test_strict_mode_raises_typed_errors() -> None:
    with pytest.raises(toolcalls.IncompleteToolCallError):
        toolcalls.parse('<tool_call>{"name": "f", "argu', "hermes", strict=True)
    with pytest.raises(toolcalls.InvalidArgumentsError) as caught:
        toolcalls.parse('<tool_call>{"name": "f", "arguments": {"a": }}</tool_call>', "hermes",
                        strict=True)
    assert caught.value.span[0] == 0
    with pytest.raises(toolcalls.UnknownToolError, match="get_weather"):
        toolcalls.parse(CALL.replace("get_weather", "get_wether"), "hermes", strict=True,
                        tools=[{"name": "get_weather", "parameters": SCHEMA}])


def test_lenient_mode_records_instead_of_raising() -> None:
    result = toolcalls.parse('<tool_call>{"name": "f", "argu', "hermes")
    assert [i.kind for i in result.issues] == ["truncated_call"]
    assert result.incomplete[0].raw == '<tool_call>{"name": "f", "argu'


def test_thinking_starts_inside_reasoning() -> None:
    result = toolcalls.parse("plan\n</think>\n\n" + CALL, "hermes", thinking=True)
    assert result.reasoning == "plan" and result.content == ""
    plain = toolcalls.parse("plan</think>answer", "hermes")
    assert plain.content == "plan</think>answer"
    assert [i.kind for i in plain.issues] == ["stray_reasoning_end"]


def test_feed_after_close_is_a_caller_error() -> None:
    parser = toolcalls.stream("hermes")
    parser.close()
    with pytest.raises(RuntimeError, match="new stream"):
        parser.feed("x")


def test_parse_rejects_non_text() -> None:
    with pytest.raises(TypeError):
        toolcalls.parse(b"bytes", "hermes")  # type: ignore[arg-type]


def test_tool_definitions_given_again_are_read_once() -> None:
    properties = {"unit": {"type": "string"}, "city": {"type": "string"}}
    definitions = [{"type": "function", "function": {
        "name": "get_weather", "parameters": {"type": "object", "properties": properties}}}]
    first = toolcalls.to_tools(definitions)
    again = toolcalls.to_tools(json.loads(json.dumps(definitions)))  # equal data, new objects
    assert again == first and again[0] is first[0]
    assert list(again[0].parameters["properties"]) == ["unit", "city"]  # the order as written
    definitions[0]["function"]["name"] = "get_time"  # changed definitions are read anew
    assert [tool.name for tool in toolcalls.to_tools(definitions)] == ["get_time"]
    with pytest.raises(toolcalls.ToolDefinitionError):
        toolcalls.to_tools([{"type": "function", "function": {"description": "no name"}}])
    with pytest.raises(toolcalls.ToolDefinitionError):  # a bad list is never remembered
        toolcalls.to_tools([{"type": "function", "function": {"description": "no name"}}])
