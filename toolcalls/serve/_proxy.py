"""One proxied request: what goes upstream (`plan`), and what the client gets back, whole
(`answer_whole`) or streamed (`answer_stream`).

The flow: the client's request is validated (and an Anthropic one translated into the Chat
Completions request it means); its model picks the format (`format_for`) and the mode:

- prompt: the upstream gets no tools; they are written into the system prompt in the model's
  own format and the history's calls and results as its template writes them
  (`prompt_request`); calls are parsed out of the text in that format;
- repair: tools pass through; calls the upstream left in its text are moved out, parsed in
  the model's format where the model names one, else by their markup ("auto");
- auto: prompt mode for the models a format is configured for (``--model-format``, or a named
  ``--format``), repair for the others.

A request without tools is parsed for nothing but reasoning: a client that offered no tools
cannot run a call. Calls read from the text get fresh ids (``call_<24 hex>``, or
``toolu_<24 hex>`` for Anthropic clients): the engine numbers them ``call_0``... in every turn,
and a client keeps ids across turns. ``parallel_tool_calls: false`` keeps the first call.
"""

from __future__ import annotations

import fnmatch
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from .._errors import UnknownFormatError
from ..parsing._events import ArgumentsDelta, Event, ToolCallEnd, ToolCallFailed, ToolCallStart
from ..parsing._models import ToolCall
from ..parsing._registry import get_format
from ..parsing.formats._base import Format
from ..providers._read import read_response
from ..providers._stream import read_stream
from ..providers._write import write_response
from ._config import ServeConfig

# stand-in until _requests/_emit land
from ._standin import (
    chat_request_from_messages,
    format_for,
    prompt_request,
    stream_writer,
    validate_chat_request,
    wire_done,
    wire_message,
)

__all__ = ["Api", "Plan", "answer_stream", "answer_whole", "plan"]

Api = Literal["openai", "anthropic"]
_ID_PREFIX: dict[str, str] = {"openai": "call_", "anthropic": "toolu_"}


@dataclass
class Plan:
    """What one client request becomes."""

    api: Api
    model: str
    mode: Literal["prompt", "repair"]
    format: Format
    parse_format: Format | str | None
    """What the upstream's text is parsed in: the format, "auto" (repair mode, a model that
    names no format), or None (no tools offered: only reasoning is kept apart)."""
    tools: list[dict[str, Any]]
    stream: bool
    parallel: bool
    body: dict[str, Any]
    """The request sent upstream."""
    calls: int = 0
    """Calls answered (for the access log)."""
    ids: dict[int, str] = field(default_factory=dict)


def plan(api: Api, body: object, config: ServeConfig) -> Plan:
    """Validate the client's request (a `RequestError` names what is wrong) and plan it."""
    chat = validate_chat_request(body) if api == "openai" else chat_request_from_messages(body)
    model = str(chat["model"])
    fmt = format_for(model, format=config.format, model_formats=config.model_formats)
    mode = _mode(model, config)
    tools = list(chat.get("tools") or [])
    parse_format: Format | str | None = fmt
    if mode == "prompt":
        upstream = prompt_request(chat, fmt)
    else:
        upstream = dict(chat)
        if _named_format(model, config) is None:
            parse_format = "auto"
    if not tools:
        parse_format = None
    stream = bool(chat.get("stream"))
    if stream:  # usage comes in a last chunk only when asked for
        upstream["stream_options"] = {**(chat.get("stream_options") or {}),
                                      "include_usage": True}
    return Plan(api, model, mode, fmt, parse_format, tools, stream,
                chat.get("parallel_tool_calls") is not False, upstream)


def _mode(model: str, config: ServeConfig) -> Literal["prompt", "repair"]:
    if config.mode != "auto":
        return config.mode
    configured = config.format != "auto" or any(
        model == pattern or fnmatch.fnmatchcase(model, pattern)
        for pattern in config.model_formats)
    return "prompt" if configured else "repair"


def _named_format(model: str, config: ServeConfig) -> Format | None:
    """The format configured for or named by `model`; None where only markup can tell."""
    for pattern, name in config.model_formats.items():
        if model == pattern or fnmatch.fnmatchcase(model, pattern):
            return get_format(name)
    try:
        return get_format(model if config.format == "auto" else config.format)
    except UnknownFormatError:
        return None


def _fresh_id(api: Api) -> str:
    return f"{_ID_PREFIX[api]}{uuid.uuid4().hex[:24]}"


def answer_whole(plan: Plan, upstream_json: Any) -> dict[str, Any]:
    """The client's response for the upstream's whole response."""
    result = read_response(upstream_json, "openai", format=plan.parse_format, tools=plan.tools)
    calls = [call if call.source == "native" else call.model_copy(update={
        "id": _fresh_id(plan.api)}) for call in result.calls]
    if not plan.parallel:
        calls = calls[:1]
    plan.calls = len(calls)
    result = result.model_copy(update={"calls": calls})
    return write_response(result, plan.api, model=plan.model)


async def answer_stream(
    plan: Plan, chunks: AsyncIterator[bytes], failed: Callable[[Exception], Awaitable[str]]
) -> AsyncIterator[str]:
    """The client's stream (its wire text, piece by piece) for the upstream's stream.

    Text and reasoning pass on as they arrive; a call is written whole once complete (the
    writer holds it). When reading `chunks` raises, `failed(error)` says why in words, the
    stream ends with the API's error event, and the calls still open are never reported.
    """
    reader = read_stream("openai", format=plan.parse_format, tools=plan.tools)
    writer = stream_writer(plan.api, model=plan.model)
    for message in writer.start():
        yield wire_message(plan.api, message)
    try:
        async for chunk in chunks:
            for event in reader.feed(chunk):
                for message in _write(plan, writer, event):
                    yield wire_message(plan.api, message)
    except Exception as error:  # noqa: BLE001 - whatever broke, the client gets an error event
        reason = await failed(error)
        for message in writer.fail(reason):
            yield wire_message(plan.api, message)
        return
    for event in reader.close():
        for message in _write(plan, writer, event):
            yield wire_message(plan.api, message)
    result = reader.result()
    for message in writer.finish(result.finish_reason, result.usage):
        yield wire_message(plan.api, message)
    if done := wire_done(plan.api):
        yield done


def _write(plan: Plan, writer: Any, event: Event) -> list[dict[str, Any]]:
    """`event` written, its call renamed (text calls) or dropped (a second call when
    ``parallel_tool_calls`` is false)."""
    if isinstance(event, ToolCallStart | ArgumentsDelta | ToolCallEnd | ToolCallFailed):
        index = event.index
        if not plan.parallel and plan.ids and index not in plan.ids:
            return []
        if isinstance(event, ToolCallStart):
            plan.ids[event.index] = event.id
        if isinstance(event, ToolCallEnd):
            event = ToolCallEnd(event.index, _renamed(plan, event.call))
            plan.ids[event.index] = event.call.id
            plan.calls += 1
    return list(writer.feed(event))


def _renamed(plan: Plan, call: ToolCall) -> ToolCall:
    return call if call.source == "native" else call.model_copy(update={
        "id": _fresh_id(plan.api)})

