"""Mistral: ``[TOOL_CALLS]`` then either a JSON array of calls or, from tokenizer v11 on, a header.

    [TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "a1b2c3d4e"}]
                                                  Mistral 7B v0.3, Nemo, Small 3.0/3.1 (pre-v11)
    [TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}                    v11+: Devstral, Ministral
    [TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{"city": "Paris"}  Mistral Small 3.2
    [TOOL_CALLS]get_weather{"city": "Paris"}             v11+ with [ARGS] stripped: a slip

What follows ``[TOOL_CALLS]`` decides the shape, so one format reads them all; a single
``{"name": ..., "arguments": ...}`` object without the array is read too. Every element of an
array is its own call, streamed as it arrives, so parallel calls and text after the array survive
(mlx-lm PR #1448), and numbers are emitted only once final (vLLM #13622). A v11 call ends with
its JSON; the next call has its own ``[TOOL_CALLS]``. ``[ARGS]`` and ``[CALL_ID]`` are special
tokens, so a server that strips them leaves ``[TOOL_CALLS]name{...}``: a name flush against
``[TOOL_CALLS]`` (no blank inside) followed, after optional blanks, by ``{`` is read as that
call, with a ``recovered_slip`` issue.
Magistral reasons in ``[THINK]...[/THINK]`` (Magistral Small 1.0 wrote ``<think>``, read too).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any, cast

import regex  # type: ignore[import-untyped]  # partial matches: could this still be a header?
from lark import Transformer
from lark.exceptions import LarkError

from ...tools._tool import Tool
from .._grammar import load_grammar
from .._models import ToolCall
from .._text import skip_blanks
from ..reader import Reader, ReaderContext, ReaderFactory, Status
from ._base import Format, ReasoningReader, reasoning_opener
from ._headers import match_header
from ._jsoncall import Header, JsonCall, JsonCallReader, id_before_name
from ._regions import NameArgsCalls
from ._results import protect, region_openers
from ._template_json import openai_tool, tojson

__all__ = ["Mistral", "parse_header"]

TOOL_CALLS = "[TOOL_CALLS]"
ARGS = "[ARGS]"
CALL_ID = "[CALL_ID]"
AVAILABLE_TOOLS, AVAILABLE_TOOLS_END = "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]"
TOOL_RESULTS, TOOL_CONTENT, TOOL_RESULTS_END = "[TOOL_RESULTS]", "[TOOL_CONTENT]", "[/TOOL_RESULTS]"
# Mistral's own call ids: nine letters or digits (its templates refuse any other).
_MISTRAL_ID = re.compile(r"[A-Za-z0-9]{9}")

_V11 = JsonCall(header_end=ARGS)
# [ARGS] is a special token: a server that strips special tokens leaves the name flush against
# the JSON ([CALL_ID] is one too, so a header without [ARGS] has no id either).
_V11_WITHOUT_ARGS = JsonCall(
    header_end=ARGS, slip="no [ARGS] between the tool name and its arguments (stripped?)"
)
_OBJECT = JsonCall(envelope=True)
# What may follow [TOOL_CALLS] in a v11 call; anything else means the marker is not a call.
# Group "args" is empty when the name runs straight into the JSON object: then the name must
# be flush against [TOOL_CALLS], as the template writes it ("The [TOOL_CALLS] token {" is prose).
_NAME = r"[^\s\[\]{}\"]{1,128}"
_HEADER = regex.compile(
    r"\s*" + _NAME + r"(?:\s*" + regex.escape(CALL_ID) + r"[^\s\[\]]{1,64})?\s*"
    r"(?P<args>" + regex.escape(ARGS) + r")|" + _NAME + r"\s*(?P<args>)(?=\{)"
)


class _HeaderTree(Transformer[Any, Header]):
    def start(self, children: list[Any]) -> Header:
        return Header(str(children[0]), str(children[1]) if len(children) > 1 else None)


_TRANSFORMER = _HeaderTree()


@functools.lru_cache(maxsize=1024)
def parse_header(text: str) -> Header | None:
    """The name and call id in the text between ``[TOOL_CALLS]`` and ``[ARGS]``."""
    try:
        tree = load_grammar("mistral", transformer=_TRANSFORMER).parse(text)
    except LarkError:
        return None
    return cast(Header, tree)


class MistralCallReader(JsonCallReader):
    """`JsonCallReader` with two changes.

    A call id is taken from the envelope only when ``"id"`` comes before ``"name"``: the call
    starts as soon as its name is read, so a later id would be known or not depending on where
    the chunks end (the base reader takes it whenever it is there). And as Mistral has no close
    marker, a broken value ends where its brackets balance again (`_BalancedSkip`).
    """

    def __init__(self, shape: JsonCall, opener: str) -> None:
        super().__init__(shape, opener)
        self.skip: _BalancedSkip | None = None

    def _announce(self, ctx: ReaderContext) -> None:
        fragments = self.json.take_fragments()
        if self.header is None:
            members = self.json.members
            name = members.get("name")
            if not isinstance(name, str):
                self.pending.extend(fragments)
                return
            self.header = Header(name, id_before_name(members))
            ctx.start_call(name, self.header.call_id)
            fragments, self.pending = self.pending + fragments, []
        for fragment in fragments:
            ctx.arguments(fragment)


    def _skip_to_close(self, ctx: ReaderContext, eof: bool) -> bool:
        """A broken value ends where its brackets balance again or at the next ``[TOOL_CALLS]``,
        so the calls after it are kept."""
        if self.json.done:
            return True
        if self.skip is None:  # the reader's nesting where the JSON broke (see the report)
            self.skip = _BalancedSkip(len(self.json._stack), self.json._string is not None)
        end, found = self.skip.find_end(ctx.buf, ctx.pos, eof)
        ctx.consume("call", end)
        return found


class _BalancedSkip:
    """Finds the end of a broken JSON value: its brackets balanced, or ``[TOOL_CALLS]``."""

    def __init__(self, depth: int, in_string: bool) -> None:
        self.depth = depth
        self.in_string = in_string
        self.escaped = False

    def find_end(self, buf: str, start: int, eof: bool) -> tuple[int, bool]:
        """(where to stop consuming, whether the end was found); state carries over."""
        for i in range(start, len(buf)):
            char = buf[i]
            if self.escaped:
                self.escaped = False
            elif self.in_string:
                self.escaped = char == "\\"
                self.in_string = char != '"'
            elif char == '"':
                self.in_string = True
            elif char == "[" and buf.startswith(TOOL_CALLS, i):
                return i, True
            elif char == "[" and not eof and _cut_marker(buf, i):
                return i, False
            elif char in "{[":
                self.depth += 1
            elif char in "}]":
                self.depth -= 1
                if self.depth <= 0:
                    return i + 1, True
        return len(buf), eof


def _cut_marker(buf: str, i: int) -> bool:
    """Whether the text ends inside a ``[TOOL_CALLS]`` begun at `i` (no copy of a long rest:
    a broken value of a million brackets made a million copies)."""
    return len(buf) - i < len(TOOL_CALLS) and TOOL_CALLS.startswith(buf[i:])


class _V11Reader(MistralCallReader):
    """``[TOOL_CALLS]name[CALL_ID]id[ARGS]{...}``: rejects as soon as the text cannot be one."""

    def __init__(self, opener: str) -> None:
        super().__init__(_V11, opener)

    def _header(self, ctx: ReaderContext, eof: bool) -> Status | None:
        start = ctx.pos + len(self.opener)
        found = match_header(_HEADER, ctx.buf, start)
        if found is None or (found.partial and eof):
            return Status.REJECT
        if found.partial:
            return Status.MORE
        header = parse_header(ctx.buf[start : found.start("args")])
        if header is None:
            return Status.REJECT
        self.header = header
        if found.start("args") == found.end("args"):
            self.shape = _V11_WITHOUT_ARGS
        self._commit(ctx, found.end())
        self.phase = "body"
        return None


class _ArrayReader:
    """``[TOOL_CALLS] [call, call, ...]``: each element is a call; the brackets are markup."""

    def __init__(self, opener: str) -> None:
        self.opener = opener
        self.expect = "open"  # open | item | comma
        self.call: MistralCallReader | None = None

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        while True:
            if self.call is not None:
                status = self.call.read(ctx, eof)
                if status is not Status.DONE:
                    return status
                self.call, self.expect = None, "comma"
            step = self._step(ctx, eof)
            if step is not None:
                return step

    def _step(self, ctx: ReaderContext, eof: bool) -> Status | None:
        """Read markup up to the next element; a Status when the block is over or needs text."""
        start = ctx.pos + len(self.opener) if self.expect == "open" else ctx.pos
        at = skip_blanks(ctx.buf, start)
        if at >= len(ctx.buf):
            if not eof:
                return Status.MORE
            ctx.consume("markup", at)
            ctx.issue("missing_close_tag", "the list of calls ends without ']'",
                      (ctx.at(), ctx.at()))
            return Status.DONE
        char = ctx.buf[at]
        if self.expect == "open":
            ctx.consume("markup", at + 1)
            self.expect = "item"
        elif self.expect == "item" and char == "{":
            ctx.consume("markup", at)
            self.call = MistralCallReader(_OBJECT, "")
        elif char == "]":
            ctx.consume("markup", at + 1)
            return Status.DONE
        elif self.expect == "comma" and char == ",":
            ctx.consume("markup", at + 1)
            self.expect = "item"
        else:
            ctx.issue("unexpected_text", "the list of calls goes on with something else than a "
                      "call; the rest is content", (ctx.at(at), ctx.at(at + 1)))
            return Status.DONE
        return None


class _ToolCallsReader:
    """Picks the reader for what follows ``[TOOL_CALLS]``: an array, an object or a header."""

    def __init__(self, ctx: ReaderContext, opener: str) -> None:
        self.opener = opener
        self.inner: Reader | None = None

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        if self.inner is None:
            first = skip_blanks(ctx.buf, ctx.pos + len(self.opener))
            if first >= len(ctx.buf):
                return Status.REJECT if eof else Status.MORE
            char = ctx.buf[first]
            if char == "[":
                self.inner = _ArrayReader(self.opener)
            elif char == "{":
                self.inner = MistralCallReader(_OBJECT, self.opener)
            else:
                self.inner = _V11Reader(self.opener)
        return self.inner.read(ctx, eof)


class _ThinkingStart(ReasoningReader):
    """Text that starts inside reasoning (``thinking=True``). Magistral writes ``[THINK]`` itself,
    so a ``[THINK]`` at the very start is markup, and a reply that starts with a tool call has
    no reasoning at all."""

    def __init__(self) -> None:
        super().__init__("", "[/THINK]")

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        if not self.started:
            at = skip_blanks(ctx.buf, ctx.pos)
            ahead = ctx.buf[at : at + len(TOOL_CALLS)]
            if not eof and any(m.startswith(ahead) and m != ahead for m in ("[THINK]", TOOL_CALLS)):
                return Status.MORE
            if ahead.startswith("[THINK]"):
                self.opener = ctx.buf[ctx.pos : at] + "[THINK]"
            elif ahead == TOOL_CALLS:
                return Status.DONE
        return super().read(ctx, eof)


def _mistral_id(call: ToolCall) -> str | None:
    return call.id if _MISTRAL_ID.fullmatch(call.id) else None


def _v11_call(call: ToolCall) -> str:
    call_id = _mistral_id(call)
    header = call.name if call_id is None else f"{call.name}{CALL_ID}{call_id}"
    return f"{TOOL_CALLS}{header}{ARGS}{tojson(call.arguments)}"


class Mistral(Format):
    """Mistral. Rendering follows the v11+ templates: Mistral Small 3.2's
    (fixtures/render/mistral/) when a call carries a Mistral id (nine letters or digits), which
    it writes as ``[CALL_ID]`` and in front of the result; Devstral's form, without ids,
    otherwise. Tools: ``[AVAILABLE_TOOLS]`` + OpenAI-shaped JSON. A ``[TOOL_RESULTS]`` block in
    the text is a region of data, never calls."""

    name = "mistral"
    aliases = ("mistral_v11", "magistral", "ministral", "devstral", "mixtral")
    model_prefixes = (
        "mistralai/Mistral",
        "mistralai/Ministral",
        "mistralai/Magistral",
        "mistralai/Devstral",
        "mistralai/Mixtral",
        "mistralai/Codestral",
        "mistralai/Pixtral",
    )
    reasoning_tags = ("[THINK]", "[/THINK]")
    signatures = (TOOL_CALLS, ARGS, '"arguments"')
    turn_ends = ("</s>",)  # eos_token, as every Mistral template ends an assistant turn
    example = f'{TOOL_CALLS}get_weather{ARGS}{{"city": "Paris"}}'

    models = "Mistral, Ministral, Devstral"
    wire = "`[TOOL_CALLS][{…}]` and `[TOOL_CALLS]f[ARGS]{…}`"
    grammars = ("mistral",)
    body_wrapper = ("[TOOL_CALLS]", "")
    result_region_end = "[/TOOL_RESULTS]"
    call_region = NameArgsCalls(TOOL_CALLS, ARGS)
    structural_tag_markers = (TOOL_CALLS, TOOL_CALLS + "{name}" + ARGS, "")
    result_run = ("", "", "")

    def reasoning_reader(self, ctx: ReaderContext) -> Reader:
        return _ThinkingStart()

    def call_openers(self) -> dict[str, ReaderFactory]:
        table: dict[str, ReaderFactory] = {TOOL_CALLS: _ToolCallsReader}
        return table | region_openers({TOOL_RESULTS: TOOL_RESULTS_END}, "tool_result_in_text")

    def openers(self) -> dict[str, ReaderFactory]:
        table = super().openers()
        table["<think>"] = reasoning_opener("</think>")  # the spelling of other models
        return table

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # no tools: servers pass none, and the template writes no section
            return ""
        return f"{AVAILABLE_TOOLS}{tojson([openai_tool(t) for t in tools])}{AVAILABLE_TOOLS_END}"

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        return content + "".join(map(_v11_call, calls))

    def render_result(self, call: ToolCall, result: str) -> str:
        call_id = _mistral_id(call)
        head = TOOL_RESULTS if call_id is None else f"{TOOL_RESULTS}{call_id}{TOOL_CONTENT}"
        return f"{head}{protect(result, TOOL_RESULTS_END)}{TOOL_RESULTS_END}"
