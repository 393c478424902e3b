"""One proxied request: what goes upstream (`plan`), and what the client gets back, whole
(`answer_whole`) or streamed (`answer_stream`).

The flow: the client's request is validated (and an Anthropic or Responses one translated
into the Chat Completions request it means); its model picks the format (`format_for`) and the
mode:

- prompt: the upstream gets no tools; they are written into the system prompt in the model's
  own format and the history's calls and results as its template writes them
  (`prompt_request`); calls are parsed out of the text in that format;
- repair: tools pass through; calls the upstream left in its text are moved out, parsed in
  the model's format where the model names one, else by their markup ("auto");
- auto: prompt mode for the models a format is configured for (``--model-format``, or a named
  ``--format``), repair for the others.

A request without tools is parsed for nothing but reasoning: a client that offered no tools
cannot run a call. A call to a tool the client did not declare is returned as a call, as
OpenAI-compatible servers return what the model called (vLLM, llama.cpp): the client's
framework answers it with its own "unknown tool" result. Calls read from the text get fresh
ids (``call_<24 hex>``, or ``toolu_<24 hex>`` for Anthropic clients): the engine numbers them
``call_0``... in every turn, and a client keeps ids across turns. A call the upstream made
natively keeps its id, but for a client of an API with its own id style (Anthropic's
``toolu_``), where it gets one of that style (`apis.InboundApi.call_id`). ``parallel_tool_calls:
false`` keeps the first call.

Streamed calls go out whole (``--stream-calls whole``, the default: a call is one delta,
sent when its closing marker is read) or live (each argument fragment as it is read, so a long
call's arguments stream as the model writes them; a call that fails after it started is left
open on the wire, with the upstream's finish reason: see `toolcalls.providers._stream_writer`).

A call that fails (malformed, or cut off by the token limit) is never sent as a call: its text
goes back as content, in its place, whole and streamed alike (`_failed_calls`), and the finish
reason is the upstream's (``length`` for a cut; "tool calls" only when complete calls were
sent). An upstream stream that ends without a finish reason (the connection closed early) ends
the client's stream with the API's error event, never as a normal stop.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal

from .._errors import ToolDefinitionError, UnknownFormatError
from ..budget._session import TOOL_SEARCH
from ..parsing._events import ArgumentsDelta, Event, ToolCallEnd, ToolCallFailed, ToolCallStart
from ..parsing._models import ParseResult, ToolCall
from ..parsing._registry import get_format
from ..parsing.formats._base import Format
from ..providers._response_reader import read_response
from ..providers._response_writer import write_response
from ..providers._stream_reader import read_stream
from ..providers._stream_writer import CallsMode, StreamWriter, stream_writer, wire_done
from ..tools._importers import import_tools
from ._budget import MAX_SEARCH_ROUNDS, ToolBudget
from ._config import ServeConfig
from ._errors import strict_json
from ._failed_calls import failed_as_text, issues_header, restored_content
from ._format_watch import FormatWatch
from ._prompt import prompt_request
from ._requests import RequestError, check_strict_json, configured_format, format_for
from ._upstream import UpstreamError
from .apis import InboundApi

__all__ = ["Plan", "answer_stream", "answer_whole", "plan"]

UPSTREAM: Final = "openai"
"""The provider the upstream's answers are read as: it speaks Chat Completions."""


