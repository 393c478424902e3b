"""gpt-oss: OpenAI's harmony format, read from text that keeps its special tokens.

    <|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>commentary
    to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>

Messages ``[<|start|>ROLE]<|channel|>CHANNEL[ to=RECIPIENT][<|constrain|>TYPE]<|message|>BODY``
end with ``<|end|>``, ``<|call|>``, ``<|return|>`` (stop tokens servers may strip), the next
header or the text. The prompt ends with ``<|start|>assistant``, so the first header lacks it
(and may begin `` to=functions.f``). The recipient routes a message, on any channel (as vLLM and
llama.cpp do): ``functions.NAME`` calls NAME with JSON arguments; else ``analysis`` is reasoning,
``final`` and ``commentary`` (a preamble) are content. Headers and special tokens are markup,
text outside messages is content, a message to a built-in tool (``python``, ``browser.*``) is
markup. A call whose JSON is complete when the text ends is complete; one cut inside it is
incomplete. A header is at most 256 characters (``MAX_HEADER``, opener included): a longer one,
ended by a token or by the text, is not a header, and its opener is content (so a text of
repeated openers stays linear). Slips are recovered with an issue: a call on another channel
than commentary, two channels in a header, a declared tool named without ``functions.``, no
``<|message|>``, no end.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from lark import Tree
from lark.exceptions import LarkError

from ...tools._tool import Tool
from .._grammar import load_grammar
from .._json import JsonReader
from .._models import ToolCall
from .._text import skip_blanks
from ..reader import Reader, ReaderContext, ReaderFactory, Status, holdback
from ._base import Format
from ._harmony_tools import harmony_namespace
from ._phased import PhasedReader
from ._regions import HarmonyCalls
from ._template_json import tojson

__all__ = ["GptOss", "Header", "parse_header"]

START, CHANNEL, MESSAGE, CONSTRAIN = "<|start|>", "<|channel|>", "<|message|>", "<|constrain|>"
END, CALL, RETURN = "<|end|>", "<|call|>", "<|return|>"
ENDS = (END, CALL, RETURN)
TOKENS = (START, CHANNEL, MESSAGE, CONSTRAIN, *ENDS)
_TOKEN = re.compile("|".join(map(re.escape, TOKENS)))
_HEADER_END = re.compile("|".join(map(re.escape, (MESSAGE, START, *ENDS))))
_PREFIXES: Final = frozenset(t[:i] for t in TOKENS for i in range(1, len(t)))
_LONGEST: Final = max(map(len, TOKENS))
_TO_OPENERS = (" to=", "to=")
_TO_VIABLE = re.compile(r"\s*to=[^\s<]*\s*(?:<|\Z)")
MAX_HEADER = 256
NAMESPACE = "functions."
CHANNELS = ("analysis", "commentary", "final")


@dataclass(frozen=True)
class Header:
    """What a message header says: its channel (the last one written) and recipient."""

    channel: str | None
    recipient: str | None
    repeated: bool = False
    author: str | None = None
    """Who wrote the message (``functions.f`` for a tool's result), when the header says."""


@functools.lru_cache(maxsize=512)
def parse_header(text: str) -> Header | None:
    """Read a header (opener included, ``<|message|>`` excluded) with the grammar."""
    try:
        tree = load_grammar("gpt_oss").parse(text)
    except LarkError:
        return None
    parts = [(str(p.data), str(p.children[0])) for p in tree.children if isinstance(p, Tree)]
    channels = [value for kind, value in parts if kind == "channel"]
    recipients = [value[3:] for kind, value in parts if kind == "recipient"]
    authors = [value for kind, value in parts if kind == "role" and value != "None"]
    return Header(_last(channels), _last(recipients), len(channels) > 1, _last(authors))


def _last(values: list[str]) -> str | None:
    return values[-1] if values else None


class MessageReader(PhasedReader):
    """One message: header, body (text or JSON arguments), end token."""

    trims_after = True

    def __init__(self, opener: str, kind: str | None = None) -> None:
        self.opener = opener
        self.kind = kind  # content | reasoning | markup | call, once the header is read
        self.phase = "header" if kind is None else "text"
        self.scan_from: int | None = None  # absolute offset where the header search resumes
        self.json = JsonReader()
        self.failure: str | None = None
        self.json_at: int | None = None  # absolute offset where a tool result's JSON resumes

    def _header(self, ctx: ReaderContext, eof: bool) -> Status | None:
        buf, pos = ctx.buf, ctx.pos
        if self.opener in _TO_OPENERS and (ctx.at() != 0 or not _TO_VIABLE.match(buf, pos)):
            return Status.REJECT  # a bare recipient only continues the prompt's <|start|>assistant
        start = pos + len(self.opener)
        if self.scan_from is not None:
            start = max(start, self.scan_from - ctx.off)
        # A header is at most MAX_HEADER long: the search never looks further, and neither
        # does the grammar. Each opener of a long text of them repeated read the whole rest
        # (`<|channel|>a\n` x 1000, 13 KB: 17.8 s).
        found = _HEADER_END.search(buf, start, pos + MAX_HEADER + _LONGEST)
        if found is None:
            if len(buf) - pos >= MAX_HEADER + _LONGEST:
                return Status.REJECT
            if eof:
                return self._open_cut(ctx)
            self.scan_from = ctx.at(holdback(buf, start, _PREFIXES, _LONGEST))
            return Status.MORE
        header = parse_header(buf[pos : found.start()])
        if header is None or found.start() - pos > MAX_HEADER:
            return Status.REJECT
        if found.group() != MESSAGE:
            return self._headless(ctx, header, found)
        self._open(ctx, header, found.end())
        if self.kind == "call":
            self.phase = "arguments"
        else:
            self.phase = "tool_result" if _is_tool_result(header) else "text"
        return None

    def _open(self, ctx: ReaderContext, header: Header, stop: int) -> None:
        """Route the message by its header, and account for the header."""
        span = (ctx.at(), ctx.at(stop))
        self.kind, name = _route(ctx, header, span)
        if header.repeated:
            ctx.issue("repeated_channel", "several channels in one header: the last counts", span)
        if self.kind == "call":
            ctx.consume("call", stop)
            ctx.start_call(name or "")
            return
        ctx.consume("markup", stop)
        if self.kind == "reasoning":
            ctx.open_reasoning()

    def _open_cut(self, ctx: ReaderContext) -> Status:
        """The text ended inside a header: a call is truncated, anything else is markup."""
        cut = holdback(ctx.buf, ctx.pos + len(self.opener), _PREFIXES, _LONGEST)
        if cut - ctx.pos > MAX_HEADER:  # too long for a header, as when a token ends it
            return Status.REJECT
        header = parse_header(ctx.buf[ctx.pos : cut])  # without a half-written token
        channel = header.channel if header else None
        if header is None or not any(known.startswith(channel or "") for known in CHANNELS):
            return Status.REJECT
        self._open(ctx, header, len(ctx.buf))
        return Status.MORE if self.kind == "call" else Status.DONE

    def _headless(self, ctx: ReaderContext, header: Header, found: re.Match[str]) -> Status:
        """A header ended by an end token or a new message, never by ``<|message|>``."""
        if header.channel not in CHANNELS:
            return Status.REJECT  # more likely prose that mentions a token
        stop = found.end() if found.group() in ENDS else found.start()
        self._open(ctx, header, stop)
        message = "the message header is not followed by <|message|>"
        if self.kind == "call":
            ctx.fail_call("missing_message_token", message)
        else:
            ctx.issue("missing_message_token", message, (ctx.at(found.start()), ctx.at(stop)))
        return Status.DONE

    def _text(self, ctx: ReaderContext, eof: bool) -> Status | None:
        if self.kind == "reasoning":
            ctx.open_reasoning()
        found = self._scan(ctx, eof, self.kind or "content")
        if found is None:
            return Status.DONE if eof else Status.MORE
        return self._end(ctx, found, "markup")

    def _tool_result(self, ctx: ReaderContext, eof: bool) -> Status | None:
        """A tool's message to the assistant. The template writes the result as JSON (a string),
        so call markup inside it is data: the JSON value is content, read whole before any of
        it is accounted for (a body that is not JSON is read as text)."""
        start = ctx.pos if self.json_at is None else self.json_at - ctx.off
        self.json.emits = ctx.emits
        end = self.json.feed(ctx.buf, start, eof)
        self.json.take_fragments()
        self.json_at = ctx.at(end)
        if self.json.done and self.json.error is None:
            ctx.consume("content", end)
        elif self.json.error is None and not eof:
            return Status.MORE
        self.json = JsonReader()
        self.phase = "text"
        return None

    def _arguments(self, ctx: ReaderContext, eof: bool) -> Status | None:
        reader = self.json
        reader.emits = ctx.emits
        end = reader.feed(ctx.buf, ctx.pos, eof)
        for fragment in reader.take_fragments():
            ctx.arguments(fragment)
        if reader.error is None:
            ctx.consume("call", end)
            if not reader.done:
                return Status.MORE  # at the end of the text: a truncated call
            if isinstance(reader.value, dict):
                self.phase = "after"
                return None
        if reader.error is not None:  # skip from where the JSON broke, whatever the chunking
            ctx.consume("call", reader.error[0])
        problem = reader.error[1] if reader.error else "not a JSON object"
        self.failure = f"the arguments are not valid JSON ({problem})"
        self.phase = "skip"
        return None

    def _after(self, ctx: ReaderContext, eof: bool) -> Status | None:
        """Between the JSON and the end token: whitespace only."""
        ctx.consume("call", skip_blanks(ctx.buf, ctx.pos))
        rest = ctx.buf[ctx.pos : ctx.pos + _LONGEST]
        found = _TOKEN.match(ctx.buf, ctx.pos)
        if found is not None:
            return self._end(ctx, found, "call")
        if not rest:
            return self._finish(ctx) if eof else Status.MORE
        if rest in _PREFIXES and not eof:
            return Status.MORE
        ctx.issue("unexpected_text", "text after the arguments", (ctx.at(), ctx.at(ctx.pos + 1)))
        self.phase = "skip"
        return None

    def _skip(self, ctx: ReaderContext, eof: bool) -> Status | None:
        """Read to the end of a call whose arguments are done or broken."""
        found = self._scan(ctx, eof, "call")
        if found is not None:
            return self._end(ctx, found, "call")
        return self._finish(ctx) if eof else Status.MORE

    def _scan(self, ctx: ReaderContext, eof: bool, kind: str) -> re.Match[str] | None:
        """Account for the body up to the next special token (held back while partial)."""
        found = _TOKEN.search(ctx.buf, ctx.pos)
        if found is not None:
            stop = found.start()
        else:
            stop = len(ctx.buf) if eof else holdback(ctx.buf, ctx.pos, _PREFIXES, _LONGEST)
        ctx.consume(kind, stop)  # type: ignore[arg-type]
        return found

    def _end(self, ctx: ReaderContext, found: re.Match[str], kind: str) -> Status:
        """The message ends at a special token: consume an end token, leave a new header."""
        if found.group() in ENDS:
            ctx.consume(kind, found.end())  # type: ignore[arg-type]
        else:
            span = (ctx.at(found.start()), ctx.at(found.end()))
            ctx.issue("missing_end_token", f"the message ends at {found.group()!r}", span)
        return self._finish(ctx) if self.kind == "call" else Status.DONE

    def _finish(self, ctx: ReaderContext) -> Status:
        if self.failure is not None:
            ctx.fail_call("invalid_arguments", self.failure)
        elif self.kind == "call":
            ctx.end_call(self.json.value)
        return Status.DONE


def _is_tool_result(header: Header) -> bool:
    return (header.author or "").startswith(NAMESPACE) and header.recipient == "assistant"


def _route(ctx: ReaderContext, header: Header, span: tuple[int, int]) -> tuple[str, str | None]:
    """The body kind of a message, and the name it calls."""
    recipient, channel = header.recipient, header.channel
    if recipient is None or recipient == "assistant":
        return ("reasoning" if channel == "analysis" else "content"), None
    name = recipient[len(NAMESPACE) :] if recipient.startswith(NAMESPACE) else None
    if name is None and recipient in ctx.tools:
        name = recipient
        ctx.issue("missing_namespace", f"the recipient {recipient!r} lacks 'functions.'", span)
    if not name:
        ctx.issue("builtin_tool", f"a message to {recipient!r}, not a function: markup", span)
        return "markup", None
    if channel not in (None, "commentary"):
        ctx.issue("call_channel", f"a call sent on the {channel!r} channel, not commentary", span)
    return "call", name


class _StrayToken:
    """A special token outside any message: markup."""

    def __init__(self, ctx: ReaderContext, opener: str) -> None:
        self.opener = opener

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        ctx.consume("markup", ctx.pos + len(self.opener))
        return Status.DONE


class GptOss(Format):
    """gpt-oss. Rendering follows gpt-oss's own chat template (fixtures/render/gpt_oss/): the
    tools as the developer message's ``# Tools`` section (`harmony_namespace`), each call as its
    own message ``<|start|>assistant to=functions.f<|channel|>commentary json<|message|>``, each
    result as a message from the tool holding the result as a JSON string. The template moves
    an assistant's text before its calls to the analysis channel (reasoning); here it stays on
    the commentary channel, a preamble, so that it reads back as content."""

    name = "gpt_oss"
    aliases = ("harmony", "gpt-oss", "gptoss", "openai_harmony")
    model_prefixes = ("openai/gpt-oss", "gpt-oss")
    reasoning_tags = None
    signatures = (CHANNEL, MESSAGE, "<|start|>assistant")
    example = (
        "<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>"
        'commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>'
    )

    models = "gpt-oss (harmony)"
    wire = "`<|channel|>commentary to=functions.f <|constrain|>json<|message|>{…}<|call|>`"
    grammars = ("gpt_oss",)
    call_region = HarmonyCalls(
        START, CHANNEL, MESSAGE, CONSTRAIN, CALL, END, RETURN, NAMESPACE, TOKENS
    )
    # The header as gpt-oss writes it (vLLM's harmony tags too); <|call|> is its stop token.
    structural_tag_markers = (
        f"{CHANNEL}commentary to=",
        f"{CHANNEL}commentary to={NAMESPACE}{{name}} {CONSTRAIN}json{MESSAGE}",
        CALL,
    )
    result_run = ("", "", "")

    def call_openers(self) -> dict[str, ReaderFactory]:
        table: dict[str, ReaderFactory] = {token: _StrayToken for token in TOKENS}
        for opener in (START, CHANNEL, *_TO_OPENERS):
            table[opener] = lambda ctx, opener: MessageReader(opener)
        return table

    def reasoning_reader(self, ctx: ReaderContext) -> Reader:
        """``thinking=True``: the prompt ended with ``<|channel|>analysis<|message|>``."""
        return MessageReader("", kind="reasoning")

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # no tools: servers pass none, and the template writes no section
            return ""
        return "# Tools\n\n" + harmony_namespace(tools)

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        preamble = f"{START}assistant{CHANNEL}commentary{MESSAGE}{content}{END}" if content else ""
        return preamble + "".join(
            f"{START}assistant to={NAMESPACE}{call.name}{CHANNEL}commentary json{MESSAGE}"
            f"{tojson(call.arguments)}{CALL}"
            for call in calls
        )

    def render_result(self, call: ToolCall, result: str) -> str:
        return (f"{START}{NAMESPACE}{call.name} to=assistant{CHANNEL}commentary{MESSAGE}"
                f"{tojson(result)}{END}")
