"""`Tool`: a tool the model may call, from any provider's definition (pydantic v2)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .._errors import ToolDefinitionError
from ._refs import property_schema
from ._schema import nesting_problem, python_type_names_fixed, schema_problem

__all__ = ["OPTIONAL_FIELDS", "Tool", "check_unique_names"]

_EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}
_READING_A_DEFINITION: ContextVar[bool] = ContextVar("_READING_A_DEFINITION", default=False)
"""Set while `Tool.model_validate` reads a definition, whose extra keys are the provider's."""
OPTIONAL_FIELDS = ("help", "category", "source", "aliases", "is_dangerous")
"""Fields a definition may carry beside its schema, in any shape the importers read."""


@contextmanager
def _definition_errors() -> Iterator[None]:
    """Let a `ToolDefinitionError` raised inside validation out as itself.

    pydantic wraps any ValueError raised by a validator into a ValidationError; a broken
    schema is reported as the library's own typed error instead.
    """
    try:
        yield
    except ValidationError as error:
        for detail in error.errors():
            cause = detail.get("ctx", {}).get("error")
            if isinstance(cause, ToolDefinitionError):
                raise cause from None
        raise


def _not_a_schema(name: Any, schema: Any) -> str:
    what = "false (a schema no arguments satisfy)" if schema is False else type(schema).__name__
    return (f"tool {name!r}: parameters must be a JSON Schema object, not {what}; a tool "
            'without arguments has {"type": "object", "properties": {}}')


