"""Run the calls: tools with bodies, a registry, permissions, limits and an executor.

>>> import asyncio
>>> from toolcalls import ToolCall
>>> from toolcalls.runtime import ToolContext, tool
>>> @tool
... def add(a: int, b: int) -> int:
...     "Add two numbers."
...     return a + b
>>> asyncio.run(add.run({"a": 2, "b": 3}, ToolContext("call_1", "add"))).value()
5
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_attributes

if TYPE_CHECKING:
    from ._context import CancelToken as CancelToken
    from ._context import ToolContext as ToolContext
    from ._history import UnansweredResultError as UnansweredResultError
    from ._history import result_messages as result_messages
    from ._history import result_text as result_text
    from ._results import Cancelled as Cancelled
    from ._results import Denied as Denied
    from ._results import Failed as Failed
    from ._results import InvalidArgs as InvalidArgs
    from ._results import Json as Json
    from ._results import NotFound as NotFound
    from ._results import RateLimited as RateLimited
    from ._results import Text as Text
    from ._results import TimedOut as TimedOut
    from ._results import ToolError as ToolError
    from ._results import ToolImage as ToolImage
    from ._results import ToolResult as ToolResult
    from ._tool import RuntimeTool as RuntimeTool
    from ._tool import ToolBody as ToolBody
    from ._tool import function_tool as function_tool
    from ._tool import tool as tool
    from .builtins import WorkingDirectoryError as WorkingDirectoryError
    from .builtins import builtin_tools as builtin_tools

# pydantic loads on first use (see `toolcalls._lazy`).
_LAZY = {
    **dict.fromkeys(["CancelToken", "ToolContext"], "._context"),
    **dict.fromkeys(
        ["Cancelled", "Denied", "Failed", "InvalidArgs", "Json", "NotFound", "RateLimited",
         "Text", "TimedOut", "ToolError", "ToolImage", "ToolResult"],
        "._results",
    ),
    **dict.fromkeys(["RuntimeTool", "ToolBody", "function_tool", "tool"], "._tool"),
    **dict.fromkeys(["UnansweredResultError", "result_messages", "result_text"], "._history"),
    **dict.fromkeys(["WorkingDirectoryError", "builtin_tools"], ".builtins"),
}
__all__ = sorted(_LAZY)
__getattr__ = lazy_attributes(__name__, _LAZY)
