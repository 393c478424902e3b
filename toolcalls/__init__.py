"""toolcalls: every model's tool calls, from whole text or a stream, into one `ToolCall`.

>>> import toolcalls
>>> text = '<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>'
>>> result = toolcalls.parse(text, "hermes")
>>> result.calls[0].name, result.calls[0].arguments
('f', {'x': 1})
"""

from __future__ import annotations

from ._api import parse as parse
from ._api import stream as stream
from ._api import to_tools as to_tools
from ._engine import Engine as StreamParser
from ._errors import IncompleteToolCallError as IncompleteToolCallError
from ._errors import InvalidArgumentsError as InvalidArgumentsError
from ._errors import ParseError as ParseError
from ._errors import ToolCallsError as ToolCallsError
from ._errors import ToolDefinitionError as ToolDefinitionError
from ._errors import UnknownFormatError as UnknownFormatError
from ._errors import UnknownToolError as UnknownToolError
from ._events import ArgumentsDelta as ArgumentsDelta
from ._events import Event as Event
from ._events import ReasoningDelta as ReasoningDelta
from ._events import TextDelta as TextDelta
from ._events import ToolCallEnd as ToolCallEnd
from ._events import ToolCallFailed as ToolCallFailed
from ._events import ToolCallStart as ToolCallStart
from ._models import IncompleteCall as IncompleteCall
from ._models import ParseIssue as ParseIssue
from ._models import ParseResult as ParseResult
from ._models import Tool as Tool
from ._models import ToolCall as ToolCall
from ._registry import detect as detect
from ._registry import get_format as get_format
from ._registry import list_formats as list_formats

__all__ = [
    "ArgumentsDelta",
    "Event",
    "IncompleteCall",
    "IncompleteToolCallError",
    "InvalidArgumentsError",
    "ParseError",
    "ParseIssue",
    "ParseResult",
    "ReasoningDelta",
    "StreamParser",
    "TextDelta",
    "Tool",
    "ToolCall",
    "ToolCallEnd",
    "ToolCallFailed",
    "ToolCallStart",
    "ToolCallsError",
    "ToolDefinitionError",
    "UnknownFormatError",
    "UnknownToolError",
    "detect",
    "get_format",
    "list_formats",
    "parse",
    "stream",
    "to_tools",
]

for _name in __all__:
    _obj = globals()[_name]
    if getattr(_obj, "__module__", "").startswith("toolcalls."):
        try:
            _obj.__module__ = "toolcalls"
        except (AttributeError, TypeError):
            pass
