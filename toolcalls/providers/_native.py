"""Native tool calling: the exact request pieces each provider's API takes.

For each provider, three shapes: the ``tools`` field of the request (`render_native`), the
assistant turn that carries the model's calls (`native_call_message`), and the turn that hands a
result back (`native_result_message`, or `native_result_messages` for several results, which
Anthropic and Gemini want in one turn). One small function per provider and shape, behind the
`PROVIDERS` table:

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

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..parsing._models import ToolCall
from ..tools._gemini import gemini_schema
from ..tools._importers import from_anthropic, from_gemini, from_openai
from ..tools._tool import Tool

__all__ = [
    "PROVIDERS",
    "native_call_message",
    "native_result_message",
    "native_result_messages",
    "render_native",
    "tools_from_native",
]

Message = dict[str, Any]


# --- tools in the request -----------------------------------------------------------------------


def _openai_tools(tools: Sequence[Tool]) -> Message:
    return {"tools": [{"type": "function", "function": _function(tool)} for tool in tools]}


def _responses_tools(tools: Sequence[Tool]) -> Message:
    # strict is sent explicitly: a schema that is not strict-compatible is then accepted as is.
    return {"tools": [{"type": "function", **_function(tool), "strict": False} for tool in tools]}


def _anthropic_tools(tools: Sequence[Tool]) -> Message:
    return {"tools": [{"name": tool.name, "description": tool.description,
                       "input_schema": tool.parameters} for tool in tools]}


def _gemini_tools(tools: Sequence[Tool]) -> Message:
    return {"tools": [{"functionDeclarations": [_gemini_declaration(t) for t in tools]}]}


def _gemini_declaration(tool: Tool) -> Message:
    declaration: Message = {"name": tool.name, "description": tool.description}
    # Gemini rejects an OBJECT without properties: a tool without arguments sends no schema.
    if tool.parameters.get("properties"):
        declaration["parameters"] = gemini_schema(tool.parameters)
    return declaration


def _function(tool: Tool) -> Message:
    return {"name": tool.name, "description": tool.description, "parameters": tool.parameters}


# --- the assistant turn with calls --------------------------------------------------------------


def _openai_calls(calls: Sequence[ToolCall], content: str | None) -> list[Message]:
    return [{
        "role": "assistant",
        "content": content,
        "tool_calls": [{"id": call.id, "type": "function",
                        "function": {"name": call.name, "arguments": call.arguments_json()}}
                       for call in calls],
    }]


def _responses_calls(calls: Sequence[ToolCall], content: str | None) -> list[Message]:
    items: list[Message] = []
    if content:
        items.append({"type": "message", "role": "assistant",
                      "content": [{"type": "output_text", "text": content}]})
    items.extend({"type": "function_call", "call_id": call.id, "name": call.name,
                  "arguments": call.arguments_json()} for call in calls)
    return items


def _anthropic_calls(calls: Sequence[ToolCall], content: str | None) -> list[Message]:
    blocks: list[Message] = [{"type": "text", "text": content}] if content else []
    blocks.extend({"type": "tool_use", "id": call.id, "name": call.name,
                   "input": call.arguments} for call in calls)
    return [{"role": "assistant", "content": blocks}]


def _gemini_calls(calls: Sequence[ToolCall], content: str | None) -> list[Message]:
    parts: list[Message] = [{"text": content}] if content else []
    parts.extend({"functionCall": {"id": call.id, "name": call.name, "args": call.arguments}}
                 for call in calls)
    return [{"role": "model", "parts": parts}]


def _ollama_calls(calls: Sequence[ToolCall], content: str | None) -> list[Message]:
    return [{
        "role": "assistant",
        "content": content or "",
        "tool_calls": [{"function": {"name": call.name, "arguments": call.arguments}}
                       for call in calls],
    }]


# --- the turn with results ----------------------------------------------------------------------


@dataclass(frozen=True)
class _Result:
    call: ToolCall
    value: Any
    is_error: bool


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _openai_results(results: Sequence[_Result]) -> list[Message]:
    return [{"role": "tool", "tool_call_id": r.call.id, "content": _as_text(r.value)}
            for r in results]


def _responses_results(results: Sequence[_Result]) -> list[Message]:
    return [{"type": "function_call_output", "call_id": r.call.id, "output": _as_text(r.value)}
            for r in results]


def _anthropic_results(results: Sequence[_Result]) -> list[Message]:
    blocks = []
    for r in results:
        block: Message = {"type": "tool_result", "tool_use_id": r.call.id,
                          "content": _as_text(r.value)}
        if r.is_error:
            block["is_error"] = True
        blocks.append(block)
    return [{"role": "user", "content": blocks}]


def _gemini_results(results: Sequence[_Result]) -> list[Message]:
    return [{"role": "user", "parts": [
        {"functionResponse": {"id": r.call.id, "name": r.call.name,
                              "response": _gemini_response(r)}}
        for r in results]}]


def _gemini_response(result: _Result) -> Message:
    """Gemini wants an object: a non-object result goes under ``result`` (or ``error``)."""
    if result.is_error:
        return {"error": result.value}
    if isinstance(result.value, Mapping):
        return dict(result.value)
    return {"result": result.value}


def _ollama_results(results: Sequence[_Result]) -> list[Message]:
    return [{"role": "tool", "tool_name": r.call.name, "content": _as_text(r.value)}
            for r in results]


# --- the table ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class NativeProvider:
    """How one provider's API spells tools, calls and results."""

    tools: Callable[[Sequence[Tool]], Message]
    calls: Callable[[Sequence[ToolCall], str | None], list[Message]]
    results: Callable[[Sequence[_Result]], list[Message]]
    read_tools: Callable[[Any], list[Tool]]


