"""DeepSeek DSML (V3.2, and V4's ``tool_calls`` block): ``invoke`` calls in DSML tags.

    <｜DSML｜function_calls>
    <｜DSML｜invoke name="get_weather">
    <｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>
    <｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>
    </｜DSML｜invoke>
    </｜DSML｜function_calls>

DeepSeek-V4 names the block ``<｜DSML｜tool_calls>``. The bars are fullwidth (U+FF5C) as the
model writes them; the ASCII spelling ``<|DSML|...>`` that the DSML prompt teaches is read too,
with an ``ascii_pipes`` issue. ``string="true"`` values are raw text (typed by the schema when
it is not a string); ``string="false"`` values are JSON, kept as text with an
``invalid_value`` issue when they are not. The ``<｜end▁of▁sentence｜>`` token that ends the
turn is markup. Recovered with an issue: an invoke holding one JSON object instead of
parameters (``json_body``, as SGLang reads it), invokes without their block
(``missing_section_open``), a missing close tag (``missing_close_tag``).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from .._engine import Engine, ReaderFactory, Status
from .._json import JsonReader
from ._base import Format
from ._blocks import SectionClose
from ._xmlparams import (
    END,
    WAIT,
    AttributeTags,
    SectionOpen,
    Tag,
    XmlCallReader,
    XmlTags,
    grammar_tags,
    look_ahead,
)

__all__ = ["DeepseekV32Dsml", "TAGS"]

FULLWIDTH, ASCII = "｜DSML｜", "|DSML|"
BLOCKS = ("function_calls", "tool_calls")  # V3.2, V4
END_OF_SENTENCE = "<｜end▁of▁sentence｜>"


class _Tags(AttributeTags):
    def call_tag(self, children: list[Any]) -> Tag | None:
        tag = super().call_tag(children)
        if tag is not None and str(children[0]).startswith(f"<{ASCII}"):
            return replace(tag, slip="ascii_pipes")  # as the DSML prompt spells them
        return tag


_parse_tag = grammar_tags("deepseek_dsml", _Tags())


def _tags(bar: str) -> XmlTags:
    return XmlTags(
        call_open=f"<{bar}invoke",
        call_close=f"</{bar}invoke>",
        param_open=f"<{bar}parameter",
        param_close=f"</{bar}parameter>",
        parse_tag=_parse_tag,
        section_closes=tuple(f"</{bar}{block}>" for block in BLOCKS),
    )


TAGS = {bar: _tags(bar) for bar in (FULLWIDTH, ASCII)}
INVOKES = tuple(tags.call_open for tags in TAGS.values())


class _Markup:
    """A token that is markup wherever it stands (the end-of-turn token)."""

    def __init__(self, ctx: Engine, opener: str) -> None:
        self.opener = opener

    def read(self, ctx: Engine, eof: bool) -> Status:
        ctx.consume("markup", ctx.pos + len(self.opener))
        return Status.DONE


class _Invoke(XmlCallReader):
    """An invoke; as SGLang reads it, one may hold a JSON object instead of parameters."""

    openings = ("{",)
    json: JsonReader | None = None

    def _other(self, ctx: Engine) -> Status | None:
        if self.opened or self.json is not None or not ctx.buf.startswith("{", ctx.pos):
            return super()._other(ctx)
        self._issue(ctx, "json_body", "a JSON object instead of parameters, read as the arguments")
        self.json, self.phase = JsonReader(), "json_body"
        return None

    def _json_body(self, ctx: Engine, eof: bool) -> Status | None:
        assert self.json is not None
        end = self.json.feed(ctx.buf, ctx.pos, eof)
        for fragment in self.json.take_fragments():
            ctx.arguments(fragment)
        if self.json.error is not None:
            self.phase = "skip_then_fail"
            return None
        ctx.consume("call", end)
        if not self.json.done:
            return Status.MORE
        self.phase = "json_close"
        return None

    def _json_close(self, ctx: Engine, eof: bool) -> Status | None:
        marker, at = look_ahead(ctx.buf, ctx.pos, self.tags, (self.tags.call_close,), eof)
        if marker in (WAIT, END):
            return Status.MORE
        if marker == self.tags.call_close:
            ctx.consume("call", at + len(marker))
        else:
            self._issue(ctx, "missing_close_tag", f"the call ends without {self.tags.call_close!r}")
        assert self.json is not None
        self._end(ctx, self.json.value)
        return None

    def _skip_then_fail(self, ctx: Engine, eof: bool) -> Status | None:
        close = self.tags.call_close
        prefixes = frozenset(close[:i] for i in range(1, len(close)))
        if self._search(ctx, re.compile(re.escape(close)), prefixes, eof) is None:
            return Status.MORE
        ctx.consume("call", ctx.pos + len(close))
        assert self.json is not None and self.json.error is not None
        ctx.fail_call("invalid_arguments", f"the JSON body is not valid ({self.json.error[1]})")
        self.phase = "after"
        return None


def _section(closer: str) -> ReaderFactory:
    return lambda ctx, opener: SectionOpen(opener, closer, INVOKES)


def _invoke(tags: XmlTags) -> ReaderFactory:
    return lambda ctx, opener: _Invoke(tags, opener)


class DeepseekV32Dsml(Format):
    name = "deepseek_v32_dsml"
    aliases = ("deepseek_v32", "deepseek_dsml", "dsml", "deepseek_v4", "deepseek_v4_dsml")
    model_prefixes = ("deepseek-ai/DeepSeek-V3.2", "deepseek-ai/DeepSeek-V4", "DeepSeek-V3.2")
    signatures = (FULLWIDTH + "invoke", FULLWIDTH + "parameter", ASCII + "invoke")
    example = (
        "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n"
        "<｜DSML｜parameter name=\"city\" string=\"true\">Paris</｜DSML｜parameter>\n"
        "</｜DSML｜invoke>\n</｜DSML｜function_calls>"
    )

    def call_openers(self) -> dict[str, ReaderFactory]:
        table: dict[str, ReaderFactory] = {END_OF_SENTENCE: _Markup}
        for bar, tags in TAGS.items():
            table[tags.call_open] = _invoke(tags)
            for block in BLOCKS:
                closer = f"</{bar}{block}>"
                table[f"<{bar}{block}>"] = _section(closer)
                table[closer] = lambda ctx, opener: SectionClose(opener)
        return table