class Tool(BaseModel):
    """A tool the model may call.

    Accepts an OpenAI function tool (``{"type": "function", "function": {...}}``), an Anthropic
    tool (``input_schema``), an MCP tool (``inputSchema``, ``outputSchema``) or a bare
    ``{"name", "description", "parameters"}`` mapping; `toolcalls.tools` has importers for
    Gemini declarations and Python functions. ``parameters`` must be a valid JSON Schema of an
    object: a broken one raises `ToolDefinitionError` saying what to fix. ``true`` (the schema
    that accepts anything) reads as ``{}``; ``false``, a string, a list or a number raise
    `ToolDefinitionError` too.
    """

    model_config = ConfigDict(frozen=True)

    name: str
    """The name the model uses to call the tool."""
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: dict(_EMPTY_SCHEMA))
    """JSON Schema of the arguments object."""
    help: str | None = None
    """Longer usage notes, for when the model asks (lazy tool search) rather than every prompt."""
    result_schema: dict[str, Any] | None = None
    """JSON Schema of what the tool returns (MCP ``outputSchema``)."""
    category: str | None = None
    """A grouping such as ``files`` or ``issues``, for indexes and search."""
    source: str = "builtin"
    """``builtin``, or the name of the MCP server the tool came from."""
    aliases: tuple[str, ...] = ()
    """Other names the model may use for this tool; a call by alias is a call to this tool."""
    is_dangerous: bool = False
    """It changes or destroys something outside the conversation: hosts may confirm first."""

    def __init__(self, /, **data: Any) -> None:
        unknown = sorted(set(data) - _KEYWORDS)
        if unknown and not _READING_A_DEFINITION.get():  # a misspelt field would vanish
            raise ToolDefinitionError(_unknown_fields(data.get("name"), unknown))
        with _definition_errors():
            super().__init__(**data)

    @classmethod
    def model_validate(cls, obj: Any, *args: Any, **kwargs: Any) -> Self:
        # pydantic runs __init__ with the definition's keys: a provider's own are not typos.
        reading = _READING_A_DEFINITION.set(True)
        try:
            with _definition_errors():
                return super().model_validate(obj, *args, **kwargs)
        finally:
            _READING_A_DEFINITION.reset(reading)

    @model_validator(mode="before")
    @classmethod
    def _unwrap_provider_shapes(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        if data.get("type") == "function" and isinstance(data.get("function"), dict):
            data = data["function"]
        schema = data.get("parameters", data.get("input_schema", data.get("inputSchema")))
        shaped = {"name": data.get("name"), "description": data.get("description") or ""}
        if schema is True:  # the JSON Schema that accepts anything, as {} does
            schema = {}
        elif schema is not None and not isinstance(schema, dict):
            raise ToolDefinitionError(_not_a_schema(data.get("name"), schema))
        for what, given in (("parameters", schema),
                            ("result_schema", data.get("result_schema", data.get("outputSchema")))):
            deep = nesting_problem(given, what)
            if deep is not None:
                raise ToolDefinitionError(f"tool {data.get('name')!r}: {deep}")
        if schema is not None:
            shaped["parameters"] = python_type_names_fixed(schema)
        result_schema = data.get("result_schema", data.get("outputSchema"))
        if result_schema is not None:
            shaped["result_schema"] = result_schema
        shaped.update({key: data[key] for key in OPTIONAL_FIELDS if key in data})
        return shaped

    @model_validator(mode="after")
    def _check_parameters_schema(self) -> Self:
        problem = schema_problem(self.parameters)
        if problem is not None:
            raise ToolDefinitionError(f"tool {self.name!r}: {problem}")
        return self

    def all_names(self) -> tuple[str, ...]:
        """The name followed by the aliases: every name a call may use for this tool."""
        return (self.name, *self.aliases)

    def property_schema(self, argument: str) -> dict[str, Any] | None:
        """The JSON Schema of one argument, or None when the tool does not declare it."""
        return property_schema(self.parameters, argument)


_PROVIDER_KEYWORDS = ("type", "function", "input_schema", "inputSchema", "outputSchema")
"""Keys of the provider shapes `Tool` reads (see its docstring), accepted as keywords too."""
_KEYWORDS = frozenset((*Tool.model_fields, *_PROVIDER_KEYWORDS))


def _unknown_fields(name: object, unknown: list[str]) -> str:
    known = ", ".join(Tool.model_fields)
    return (f"Tool({name!r}): no field {', '.join(map(repr, unknown))}; a Tool has {known}. "
            "A provider's tool definition with keys of its own (strict, cache_control, "
            "annotations...) reads with Tool.model_validate(definition) or "
            "toolcalls.to_tools([...]), which keep what a Tool holds")


def check_unique_names(tools: Sequence[Tool]) -> None:
    """Raise `ToolDefinitionError` when two of `tools` have one name.

    Providers refuse a request that declares two functions of one name, and a call to it could
    not say which of the two to run: two MCP servers that each have ``search`` must not be
    merged into one silently. The message names both and how to tell them apart.
    """
    first: dict[str, int] = {}
    for position, tool in enumerate(tools):
        earlier = first.setdefault(tool.name, position)
        if earlier != position:
            raise ToolDefinitionError(_same_name(tools[earlier], earlier, tool, position))


def _same_name(one: Tool, one_at: int, other: Tool, other_at: int) -> str:
    name = one.name
    if one == other:
        return (f"tool {name!r} is given twice (tools #{one_at} and #{other_at}): give it once")
    if one.source != other.source:
        fix = (f"prefix each server's tool names, as from_mcp(listing, server={other.source!r}, "
               f"prefix={(other.source + '_')!r}) does")
    else:
        fix = "rename one of them"
    return (f"two tools are named {name!r}: tool #{one_at} ({_origin(one)}) and tool #{other_at} "
            f"({_origin(other)}); a provider refuses a request with two functions of one name, "
            f"and a call to {name!r} could not say which one to run: {fix}")


def _origin(tool: Tool) -> str:
    return "built in" if tool.source == "builtin" else f"from {tool.source!r}"


# Shown as ``toolcalls.Tool`` (reprs, docs, pickles) however it is reached: `toolcalls` exports
# it, but loads this module on first use, not at import (it needs pydantic).
Tool.__module__ = "toolcalls"
