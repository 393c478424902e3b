"""Stream writers: a result written as a provider API streams it, while it is still being read
(the streaming twin of `write_stream`; what the serve proxy sends its clients).

A proxy reads its upstream's stream into events (`read_stream`) and passes each one on at once:
``writer = stream_writer(provider, model=...)``; ``writer.start()`` gives the opening chunk,
``writer.feed(event)`` the chunks that event gives now (often none), ``writer.finish()`` the
closing ones, or ``writer.fail(message)`` the API's error that ends the stream instead. Each
chunk is a JSON object; `wire_message` puts one on the wire, `wire_done` ends the wire.

What every writer does, whatever the API:

- text and reasoning are written as they come;
- calls, in one of two modes (``calls=``):

  - ``"whole"`` (the default): a call is held until its `ToolCallEnd`, then written whole (its
    start and all its arguments at once): a client never sees half a call, and what it
    assembles is what `write_response` writes for the whole result. A call that fails
    (`ToolCallFailed`) is never written, as `write_response` writes no incomplete call; nor is
    one still open at `finish` or `fail` (the proxy feeds a failed call's text as a `TextDelta`
    instead, where `on_wire` says it was not started: `toolcalls.serve._failed_calls`). The
    price: a call's arguments do not stream (a 17.5K-character ``write_file`` arrives after all
    its text did, in one piece);
  - ``"live"``: a call is written at its `ToolCallStart` (id, name, empty arguments) and each
    `ArgumentsDelta` goes out at once (Chat Completions: ``tool_calls`` deltas; Messages: a
    ``tool_use`` block, ``input_json_delta`` events, its ``content_block_stop`` at `ToolCallEnd`).
    What a client assembles is the whole result (the fragments join to JSON that decodes to
    the call's arguments; the string may be spaced otherwise than `write_response`'s). The
    trade-off: a call that fails after it started cannot be taken back on the wire. It is left
    open (Messages: its block is never closed; Chat Completions has no close), and the turn is
    no longer a tool-calls turn, even with other calls complete: the finish reason is the one
    the upstream gave (``length`` for a turn cut in a call, the common case: 27 of the 521
    corpus rows with calls, streamed in random pieces), never "tool calls", so no client takes
    the half call for a complete one to run, though it does see its start and its arguments
    so far. Messages streams one block at a time: while a call's block is open,
    whatever else comes (text, another call) is held and written when it ends. The APIs
    whose calls come whole (Gemini, Ollama) and Responses (not yet) write calls whole in
    either mode (`live_calls`);
- calls are numbered 0, 1... in the order they are written (whole: the order they completed;
  live: the order they started), and each goes out under ``call_id(index, id)`` (default: the
  id its event carries; the proxy gives text calls fresh unique ids, as ``call_0`` is not
  unique across turns);
- `finish` says "tool calls" when calls were written (and, live, none was left half written:
  `tool_turn`), else the reason given (as any provider spells it) in the API's own words
  (`_write_options.finish_kind`); usage in the API's own shape is written as it came, any other
  provider's as its token counts (`_write_options.token_counts`);
- `fail` ends the stream with the API's in-stream error object; a block left open is not
  closed, so nothing half written is ever reported complete.

`write_stream` (a whole result) is built on the same writers (`StreamWriter.write_result`, called
by `Provider.write_stream`): one path writes every stream. Each API's writer is its provider's
`Provider.stream_writer`; how chunks go on the wire is its `Provider.wire` and `stream_end`.
"""

from __future__ import annotations

import dataclasses
import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Literal

from mypy_extensions import mypyc_attr

from ..parsing._events import (
    ArgumentsDelta,
    Event,
    ReasoningDelta,
    TextDelta,
    ToolCallEnd,
    ToolCallFailed,
    ToolCallStart,
)
from ..parsing._models import ParseResult, ToolCall
from ._messages import Message
from ._registry import get_provider
from ._write_options import WriteOptions

__all__ = [
    "CALLS_MODES", "CallId", "CallsMode", "StreamWriter", "stream_writer", "wire_done",
    "wire_message", "wire_messages",
]

CallId = Callable[[int, str], str]
"""A call's id on the wire, from its written index and the id its event carries."""
CallsMode = Literal["live", "whole"]
"""How calls are written: "live" (as they stream) or "whole" (once complete); see above."""
CALLS_MODES: tuple[CallsMode, ...] = ("live", "whole")

_NEW, _OPEN, _ENDED = 0, 1, 2


