"""A tool with a body: its `Tool` definition and the code that runs a call to it.

A body is a Python function (sync or async; its signature and docstring give the schema, as
`toolcalls.tools.tool_from_function` reads them) or any object with ``execute(arguments,
ctx)``. A function that wants the call's `ToolContext` declares a parameter annotated with it;
that parameter is not in the schema. Arguments reach a function as its own types (pydantic
converts the JSON the model wrote); a conversion that fails is the model's mistake and reaches
it as `InvalidArgs`.

What a body returns becomes the result (`ToolResult.of`): text, any JSON value, images, or a
`ToolResult` itself. Sync bodies run on a worker thread, so a slow one does not hold up the
others; a thread cannot be stopped, so a sync body that runs past its timeout is abandoned
(its result dropped), not killed: long sync bodies should look at ``ctx.cancel``.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, get_type_hints, overload

from pydantic import ValidationError

from ..tools._functions import arguments_model, tool_from_function
from ..tools._tool import Tool
from ._context import ToolContext
from ._results import InvalidArgs, ToolResult

__all__ = ["FunctionBody", "RuntimeTool", "ToolBody", "function_tool", "tool"]


class ToolBody(Protocol):
    """What runs a call: ``execute`` may be a plain or an ``async`` method."""

    def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> Any: ...


@dataclass(frozen=True)
class RuntimeTool:
    """A tool the runtime can run: its definition, its body and what permissions look at."""

    definition: Tool
    """What the model sees: name, description, schema (and ``is_dangerous``, ``source``...)."""
    body: ToolBody
    """What runs a call."""
    path_arguments: tuple[str, ...] = ()
    """Arguments that are file system paths: permission rules match them normalized."""
    command_argument: str | None = None
    """The argument that is a shell command: permission rules match each sub-command."""
    timeout: float | None = None
    """Seconds a call may run; None takes the executor's default."""
    origin: str = "builtin"
    """Where the tool comes from: ``builtin``, ``mcp``, ``openapi`` or ``dynamic``."""
    server: str | None = None
    """The MCP server or OpenAPI service it belongs to, if any."""

    def __post_init__(self) -> None:
        if not isinstance(self.definition, Tool):
            object.__setattr__(self, "definition", Tool.model_validate(self.definition))

    @property
    def name(self) -> str:
        return self.definition.name

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Run the body once; what it returns as a `ToolResult` (exceptions pass through)."""
        execute = self.body.execute
        if _is_async(execute):
            value = await execute(arguments, ctx)
        else:
            value = await asyncio.to_thread(execute, arguments, ctx)
            if inspect.isawaitable(value):  # a plain method that hands back a coroutine
                value = await value
        return ToolResult.of(value)


def _is_async(function: Callable[..., Any]) -> bool:
    owner = getattr(function, "__self__", None)
    known = getattr(owner, "is_async", None)
    if isinstance(known, bool):
        return known  # a FunctionBody says: inspect's check cost 2 µs of every call
    return inspect.iscoroutinefunction(function)


class FunctionBody:
    """Runs a Python function with the model's arguments converted to its parameter types."""

    def __init__(self, function: Callable[..., Any], context_parameter: str | None) -> None:
        self.function = function
        self.context_parameter = context_parameter
        self.is_async = inspect.iscoroutinefunction(function)
        excluded = (context_parameter,) if context_parameter else ()
        self._arguments_model = arguments_model(function, exclude=excluded, strict_keys=True)
        self.execute = self._execute_async if self.is_async else self._execute_sync

    def _arguments(self, arguments: Mapping[str, Any], ctx: ToolContext) -> dict[str, Any]:
        try:
            validated = self._arguments_model.model_validate(arguments)
        except ValidationError as error:  # missing, unexpected or unconvertible arguments
            raise _invalid(ctx.tool_name, error) from None
        given = {name: getattr(validated, name) for name in type(validated).model_fields}
        if self.context_parameter is not None:
            given[self.context_parameter] = ctx
        return given

    def _execute_sync(self, arguments: dict[str, Any], ctx: ToolContext) -> Any:
        return self.function(**self._arguments(arguments, ctx))

    async def _execute_async(self, arguments: dict[str, Any], ctx: ToolContext) -> Any:
        return await self.function(**self._arguments(arguments, ctx))


def _invalid(tool: str, error: ValidationError) -> InvalidArgs:
    problems = []
    for detail in error.errors():
        where = ".".join(str(part) for part in detail.get("loc", ())) or "arguments"
        problems.append(f"{where}: {detail.get('msg', 'invalid')}")
    return InvalidArgs(tool, problems)


def _context_parameter(function: Callable[..., Any]) -> str | None:
    try:
        hints = get_type_hints(function)
    except (NameError, TypeError):
        hints = getattr(function, "__annotations__", {})
    for name, annotation in hints.items():
        if annotation is ToolContext or annotation == "ToolContext":
            return name
    return None


def function_tool(
    function: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    path_arguments: tuple[str, ...] = (),
    command_argument: str | None = None,
    timeout: float | None = None,
    **fields: Any,
) -> RuntimeTool:
    """A `RuntimeTool` from a Python function; ``**fields`` sets `Tool` fields such as
    ``is_dangerous``, ``category`` or ``aliases``."""
    context = _context_parameter(function)
    definition = tool_from_function(function, name=name, description=description,
                                    exclude=(context,) if context else (), **fields)
    return RuntimeTool(definition, FunctionBody(function, context), path_arguments,
                       command_argument, timeout)


@overload
def tool(function: Callable[..., Any], /) -> RuntimeTool: ...
@overload
def tool(*, name: str | None = None, description: str | None = None,
         path_arguments: tuple[str, ...] = (), command_argument: str | None = None,
         timeout: float | None = None, **fields: Any) -> Callable[[Callable[..., Any]],
                                                                   RuntimeTool]: ...
def tool(function: Callable[..., Any] | None = None, /, **options: Any) -> Any:
    """Decorate a function as a `RuntimeTool`: ``@tool`` or ``@tool(is_dangerous=True)``."""
    if function is not None:
        return function_tool(function, **options)
    return lambda decorated: function_tool(decorated, **options)
