"""Tool definitions: the seed's fields, schema validation, importers, argument checking."""

from __future__ import annotations

import enum
import json
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, Field

import toolcalls
from toolcalls._errors import ToolDefinitionError
from toolcalls.tools._calls import InvalidArgs, NotFound, check_call, find_tool, validate_arguments
from toolcalls.tools._importers import (
    from_anthropic,
    from_function,
    from_gemini,
    from_mcp,
    from_openai,
    import_tools,
)
from toolcalls.tools._tool import Tool

TOOLSETS = Path(__file__).parents[2] / "fixtures" / "toolsets"
WEATHER = {
    "type": "object",
    "properties": {
        "location": {"type": "string", "description": "City and state, e.g. San Francisco, CA"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        "days": {"type": "integer", "minimum": 1, "maximum": 14},
    },
    "required": ["location"],
    "additionalProperties": False,
}


def weather_tool(**fields: Any) -> Tool:
    return Tool(name="get_weather", description="Current weather", parameters=WEATHER, **fields)


# --- the Tool model -----------------------------------------------------------------------------


def test_seed_fields_have_safe_defaults() -> None:
    tool = Tool(name="noop")
    assert (tool.help, tool.result_schema, tool.category) == (None, None, None)
    assert (tool.source, tool.aliases, tool.is_dangerous) == ("builtin", (), False)
    assert tool.all_names() == ("noop",)


def test_seed_fields_survive_the_provider_shape_unwrapping() -> None:
    tool = Tool.model_validate({
        "name": "delete_file", "description": "Delete a file", "inputSchema": WEATHER,
        "outputSchema": {"type": "object"}, "help": "Irreversible.", "category": "files",
        "source": "filesystem", "aliases": ["rm"], "is_dangerous": True,
    })
    assert tool.result_schema == {"type": "object"}
    assert (tool.help, tool.category, tool.source) == ("Irreversible.", "files", "filesystem")
    assert tool.aliases == ("rm",) and tool.is_dangerous


@pytest.mark.parametrize("definition", [
    {"name": "delete_file", "aliases": ["rm"], "help": "Irreversible."},
    {"type": "function", "function": {"name": "delete_file", "aliases": ["rm"],
                                      "help": "Irreversible."}},
    {"type": "function", "aliases": ["rm"], "help": "Irreversible.",
     "function": {"name": "delete_file"}},
    {"name": "delete_file", "input_schema": WEATHER, "aliases": ["rm"], "help": "Irreversible."},
    {"name": "delete_file", "inputSchema": WEATHER, "aliases": ["rm"], "help": "Irreversible."},
])
def test_raw_definitions_keep_the_seed_fields(definition: dict[str, Any]) -> None:
    # the readers of lists (`to_tools`, `parse(tools=...)`) go through the importers
    (tool,) = toolcalls.to_tools([definition])
    assert (tool.aliases, tool.help) == (("rm",), "Irreversible.")
    result = toolcalls.parse('<tool_call>{"name": "rm", "arguments": {}}</tool_call>', "hermes",
                             tools=[definition])
    assert [call.name for call in result.calls] == ["delete_file"]
    assert [issue.kind for issue in result.issues] == ["alias_used"]


@pytest.mark.parametrize(
    ("parameters", "hint"),
    [
        ({"type": "object", "properties": {"a": {"type": "strng"}}}, "not a JSON Schema type"),
        ({"type": "object", "required": "a"}, "not of type 'array'"),
        ({"type": "OBJECT", "properties": {"a": {"type": "STRING"}}}, "from_gemini"),
        ({"type": "string"}, "wrap the value in an object"),
        ({"type": "object", "properties": {"a": {"minimum": "one"}}}, "properties/a/minimum"),
    ],
)
def test_invalid_schema_raises_a_typed_error_saying_what_to_fix(
    parameters: dict[str, Any], hint: str
) -> None:
    with pytest.raises(ToolDefinitionError, match="tool 'broken'") as caught:
        Tool(name="broken", parameters=parameters)
    assert hint in str(caught.value)
    with pytest.raises(ToolDefinitionError):
        Tool.model_validate({"name": "broken", "parameters": parameters})


def test_python_type_names_are_read_as_json_schema_names() -> None:
    # mlx-lm's test tools declare {"type": "str"}; the intent is unambiguous.
    tool = Tool(name="t", parameters={"type": "object", "properties": {
        "a": {"type": "str"}, "type": {"type": ["int", "null"], "enum": ["int", None]}}})
    assert tool.parameters["properties"]["a"] == {"type": "string"}
    assert tool.parameters["properties"]["type"] == {"type": ["integer", "null"],
                                                     "enum": ["int", None]}


def test_every_real_tool_set_is_valid() -> None:
    for path in sorted(TOOLSETS.glob("*.json")):
        tools = import_tools(json.loads(path.read_text()))
        assert tools, path.name


def test_to_tools_still_accepts_every_shape_and_reports_positions() -> None:
    (tool,) = toolcalls.to_tools([{"name": "f", "parameters": WEATHER}])
    assert tool.parameters == WEATHER
    with pytest.raises(ToolDefinitionError):
        toolcalls.to_tools([{"name": "ok"}, {"name": "bad", "parameters": {"type": "nope"}}])


# --- importers ----------------------------------------------------------------------------------


def test_openai_chat_and_responses_shapes_give_the_same_tool() -> None:
    chat = {"type": "function", "function": {"name": "get_weather", "description":
                                             "Current weather", "parameters": WEATHER}}
    responses = {"type": "function", "name": "get_weather", "description": "Current weather",
                 "parameters": WEATHER, "strict": False}
    assert from_openai([chat]) == from_openai(responses) == [weather_tool()]


def test_openai_builtin_tools_are_refused_with_a_reason() -> None:
    with pytest.raises(ToolDefinitionError, match="tool #1: .*'web_search' is built in"):
        from_openai([{"type": "function", "name": "f"}, {"type": "web_search"}])


def test_anthropic_client_and_server_tools() -> None:
    assert from_anthropic({"name": "get_weather", "description": "Current weather",
                           "input_schema": WEATHER}) == [weather_tool()]
    with pytest.raises(ToolDefinitionError, match="server tool"):
        from_anthropic([{"type": "web_search_20250305", "name": "web_search"}])


GEMINI_DECLARATIONS = {
    "functionDeclarations": [{
        "name": "set_light",
        "description": "Set the light.",
        "parameters": {
            "type": "OBJECT",
            "properties": {
                "brightness": {"type": "INTEGER", "description": "0 to 100"},
                "color": {"type": "STRING", "format": "enum", "enum": ["warm", "cold"]},
                "room": {"type": "STRING", "nullable": True},
                "scenes": {"type": "ARRAY", "items": {"type": "STRING"}, "example": ["a"]},
            },
            "required": ["brightness"],
            "propertyOrdering": ["brightness", "color", "room", "scenes"],
        },
        "response": {"type": "OBJECT", "properties": {"ok": {"type": "BOOLEAN"}}},
    }, {"name": "lights_off"}],
}


def test_gemini_declarations_become_json_schema() -> None:
    light, off = from_gemini([GEMINI_DECLARATIONS])
    assert light.parameters == {
        "type": "object",
        "properties": {
            "brightness": {"type": "integer", "description": "0 to 100"},
            "color": {"type": "string", "enum": ["warm", "cold"]},
            "room": {"type": ["string", "null"]},
            "scenes": {"type": "array", "items": {"type": "string"}, "examples": [["a"]]},
        },
        "required": ["brightness"],
    }
    assert light.result_schema == {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    assert off.parameters == {"type": "object", "properties": {}}
    assert from_gemini(GEMINI_DECLARATIONS) == from_gemini(
        GEMINI_DECLARATIONS["functionDeclarations"]) == [light, off]


def test_gemini_json_schema_declarations_are_taken_as_is() -> None:
    (tool,) = from_gemini({"function_declarations": [
        {"name": "get_weather", "description": "Current weather",
         "parametersJsonSchema": WEATHER}]})
    assert tool == weather_tool()


def test_mcp_list_sets_source_result_schema_and_danger() -> None:
    listing = {"tools": [
        {"name": "read", "inputSchema": {"type": "object"},
         "annotations": {"readOnlyHint": True}},
        {"name": "delete", "inputSchema": {"type": "object"},
         "annotations": {"destructiveHint": True}},
        {"name": "write", "inputSchema": {"type": "object"},
         "annotations": {"readOnlyHint": False}},
        {"name": "append", "inputSchema": {"type": "object"},
         "annotations": {"readOnlyHint": False, "destructiveHint": False}},
        {"name": "unknown", "inputSchema": {"type": "object"},
         "outputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}},
    ]}
    tools = from_mcp(listing, server="filesystem")
    assert [t.is_dangerous for t in tools] == [False, True, True, False, False]
    assert {t.source for t in tools} == {"filesystem"}
    assert tools[-1].result_schema == {"type": "object", "properties": {"n": {"type": "integer"}}}


def test_import_tools_reads_mixed_shapes_and_stamps_the_source() -> None:
    def ping(host: str) -> bool:
        """Ping a host."""
        return True

    tools = import_tools([
        {"type": "function", "function": {"name": "a", "parameters": WEATHER}},
        {"name": "b", "input_schema": WEATHER},
        {"name": "c", "inputSchema": WEATHER},
        {"functionDeclarations": [{"name": "d"}]},
        ping,
        weather_tool(source="weather-server"),
    ], source="mixed")
    assert [t.name for t in tools] == ["a", "b", "c", "d", "ping", "get_weather"]
    assert [t.source for t in tools] == ["mixed"] * 5 + ["weather-server"]
    assert import_tools(json.loads((TOOLSETS / "mcp-time.json").read_text()))[0].name == (
        "get_current_time")


# --- Python functions ---------------------------------------------------------------------------


class Priority(enum.Enum):
    LOW = "low"
    HIGH = "high"


class Label(BaseModel):
    name: str
    color: str = "grey"


def create_issue(
    title: str,
    priority: Priority = Priority.LOW,
    labels: list[Label] | None = None,
    assignee: Literal["me", "nobody"] = "me",
    estimate: Annotated[float, Field(gt=0)] = 1.0,
    *args: Any,
    **kwargs: Any,
) -> dict[str, int]:
    """Create an issue in the tracker.

    The issue is created in the default project; use move_issue to change it.

    Args:
        title: One line that says what is wrong.
        priority: How urgent it is.
        labels: Labels to attach,
            each with a name and a color.
        assignee: Who works on it.
        estimate: Days of work.

    Returns:
        The new issue's number.
    """
    return {}


def test_function_signature_and_docstring_become_the_tool() -> None:
    tool = from_function(create_issue, category="issues", is_dangerous=True)
    assert tool.name == "create_issue"
    assert tool.description == "Create an issue in the tracker."
    assert tool.help == "The issue is created in the default project; use move_issue to change it."
    assert (tool.category, tool.is_dangerous) == ("issues", True)
    properties = tool.parameters["properties"]
    assert list(properties) == ["title", "priority", "labels", "assignee", "estimate"]
    assert tool.parameters["required"] == ["title"]
    assert properties["title"] == {"type": "string", "description":
                                   "One line that says what is wrong."}
    assert properties["labels"]["description"] == (
        "Labels to attach, each with a name and a color.")
    assert properties["assignee"]["enum"] == ["me", "nobody"]
    assert properties["estimate"]["exclusiveMinimum"] == 0
    assert schema_keywords(tool.parameters) >= {"$ref", "enum", "anyOf"}
    assert "title" not in schema_keywords(tool.parameters)  # pydantic's generated titles
    assert tool.result_schema == {"type": "object", "additionalProperties": {"type": "integer"}}
    # The generated schema validates what the function accepts.
    assert validate_arguments(tool, {"title": "x", "labels": [{"name": "bug"}],
                                     "priority": "high"}) == []
    assert validate_arguments(tool, {"title": "x", "priority": "urgent"}) != []


def schema_keywords(schema: Any) -> set[str]:
    """Every keyword used in a schema (property names, which are not keywords, left out)."""
    if isinstance(schema, list):
        return set().union(*(schema_keywords(item) for item in schema))
    if not isinstance(schema, dict):
        return set()
    found = set(schema)
    for key, value in schema.items():
        children = value.values() if key in ("properties", "$defs") else [value]
        for child in children:
            found |= schema_keywords(child)
    return found


def test_sphinx_and_numpy_docstrings() -> None:
    def search(query: str, limit: int = 10) -> list[str]:
        """Search the catalog.

        :param query: Words to look for.
        :param int limit: At most this many results.
        """
        return []

    def listing(path: str, recursive: bool = False) -> None:
        """List a directory.

        Parameters
        ----------
        path : str
            Directory to list.
        recursive : bool
            Descend into subdirectories.
        """

    assert from_function(search).parameters["properties"]["limit"]["description"] == (
        "At most this many results.")
    props = from_function(listing).parameters["properties"]
    assert props["path"]["description"] == "Directory to list."
    assert props["recursive"]["description"] == "Descend into subdirectories."
    assert from_function(listing).result_schema is None


# --- checking calls -----------------------------------------------------------------------------


def test_valid_arguments_have_no_problems() -> None:
    assert validate_arguments(weather_tool(), {"location": "Paris", "days": 3}) == []


def test_problems_name_the_argument_and_say_what_was_expected() -> None:
    problems = validate_arguments(weather_tool(), {"unit": "kelvin", "days": "3", "lang": "fr"})
    assert problems == [
        "unknown argument 'lang'; the allowed arguments are: days, location, unit",
        "missing required argument 'location'",
        "argument 'days' must be an integer, got \"3\" (a string)",
        "argument 'unit' must be one of \"celsius\", \"fahrenheit\"; got \"kelvin\" (a string)",
    ]


def test_nested_problems_are_addressed_by_path() -> None:
    tool = Tool(name="t", parameters={"type": "object", "properties": {"items": {
        "type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer"}},
                                   "required": ["n"]}}}})
    assert validate_arguments(tool, {"items": [{"n": 1}, {"n": True}, {}]}) == [
        "argument 'items[1].n' must be an integer, got true (true or false)",
        "missing required argument 'n' in 'items[2]'",
    ]


