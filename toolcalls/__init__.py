"""toolcalls: every model's tool calls, from whole text or a stream, into one `ToolCall`.

>>> import toolcalls
>>> text = '<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>'
>>> result = toolcalls.parse(text, "hermes")
>>> result.calls[0].name, result.calls[0].arguments
('f', {'x': 1})

The top level holds what a program that parses, streams and reads provider responses touches,
each name once. The rest lives in subpackages named for what they hold, each reached as an
attribute after ``import toolcalls``: `toolcalls.parsing` (the compiled core and its formats),
`toolcalls.tools` (tool definitions and importers), `toolcalls.providers` (each provider API's
JSON shapes and response readers), `toolcalls.budget` (rendering tools, token counts, budgets,
sessions, tool search), `toolcalls.decoding` (grammars for constrained decoding) and
`toolcalls.cli`; `toolcalls.runtime`, `toolcalls.serve`, `toolcalls.arrow` and
`toolcalls.testing` are imported by name (extras).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._errors import (
    IncompleteToolCallError,
    InvalidArgumentsError,
    ParseError,
    ToolCallsError,
    ToolDefinitionError,
    ToolNotFoundError,
    UnknownFormatError,
    UnknownToolError,
)
from ._lazy import lazy_attributes, lazy_dir, show_as
from ._version import __version__ as __version__
from .parsing import (
    ArgumentsDelta,
    Event,
    Parser,
    ReasoningDelta,
    TextDelta,
    ToolCallEnd,
    ToolCallFailed,
    ToolCallStart,
    detect,
    get_format,
    list_formats,
    parse,
    parser,
    stream,
    to_tools,
)

if TYPE_CHECKING:  # what type checkers see; at run time these load on first use (below)
    from . import budget as budget
    from . import cli as cli
    from . import decoding as decoding
    from . import providers as providers
    from . import tools as tools
    from .parsing._models import IncompleteCall as IncompleteCall
    from .parsing._models import ParseIssue as ParseIssue
    from .parsing._models import ParseResult as ParseResult
    from .parsing._models import ToolCall as ToolCall
    from .parsing.stream import StreamParser as StreamParser
    from .providers._response_reader import read_response as read_response
    from .providers._stream_reader import read_stream as read_stream
    from .tools._tool import Tool as Tool

# pydantic alone costs ~150 ms to import (the whole budget of `import toolcalls`), tiktoken and
# jsonschema more: the models and the subpackages load on first use.
_LAZY = {
    "IncompleteCall": ".parsing._models",
    "ParseIssue": ".parsing._models",
    "ParseResult": ".parsing._models",
    "StreamParser": ".parsing.stream",
    "Tool": ".tools._tool",
    "ToolCall": ".parsing._models",
    "read_response": ".providers._response_reader",
    "read_stream": ".providers._stream_reader",
    "budget": ".budget",
    "cli": ".cli",
    "decoding": ".decoding",
    "providers": ".providers",
    "tools": ".tools",
}
__getattr__ = lazy_attributes(__name__, _LAZY)
__dir__ = lazy_dir(__name__, _LAZY)


__all__ = [
    "ArgumentsDelta",
    "Event",
    "IncompleteCall",
    "IncompleteToolCallError",
    "InvalidArgumentsError",
    "ParseError",
    "ParseIssue",
    "ParseResult",
    "Parser",
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
    "ToolNotFoundError",
    "UnknownFormatError",
    "UnknownToolError",
    "detect",
    "get_format",
    "list_formats",
    "parse",
    "parser",
    "read_response",
    "read_stream",
    "stream",
    "to_tools",
]

for _name in __all__:
    if _name not in _LAZY and _name[0].isupper():
        show_as(__name__, globals()[_name])
