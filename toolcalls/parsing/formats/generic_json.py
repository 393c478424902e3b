"""Generic JSON: llama.cpp's fallback for models with no tool format of their own.

llama.cpp (``COMMON_CHAT_FORMAT_GENERIC``) constrains the whole response to one JSON object
with one of three keys:

    {
      "tool_calls": [
        {"name": "get_weather", "arguments": {"city": "Paris"}, "id": "123456789"}
      ]
    }

``{"tool_call": {"name": ..., "arguments": {...}}}`` for one call (parallel calls off), and
``{"response": "Hello!"}`` for an answer. The object is read where it opens a line (the
start of the text, after reasoning or a line of content); any other ``{`` is content. Calls
stream as they arrive (any name makes a call: the object is the format's own markup, an
undeclared name gets an ``unknown_tool`` issue); a ``"content"`` string after the calls (how
llama.cpp's template polyfill writes an assistant turn with text) is content.

The answer of ``{"response": "..."}`` is content with its JSON escapes as written (``\\n`` stays
two characters): the text is never rewritten (every character is accounted for once), so a
caller wanting the decoded string decodes it (``json.loads(f'"{content}"')``); llama.cpp
returns it decoded. An object that is not one of the three, or a response that is no string,
is content.

Rendering follows llama.cpp's polyfill (no model template writes this format): the tools as
indented JSON in the system prompt, calls as one ``{"tool_calls": [...]}`` line (the polyfill
indents it by two; a line is what the grammar's model writes too), content, if any, on the line
before it, where it reads back as written (the polyfill puts it in a ``"content"`` key, whose
escapes would stay in the content), a result as ``{"tool_response": {"tool": ..., "content":
...}}`` indented by two, on lines of its own.

The grammar (`GenericJsonCalls`) is the whole response as llama.cpp's schema makes it: the
answer object, or the calls under either key with JSON's blanks anywhere, each call's keys in
llama.cpp's order (name, arguments, an optional id); content only as lines before the calls.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, Final

import regex  # type: ignore[import-untyped]  # partial matches: could this still be a head?

from ...tools._tool import Tool
from .._models import ToolCall
from .._text import skip_blanks
from ..reader import ReaderContext, ReaderFactory, Status
from ._base import Format
from ._jsonobjects import JsonCallsReader, JsonShape
from ._phased import PhasedReader
from ._regions import GenericJsonCalls
from ._template_json import openai_tool

__all__ = ["GenericJson"]

OBJECT_OPEN: Final = "{"
CALLS_KEY: Final = "tool_calls"
CALL_KEY: Final = "tool_call"
RESPONSE_KEY: Final = "response"
CONTENT_KEY: Final = "content"
# The head of the object up to its value: `{`, the key, `:` (and a response's opening quote).
HEAD: Final = regex.compile(r'\{\s*"(tool_calls|tool_call|response)"\s*:\s*("?)')
# After the calls: the polyfill's `"content": "` key, up to its opening quote.
CONTENT_HEAD: Final = regex.compile(r'\s*,\s*"content"\s*:\s*"')
# A JSON string's inside: characters other than quote and backslash, or an escape.
STRING_BODY: Final = re.compile(r'(?:[^"\\]|\\.)*', re.DOTALL)
DETECT_HEAD: Final = re.compile(r'(?:^|[\n>])[ \t]*\{\s*"(?:tool_calls|tool_call|response)"\s*:')

CALLS: Final = JsonShape(prefix=True, arrays=True, wrapped=True)
CALL: Final = JsonShape(prefix=True, wrapped=True)
RESPONSE_INSTRUCTION: Final = (
    "Respond in JSON format, either with `tool_call` (a request to call tools) or with "
    "`response` reply to the user's request"
)
TOOLS_INTRO: Final = "You can call any of the following tools to satisfy the user's requests: "


class GenericObjectReader(PhasedReader):
    """The response object: its head, then the calls or the answer, then its ``}``."""

    def __init__(self, ctx: ReaderContext, opener: str) -> None:
        self.phase = "head"
        self.calls: JsonCallsReader | None = None
        self.resume: int | None = None

    def _head(self, ctx: ReaderContext, eof: bool) -> Status | None:
        if not ctx.starts_line():
            return Status.REJECT
        found = HEAD.match(ctx.buf, ctx.pos, partial=not eof)
        if found is None:
            return Status.REJECT
        if found.partial or (found.end() == len(ctx.buf) and not eof):
            return Status.MORE  # the key, or the blanks before its value, may go on
        key, quote = found.group(1), found.group(2)
        if key == RESPONSE_KEY:
            if not quote:  # an answer that is no string: the object is content
                return Status.REJECT
            ctx.consume("markup", found.end())
            self.phase = "string"
            return None
        if quote:  # a string where the calls should be
            return Status.REJECT
        shape = CALLS if key == CALLS_KEY else CALL
        self.calls = JsonCallsReader(shape, ctx.buf[ctx.pos : found.end()])
        self.phase = "calls"
        return None

    def _calls(self, ctx: ReaderContext, eof: bool) -> Status | None:
        assert self.calls is not None
        status = self.calls.read(ctx, eof)
        if status is Status.REJECT:
            self.resume = self.calls.resume
            return status
        if status is Status.MORE:
            return status
        self.phase = "after_calls"
        return None

    def _after_calls(self, ctx: ReaderContext, eof: bool) -> Status | None:
        """The polyfill's ``"content"`` after the calls, if it comes next."""
        found = CONTENT_HEAD.match(ctx.buf, ctx.pos, partial=not eof)
        if found is not None and found.partial:
            return Status.MORE
        if found is not None:
            ctx.consume("markup", found.end())
            self.phase = "string"
            return None
        self.phase = "close"
        return None

    def _string(self, ctx: ReaderContext, eof: bool) -> Status | None:
        """The answer's text up to its closing quote: content, escapes as written."""
        body = STRING_BODY.match(ctx.buf, ctx.pos)
        end = ctx.pos if body is None else body.end()  # it matches the empty string: never None
        if end == len(ctx.buf) or (ctx.buf[end] == "\\" and end + 1 == len(ctx.buf)):
            ctx.consume("content", len(ctx.buf) if eof else end)
            return Status.DONE if eof else Status.MORE
        ctx.consume("content", end)
        ctx.consume("markup", end + 1)
        self.phase = "close"
        return None

    def _close(self, ctx: ReaderContext, eof: bool) -> Status | None:
        """The object's ``}``: markup when it comes next; anything else is left as content."""
        at = skip_blanks(ctx.buf, ctx.pos)
        if at == len(ctx.buf) and not eof:
            return Status.MORE
        if ctx.buf[at : at + 1] == "}":
            ctx.consume("markup", at + 1)
        return Status.DONE