def test_arguments_must_be_an_object() -> None:
    assert validate_arguments(weather_tool(), ["Paris"]) == [
        "the arguments must be a JSON object, got list"]


def test_unknown_tool_suggests_the_closest_names() -> None:
    tools = [weather_tool(aliases=("weather",)), Tool(name="get_time")]
    problem = check_call("get_wether", {}, tools)
    assert isinstance(problem, NotFound)
    assert problem.closest == ("get_weather",)
    assert problem.message == "There is no tool named 'get_wether'. Did you mean 'get_weather'?"
    far = check_call("launch_rocket", {}, tools)
    assert isinstance(far, NotFound) and far.closest == ()
    assert "The available tools are: get_weather, get_time." in far.message


def test_aliases_find_the_tool_and_invalid_args_explain_themselves() -> None:
    tools = [weather_tool(aliases=("weather",))]
    assert find_tool("weather", tools) is tools[0]
    assert check_call("weather", {"location": "Oslo"}, tools) is None
    problem = check_call("weather", {"days": 0}, tools)
    assert isinstance(problem, InvalidArgs) and problem.tool == "get_weather"
    assert problem.message.startswith("The arguments for 'get_weather' are invalid:\n- ")
    assert "Call the tool again with corrected arguments." in problem.message


@given(st.dictionaries(st.text(max_size=8), st.integers() | st.text(max_size=5), max_size=4))
def test_problems_are_empty_exactly_when_jsonschema_accepts(arguments: dict[str, Any]) -> None:
    from jsonschema import Draft202012Validator

    valid = Draft202012Validator(WEATHER).is_valid(arguments)
    assert (validate_arguments(weather_tool(), arguments) == []) == valid


