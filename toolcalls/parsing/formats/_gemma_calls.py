"""The reader of Gemma's call blocks: ``OPEN call:NAME{ARGUMENTS} CLOSE``, every marker a
special token, strings quoted by a special token too (`_gemma_values`).

One block usually holds one call; mlx-lm's tests pin several in one block with nothing between
them (``call:f{...}call:g{...}``), read as several calls. A block whose calls end without the
close token (the response stops, or text follows) keeps its calls, with ``missing_close_tag``;
one cut inside its arguments is incomplete (``truncated_call``), never run; one whose arguments
do not read is ``invalid_arguments``. The name is announced as soon as its ``{`` arrives; the
arguments once their object is complete (they are read whole: no partial values).

A quoted value whose parameter the tool's schema types as no string (``count:<escape>42<escape>``
for an integer, as vLLM's FunctionGemma tests pin) is converted by the schema, as the XML
formats convert their raw text (`toolcalls.parsing._coerce`); one that does not convert stays
the string it is (``validate=True`` reports it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

from ...tools._refs import property_schema
from ...tools._tool import Tool
from .._coerce import coerce
from .._text import skip_blanks
from ..reader import ReaderContext, Status
from ._gemma_values import ObjectScanner, parse_object

__all__ = ["GemmaCallReader", "GemmaTokens"]

CALL_PREFIX: Final = "call:"
_HEAD: Final = re.compile(r"call:([^{<\s]{1,256})\{")
_HEAD_START: Final = re.compile(r"(?:c(?:a(?:l(?:l(?::[^{<\s]{0,256})?)?)?)?)?\Z")
"""What may still become a call head when more text comes."""


@dataclass(frozen=True)
class GemmaTokens:
    """The special tokens of one Gemma generation."""

    open: str
    close: str
    quote: str
    turn_end: str


class GemmaCallReader:
    """One ``OPEN call:...{...} CLOSE`` block (see the module docstring)."""

    def __init__(self, tokens: GemmaTokens, opener: str) -> None:
        self.tokens = tokens
        self.opener = opener
        self.calls = 0
        self.scanner: ObjectScanner | None = None
        self.args_start = 0
        self.name = ""
        self.head_pending = True
        """Before the first call: the opener is not consumed yet."""

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        while True:
            if self.scanner is not None:
                status = self._arguments(ctx, eof)
            else:
                status = self._between(ctx, eof)
            if status is not None:
                return status

    def _between(self, ctx: ReaderContext, eof: bool) -> Status | None:
        """Before a call or after one: a call head, the close token, or the block's end."""
        buf, close = ctx.buf, self.tokens.close
        start = ctx.pos + len(self.opener) if self.head_pending else ctx.pos
        at = skip_blanks(buf, start)
        if at == len(buf) and not eof:
            return Status.MORE
        if buf.startswith(close, at):
            ctx.consume("markup", at + len(close))
            return Status.DONE
        head = _HEAD.match(buf, at)
        if head is not None:
            ctx.consume("call" if self.head_pending else "markup", at)
            ctx.consume("call", head.end())
            self.name = head.group(1)
            ctx.start_call(self.name)
            self.head_pending = False
            self.args_start = ctx.at(head.end() - 1)
            self.scanner = ObjectScanner(self.tokens.quote, self.args_start, self._stops())
            return None
        rest = buf[at : at + len(close)]
        if not eof and (close.startswith(rest) or _HEAD_START.match(buf, at) is not None):
            return Status.MORE
        return self._no_call(ctx, at)

    def _no_call(self, ctx: ReaderContext, at: int) -> Status:
        """Neither a call nor the close token where one belongs."""
        if self.head_pending:  # the opener announced a call that never came
            start = ctx.at()
            ctx.consume("markup", ctx.pos + len(self.opener))
            ctx.issue("malformed_call", f"{self.opener!r} not followed by 'call:NAME{{': the "
                      "token is dropped, the text after it kept", (start, ctx.at()))
        else:
            ctx.issue("missing_close_tag", f"the calls end without {self.tokens.close!r}",
                      (ctx.at(at), ctx.at(at)))
        return Status.DONE

    def _arguments(self, ctx: ReaderContext, eof: bool) -> Status | None:
        assert self.scanner is not None
        end = self.scanner.scan(ctx.buf, ctx.off)
        if end == -1:
            if not eof:
                return Status.MORE
            ctx.consume("call", len(ctx.buf))
            ctx.fail_call("truncated_call", "the text ended inside the call's arguments")
            return Status.DONE
        if end < -1:
            return self._cut(ctx, -2 - end)
        self.scanner = None
        text = ctx.buf[self.args_start - ctx.off : end - ctx.off]
        ctx.consume("call", end - ctx.off)
        try:
            arguments = parse_object(text, self.tokens.quote)
        except ValueError as error:
            ctx.fail_call("invalid_arguments", f"the arguments do not read: {error}")
            return None
        ctx.end_call(typed_by_schema(arguments, ctx.tool(self.name)))
        return None

    def _cut(self, ctx: ReaderContext, at: int) -> Status:
        """A marker stands where the arguments were still open: the call is cut there."""
        ctx.consume("call", at - ctx.off)
        ctx.fail_call("malformed_call", "the call's arguments end at a marker before their '}'")
        close = self.tokens.close
        if ctx.buf.startswith(close, ctx.pos):
            ctx.consume("markup", ctx.pos + len(close))
        return Status.DONE

    def _stops(self) -> tuple[str, ...]:
        return (self.tokens.close, self.tokens.open, self.tokens.turn_end)


def typed_by_schema(arguments: dict[str, Any], tool: Tool | None) -> dict[str, Any]:
    """`arguments` with each string value whose schema allows no string converted by it."""
    if tool is None:
        return arguments
    for key, value in arguments.items():
        if not isinstance(value, str):
            continue
        schema = property_schema(tool.parameters, key)
        kind = schema.get("type") if schema is not None else None
        if isinstance(kind, str) and kind != "string" or (
                isinstance(kind, list) and kind and "string" not in kind):
            converted, problem = coerce(value, schema)
            if problem is None:
                arguments[key] = converted
    return arguments


def call_reader(tokens: GemmaTokens) -> GemmaReaderFactory:
    """The factory of `GemmaCallReader`s for `tokens`."""
    return GemmaReaderFactory(tokens)


class GemmaReaderFactory:
    """Makes a `GemmaCallReader` per opener (a class: compiled, a closure is slower)."""

    def __init__(self, tokens: GemmaTokens) -> None:
        self.tokens = tokens

    def __call__(self, ctx: ReaderContext, opener: str) -> GemmaCallReader:
        return GemmaCallReader(self.tokens, opener)