@mypyc_attr(allow_interpreted_subclasses=True)  # a provider module may stay interpreted
class StreamWriter:
    """One streamed response of one provider API, written event by event (see the module
    docstring); a subclass per API writes its chunks."""

    provider: ClassVar[str] = ""
    """The API it writes, by its name in `toolcalls.providers.PROVIDERS`."""
    id_prefix: ClassVar[str] = ""
    """How the API's response ids begin."""
    live_calls: ClassVar[bool] = False
    """Whether this writer streams a call's arguments (``calls="live"``); else calls are
    written whole in either mode."""

    def __init__(self, *, model: str, id: str | None = None,  # noqa: A002 - the API's word
                 created: int | None = None, call_id: CallId | None = None,
                 calls: CallsMode = "whole") -> None:
        if calls not in CALLS_MODES:
            raise ValueError(f"calls: expected 'live' or 'whole', got {calls!r}")
        self.id = f"{self.id_prefix}{uuid.uuid4().hex}" if id is None else id
        self.model = model
        self.created = int(time.time()) if created is None else created
        self.calls: list[ToolCall] = []
        """The calls written so far, under their ids on the wire."""
        self._options = WriteOptions(model, self.id, self.created)
        """What the opening chunk says; `write_result` knows the usage up front and puts it
        here, where the API has a place for it."""
        self._call_id = call_id
        self._state = _NEW
        self._live = calls == "live" and self.live_calls
        self._numbered = 0
        """Calls numbered on the wire so far: the next call's index."""
        self._started: dict[int, tuple[int, str]] = {}
        """Live calls written but not ended: event index -> (index on the wire, id on it)."""
        self._filled: set[int] = set()
        """Live calls (by index on the wire) some arguments were written for."""
        self._broken = False
        """Whether a live call failed after it was started on the wire."""

    def start(self) -> list[Message]:
        """The opening chunk (the role chunk, message_start...); [] once started."""
        if self._state != _NEW:
            return []
        self._state = _OPEN
        return self._opening()

    def feed(self, event: Event) -> list[Message]:
        """The chunks `event` gives now (after the opening ones, if `start` was not called)."""
        out = self._open()
        self._feed_event(event, out)
        return out

    def _feed_event(self, event: Event, out: list[Message]) -> None:
        if isinstance(event, TextDelta):
            if event.text:
                self._text(event.text, out)
        elif isinstance(event, ReasoningDelta):
            if event.text:
                self._reasoning(event.text, out)
        elif isinstance(event, ToolCallEnd):
            self._ended(event, out)
        elif self._live:
            self._live_event(event, out)
        # whole: ToolCallStart and ArgumentsDelta are held until the call ends (its
        # ToolCallEnd carries it whole); ToolCallFailed: it is never written.

    def _live_event(self, event: Event, out: list[Message]) -> None:
        """A live call's start, arguments or failure, written at once."""
        if isinstance(event, ToolCallStart):
            index = self._numbered
            self._numbered += 1
            ident = event.id if self._call_id is None else self._call_id(index, event.id)
            self._started[event.index] = (index, ident)
            self._call_start(index, ident, event.name, out)
        elif isinstance(event, ArgumentsDelta):
            started = self._started.get(event.index)
            if started is not None and event.fragment:
                self._filled.add(started[0])
                self._call_arguments(started[0], event.fragment, out)
        elif isinstance(event, ToolCallFailed) and event.index is not None:
            started = self._started.pop(event.index, None)
            if started is not None:  # written so far, never closed, not counted
                self._broken = True
                self._call_failed(started[0], out)

    def finish(self, finish_reason: str | None = None,
               usage: Mapping[str, Any] | None = None) -> list[Message]:
        """The closing chunks: why the turn ended (``finish_reason`` as any provider spells
        it; "tool calls" when calls were written) and the ``usage`` (any provider's), if any."""
        own = usage is not None and self._own_usage(usage)
        options = dataclasses.replace(self._options, finish_reason=finish_reason, usage=usage,
                                      provider=self.provider if own else None)
        return self._finish(options)

    def fail(self, message: str, *, kind: str = "api_error") -> list[Message]:
        """The API's in-stream error object, which ends the stream (``kind`` is its error
        type); nothing open is closed. [] when the stream has ended already."""
        if self._state == _ENDED:
            return []
        self._state = _ENDED
        return [self._error(message, kind)]

    def on_wire(self, index: int | None) -> bool:
        """Whether the call of event index `index` was started on the wire and not ended (a
        live call): a failure of any other was never shown as a call."""
        return index is not None and index in self._started

    @property
    def ended(self) -> bool:
        return self._state == _ENDED

    @property
    def tool_turn(self) -> bool:
        """Whether the turn ends as a tool-calls turn: calls were written, and no live call
        was left half written."""
        return bool(self.calls) and not self._broken and not self._started

    # -- the shared steps ---------------------------------------------------------------------

    def _open(self) -> list[Message]:
        if self._state == _ENDED:
            raise RuntimeError("this stream has ended: a new response needs a new writer")
        return self.start()

    def _ended(self, event: ToolCallEnd, out: list[Message]) -> None:
        call = event.call
        started = self._started.pop(event.index, None) if self._live else None
        if started is None:  # whole, or a call whose start this writer never saw
            index = self._numbered
            self._numbered += 1
            ident = call.id if self._call_id is None else self._call_id(index, call.id)
        else:
            index, ident = started
        if ident != call.id:
            call = call.model_copy(update={"id": ident})
        self.calls.append(call)
        if started is None:
            self._call(index, call, out)
            return
        if index not in self._filled:  # nothing streamed (no fragment came): the whole now
            self._call_arguments(index, call.arguments_json(), out)
        self._call_end(index, call, out)

    def _finish(self, options: WriteOptions) -> list[Message]:
        out = self._open()
        self._closing(options, out)
        self._state = _ENDED
        return out

    def write_result(self, result: ParseResult, options: WriteOptions) -> list[Message]:
        """A whole `result` as the API streams it (what `write_stream` gives): the result's
        reasoning, content and calls fed as events, its own finish reason and usage at the
        end. For a fresh writer only."""
        self._options = options
        out = self.start()
        self._result_reasoning(result, out)
        out += self.feed(TextDelta(result.content))
        for index, call in enumerate(result.calls):
            out += self.feed(ToolCallEnd(index, call))
        return out + self._finish(options)

    # -- what each API writes -------------------------------------------------------------------

    def _opening(self) -> list[Message]:
        raise NotImplementedError

    def _text(self, text: str, out: list[Message]) -> None:
        raise NotImplementedError

    def _reasoning(self, text: str, out: list[Message]) -> None:
        raise NotImplementedError

    def _result_reasoning(self, result: ParseResult, out: list[Message]) -> None:
        """A whole result's reasoning: its text, where the API keeps no blocks of its own."""
        if result.reasoning:
            self._reasoning(result.reasoning, out)

    def _call(self, index: int, call: ToolCall, out: list[Message]) -> None:
        raise NotImplementedError

    # live calls (where `live_calls`): started, filled, ended, or failed

    def _call_start(self, index: int, ident: str, name: str, out: list[Message]) -> None:
        raise NotImplementedError

    def _call_arguments(self, index: int, fragment: str, out: list[Message]) -> None:
        raise NotImplementedError

    def _call_end(self, index: int, call: ToolCall, out: list[Message]) -> None:
        """The end of a live call whose arguments were all written."""

    def _call_failed(self, index: int, out: list[Message]) -> None:
        """A live call that will not end: nothing is written (see the module docstring)."""

    def _closing(self, options: WriteOptions, out: list[Message]) -> None:
        raise NotImplementedError

    def _error(self, message: str, kind: str) -> Message:
        raise NotImplementedError

    def _own_usage(self, usage: Mapping[str, Any]) -> bool:
        """Whether `usage` is in this API's own shape (written as it came)."""
        return False