# -- check_call and validate_arguments take the raw definitions parse takes -------------------

RAW_OPENAI = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
RAW_ANTHROPIC = [{"name": "get_weather", "input_schema": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}]


@pytest.mark.parametrize("raw", [RAW_OPENAI, RAW_ANTHROPIC], ids=["openai", "anthropic"])
def test_check_call_takes_raw_tool_definitions(raw: list[dict[str, Any]]) -> None:
    from toolcalls.tools import InvalidArgs, NotFound, check_call

    assert check_call("get_weather", {"city": "Paris"}, raw) is None
    invalid = check_call("get_weather", {}, raw)
    assert isinstance(invalid, InvalidArgs)
    assert "missing required argument 'city'" in invalid.message
    missing = check_call("get_wether", {}, raw)
    assert isinstance(missing, NotFound) and missing.closest == ("get_weather",)


def test_validate_arguments_takes_one_raw_definition() -> None:
    from toolcalls.tools import validate_arguments

    assert validate_arguments(RAW_OPENAI[0], {"city": "Paris"}) == []
    assert validate_arguments(RAW_ANTHROPIC[0], {"city": 3}) == [
        "argument 'city' must be a string, got 3 (an integer)"]
    with pytest.raises(ToolDefinitionError, match="one tool definition"):
        validate_arguments({"tools": [RAW_ANTHROPIC[0], {**RAW_ANTHROPIC[0], "name": "b"}]}, {})


def test_an_unknown_keyword_field_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(ToolDefinitionError, match=r"no field 'capabilities', 'tool_type'.*"
                                                  r"a Tool has name, description, parameters"):
        Tool(name="f", capabilities=["read"], tool_type="x")


def test_provider_shapes_still_read_by_keyword_and_their_own_keys_by_model_validate() -> None:
    by_keyword = Tool(type="function", function={"name": "f", "parameters": {"type": "object"}})
    anthropic = {"name": "f", "input_schema": {"type": "object"}, "cache_control": {"type": "x"}}
    assert Tool.model_validate(anthropic) == by_keyword
    assert toolcalls.to_tools([anthropic]) == [by_keyword]
    with pytest.raises(ToolDefinitionError, match="cache_control"):
        Tool(**anthropic)  # a program's keywords: the provider's key is not a Tool field
