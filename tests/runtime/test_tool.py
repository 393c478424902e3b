"""RuntimeTool: function bodies (sync and async), the context parameter, argument conversion."""

from __future__ import annotations

import asyncio
from typing import Any, Literal

import pytest

from toolcalls import Tool
from toolcalls.runtime import InvalidArgs, RuntimeTool, ToolContext, function_tool, tool


def run(runtime_tool: RuntimeTool, arguments: dict[str, Any]) -> Any:
    ctx = ToolContext("c1", runtime_tool.name)
    return asyncio.run(runtime_tool.run(arguments, ctx)).value()


@tool
def weather(city: str, unit: Literal["c", "f"] = "c") -> str:
    """The weather in a city.

    Args:
        city: Where.
        unit: Degrees.
    """
    return f"{city}: 20 {unit}"


def test_schema_from_signature_and_docstring() -> None:
    assert weather.definition.description == "The weather in a city."
    properties = weather.definition.parameters["properties"]
    assert properties["city"] == {"type": "string", "description": "Where."}
    assert properties["unit"]["enum"] == ["c", "f"]


def test_sync_function_runs() -> None:
    assert run(weather, {"city": "Oslo"}) == "Oslo: 20 c"


def test_async_function_runs() -> None:
    @tool
    async def double(x: int) -> int:
        await asyncio.sleep(0)
        return 2 * x

    assert run(double, {"x": 21}) == 42


def test_context_parameter_is_left_out_of_the_schema_and_filled() -> None:
    @tool
    def who(ctx: ToolContext, greeting: str = "hi") -> str:
        return f"{greeting} from {ctx.tool_name} ({ctx.call_id})"

    assert set(who.definition.parameters["properties"]) == {"greeting"}
    assert run(who, {}) == "hi from who (c1)"


def test_wrong_argument_types_are_invalid_args() -> None:
    with pytest.raises(InvalidArgs) as caught:
        run(weather, {"city": "Oslo", "unit": "k", "extra": 1})
    assert [p.split(":")[0] for p in caught.value.problems] == ["unit", "extra"]


def test_decorator_options_reach_the_definition() -> None:
    @tool(name="rm", is_dangerous=True, path_arguments=("path",), timeout=5)
    def remove(path: str) -> None:
        """Remove a file."""

    assert remove.name == "rm" and remove.definition.is_dangerous
    assert remove.path_arguments == ("path",) and remove.timeout == 5


def test_class_body_with_execute() -> None:
    class Echo:
        async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
            return {"echo": arguments, "call": ctx.call_id}

    echo = RuntimeTool({"name": "echo", "parameters": {"type": "object"}}, Echo())
    assert isinstance(echo.definition, Tool)
    assert run(echo, {"a": 1}) == {"echo": {"a": 1}, "call": "c1"}


def test_function_tool_same_as_decorator() -> None:
    def f(a: int) -> int:
        return a

    assert function_tool(f).definition == tool(f).definition
