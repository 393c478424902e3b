"""A `Tool` from a Python function: its signature becomes the schema, its docstring the words.

The schema comes from pydantic (`pydantic.create_model` over the parameters, so every type
pydantic understands works: ``Literal``, enums, ``Optional``, dataclasses, models, ``Annotated``
with ``Field``). The docstring's first paragraph is the description, the rest of its prose the
``help``, and the ``Args:`` section (Google style), ``:param name:`` lines (Sphinx) or a
``Parameters`` section (NumPy) give each parameter's description.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Collection, Mapping
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, create_model

from .._errors import ToolDefinitionError
from ._tool import Tool

__all__ = ["arguments_model", "tool_from_function"]

_SECTION = re.compile(
    r"^(Args|Arguments|Parameters|Params|Keyword Args|Returns?|Yields?|Raises|Examples?|Notes?"
    r"|See Also|Attributes)\s*:?\s*$"
)
_GOOGLE_ARG = re.compile(r"^(\*{0,2}\w+)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$")
_SPHINX_ARG = re.compile(r"^:param\s+(?:[^:]*\s)?(\w+)\s*:\s*(.*)$")
_UNDERLINE = re.compile(r"^-{3,}\s*$")


def tool_from_function(
    function: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    exclude: Collection[str] = (),
    **fields: Any,
) -> Tool:
    """Describe ``function`` as a tool: its name, docstring and a schema of its parameters.

    ``self``/``cls``, ``*args``/``**kwargs`` and the parameters named in ``exclude`` (filled by
    the program, such as a runtime's context) are left out: a model cannot fill them.
    ``**fields`` sets any other `Tool` field (``category``, ``is_dangerous``...).
    """
    docstring = inspect.getdoc(function) or ""
    summary, prose, argument_docs = _split_docstring(docstring)
    parameters = _parameters_schema(function, argument_docs, frozenset(exclude))
    result_schema = _result_schema(function)
    return Tool(
        name=name or function.__name__,
        description=description if description is not None else summary,
        parameters=parameters,
        help=prose or None,
        result_schema=result_schema,
        **fields,
    )


def _parameters_schema(function: Callable[..., Any], docs: dict[str, str],
                       exclude: frozenset[str]) -> dict[str, Any]:
    model = arguments_model(function, docs, exclude)
    schema: dict[str, Any] = _without_titles(model.model_json_schema())
    return schema


def arguments_model(function: Callable[..., Any], docs: Mapping[str, str] | None = None,
                    exclude: Collection[str] = (), *, strict_keys: bool = False
                    ) -> type[BaseModel]:
    """A pydantic model of ``function``'s parameters (those a model can fill): its JSON Schema
    is the tool's, and validating the model's arguments with it gives the function's types.
    ``strict_keys`` refuses arguments the function has no parameter for."""
    hints = _type_hints(function)
    definitions: dict[str, Any] = {}
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        if parameter.name in ("self", "cls") or parameter.name in exclude:
            continue
        annotation = hints.get(parameter.name, Any)
        default = ... if parameter.default is parameter.empty else parameter.default
        definitions[parameter.name] = (
            annotation, Field(default, description=(docs or {}).get(parameter.name))
        )
    config = ConfigDict(extra="forbid", arbitrary_types_allowed=True) if strict_keys else None
    model: type[BaseModel] = create_model(f"{function.__name__}_arguments", __config__=config,
                                          **definitions)
    return model


def _result_schema(function: Callable[..., Any]) -> dict[str, Any] | None:
    returned = _type_hints(function).get("return")
    if returned is None or returned is type(None) or returned is Any:
        return None
    try:
        schema: dict[str, Any] = _without_titles(TypeAdapter(returned).json_schema())
        return schema
    except Exception:  # noqa: BLE001 - a return type pydantic cannot describe has no schema
        return None


def _type_hints(function: Callable[..., Any]) -> dict[str, Any]:
    try:
        return get_type_hints(function, include_extras=True)
    except (NameError, TypeError) as error:
        raise ToolDefinitionError(
            f"cannot read the type hints of {function.__name__!r} ({error}); import the types "
            "it names at module level, or pass a schema yourself"
        ) from error


def _without_titles(schema: Any) -> Any:
    """pydantic titles every field ("Location"): tokens that tell the model nothing."""
    if isinstance(schema, list):
        return [_without_titles(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    cleaned: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key == "properties" and isinstance(value, dict):
            cleaned[key] = {name: _without_titles(sub) for name, sub in value.items()}
        else:
            cleaned[key] = _without_titles(value)
    return cleaned


def _split_docstring(docstring: str) -> tuple[str, str, dict[str, str]]:
    """(first paragraph, remaining prose, {parameter: description})."""
    lines = docstring.splitlines()
    prose: list[str] = []
    arguments: dict[str, str] = {}
    section, numpy_style, entry_indent, current = "", False, -1, ""
    for index, line in enumerate(lines):
        stripped = line.strip()
        following = lines[index + 1].strip() if index + 1 < len(lines) else ""
        if _SECTION.match(stripped) and (stripped.endswith(":") or _UNDERLINE.match(following)):
            section, numpy_style = stripped.rstrip(":").lower(), not stripped.endswith(":")
            entry_indent, current = -1, ""
            continue
        if _UNDERLINE.match(stripped) or stripped.startswith((":type", ":r")):
            continue
        sphinx = _SPHINX_ARG.match(stripped)
        if sphinx:
            current = sphinx.group(1)
            arguments[current] = sphinx.group(2).strip()
        elif section in _ARGUMENT_SECTIONS and stripped:
            indent = len(line) - len(line.lstrip())
            entry_indent = indent if entry_indent < 0 else entry_indent
            if indent <= entry_indent:
                current = _start_entry(stripped, numpy_style, arguments)
            elif current:
                arguments[current] = " ".join(filter(None, [arguments[current], stripped]))
        elif not section:
            prose.append(line)
    text = "\n".join(prose).strip()
    summary, _, rest = text.partition("\n\n")
    return " ".join(summary.split()), rest.strip(), arguments


_ARGUMENT_SECTIONS = ("args", "arguments", "parameters", "params", "keyword args")


def _start_entry(stripped: str, numpy_style: bool, arguments: dict[str, str]) -> str:
    """Record the parameter an entry line names; returns its name."""
    if numpy_style:
        name = stripped.split(":", 1)[0].strip()
        description = ""
    else:
        match = _GOOGLE_ARG.match(stripped)
        name, description = (match.group(1), match.group(3)) if match else (stripped, "")
    name = name.lstrip("*")
    arguments[name] = description.strip()
    return name
