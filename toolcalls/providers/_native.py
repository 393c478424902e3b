"""Native tool calling: the exact request pieces each provider's API takes.

For each provider, three shapes: the ``tools`` field of the request (`render_native`), the
assistant turn that carries the model's calls (`native_call_message`), and the turn that hands a
result back (`native_result_message`, or `native_result_messages` for several results, which
Anthropic and Gemini want in one turn). Each provider API is one class, which writes these
shapes and reads tools back from its own (`Provider.render_tools`, `render_calls`,
`render_results`, `read_tools`); this module only looks the provider up in the registry
(`_registry.PROVIDERS`):

================== ===================================== ========================================
provider           tools                                  calls / results in history
================== ===================================== ========================================
openai             ``{"type": "function", "function"}``   ``tool_calls`` / ``role: tool``
openai_responses   ``{"type": "function", "name", ...}``  ``function_call`` /
                                                          ``function_call_output`` items
anthropic          ``{"name", "description",              ``tool_use`` / ``tool_result`` blocks
                   "input_schema"}``
gemini             ``[{"functionDeclarations": [...]}]``  ``functionCall`` / ``functionResponse``
ollama             as openai (``/api/chat``)              ``tool_calls`` (arguments as an object) /
                                                          ``role: tool`` with ``tool_name``
================== ===================================== ========================================
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..parsing._models import ToolCall
from ..tools._read import ToolsLike, to_tools
from ..tools._tool import Tool
from ._messages import Message, ToolResult
from ._registry import PROVIDERS, get_provider

__all__ = [
    "PROVIDERS",
    "native_call_message",
    "native_result_message",
    "native_result_messages",
    "render_native",
    "tools_from_native",
]

def render_native(tools: ToolsLike, provider: str) -> Message:
    """The request fields that declare ``tools`` to ``provider``: ``{"tools": [...]}``.

    ``tools``: `Tool` objects, raw definitions or a registry (whatever `to_tools` reads).
    Two tools of one name raise `ToolDefinitionError`: the provider would refuse them."""
    return get_provider(provider).render_tools(to_tools(tools))


def native_call_message(
    calls: Sequence[ToolCall], provider: str, *, content: str | None = None
) -> list[Message]:
    """The assistant turn carrying ``calls`` (and any text said with them), for the history.

    A list, because the Responses API records each call as its own input item; the other
    providers give one message.
    """
    return get_provider(provider).render_calls(list(calls), content)


def native_result_message(
    call: ToolCall, result: Any, provider: str, *, is_error: bool = False
) -> Message:
    """The turn that gives ``call`` its ``result`` (text, or any JSON value, or a `ToolImage`
    or a list of text and images), flagged as an error where the API has a flag (Anthropic's
    ``is_error``, Gemini's ``response.error``; the others have none).

    Images go where each API takes them; OpenAI Chat Completions takes none in a tool message
    and refuses them (ValueError). Each provider module's docstring says its shape.
    """
    (message,) = get_provider(provider).render_results([ToolResult(call, result, is_error)])
    return message


def native_result_messages(
    results: Iterable[tuple[ToolCall, Any]], provider: str, *, errors: Iterable[str] = ()
) -> list[Message]:
    """Results of several calls, grouped as the provider wants them.

    Anthropic and Gemini take all the results of one assistant turn in a single message;
    OpenAI, the Responses API and Ollama take one per call. ``errors`` lists the ids of calls
    that failed.
    """
    failed = set(errors)
    batch = [ToolResult(call, value, call.id in failed) for call, value in results]
    return get_provider(provider).render_results(batch)


def tools_from_native(payload: Any, provider: str) -> list[Tool]:
    """Read back what `render_native` wrote (``{"tools": [...]}``) or any such tool list."""
    tools = payload.get("tools", payload) if isinstance(payload, Mapping) else payload
    return get_provider(provider).read_tools(tools)
