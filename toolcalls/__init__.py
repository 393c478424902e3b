"""toolcalls: every model's tool calls, from whole text or a stream, into one `ToolCall`.

>>> import toolcalls
>>> text = '<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>'
>>> result = toolcalls.parse(text, "hermes")
>>> result.calls[0].name, result.calls[0].arguments
('f', {'x': 1})
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from ._api import Parser as Parser
from ._api import parse as parse
from ._api import parser as parser
from ._api import stream as stream
from ._api import to_tools as to_tools
from ._errors import EncodingError as EncodingError
from ._errors import IncompleteToolCallError as IncompleteToolCallError
from ._errors import InvalidArgumentsError as InvalidArgumentsError
from ._errors import ParseError as ParseError
from ._errors import ToolCallsError as ToolCallsError
from ._errors import ToolDefinitionError as ToolDefinitionError
from ._errors import ToolNotFoundError as ToolNotFoundError
from ._errors import UnknownFormatError as UnknownFormatError
from ._errors import UnknownToolError as UnknownToolError
from ._events import ArgumentsDelta as ArgumentsDelta
from ._events import Event as Event
from ._events import ReasoningDelta as ReasoningDelta
from ._events import TextDelta as TextDelta
from ._events import ToolCallEnd as ToolCallEnd
from ._events import ToolCallFailed as ToolCallFailed
from ._events import ToolCallStart as ToolCallStart
from ._registry import detect as detect
from ._registry import get_format as get_format
from ._registry import list_formats as list_formats

if TYPE_CHECKING:  # what type checkers see; at run time these load on first use (below)
    from ._engine import Engine as StreamParser
    from ._models import IncompleteCall as IncompleteCall
    from ._models import ParseIssue as ParseIssue
    from ._models import ParseResult as ParseResult
    from ._models import Tool as Tool
    from ._models import ToolCall as ToolCall

# The models and the engine are built on pydantic, which alone costs ~150 ms to import (more
# than the whole budget for `import toolcalls`): they load on first use, as `toolcalls.X`.
_LAZY_CORE: dict[str, tuple[str, str]] = {
    "IncompleteCall": ("_models", "IncompleteCall"),
    "ParseIssue": ("_models", "ParseIssue"),
    "ParseResult": ("_models", "ParseResult"),
    "StreamParser": ("_engine", "Engine"),
    "Tool": ("_models", "Tool"),
    "ToolCall": ("_models", "ToolCall"),
}

# The adapt half (tokenizers, schema validation) loads on first use: `import toolcalls` stays light.
_LAZY: dict[str, str] = {
    "Plan": "_budget",
    "choose": "_budget",
    "compact_tool": "_budget",
    "native_call_message": "_native",
    "native_result_message": "_native",
    "native_result_messages": "_native",
    "render_native": "_native",
    "tools_from_native": "_native",
    "Profile": "_profiles",
    "select_mode": "_profiles",
    "BudgetReport": "_render",
    "Rendering": "_render",
    "budget_report": "_render",
    "render": "_render",
    "ToolIndex": "_search",
    "Activation": "_session",
    "Session": "_session",
    "TiktokenCounter": "_tokens",
    "TokenCounter": "_tokens",
    "count_anthropic_tools": "_tokens",
    "count_openai_tools": "_tokens",
    "count_tokens": "_tokens",
    "get_encoding": "_tokens",
    "openai_tools_text": "_tokens",
    "InvalidArgs": "_tools",
    "NotFound": "_tools",
    "check_call": "_tools",
    "from_anthropic": "_tools",
    "from_function": "_tools",
    "from_gemini": "_tools",
    "from_mcp": "_tools",
    "from_openai": "_tools",
    "import_tools": "_tools",
    "load_tools": "_tools",
    "validate_arguments": "_tools",
    "truncate_result": "_truncate",
}

__all__ = [
    "Activation",
    "ArgumentsDelta",
    "BudgetReport",
    "EncodingError",
    "Event",
    "IncompleteCall",
    "IncompleteToolCallError",
    "InvalidArgs",
    "InvalidArgumentsError",
    "NotFound",
    "ParseError",
    "ParseIssue",
    "ParseResult",
    "Parser",
    "Plan",
    "Profile",
    "ReasoningDelta",
    "Rendering",
    "Session",
    "StreamParser",
    "TextDelta",
    "TiktokenCounter",
    "TokenCounter",
    "Tool",
    "ToolCall",
    "ToolCallEnd",
    "ToolCallFailed",
    "ToolCallStart",
    "ToolCallsError",
    "ToolDefinitionError",
    "ToolIndex",
    "ToolNotFoundError",
    "UnknownFormatError",
    "UnknownToolError",
    "budget_report",
    "check_call",
    "choose",
    "compact_tool",
    "count_anthropic_tools",
    "count_openai_tools",
    "count_tokens",
    "detect",
    "from_anthropic",
    "from_function",
    "from_gemini",
    "from_mcp",
    "from_openai",
    "get_encoding",
    "get_format",
    "import_tools",
    "list_formats",
    "load_tools",
    "native_call_message",
    "native_result_message",
    "native_result_messages",
    "openai_tools_text",
    "parse",
    "parser",
    "render",
    "render_native",
    "select_mode",
    "stream",
    "to_tools",
    "tools_from_native",
    "truncate_result",
    "validate_arguments",
]


def __getattr__(name: str) -> object:
    if name in _LAZY_CORE:
        module, attribute = _LAZY_CORE[name]
        value = getattr(importlib.import_module(f"toolcalls.{module}"), attribute)
        _name_as_public(value)
    elif name in _LAZY:
        value = getattr(importlib.import_module(f"toolcalls.{_LAZY[name]}"), name)
    else:
        raise AttributeError(f"module 'toolcalls' has no attribute {name!r}")
    globals()[name] = value
    return value


def _name_as_public(obj: object) -> None:
    """Show a core object as ``toolcalls.X`` (its reprs, docs, pickles), not a private module."""
    if getattr(obj, "__module__", "").startswith("toolcalls."):
        try:
            obj.__module__ = "toolcalls"
        except (AttributeError, TypeError):
            pass


for _name in (n for n in __all__ if n not in _LAZY and n not in _LAZY_CORE):
    _name_as_public(globals()[_name])