def stream_writer(provider: str, **options: Any) -> StreamWriter:
    """A `StreamWriter` for one streamed response of ``provider``'s API ("openai" for Chat
    Completions, "openai_responses", "anthropic" for Messages, "gemini", "ollama").
    ``options``: ``model`` (required), ``id`` (the response id; a fresh one prefixed as the
    API's are if None), ``created`` (Unix seconds; now if None), ``call_id`` (``(index, id) ->
    id`` on the wire; the event's id if None), ``calls`` ("whole", the default, or "live": see
    the module docstring)."""
    return get_provider(provider).stream_writer(**options)


def wire_message(provider: str, message: Message) -> str:
    """One chunk as ``provider`` sends it on the wire, as `stream_text` writes it: a server-sent
    event (``data:``, after an ``event:`` line naming its type for Anthropic and Responses), or
    an NDJSON line (Ollama)."""
    return wire_messages(provider, [message])


def wire_messages(provider: str, messages: list[Message]) -> str:
    """Chunks as ``provider`` sends them on the wire, one after another (`wire_message` each,
    joined): what a proxy writes for all that one upstream read gave."""
    return get_provider(provider).wire(messages)


def wire_done(provider: str) -> str:
    """What ends ``provider``'s stream on the wire after its last chunk: ``data: [DONE]`` for
    Chat Completions, nothing for the others."""
    return get_provider(provider).stream_end
