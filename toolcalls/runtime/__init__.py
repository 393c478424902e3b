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

from .._lazy import lazy_attributes, lazy_dir

if TYPE_CHECKING:
    from ._agent import Agent as Agent
    from ._agent import AgentError as AgentError
    from ._agent import AgentEvent as AgentEvent
    from ._agent import AgentResult as AgentResult
    from ._agent import ApprovalNeeded as ApprovalNeeded
    from ._agent import Finished as Finished
    from ._agent import ResponseRead as ResponseRead
    from ._agent import Step as Step
    from ._agent import ToolFinished as ToolFinished
    from ._availability import Availability as Availability
    from ._availability import AvailabilityError as AvailabilityError
    from ._availability import UnmatchedToolPattern as UnmatchedToolPattern
    from ._availability import check_availability as check_availability
    from ._availability import resolve_availability as resolve_availability
    from ._context import CancelToken as CancelToken
    from ._context import ToolContext as ToolContext
    from ._dynamic import DynamicTools as DynamicTools
    from ._executor import Batch as Batch
    from ._executor import Batched as Batched
    from ._executor import Executor as Executor
    from ._executor import ExecutorError as ExecutorError
    from ._executor import Parallel as Parallel
    from ._executor import Sequential as Sequential
    from ._executor import Strategy as Strategy
    from ._history import UnansweredResultError as UnansweredResultError
    from ._history import result_messages as result_messages
    from ._history import result_text as result_text
    from ._hooks import BeforeAction as BeforeAction
    from ._hooks import HookConfigError as HookConfigError
    from ._hooks import Hooks as Hooks
    from ._limits import LimitSyntaxError as LimitSyntaxError
    from ._limits import LoopGuard as LoopGuard
    from ._limits import RateLimit as RateLimit
    from ._limits import RateLimiter as RateLimiter
    from ._limits import SharedLimit as SharedLimit
    from ._mcp import McpServer as McpServer
    from ._mcp_errors import McpConnectError as McpConnectError
    from ._mcp_errors import McpSetupError as McpSetupError
    from ._models import AnthropicModel as AnthropicModel
    from ._models import GeminiModel as GeminiModel
    from ._models import Model as Model
    from ._models import ModelRequest as ModelRequest
    from ._models import ModelSetupError as ModelSetupError
    from ._models import OllamaModel as OllamaModel
    from ._models import OpenAIChatModel as OpenAIChatModel
    from ._openapi import OpenApiTools as OpenApiTools
    from ._openapi_auth import ApiKeyAuth as ApiKeyAuth
    from ._openapi_auth import BasicAuth as BasicAuth
    from ._openapi_auth import BearerAuth as BearerAuth
    from ._openapi_load import OpenApiError as OpenApiError
    from ._openapi_schema import SkippedOperation as SkippedOperation
    from ._permissions import Answer as Answer
    from ._permissions import PendingApproval as PendingApproval
    from ._permissions import PermissionRuleError as PermissionRuleError
    from ._permissions import Permissions as Permissions
    from ._permissions import Trust as Trust
    from ._permissions import Verdict as Verdict
    from ._prompt_model import PromptModel as PromptModel
    from ._prompt_model import ScriptedModel as ScriptedModel
    from ._registry import ToolNameError as ToolNameError
    from ._registry import ToolRegistry as ToolRegistry
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
    from ._toolkits import Directive as Directive
    from ._toolkits import Toolkit as Toolkit
    from ._toolkits import ToolkitConfig as ToolkitConfig
    from ._toolkits import ToolkitError as ToolkitError
    from ._toolkits import directive_for as directive_for
    from ._toolkits import resolve_toolkits as resolve_toolkits
    from ._toolkits import system_sections as system_sections
    from ._truncate import truncate_result as truncate_result
    from .builtins import WorkingDirectoryError as WorkingDirectoryError
    from .builtins import builtin_tools as builtin_tools

# pydantic loads on first use (see `toolcalls._lazy`).
_LAZY = {
    **dict.fromkeys(["Agent", "AgentError", "AgentEvent", "AgentResult", "ApprovalNeeded",
                     "Finished", "ResponseRead", "Step", "ToolFinished"], "._agent"),
    **dict.fromkeys(["AnthropicModel", "GeminiModel", "Model", "ModelRequest",
                     "ModelSetupError", "OllamaModel", "OpenAIChatModel"], "._models"),
    **dict.fromkeys(["PromptModel", "ScriptedModel"], "._prompt_model"),
    **dict.fromkeys(["McpServer"], "._mcp"),
    **dict.fromkeys(["McpConnectError", "McpSetupError"], "._mcp_errors"),
    **dict.fromkeys(["CancelToken", "ToolContext"], "._context"),
    **dict.fromkeys(["DynamicTools"], "._dynamic"),
    **dict.fromkeys(["Batch", "Batched", "Executor", "ExecutorError", "Parallel", "Sequential",
                     "Strategy"], "._executor"),
    **dict.fromkeys(["OpenApiTools"], "._openapi"),
    **dict.fromkeys(["ApiKeyAuth", "BasicAuth", "BearerAuth"], "._openapi_auth"),
    **dict.fromkeys(["OpenApiError"], "._openapi_load"),
    **dict.fromkeys(["SkippedOperation"], "._openapi_schema"),
    **dict.fromkeys(["Answer", "PendingApproval", "PermissionRuleError", "Permissions", "Trust",
                     "Verdict"], "._permissions"),
    **dict.fromkeys(
        ["Cancelled", "Denied", "Failed", "InvalidArgs", "Json", "NotFound", "RateLimited",
         "Text", "TimedOut", "ToolError", "ToolImage", "ToolResult"],
        "._results",
    ),
    **dict.fromkeys(["RuntimeTool", "ToolBody", "function_tool", "tool"], "._tool"),
    **dict.fromkeys(["BeforeAction", "HookConfigError", "Hooks"], "._hooks"),
    **dict.fromkeys(["LimitSyntaxError", "LoopGuard", "RateLimit", "RateLimiter",
                     "SharedLimit"], "._limits"),
    **dict.fromkeys(["truncate_result"], "._truncate"),
    **dict.fromkeys(["ToolNameError", "ToolRegistry"], "._registry"),
    **dict.fromkeys(["Availability", "AvailabilityError", "UnmatchedToolPattern",
                     "check_availability", "resolve_availability"], "._availability"),
    **dict.fromkeys(["Directive", "Toolkit", "ToolkitConfig", "ToolkitError", "directive_for",
                     "resolve_toolkits", "system_sections"], "._toolkits"),
    **dict.fromkeys(["UnansweredResultError", "result_messages", "result_text"], "._history"),
    **dict.fromkeys(["WorkingDirectoryError", "builtin_tools"], ".builtins"),
}
__all__ = sorted(_LAZY)
__getattr__ = lazy_attributes(__name__, _LAZY)
__dir__ = lazy_dir(__name__, _LAZY)
