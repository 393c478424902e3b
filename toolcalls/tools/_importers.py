"""Tool definitions in, from every provider's shape.

Importers: `from_openai` (Chat Completions and Responses), `from_anthropic`, `from_gemini`
(``functionDeclarations``, OpenAPI-subset schemas with uppercase types), `from_mcp`
(``tools/list`` results) and `from_function` (a Python function's signature and docstring,
through pydantic). `import_tools` picks the right one for whatever it is given; `load_tools`
reads a JSON file of any of these shapes. Parsed calls are checked against them in
`toolcalls.tools._calls`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .._errors import ToolDefinitionError
from ._functions import tool_from_function
from ._gemini import json_schema_from_gemini
from ._schema import nesting_problem
from ._tool import OPTIONAL_FIELDS, Tool, check_unique_names

__all__ = [
    "from_anthropic",
    "from_function",
    "from_gemini",
    "from_mcp",
    "from_openai",
    "import_tools",
    "load_tools",
]

from_function = tool_from_function


# --- importers ----------------------------------------------------------------------------------


def from_openai(tools: Mapping[str, Any] | Iterable[Mapping[str, Any]]) -> list[Tool]:
    """Function tools in OpenAI's Chat Completions or Responses shape (one or a list).

    Chat Completions nests the function (``{"type": "function", "function": {...}}``), the
    Responses API flattens it (``{"type": "function", "name": ..., "parameters": ...}``).
    Built-in tools (``web_search``, ``file_search``...) have no schema and are refused.
    """
    return [_openai_tool(tool, position) for position, tool in _positions(tools)]


def _openai_tool(tool: Mapping[str, Any], position: int) -> Tool:
    kind = tool.get("type", "function")
    if kind != "function":
        raise _at(position, f"OpenAI tool type {kind!r} is built in, not a function tool")
    function = tool.get("function", tool)
    if not isinstance(function, Mapping):
        raise _at(position, "'function' must be an object with name, description, parameters")
    return _tool(position, name=function.get("name"), description=function.get("description"),
                 parameters=function.get("parameters"), **_own_fields(tool, function))


def from_anthropic(tools: Mapping[str, Any] | Iterable[Mapping[str, Any]]) -> list[Tool]:
    """Client tools of Anthropic's Messages API: ``{"name", "description", "input_schema"}``."""
    return [_anthropic_tool(tool, position) for position, tool in _positions(tools)]


def _anthropic_tool(tool: Mapping[str, Any], position: int) -> Tool:
    if "input_schema" not in tool:
        kind = tool.get("type", "?")
        raise _at(position, f"Anthropic tool of type {kind!r} has no input_schema (a server "
                            "tool such as web_search runs at Anthropic, not here)")
    return _tool(position, name=tool.get("name"), description=tool.get("description"),
                 parameters=tool["input_schema"], **_own_fields(tool))


def from_gemini(tools: Any) -> list[Tool]:
    """Gemini function declarations, their schemas converted to JSON Schema.

    Accepts ``[{"functionDeclarations": [...]}]`` (the request's ``tools``), one such object,
    or a bare list of declarations; ``function_declarations`` spelled the Python way works
    too. ``parametersJsonSchema`` is taken as is; ``parameters`` (the OpenAPI subset, with
    ``OBJECT``-style types and ``nullable``) is converted.
    """
    return [_gemini_tool(declaration, position)
            for position, declaration in enumerate(_gemini_declarations(tools))]


def _gemini_declarations(tools: Any) -> list[Mapping[str, Any]]:
    groups = [tools] if isinstance(tools, Mapping) else list(tools)
    declarations: list[Mapping[str, Any]] = []
    for group in groups:
        nested = group.get("functionDeclarations", group.get("function_declarations"))
        if isinstance(nested, list):
            declarations.extend(nested)
        elif "name" in group:
            declarations.append(group)
    return declarations


def _gemini_tool(declaration: Mapping[str, Any], position: int) -> Tool:
    deep = nesting_problem(declaration.get("parameters"))  # converted by recursion, below
    if deep is not None:
        raise _at(position, f"tool {declaration.get('name')!r}: {deep}")
    if "parametersJsonSchema" in declaration:
        parameters = declaration["parametersJsonSchema"]
    elif "parameters" in declaration:
        parameters = json_schema_from_gemini(declaration["parameters"])
    else:
        parameters = None
    result = declaration.get("responseJsonSchema")
    if result is None and "response" in declaration:
        result = json_schema_from_gemini(declaration["response"])
    return _tool(position, name=declaration.get("name"),
                 description=declaration.get("description"), parameters=parameters,
                 result_schema=result)


def from_mcp(tools: Any, *, server: str | None = None, prefix: str = "") -> list[Tool]:
    """Tools of an MCP ``tools/list`` result (``{"tools": [...]}``) or a list of them.

    ``server`` becomes each tool's ``source``; ``prefix`` goes before each tool's name
    (``prefix="github_"``: ``github_search``), so that two servers' tools of one name stay
    apart (two tools of one name are a `ToolDefinitionError`). ``outputSchema`` becomes
    ``result_schema`` and ``title`` the category when there is none. A tool is dangerous when
    its annotations say it may destroy something: ``destructiveHint`` true, or
    ``readOnlyHint`` false without a ``destructiveHint`` (the MCP default is "destructive").
    Without annotations nothing is known, and ``is_dangerous`` stays False.
    """
    listed = tools.get("tools") if isinstance(tools, Mapping) else tools
    if not isinstance(listed, list):
        raise ToolDefinitionError("expected an MCP tools/list result: {'tools': [...]}")
    return _prefixed([_mcp_tool(tool, position, server) for position, tool in enumerate(listed)],
                     prefix)


