"""`read_stream`: a provider's streamed response read as it arrives, native calls and text.

A chunk is the SDK's stream object (read through its own ``to_dict()``, else
``model_dump()``: no SDK is imported here), a dict, or raw SSE / NDJSON text or bytes split
anywhere (`WireDecoder`, in `toolcalls.providers._wire_decoder`: what the raw stream holds that
is not a JSON event is an issue in the result, ``unread_stream_data``, ``truncated_stream`` or
``invalid_utf8``, in its place among the providers' own). Each provider's reader
(a `ProviderStream` subclass, each provider's `Provider.stream_reader`) turns the JSON events
into the events `toolcalls.stream()` emits:

- native calls: `ToolCallStart` once the name is known, `ArgumentsDelta` with the provider's
  own fragments (passed on as they come once the first non-blank one starts an object ``{``;
  otherwise, as for ``""`` or a JSON string holding the object, held back and given as
  canonical JSON at the end), `ToolCallEnd` only when the provider closed the call (each
  provider module says when), `ToolCallFailed` when its arguments are not a JSON object, or
  the stream ends with the call still open (cut off: a ``truncated_call`` issue);
- text: fed to the format's `StreamParser`, so calls in the text stream too. `format` is a
  format name; None (text only, as ``format="none"``); or ``"auto"``: the format the ``model``
  id of the stream names. Where the model names no format, the text cannot be told apart from
  markup while it streams: it is held back and parsed at `close` as `read_response` parses it
  (by markers), its events given then. To stream such text, name the format. Where the format
  the model names reads no call in the whole text (complete or not: a model writing another
  format's markup), the text is read by its markers at `close`, as `read_response` reads it,
  and the calls found are given then (their markup was given as text as it came);
- reasoning deltas as `ReasoningDelta`;
- an error the provider sends in the stream (a chunk or event with an ``error`` field:
  OpenRouter's mid-stream error chunk, Anthropic's ``event: error``, Gemini's and Ollama's error
  objects; the Responses ``error`` event and ``response.failed``): a ``provider_error`` issue
  with its message, every native call still open fails (`ToolCallFailed`, ``truncated_call``),
  and ``finish_reason`` is ``"error"`` unless the provider gives one of its own (before, with
  or after the error), as `read_response` reads an error body. The stream goes on being read.

Call `index` in events: calls are numbered in the order they start in this stream, native and
text together. Call ids are given at `ToolCallStart` and kept to `result()`: a provider's own
id as it is (one it already gave a call before: the first free ``call_<m>``, with a
``duplicate_call_id`` issue, as `read_response` does); a text call's engine id (``call_0``...)
or the ``call_<n>`` of a native call without one, unless a call started before has it: then the
first free ``call_<m>`` (the text call's `ToolCallEnd` carries that id), as `read_response`
gives them for the calls in the order they come. The one case a stream cannot foresee: a
provider id that comes after a text call that started with the same id (an id such as
``call_0``, which providers do not send): the provider's id is kept and the text call renamed
in the result, as `read_response` does (its events, given before, carry the id it had then; a
`ToolCallEnd` still to come, the new one).

A call said natively and in the text is read once, as `read_response` reads it: the later of
the two fails (`ToolCallFailed`, a ``duplicate_call`` issue) where it would have ended.

`result()` is what `read_response` gives for the assembled response (native calls first, then
the text's); before `close` it is a snapshot of what is final. Where they differ: a call still
open when the stream ends fails (``truncated_call``), which a whole response cannot show; and
the ``call_<n>`` ids of a native call without an id and of text calls where the stream starts
them in another order than the whole response places them (a Chat or Ollama native call
streamed before the content that holds a text call, whose whole message puts ``tool_calls``
after the content; a native call that comes while the text parser holds back a call it has not
yet started).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._errors import UnknownFormatError
from ..parsing._api import _no_format, parse
from ..parsing._events import (
    ArgumentsDelta,
    Event,
    ReasoningDelta,
    TextDelta,
    ToolCallEnd,
    ToolCallFailed,
    ToolCallStart,
)
from ..parsing._models import ParseIssue, ParseResult
from ..parsing._registry import get_format
from ..parsing._text import TextBuilder
from ..tools._read import read_tools
from ._duplicates import Repeats
from ._fields import NativeRead, duplicate_id, encodable, escape_surrogates
from ._registry import get_provider
from ._response_reader import (
    CallIds,
    alias_names,
    as_json,
    assemble,
    canonical,
    model_format,
    parse_text,
    with_repeats,
)
from ._wire_decoder import Decoded, WireDecoder

if TYPE_CHECKING:
    from ..parsing.formats._base import Format
    from ..parsing.stream import StreamParser
    from ..tools._read import ToolsLike
    from ..tools._tool import Tool

__all__ = ["NativeStreamCall", "ProviderStream", "WireDecoder", "read_stream"]

def read_stream(
    provider: str,
    *,
    format: str | Format | None = None,  # noqa: A002 - the concept is called "format" everywhere
    tools: ToolsLike = None,
) -> ProviderStream:
    """A parser for one streamed response of a provider API: ``feed(chunk)``, ``close()``,
    ``result()``, emitting the events `toolcalls.stream()` emits.

    Args:
        provider: "openai" (Chat Completions chunks, and every compatible server),
            "openai_responses" (Responses events), "anthropic" (Messages stream events),
            "gemini" (streamed ``GenerateContentResponse`` chunks) or "ollama" (``/api/chat``
            NDJSON lines).
        format: the format to parse the streamed text in, "auto" (from the stream's model
            id), or None not to parse it for calls.
        tools: the tools offered to the model; enables name checks and typed text arguments.
    """
    found = get_provider(provider)
    return found.stream_reader(found.name, format, read_tools(tools))


class NativeStreamCall:
    """One native call being streamed: its id and name as they come, its argument fragments."""

    __slots__ = ("fragments", "given", "held", "ident", "index", "name", "started", "whole")

    def __init__(self, ident: str | None, name: str | None) -> None:
        self.ident = ident
        self.given = ident
        """The id the provider gave (`ident` may be another: see `ProviderStream._start`)."""
        self.name = name
        self.index = -1
        """Its place among the stream's calls, set when `ToolCallStart` is given."""
        self.started = False
        self.held = True
        """Whether the fragments are held back (until one starts with ``{``)."""
        self.whole = False
        """Whether the first non-blank fragment did not start an object: held to the end."""
        self.fragments: list[str] = []

    def arguments(self) -> str:
        return "".join(self.fragments)


