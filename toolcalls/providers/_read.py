"""`read_response`: a provider's whole response as one `ParseResult`, native calls first.

The response may be the provider SDK's object (read through its own ``to_dict()`` where it
has one, which gives the fields the API sent, else ``model_dump()``: no SDK is imported here),
a dict, or its JSON text. The provider is named or detected from the shape
(`detect_provider`), and its module's ``read_response`` reads it (`READERS`). Then the text
parts are parsed in `format`:

- a format name (or alias, model id, `Format`): parsed in it;
- ``"auto"``: the format the response's ``model`` id names (`toolcalls.get_format`); where
  it names none, or its format reads no call in the text, the format detected from the markup
  if that one reads calls (a server may name one model and serve another's markup);
- None: the text is not parsed for calls (``<think>`` is still kept apart; format "none").

The result: the native calls, then the text's calls (a text call whose id a native call has
already gets ``call_<n>``, n its place in `calls`); the native incomplete calls, then the text's;
the issues likewise (a native one has ``span=None``); ``content`` is the text parts joined,
markup removed, as `parse` gives it; ``segments`` tile that joined text; ``reasoning`` is the
native reasoning then the text's, joined; ``provider``, ``finish_reason``, ``usage`` and
``reasoning_blocks`` as the response gave them. With `tools`, a native call to a tool not
declared gets an ``unknown_tool`` issue, as a text call does.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._errors import UnknownFormatError
from ..parsing._api import _read as read_tools
from ..parsing._api import parse
from ..parsing._models import ParseIssue, ParseResult, ToolCall
from ..parsing._registry import get_format
from . import _anthropic, _gemini, _ollama, _openai_chat, _openai_responses
from ._provider import by_provider
from ._reading import Json, NativeRead

if TYPE_CHECKING:
    from ..parsing._api import ToolsLike
    from ..parsing.formats._base import Format
    from ..tools._tool import Tool

__all__ = ["READERS", "as_json", "detect_provider", "read_response"]

READERS: Mapping[str, Callable[[Json], NativeRead]] = {
    "openai": _openai_chat.read_response,
    "openai_responses": _openai_responses.read_response,
    "anthropic": _anthropic.read_response,
    "gemini": _gemini.read_response,
    "ollama": _ollama.read_response,
}
"""Each provider API's response reader, by the names `toolcalls.providers.PROVIDERS` uses."""


def read_response(
    response: Any,
    provider: str | None = None,
    *,
    format: str | Format | None = None,  # noqa: A002 - the concept is called "format" everywhere
    tools: ToolsLike = None,
) -> ParseResult:
    """Read one whole response of a provider API: its native calls, then calls in its text.

    Args:
        response: the SDK's response object, or the same as a dict or JSON text.
        provider: "openai" (Chat Completions and compatible servers), "openai_responses",
            "anthropic", "gemini" or "ollama"; None detects it from the shape.
        format: the format to parse the text parts in, "auto", or None not to parse them.
        tools: the tools offered to the model; enables name checks and typed text arguments.
    """
    data = as_json(response)
    name = provider or detect_provider(data)
    native = by_provider(READERS, name, "responses are read from")(data)
    declared = read_tools(tools)
    text = _parse_text("".join(native.text), format, native.model, declared)
    return _assemble(native, name, text, declared)


def as_json(response: Any) -> Json:
    """The response as a JSON object: from the SDK object's own dump, a dict, or JSON text."""
    if isinstance(response, str | bytes | bytearray):
        response = json.loads(response)
    elif not isinstance(response, Mapping):
        if callable(getattr(response, "to_dict", None)):  # openai, anthropic: what was sent
            response = response.to_dict()
        elif callable(getattr(response, "model_dump", None)):  # google-genai, ollama
            response = response.model_dump(mode="json", by_alias=True, exclude_none=True)
    if not isinstance(response, Mapping):
        raise TypeError(f"a response is a JSON object, not {type(response).__name__}")
    return dict(response)


def detect_provider(data: Mapping[str, Any]) -> str:
    """The provider API whose response `data` is, from its shape."""
    if "choices" in data:
        return "openai"
    if "candidates" in data or "usageMetadata" in data or "usage_metadata" in data:
        return "gemini"
    if data.get("object") == "response" or isinstance(data.get("output"), list):
        return "openai_responses"
    if data.get("type") == "message" or "stop_reason" in data:
        return "anthropic"
    if isinstance(data.get("message"), Mapping):
        return "ollama"
    raise ValueError(
        "cannot tell the provider from this response's shape (no 'choices', 'candidates', "
        "'output', 'content' blocks or 'message'): name it with provider="
    )


def _parse_text(
    text: str, format: str | Format | None, model: str | None, declared: Sequence[Tool]  # noqa: A002
) -> ParseResult:
    if format is None:
        from ..parsing._api import _no_format

        return _no_format().parse(text, tools=declared)
    if format != "auto":
        return parse(text, format, tools=declared)
    named = _model_format(model)
    if named is None:
        return parse(text, "auto", tools=declared)
    result = named.parse(text, tools=declared)
    if result.calls or result.incomplete:
        return result
    detected = parse(text, "auto", tools=declared)
    return detected if detected.calls else result


def _model_format(model: str | None) -> Format | None:
    if not model:
        return None
    try:
        return get_format(model)
    except UnknownFormatError:
        return None


def _assemble(
    native: NativeRead, provider: str, text: ParseResult, declared: Sequence[Tool]
) -> ParseResult:
    calls = native.calls + _unclashed(text.calls, {call.id for call in native.calls},
                                      len(native.calls))
    reasoning = [*native.reasoning, *([text.reasoning] if text.reasoning else [])]
    return ParseResult(
        format=text.format,
        content=text.content,
        reasoning="".join(reasoning) if reasoning else text.reasoning,
        calls=calls,
        incomplete=native.incomplete + text.incomplete,
        issues=native.issues + _unknown_tools(native.calls, declared) + text.issues,
        segments=text.segments,
        provider=provider,
        finish_reason=native.finish_reason,
        usage=native.usage,
        reasoning_blocks=native.reasoning_blocks or None,
    )


def _unclashed(calls: list[ToolCall], taken: set[str], first: int) -> list[ToolCall]:
    """The text's calls, each with an id no native call has (the engine numbers from 0)."""
    kept = []
    for place, call in enumerate(calls, first):
        if call.id in taken:
            ident = f"call_{place}"
            while ident in taken:
                ident += "_text"
            call = call.model_copy(update={"id": ident})
        taken.add(call.id)
        kept.append(call)
    return kept


def _unknown_tools(calls: list[ToolCall], declared: Sequence[Tool]) -> list[ParseIssue]:
    if not declared:
        return []
    names = {tool.name for tool in declared}
    return [ParseIssue(kind="unknown_tool", span=None,
                       message=f"native call {call.id} names {call.name!r}, not a declared tool")
            for call in calls if call.name not in names]