def _mcp_tool(tool: Mapping[str, Any], position: int, server: str | None) -> Tool:
    schema = tool.get("inputSchema", tool.get("parameters"))
    annotations = tool.get("annotations") or {}
    own = _own_fields(tool)
    return _tool(position, name=tool.get("name"), description=tool.get("description"),
                 parameters=schema, result_schema=tool.get("outputSchema"),
                 **{"source": server or "builtin", "is_dangerous": _mcp_dangerous(annotations),
                    **own})


def _mcp_dangerous(annotations: Mapping[str, Any]) -> bool:
    if annotations.get("readOnlyHint") is True:
        return False
    if "destructiveHint" in annotations:
        return annotations["destructiveHint"] is True
    return annotations.get("readOnlyHint") is False


def import_tools(tools: Any, *, source: str | None = None, prefix: str = "") -> list[Tool]:
    """Tools from any supported shape: OpenAI, Anthropic, Gemini, MCP, functions, `Tool`,
    or a `ToolSource` (the runtime's `ToolRegistry`).

    A list may mix shapes. ``source`` (an MCP server name) is stamped on tools that do not say;
    ``prefix`` goes before every name (see `from_mcp`). Two tools of one name raise
    `ToolDefinitionError`, naming both: providers refuse such a request.
    """
    if tools is None:
        return []
    held = getattr(tools, "__toolcalls_tools__", None)
    if held is not None:  # a `ToolSource` such as the runtime's registry
        tools = list(held())
    if isinstance(tools, Mapping):
        if "functionDeclarations" in tools or "function_declarations" in tools:
            return _checked(_with_source(from_gemini(tools), source), prefix)
        if isinstance(tools.get("tools"), list):
            return import_tools(tools["tools"], source=source, prefix=prefix)
        tools = [tools]
    imported: list[Tool] = []
    for position, tool in enumerate(tools):
        imported.extend(_import_one(tool, position))
    return _checked(_with_source(imported, source), prefix)


def _checked(tools: list[Tool], prefix: str) -> list[Tool]:
    tools = _prefixed(tools, prefix)
    check_unique_names(tools)
    return tools


def _prefixed(tools: list[Tool], prefix: str) -> list[Tool]:
    if not prefix:
        return tools
    return [tool.model_copy(update={"name": prefix + tool.name}) for tool in tools]


def load_tools(path: str | Path, *, source: str | None = None, prefix: str = "") -> list[Tool]:
    """Tools from a JSON file: any shape `import_tools` reads, or an MCP ``tools/list`` reply.

    Raises `ToolDefinitionError` when the file cannot be read or is not JSON.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise ToolDefinitionError(f"cannot read tools file {str(path)!r}: {error.strerror}"
                                  ) from None
    except ValueError as error:
        raise ToolDefinitionError(f"tools file {str(path)!r} is not valid JSON: {error}"
                                  ) from None
    if isinstance(data, Mapping) and isinstance(data.get("result"), Mapping):
        data = data["result"]  # a JSON-RPC response to tools/list
    return import_tools(data, source=source, prefix=prefix)


def _import_one(tool: Any, position: int) -> list[Tool]:
    if isinstance(tool, Tool):
        return [tool]
    if callable(tool) and not isinstance(tool, Mapping):
        return [from_function(tool)]
    if not isinstance(tool, Mapping):
        raise _at(position, f"expected a tool definition, got {type(tool).__name__}")
    if "functionDeclarations" in tool or "function_declarations" in tool:
        return from_gemini(tool)
    if "inputSchema" in tool:
        return [_mcp_tool(tool, position, None)]
    if "input_schema" in tool:
        return [_anthropic_tool(tool, position)]
    if "type" in tool and tool.get("type") != "function":
        raise _at(position, f"tool type {tool.get('type')!r} is a provider's built-in tool")
    return [_openai_tool(tool, position)]


def _with_source(tools: list[Tool], source: str | None) -> list[Tool]:
    if source is None:
        return tools
    return [t if t.source != "builtin" else t.model_copy(update={"source": source})
            for t in tools]


def _own_fields(*definitions: Mapping[str, Any]) -> dict[str, Any]:
    """The `Tool` fields no provider defines (``aliases``, ``help``...) that the definitions
    carry, kept (a raw dict with ``"aliases": [...]``); an inner one (OpenAI's ``function``)
    wins."""
    return {key: definition[key] for definition in definitions for key in OPTIONAL_FIELDS
            if key in definition}


def _tool(position: int, **fields: Any) -> Tool:
    if not isinstance(fields.get("name"), str) or not fields["name"]:
        raise _at(position, "a tool needs a non-empty 'name'")
    present = {key: value for key, value in fields.items() if value is not None}
    try:
        return Tool(**present)
    except ToolDefinitionError as error:
        raise _at(position, str(error)) from None
    except ValidationError as error:  # a field of the wrong type: the library's own error
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())
        raise _at(position, problems) from None


def _positions(tools: Mapping[str, Any] | Iterable[Mapping[str, Any]]
               ) -> Iterable[tuple[int, Mapping[str, Any]]]:
    return enumerate([tools] if isinstance(tools, Mapping) else list(tools))


def _at(position: int, problem: str) -> ToolDefinitionError:
    return ToolDefinitionError(f"tool #{position}: {problem}")