def _released(call: NativeStreamCall, fragment: str) -> str:
    """The text to give once `call`'s arguments turn out to start an object ("" while they are
    held). Each fragment is looked at once (the ones before it were blank), so a call whose
    arguments are not an object costs no re-join per fragment: it is held to the end."""
    if call.whole:
        return ""
    # From `_start` (fragment ""): the fragments that came before the name, looked at once.
    stripped = (fragment or call.arguments()).lstrip()
    if not stripped:
        return ""  # blank so far
    if stripped[0] != "{":
        call.whole = True  # not an object: given whole at the end
        return ""
    call.held = False
    return call.arguments()


class ProviderStream:
    """The shared part of every provider's stream reader: chunks in, events out, a result.

    A subclass reads one JSON event (`_read_event`) and says what is left open at the end
    (`_finish`); it reports through `_text`, `_think`, `_start`, `_fragment` and `_end`.
    """

    def __init__(self, provider: str, fmt: str | Format | None, tools: Sequence[Tool]) -> None:
        self.provider = provider
        self._format = fmt
        self._tools = tools
        self._aliases = alias_names(tools)
        """Each alias of the tools -> its tool's name: the events carry the tool's name."""
        self._wire = WireDecoder()
        self._native = NativeRead()
        self._calls = 0
        """Calls started in this stream, native and text."""
        self._native_started = 0
        self._text_index: dict[int, int] = {}
        self._ids = CallIds(set())
        self._given_ids: set[str] = set()
        """The ids the provider gave the native calls started so far."""
        self._renamed: dict[str, str] = {}
        """A text call's engine id -> the id it was given, where another call had it."""
        self._text_ids: dict[str, str] = {}
        """The id each text call started with -> its engine id."""
        self._parser: StreamParser | None = None
        self._held: TextBuilder | None = None
        """The text held back under "auto" when the model names no format (a builder: a list
        of small deltas costs ~16 bytes per character held)."""
        self._fed: list[str] | None = None
        """The text fed to the format the model id names under "auto", while that format has
        read no call: read by its markers at `close` if it reads none (`_read_unread`)."""
        self._closed = False
        self._chunks = 0
        self._events: list[Event] = []
        self._repeats = Repeats()
        """The calls ended so far: a call repeating one of the other source fails."""
        self._repeated_text: set[str] = set()
        """The engine ids of the text calls that repeated a native call."""

    # -- the public API ---------------------------------------------------------------------

    def feed(self, chunk: Any) -> list[Event]:
        """Read the next chunk (an SDK object, a dict, or raw SSE/NDJSON text or bytes);
        return the events it made final."""
        if self._closed:
            raise RuntimeError("this stream is closed: a new response needs a new read_stream()")
        self._chunks += 1
        events: list[Event] = []
        self._events = events
        if type(chunk) is dict:
            self._read(chunk)
        elif isinstance(chunk, str | bytes | bytearray):
            self._read_wire(self._wire.feed(chunk))
        else:
            self._read(as_json(chunk))
        return events

    def close(self) -> list[Event]:
        """The end of the stream: read what the wire still holds, fail every call left open,
        finish the text; return the events that made final."""
        if self._closed:
            return []
        events: list[Event] = []
        self._events = events
        self._read_wire(self._wire.finish())
        self._closed = True
        self._finish()
        self._finish_text()
        return events

    def result(self) -> ParseResult:
        """What was read: final after `close`, a snapshot of what is final before it."""
        if self._parser is not None:
            text = self._parser.result()
        else:
            fmt = None if self._format == "auto" else self._format
            text = parse_text("", fmt, None, self._tools)
        calls = list(self._native.calls)
        for call in text.calls:
            if call.id in self._repeated_text:
                continue
            ident = self._renamed.get(call.id)
            calls.append(call if ident is None else call.model_copy(update={"id": ident}))
        result = assemble(self._native, self.provider, text, self._tools, calls)
        return with_repeats(result, self._repeats, result.calls)

    def release(self) -> None:
        """Let go of the text, reasoning and calls already given as events (`StreamParser.
        release`): `result` then holds what is read after, with the stream's finish reason,
        usage and every issue. For a proxy that passes the events on: its memory no longer
        grows with the stream. Text held back (under "auto", a model naming no format) is
        not given yet, so it is kept."""
        if self._parser is not None:
            self._parser.release()
        native = self._native
        native.reasoning.clear()
        native.reasoning_blocks.clear()
        native.calls.clear()
        native.call_places.clear()
        native.incomplete.clear()

    def text_call(self, index: int) -> bool:
        """Whether call `index` (as the events number it) was read from the text, not sent
        natively by the provider (known from its `ToolCallStart` on)."""
        return index in self._text_index.values()

    @property
    def closed(self) -> bool:
        return self._closed

    def __repr__(self) -> str:
        calls = len(self._native.calls) + (len(self._parser.result().calls)
                                           if self._parser is not None else 0)
        requested = self._format
        fmt = (self._parser.result().format if self._parser is not None
               else requested if isinstance(requested, str)
               else "none" if requested is None else requested.name)
        state = "closed" if self._closed else "open"
        return (f"<toolcalls.read_stream {self.provider!r} ({fmt}): {self._chunks} chunks, "
                f"{calls} complete call{'' if calls == 1 else 's'}, {state}>")

    def _read_wire(self, decoded: list[Decoded]) -> None:
        """What the raw stream gave: each event read, each issue of the wire noted."""
        for item in decoded:
            if isinstance(item, ParseIssue):  # its quote escaped where it holds a surrogate
                self._native.issues.append(ParseIssue(
                    kind=item.kind, message=escape_surrogates(item.message), span=item.span))
            else:
                self._read(item)

    # -- what a provider's reader implements --------------------------------------------------

    def _read(self, data: Mapping[str, Any]) -> None:
        error = data.get("error")
        if error:
            self._provider_error(error)
        self._read_event(data)

    def _read_event(self, data: Mapping[str, Any]) -> None:
        raise NotImplementedError

    def _take_open(self) -> list[NativeStreamCall]:
        """The native calls still open, no longer so (a reader with none open returns [])."""
        return []

    def _finish(self) -> None:
        """The stream ended: close (fail) what is left open."""

    # -- what a provider's reader reports through ---------------------------------------------

    def _text(self, text: str) -> None:
        """Content text: through the format's stream parser."""
        text = self._native.readable(text, "the text")
        parser = self._parser
        if parser is None:
            if self._held is not None:
                self._held.append(text)
                return
            parser = self._text_parser()
            if parser is None:
                return self._text(text)
        if self._fed is not None:
            self._fed.append(text)
        events = parser.feed(text)
        if events:
            self._pass_text_events(events)

    def _think(self, text: Any) -> None:
        if isinstance(text, str) and text:
            text = self._native.readable(text, "the reasoning")
            self._native.think(text)
            self._events.append(ReasoningDelta(text))
        else:
            self._native.not_text(text, "a piece of reasoning")

    def _say(self, text: Any) -> None:
        """A text field of an event: its text through `_text`; one that is not a string is
        noted."""
        if isinstance(text, str):
            if text:
                self._text(text)
        else:
            self._native.not_text(text, "a piece of text")

    def _start(self, call: NativeStreamCall) -> None:
        """Give `ToolCallStart` for `call` once its name is known, then any fragments held."""
        if call.started or not call.name or not encodable(call.name):
            return  # a name UTF-8 cannot encode: the call fails at its end (`NativeRead.call`)
        call.started = True
        call.index = self._calls
        self._calls += 1
        unwritable = call.ident if call.ident and not encodable(call.ident) else None
        if unwritable:
            call.ident = None
        if call.ident in self._given_ids:  # a provider id a call before had: given its own
            self._native.issue("duplicate_call_id", duplicate_id(call.ident, call.name))
            call.ident = self._ids.claim(call.ident)
        elif call.ident:
            self._given_ids.add(call.ident)
            engine = self._text_ids.pop(call.ident, None)
            if engine is not None:  # a text call started with this provider id: renamed
                self._renamed[engine] = self._ids.claim(call.ident)
            self._ids.taken.add(call.ident)
        else:
            call.ident = self._ids.claim(f"call_{self._native_started}")
        self._native_started += 1
        if unwritable:
            self._native.unwritable_id(call.ident, unwritable)
        self._events.append(ToolCallStart(call.index, call.ident,
                                          self._aliases.get(call.name, call.name),
                                          source="native"))
        if call.fragments:
            self._fragment(call, "")

    def _fragment(self, call: NativeStreamCall, fragment: str) -> None:
        if fragment:
            call.fragments.append(fragment)
        if not call.started:
            return
        if call.held:
            fragment = _released(call, fragment)
        if fragment:
            self._events.append(ArgumentsDelta(call.index, fragment))

    def _end(self, call: NativeStreamCall, arguments: Any = None, *, raw: bool = True) -> None:
        """The provider closed `call`: read it as `read_response` would (its arguments as the
        fragments joined, or `arguments` when `raw` is False) and give its end or failure."""
        read = self._native
        done = len(read.calls)
        read.call(call.ident, call.name, call.arguments() if raw else arguments)
        if len(read.calls) > done:
            finished = canonical(read.calls[-1], self._aliases)
            if call.started and call.held:
                self._events.append(ArgumentsDelta(call.index, finished.arguments_json()))
            earlier = self._repeats.earlier(finished)
            if earlier is None:
                self._events.append(ToolCallEnd(call.index, finished))
                return
            read.calls.pop()  # a repetition of a text call: fails (`_duplicates`)
            read.call_places.pop()
            self._events.append(ToolCallFailed(call.index,
                                               self._repeats.repetition(finished, earlier)))
        else:
            self._failed(call)

    def _cut_off(self, call: NativeStreamCall, why: str = "the stream ended") -> None:
        """The stream ended (or the provider sent an error) with `call` still open: it fails."""
        self._native.fail_call("truncated_call",
                               f"native call {call.ident} ({call.name}): {why} before the "
                               "provider closed the call", call.name, call.arguments())
        self._failed(call)

    def _provider_error(self, error: Any) -> None:
        """The provider sent an error: an issue, and every call still open fails."""
        self._native.error(error)
        for call in self._take_open():
            self._cut_off(call, "the provider sent an error")

    def _failed(self, call: NativeStreamCall) -> None:
        if not call.started and call.name and encodable(call.name):
            self._start(call)
        index = call.index if call.started else None
        self._events.append(ToolCallFailed(index, canonical(self._native.incomplete[-1],
                                                            self._aliases)))

    # -- the text -----------------------------------------------------------------------------

    def _text_parser(self) -> StreamParser | None:
        """The format's stream parser, made at the first text (the model id is known by then);
        None where the text is held back ("auto", a model naming no format)."""
        fmt = self._format
        if fmt == "auto":
            fmt = model_format(self._native.model)
            if fmt is None:
                self._held = TextBuilder()
                return None
            self._fed = []
        chosen = _no_format() if fmt is None else get_format(fmt)
        self._parser = chosen.stream(tools=self._tools)
        return self._parser

    def _finish_text(self) -> None:
        if self._parser is None and self._held is None:
            self._text_parser()  # no text came: the result still names the format
        if self._held is not None:
            text = self._held.take()
            parsed = parse_text(text, "auto", None, self._tools)
            try:
                chosen = get_format(parsed.format)
            except UnknownFormatError:
                chosen = _no_format()
            self._held = None
            self._parser = chosen.stream(tools=self._tools)
            self._pass_text_events(self._parser.close(text))
        elif self._parser is not None:
            self._pass_text_events(self._parser.close())
            if self._fed is not None:
                self._read_unread(self._parser, "".join(self._fed))

    def _read_unread(self, named: StreamParser, text: str) -> None:
        """Under "auto", the whole text where the format the model id names read no call in it
        (complete or not): read by its markers, as `read_response` reads it; the calls found
        are given now (the text, markup and all, was given as it came)."""
        self._fed = None
        unread = named.result()
        if unread.calls or unread.incomplete:
            return
        detected = parse(text, "auto", tools=self._tools)
        if not detected.calls:
            return
        parser = get_format(detected.format).stream(tools=self._tools)
        self._parser = parser
        self._pass_text_events([event for event in parser.close(text)
                                if not isinstance(event, TextDelta | ReasoningDelta)])

    def _text_events(self, events: list[Event]) -> list[Event]:
        """The text parser's events, as a chunk's own: its call indices renumbered."""
        for event in events:
            if type(event) is not TextDelta and type(event) is not ReasoningDelta:
                self._events = []
                self._pass_text_events(events)
                return self._events
        return events

    def _pass_text_events(self, events: list[Event]) -> None:
        """The text parser's events, its call indices renumbered among the stream's calls."""
        out = self._events
        for event in events:
            if isinstance(event, TextDelta | ReasoningDelta):
                out.append(event)
            elif isinstance(event, ToolCallStart):
                self._fed = None  # the format read a call: the text is not read again
                self._text_index[event.index] = self._calls
                self._calls += 1
                ident = self._ids.claim(event.id)
                if ident != event.id:
                    self._renamed[event.id] = ident
                self._text_ids[ident] = event.id
                out.append(ToolCallStart(self._calls - 1, ident, event.name, source=event.source))
            elif isinstance(event, ArgumentsDelta):
                out.append(ArgumentsDelta(self._text_index[event.index], event.fragment))
            elif isinstance(event, ToolCallEnd):
                call = event.call
                if call.id in self._renamed:
                    call = call.model_copy(update={"id": self._renamed[call.id]})
                earlier = self._repeats.earlier(call)
                if earlier is None:
                    out.append(ToolCallEnd(self._text_index[event.index], call))
                else:  # a repetition of a native call: fails (`_duplicates`)
                    self._repeated_text.add(event.call.id)
                    out.append(ToolCallFailed(self._text_index[event.index],
                                              self._repeats.repetition(call, earlier)))
            else:
                index = None if event.index is None else self._text_index[event.index]
                out.append(ToolCallFailed(index, event.incomplete))