@dataclass
class Plan:
    """What one client request becomes."""

    api: InboundApi
    """The API the client speaks: how its request reads, whose writers answer it."""
    model: str
    mode: Literal["prompt", "repair"]
    format: Format
    parse_format: Format | str | None
    """What the upstream's text is parsed in: the format, "auto" (repair mode, a model that
    names no format), or None (no tools offered: only reasoning is kept apart)."""
    tools: list[Any]
    """What calls are read against (the client's tools; and ``tool_search`` when lazy)."""
    stream: bool
    parallel: bool
    chat: dict[str, Any]
    """The client's request as a Chat Completions request (for the rounds that follow)."""
    body: dict[str, Any]
    """The request sent upstream."""
    budget: ToolBudget | None = None
    stream_calls: CallsMode = "whole"
    """How streamed calls are written: whole (once complete) or live (as they are read)."""
    calls: int = 0
    """Calls answered (for the access log)."""
    ids: dict[int, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    """Headers for a whole answer (the calls not sent as calls: `_failed_calls`)."""
    usage_asked: bool = True
    """Whether the client's stream ends with the usage (`InboundApi.usage_asked`)."""
    renamed: dict[str, str] = field(default_factory=dict)
    """Upstream call id -> the id the client got, where the API wants its own style."""
    watch: FormatWatch | None = None
    """Watches the answer for another format's markup (`_format_watch`)."""

    def upstream_body(self, chat: dict[str, Any]) -> dict[str, Any]:
        """The upstream request for `chat` (the client's, or one continued after searches)."""
        if self.mode == "repair":
            body = dict(chat)
        else:
            body = prompt_request(self.budget.request(chat) if self.budget else chat,
                                  self.format)
        if self.stream:  # usage comes in a last chunk only when asked for
            body["stream_options"] = {**(chat.get("stream_options") or {}),
                                      "include_usage": True}
        return body

    def searched(self, content: str, searches: list[ToolCall]) -> dict[str, Any]:
        """The next upstream request, after the proxy answered the model's searches."""
        assert self.budget is not None
        self.chat = self.budget.answered(self.chat, content, searches)
        return self.upstream_body(self.chat)


def plan(api: InboundApi, body: object, config: ServeConfig) -> Plan:
    """Validate the client's request (a `RequestError` names what is wrong) and plan it."""
    check_strict_json(body)
    chat = api.chat_request(body)
    model = str(chat["model"])
    fmt = format_for(model, format=config.format, model_formats=config.model_formats)
    mode = _mode(model, config)
    try:  # read once: a schema that is not one is the client's error, named
        tools: list[Any] = import_tools(chat.get("tools") or [])
    except ToolDefinitionError as error:
        raise RequestError("tools", str(error)) from None
    parse_format: Format | str | None = fmt
    if mode == "repair" and _named_format(model, config) is None:
        parse_format = "auto"
    if not tools:
        parse_format = None
    budget = None
    if mode == "prompt" and tools and config.budget is not None:
        budget = ToolBudget(chat, tools, fmt.name, config.budget)
        tools = budget.parse_tools()
    planned = Plan(api, model, mode, fmt, parse_format, tools, bool(chat.get("stream")),
                   chat.get("parallel_tool_calls") is not False, chat, {}, budget,
                   config.stream_calls)
    planned.body = planned.upstream_body(chat)
    planned.usage_asked = api.usage_asked(chat)
    planned.watch = FormatWatch(model, parse_format)
    return planned


def _mode(model: str, config: ServeConfig) -> Literal["prompt", "repair"]:
    if config.mode != "auto":
        return config.mode
    configured = config.format != "auto" or configured_format(
        model, config.model_formats) is not None
    return "prompt" if configured else "repair"


def _named_format(model: str, config: ServeConfig) -> Format | None:
    """The format configured for or named by `model`; None where only markup can tell."""
    configured = configured_format(model, config.model_formats)
    if configured is not None:
        return get_format(configured)
    try:
        return get_format(model if config.format == "auto" else config.format)
    except UnknownFormatError:
        return None


async def answer_whole(
    plan: Plan, post: Callable[[dict[str, Any]], Awaitable[Any]]
) -> dict[str, Any]:
    """The client's response: the upstream's answer to `plan.body` (and, when the model
    searched for tools, to the rounds that follow) read, its calls renamed."""
    body, texts, usage = plan.body, [], None
    for round_ in range(MAX_SEARCH_ROUNDS + 1):
        result = read_response(await post(body), UPSTREAM, format=plan.parse_format,
                               tools=plan.tools)
        if said := upstream_error(result):
            raise UpstreamError(502, f"upstream: {said}")
        usage = add_usage(usage, result.usage)
        texts.append(result.content)
        searches = plan.budget.searches(result.calls) if plan.budget else []
        if not searches or len(searches) < len(result.calls) or round_ == MAX_SEARCH_ROUNDS:
            break
        body = plan.searched(result.content, searches)
    calls = plan.budget.client_calls(result.calls) if plan.budget else result.calls
    for call in calls:
        _check_arguments(call)
    calls = [call.model_copy(update={"id": _client_id(plan, call.source, call.id)})
             for call in calls]
    if not plan.parallel:
        calls = calls[:1]
    plan.calls = len(calls)
    plan.headers = issues_header(result)
    texts[-1] = restored_content(result)  # a failed call's text is content, never lost
    if plan.watch:
        plan.watch.see_answer("".join(texts), len(calls))
    result = result.model_copy(update={"calls": calls, "content": "".join(texts),
                                       "usage": usage})
    return plan.api.answered(write_response(result, plan.api.provider, model=plan.model))


def upstream_error(result: ParseResult) -> str | None:
    """The error the upstream sent instead of (or in the middle of) its answer, if any."""
    errors = [issue.message for issue in result.issues if issue.kind == "provider_error"]
    return "; ".join(errors) or None


def add_usage(total: dict[str, Any] | None, usage: dict[str, Any] | None) -> dict[str, Any] | None:
    """Token counts of two upstream rounds added (Chat Completions' usage objects)."""
    if total is None or usage is None:
        return usage if total is None else total
    keys = ("prompt_tokens", "completion_tokens", "total_tokens")
    return {**usage, **{key: int(total.get(key) or 0) + int(usage.get(key) or 0)
                        for key in keys}}


CUT_STREAM: Final = ("the upstream's stream ended without a finish reason (its connection "
                     "closed early): the answer is incomplete, ask again")

Opener = Callable[[dict[str, Any]], Awaitable[AsyncIterator[bytes]]]
"""Opens one upstream stream for a request body: its bytes (the caller closes them)."""


async def answer_stream(
    plan: Plan, first: AsyncIterator[bytes], reopen: Opener,
    failed: Callable[[Exception], Awaitable[str]],
) -> AsyncIterator[str]:
    """The client's stream (its wire text, piece by piece) for the upstream's stream.

    Text and reasoning pass on as they arrive; a call as it is read (live: its start, then
    each argument fragment) or whole once complete (`plan.stream_calls`). When reading the
    upstream raises, `failed(error)` says why in words, the stream ends with the API's error
    event, and the calls still open are never reported complete.
    A round whose calls are all ``tool_search`` (lazy budget) is answered here and continued
    with a new upstream stream (`reopen`), into the same client stream.
    """
    writer = stream_writer(plan.api.provider, model=plan.model, calls=plan.stream_calls)
    yield _wire(plan, writer.start())
    chunks, usage = first, None
    # What was passed on is let go of, so memory does not grow with the stream; only a lazy
    # budget needs a round's whole text (for the round that follows its searches).
    release = not (plan.budget and plan.budget.session)
    for round_ in range(MAX_SEARCH_ROUNDS + 1):
        reader = read_stream(UPSTREAM, format=plan.parse_format, tools=plan.tools)
        rounds = _Round()
        try:
            async for chunk in chunks:
                # all this chunk gives in one write: one send to the client per upstream chunk
                written = _wire(plan, [message for event in reader.feed(chunk)
                                       for message in _write(plan, writer, event, rounds)])
                if release:
                    reader.release()
                if written:
                    yield written
            if written := _wire(plan, [message for event in reader.close()
                                       for message in _write(plan, writer, event, rounds)]):
                yield written
            result = reader.result()
            if said := upstream_error(result):  # the upstream ended its stream with an error
                yield _wire(plan, writer.fail(f"upstream, mid-stream: {said}"))
                return
            if result.finish_reason is None:  # closed early: what came may end mid-call
                yield _wire(plan, writer.fail(CUT_STREAM))
                return
            usage = add_usage(usage, result.usage)
            if not rounds.searches or rounds.others or round_ == MAX_SEARCH_ROUNDS:
                _wire(plan, [{"type": "usage", "usage": usage}])  # checked while it can fail
                break
            chunks = await reopen(plan.searched(result.content, rounds.searches))
        except Exception as error:  # noqa: BLE001 - whatever broke, the client gets an error
            yield _wire(plan, writer.fail(await failed(error)))
            return
    usage = usage if plan.usage_asked else None
    if plan.watch:
        plan.watch.done()
    yield _wire(plan, writer.finish(result.finish_reason, usage)) + wire_done(plan.api.provider)


def _wire(plan: Plan, messages: list[dict[str, Any]]) -> str:
    """`messages` on the wire, as `wire_messages` writes them but strict JSON: a NaN or an
    infinity the upstream sent (in its usage, say) is an `UpstreamError`, which ends the
    stream with the API's error event, never JSON a strict client cannot read."""
    if not messages:
        return ""
    try:
        return "".join([plan.api.event(message) for message in messages])
    except ValueError:
        raise UpstreamError(502, "the upstream sent a number JSON cannot carry (NaN or "
                            "Infinity): check the upstream") from None


class _Round:
    """The calls of one upstream round: its searches (answered by the proxy), and whether
    it made calls for the client too."""

    def __init__(self) -> None:
        self.searches: list[ToolCall] = []
        self.search_indexes: set[int] = set()
        self.others = False


def _write(plan: Plan, writer: StreamWriter, event: Event, round_: _Round
           ) -> list[dict[str, Any]]:
    """`event` written, its call renamed at its start (text calls), held (a ``tool_search``
    call, which the proxy answers) or dropped (a second call when ``parallel_tool_calls`` is
    false); a failed call not started on the wire goes out as its text."""
    if plan.watch:
        plan.watch.see(event)
    if isinstance(event, ToolCallStart | ArgumentsDelta | ToolCallEnd | ToolCallFailed):
        if plan.budget and plan.budget.session and event.index is not None:
            if isinstance(event, ToolCallStart) and event.name == TOOL_SEARCH:
                round_.search_indexes.add(event.index)
            if event.index in round_.search_indexes:
                if isinstance(event, ToolCallEnd):
                    round_.searches.append(event.call)
                return []
        if isinstance(event, ToolCallEnd):
            round_.others = True
        if not plan.parallel and plan.ids and event.index not in plan.ids:
            return []
        if isinstance(event, ToolCallFailed) and not writer.on_wire(event.index) and (
                text := failed_as_text(event)):  # never a call: the model's text, in place
            return writer.feed(text) + writer.feed(event)
        if isinstance(event, ToolCallStart):
            ident = _client_id(plan, event.source, event.id)
            plan.ids[event.index] = ident
            event = replace(event, id=ident)
        if isinstance(event, ToolCallEnd):
            _check_arguments(event.call)
            event = ToolCallEnd(event.index, _renamed(plan, event.call,
                                                      plan.ids.get(event.index)))
            plan.ids[event.index] = event.call.id
            plan.calls += 1
    return writer.feed(event)


def _check_arguments(call: ToolCall) -> None:
    """A call whose arguments are not strict JSON in UTF-8 (a NaN, a lone surrogate) is never
    passed on as complete. The readers fail such calls; this is the proxy's own guard."""
    try:
        strict_json(call.arguments).encode("utf-8")
    except ValueError:  # UnicodeEncodeError is one
        raise UpstreamError(502, f"the upstream's call {call.name!r} has arguments that are "
                            "not JSON (NaN, Infinity or a lone surrogate): check the "
                            "upstream") from None


def _client_id(plan: Plan, source: str, upstream_id: str | None) -> str:
    """A call's id for the client (`InboundApi.call_id`): text calls get a fresh one."""
    return plan.api.call_id(None if source == "text" else upstream_id, plan.renamed)


def _renamed(plan: Plan, call: ToolCall, started: str | None) -> ToolCall:
    """`call` under the id its start went out with (a fresh one for a text call)."""
    ident = started or _client_id(plan, call.source, call.id)
    return call if ident == call.id else call.model_copy(update={"id": ident})