class GenericJson(Format):
    """llama.cpp's generic JSON."""

    name = "generic_json"
    aliases = ("generic", "llamacpp_generic", "json_response")
    signatures = ('"tool_calls"', '"tool_call"', '"response"')
    example = '{"tool_call": {"name": "get_weather", "arguments": {"city": "Paris"}}}'

    models = "any model, under llama.cpp's generic JSON grammar"
    wire = '`{"tool_calls": [{"name": …, "arguments": {…}}]}`'
    call_region = GenericJsonCalls(CALLS_KEY, CALL_KEY, RESPONSE_KEY, ("<think>", "</think>"))

    def call_openers(self) -> dict[str, ReaderFactory]:
        return {OBJECT_OPEN: GenericObjectReader}

    @classmethod
    def detect(cls, text: str) -> float:
        # A key of the three opening an object that opens a line: the keys alone are ordinary.
        return 1.0 if DETECT_HEAD.search(text) else 0.0

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:
            return RESPONSE_INSTRUCTION
        listed = json.dumps([openai_tool(tool) for tool in tools], indent=2, ensure_ascii=False)
        return f"{RESPONSE_INSTRUCTION}\n\n{TOOLS_INTRO}{listed}"

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        if not calls:
            return content
        written = json.dumps({CALLS_KEY: [_call_object(call) for call in calls]},
                             ensure_ascii=False)
        return f"{content}\n{written}" if content else written

    def render_result(self, call: ToolCall, result: str) -> str:
        response: dict[str, Any] = {"tool": call.name, CONTENT_KEY: result}
        if call.id:
            response["tool_call_id"] = call.id
        # Its own line: a call object after it in a history opens a line, as it must.
        return json.dumps({"tool_response": response}, indent=2, ensure_ascii=False) + "\n"


def _call_object(call: ToolCall) -> dict[str, Any]:
    written: dict[str, Any] = {"name": call.name, "arguments": call.arguments}
    if call.id:
        written["id"] = call.id
    return written
