"""Tool definitions: the `Tool` model, importers from every provider's shape, schema checks.

>>> from toolcalls.tools import from_openai
>>> [tool.name for tool in from_openai([{"type": "function", "function": {"name": "f"}}])]
['f']
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_attributes, lazy_dir

if TYPE_CHECKING:
    from ._calls import CallProblem as CallProblem
    from ._calls import InvalidArgs as InvalidArgs
    from ._calls import NotFound as NotFound
    from ._calls import check_call as check_call
    from ._calls import find_tool as find_tool
    from ._calls import validate_arguments as validate_arguments
    from ._functions import tool_from_function as tool_from_function
    from ._gemini import gemini_schema as gemini_schema
    from ._gemini import json_schema_from_gemini as json_schema_from_gemini
    from ._importers import from_anthropic as from_anthropic
    from ._importers import from_function as from_function
    from ._importers import from_gemini as from_gemini
    from ._importers import from_mcp as from_mcp
    from ._importers import from_openai as from_openai
    from ._importers import import_tools as import_tools
    from ._importers import load_tools as load_tools
    from ._read import to_tools as to_tools
    from ._samples import sample_tools as sample_tools
    from ._samples import sample_toolsets as sample_toolsets
    from ._schema import schema_problem as schema_problem
    from ._tool import Tool as Tool
    from ._typescript import schema_to_typescript as schema_to_typescript
    from ._typescript import typescript_namespace as typescript_namespace

# pydantic and jsonschema load on first use (see `toolcalls._lazy`).
_LAZY = {
    "to_tools": "._read",
    "tool_from_function": "._functions",
    "gemini_schema": "._gemini",
    "json_schema_from_gemini": "._gemini",
    **dict.fromkeys(
        ["CallProblem", "InvalidArgs", "NotFound", "check_call", "find_tool",
         "validate_arguments"],
        "._calls",
    ),
    **dict.fromkeys(
        ["from_anthropic", "from_function", "from_gemini", "from_mcp", "from_openai",
         "import_tools", "load_tools"],
        "._importers",
    ),
    "sample_tools": "._samples",
    "sample_toolsets": "._samples",
    "schema_problem": "._schema",
    "Tool": "._tool",
    "schema_to_typescript": "._typescript",
    "typescript_namespace": "._typescript",
}
__all__ = sorted(_LAZY)
__getattr__ = lazy_attributes(__name__, _LAZY)
__dir__ = lazy_dir(__name__, _LAZY)
