"""Reading tool lists (`toolcalls.tools._read`): a list given again is not read again."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

import toolcalls
import toolcalls.tools._importers
from toolcalls import Tool, ToolDefinitionError
from toolcalls.tools import _read, import_tools, to_tools

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}}
QWEN_CALL = "<tool_call>\n<function=f>\n<parameter=n>\n7\n</parameter>\n</function>\n</tool_call>"


def _openai(name: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    schema = copy.deepcopy(SCHEMA) if schema is None else schema
    return {"type": "function", "function": {"name": name, "parameters": schema}}


@pytest.fixture(autouse=True)
def _forget_tools_read_before() -> None:
    _read._SEEN.clear()
    _read._RECENT_TOOLS.clear()


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every tool list that `import_tools` reads, as the test goes."""
    seen: list[object] = []
    real = toolcalls.tools._importers.import_tools

    depth = [0]

    def counting(tools: Any, **options: Any) -> list[toolcalls.Tool]:
        if not depth[0]:  # not import_tools reading the inner list of an MCP result
            seen.append(tools)
        depth[0] += 1
        try:
            return real(tools, **options)
        finally:
            depth[0] -= 1

    monkeypatch.setattr(toolcalls.tools._importers, "import_tools", counting)
    return seen


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every tool list written out whole to be looked up by content."""
    made: list[object] = []
    real = _read._content_key

    def counting(tools: object) -> bytes | None:
        made.append(tools)
        return real(tools)

    monkeypatch.setattr(_read, "_content_key", counting)
    return made


def _names(tools: Any) -> list[str]:
    return [tool.name for tool in toolcalls.to_tools(tools)]


# -- tool lists given again ------------------------------------------------------------------


def test_the_same_list_is_neither_read_nor_written_out_again(
    reads: list[object], keys: list[object]
) -> None:
    tools = [_openai("f")]
    for _ in range(10):
        assert toolcalls.parse(QWEN_CALL, "qwen3_coder", tools=tools).calls[0].arguments == {"n": 7}
    assert len(reads) == 1  # read once
    assert len(keys) <= 2  # the first two times (the copy is made the second); then never


@pytest.mark.parametrize(
    "change",
    [
        lambda tools: tools.append(_openai("g")),
        lambda tools: tools.__setitem__(0, _openai("g")),
        lambda tools: tools.pop(),
        lambda tools: tools[0]["function"].__setitem__("name", "g"),
        lambda tools: tools[0]["function"]["parameters"]["properties"]["n"].__setitem__(
            "type", "string"
        ),
        lambda tools: tools[0]["function"]["parameters"]["properties"].__setitem__(
            "m", {"type": "string"}
        ),
        lambda tools: tools[0]["function"]["parameters"]["properties"].__setitem__(
            "m", tools[0]["function"]["parameters"]["properties"].pop("n")
        ),  # the last key renamed, its value the very same object
    ],
    ids=["append", "replace", "remove", "rename", "nested-type", "nested-add", "nested-rename"],
)
def test_a_list_changed_in_place_is_read_anew(change: Any) -> None:
    tools = [_openai("f"), _openai("h")]
    for _ in range(3):  # given often enough to be recognized by identity
        toolcalls.to_tools(tools)
    change(tools)
    assert toolcalls.to_tools(tools) == toolcalls.tools.import_tools(copy.deepcopy(tools))


def test_tools_read_before_do_not_change_with_the_definitions() -> None:
    tools = [_openai("f")]
    (first,) = toolcalls.to_tools(tools)
    tools[0]["function"]["parameters"]["properties"]["n"]["type"] = "string"
    assert first.parameters["properties"]["n"] == {"type": "integer"}  # `Tool` is frozen
    (again,) = toolcalls.to_tools([_openai("f")])  # the first definitions, in new objects
    assert again.parameters["properties"]["n"] == {"type": "integer"}


def test_a_nested_change_reaches_the_parse() -> None:
    tools = [_openai("f")]
    for _ in range(3):
        assert toolcalls.parse(QWEN_CALL, "qwen3_coder", tools=tools).calls[0].arguments == {"n": 7}
    tools[0]["function"]["parameters"]["properties"]["n"]["type"] = "string"
    assert toolcalls.parse(QWEN_CALL, "qwen3_coder", tools=tools).calls[0].arguments == {"n": "7"}
    tools[0]["function"]["name"] = "g"
    issues = toolcalls.parse(QWEN_CALL, "qwen3_coder", tools=tools).issues
    assert any(issue.kind == "unknown_tool" for issue in issues)


def _generated() -> Iterator[dict[str, Any]]:
    yield _openai("f")


@pytest.mark.parametrize(
    "make",
    [
        lambda: [_openai("f")],
        lambda: (_openai("f"),),
        lambda: _openai("f"),  # one definition
        lambda: {"tools": [_openai("f")]},  # an MCP tools/list result
        lambda: [{"name": "f", "input_schema": copy.deepcopy(SCHEMA)}],  # Anthropic
        lambda: [{"name": "f", "inputSchema": copy.deepcopy(SCHEMA)}],  # MCP
        lambda: [{"name": "f", "parameters": copy.deepcopy(SCHEMA)}],  # bare
    ],
    ids=["list", "tuple", "dict", "mcp-result", "anthropic", "mcp", "bare"],
)
def test_every_shape_given_again_is_read_once_and_anew_when_changed(
    make: Any, reads: list[object]
) -> None:
    tools = make()
    for _ in range(4):
        assert _names(tools) == ["f"]
    assert len(reads) == 1
    definition = tools["tools"][0] if isinstance(tools, dict) and "tools" in tools else tools
    if isinstance(definition, list | tuple):
        definition = definition[0]
    (definition.get("function") or definition)["name"] = "g"
    assert _names(tools) == ["g"]


def test_a_generator_is_read_each_time(reads: list[object]) -> None:
    assert _names(_generated()) == ["f"]
    assert _names(_generated()) == ["f"]
    assert len(reads) == 2


def test_equal_definitions_in_new_objects_are_found_by_content(reads: list[object]) -> None:
    first = toolcalls.to_tools([_openai("f")])
    again = toolcalls.to_tools([_openai("f")])
    assert again[0] is first[0] and len(reads) == 1
    # Content is typed and ordered: 1 and True are not the same definition.
    one = [{"name": "f", "parameters": {"type": "object", "default": 1}}]
    true = [{"name": "f", "parameters": {"type": "object", "default": True}}]
    assert toolcalls.to_tools(true)[0].parameters["default"] is True
    assert toolcalls.to_tools(one)[0].parameters["default"] == 1
    assert toolcalls.to_tools(one)[0].parameters["default"] is not True


def test_a_bad_list_given_again_raises_again() -> None:
    bad = [{"type": "function", "function": {"description": "no name"}}]
    for _ in range(3):
        with pytest.raises(toolcalls.ToolDefinitionError):
            toolcalls.to_tools(bad)


def test_functions_and_tools_mixed_are_read_each_time() -> None:
    def lookup(city: str) -> str:
        """Look a city up."""
        return city

    tools = [lookup, _openai("f")]
    assert _names(tools) == ["lookup", "f"]
    assert _names(tools) == ["lookup", "f"]


def test_parser_reads_its_tools_once(reads: list[object]) -> None:
    bound = toolcalls.parser("qwen3_coder", tools=[_openai("f")], strict=False)
    for _ in range(5):
        assert bound.parse(QWEN_CALL).calls[0].arguments == {"n": 7}
        bound.stream().close()
    assert len(reads) == 1
    assert [tool.name for tool in bound.tools] == ["f"]
    assert repr(bound) == "toolcalls.parser('qwen3_coder', tools=<1 tools>)"


class _Held:
    """A `ToolSource`: an object that keeps tools of its own (as the runtime's registry)."""

    def __init__(self, *tools: Tool) -> None:
        self.tools = list(tools)

    def __toolcalls_tools__(self) -> tuple[Tool, ...]:
        return tuple(self.tools)


def test_a_tool_source_is_read_through_its_own_definitions_every_time() -> None:
    held = _Held(Tool(name="a"))
    assert [tool.name for tool in to_tools(held)] == ["a"]
    held.tools.append(Tool(name="b"))  # not cached: the source keeps its own list
    assert [tool.name for tool in to_tools(held)] == ["a", "b"]
    assert [tool.name for tool in import_tools(held)] == ["a", "b"]
    assert [tool.name for tool in _read.read_tools(held)] == ["a", "b"]


def test_a_tool_source_with_two_tools_of_one_name_is_refused() -> None:
    with pytest.raises(ToolDefinitionError, match="two tools are named|given twice"):
        to_tools(_Held(Tool(name="a"), Tool(name="a", description="other")))