PROVIDERS: Mapping[str, NativeProvider] = {
    "openai": NativeProvider(_openai_tools, _openai_calls, _openai_results, from_openai),
    "openai_responses": NativeProvider(
        _responses_tools, _responses_calls, _responses_results, from_openai),
    "anthropic": NativeProvider(
        _anthropic_tools, _anthropic_calls, _anthropic_results, from_anthropic),
    "gemini": NativeProvider(_gemini_tools, _gemini_calls, _gemini_results, from_gemini),
    "ollama": NativeProvider(_openai_tools, _ollama_calls, _ollama_results, from_openai),
}


def _provider(name: str) -> NativeProvider:
    try:
        return PROVIDERS[name]
    except KeyError:
        known = ", ".join(PROVIDERS)
        raise ValueError(f"unknown provider {name!r}; native rendering knows {known}") from None


def render_native(tools: Iterable[Tool], provider: str) -> Message:
    """The request fields that declare ``tools`` to ``provider``: ``{"tools": [...]}``."""
    return _provider(provider).tools(list(tools))


def native_call_message(
    calls: Sequence[ToolCall], provider: str, *, content: str | None = None
) -> list[Message]:
    """The assistant turn carrying ``calls`` (and any text said with them), for the history.

    A list, because the Responses API records each call as its own input item; the other
    providers give one message.
    """
    return _provider(provider).calls(list(calls), content)


def native_result_message(
    call: ToolCall, result: Any, provider: str, *, is_error: bool = False
) -> Message:
    """The turn that gives ``call`` its ``result`` (text, or any JSON value)."""
    (message,) = _provider(provider).results([_Result(call, result, is_error)])
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
    batch = [_Result(call, value, call.id in failed) for call, value in results]
    return _provider(provider).results(batch)


def tools_from_native(payload: Any, provider: str) -> list[Tool]:
    """Read back what `render_native` wrote (``{"tools": [...]}``) or any such tool list."""
    tools = payload.get("tools", payload) if isinstance(payload, Mapping) else payload
    return _provider(provider).read_tools(tools)
