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
(``missing_section_open``), a missing close tag (``missing_close_tag``). Rendering writes
what DeepSeek's encoder writes (see `_xmlrender`); a ``<result>`` block is a tool result:
content, never calls (see `_results`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Final

from ...tools._tool import Tool
from .._json import JsonReader
from .._models import ToolCall
from ..reader import ReaderContext, ReaderFactory, Status
from ._base import Format
from ._blocks import SectionClose
from ._regions import DsmlCalls
from ._results import result_block, wrap_result
from ._template_json import bare_tool, tojson
from ._xmlparams import (
    ATTRIBUTES,
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
from ._xmlrender import XmlCallStyle, json_unless_string, render_xml_calls

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


_grammar_tag = grammar_tags("deepseek_dsml", _Tags())
_BARE_INVOKES: Final = tuple(f"<{bar}invoke" for bar in (FULLWIDTH, ASCII))


def _parse_tag(text: str) -> Tag | None:
    """The grammar's reading of an open tag, which ignores blanks; but ``invoke`` must be
    followed by one: ``<｜DSML｜invokename="f">`` (found by fuzzing, no model seen to write it)
    is no call tag, as for vLLM and SGLang, and as a stream must decide before the attribute
    comes (`_INVOKE_HEADER`): inside a block, a call that fails (``malformed_call``)."""
    after = len(_BARE_INVOKES[0])  # both bars are as long
    if text.startswith(_BARE_INVOKES) and not text[after : after + 1].isspace():
        return None
    return _grammar_tag(text)


_INVOKE_HEADER = re.compile(rf"(?:[ \t\r]+{ATTRIBUTES})?")
"""What may stand between ``<｜DSML｜invoke`` and its ``>``: blanks, then attributes."""


def _tags(bar: str) -> XmlTags:
    return XmlTags(
        call_open=f"<{bar}invoke",
        call_close=f"</{bar}invoke>",
        param_open=f"<{bar}parameter",
        param_close=f"</{bar}parameter>",
        parse_tag=_parse_tag,
        # The opener ends inside the tag name: blanks, then attributes, must follow it, so
        # "<｜DSML｜invokeable" or "<｜DSML｜invoke it" is prose, even cut by the end of the text.
        call_header_start=_INVOKE_HEADER,
        call_example=f'<{bar}invoke name="NAME">',
        section_closes=tuple(f"</{bar}{block}>" for block in BLOCKS),
        section_opens=tuple(f"<{bar}{block}>" for block in BLOCKS),
    )


TAGS = {bar: _tags(bar) for bar in (FULLWIDTH, ASCII)}
INVOKES = tuple(tags.call_open for tags in TAGS.values())


class _Markup:
    """A token that is markup wherever it stands (the end-of-turn token)."""

    def __init__(self, ctx: ReaderContext, opener: str) -> None:
        self.opener = opener

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        ctx.consume("markup", ctx.pos + len(self.opener))
        return Status.DONE


class _Invoke(XmlCallReader):
    """An invoke; as SGLang reads it, one may hold a JSON object instead of parameters."""

    openings: tuple[str, ...] = ("{",)
    json: JsonReader | None = None

    def _other(self, ctx: ReaderContext) -> Status | None:
        if self.opened or self.json is not None or not ctx.buf.startswith("{", ctx.pos):
            return super()._other(ctx)
        self._issue(ctx, "json_body", "a JSON object instead of parameters, read as the arguments")
        self.json, self.phase = JsonReader(), "json_body"
        return None

    def _json_body(self, ctx: ReaderContext, eof: bool) -> Status | None:
        assert self.json is not None
        self.json.emits = ctx.emits
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

    def _json_close(self, ctx: ReaderContext, eof: bool) -> Status | None:
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

    def _skip_then_fail(self, ctx: ReaderContext, eof: bool) -> Status | None:
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


# -- prompt rendering, as DeepSeek's encoder writes it (fixtures/render/deepseek_v32_dsml/) --

_OWN = TAGS[FULLWIDTH]  # the model writes fullwidth bars; the ASCII spelling is a slip
CALLS_START, CALLS_END = f"<{FULLWIDTH}{BLOCKS[0]}>", f"</{FULLWIDTH}{BLOCKS[0]}>"
RESULT_START, RESULT_END = "<result>", "</result>"
RESULTS_START, RESULTS_END = "<function_results>", "</function_results>"


STYLE = XmlCallStyle(
    _OWN,
    call_header=' name="{name}">',
    param_header=' name="{name}" string="{string}">',  # "false": the value is JSON
    value=json_unless_string,
    content_separator="\n\n",
)
_invoke_tag, _parameter_tag = STYLE.call_tag, STYLE.param_tag


TOOLS_PREAMBLE = (
    "## Tools\n\nYou have access to a set of tools you can use to answer the user's question.\n"
    f'You can invoke functions by writing a "{CALLS_START}" block like the following as part '
    f"of your reply to the user:\n{CALLS_START}\n{_invoke_tag('$FUNCTION_NAME')}\n"
    f"{_parameter_tag('$PARAMETER_NAME', 'true|false')}$PARAMETER_VALUE{_OWN.param_close}\n"
    f"...\n{_OWN.call_close}\n{_invoke_tag('$FUNCTION_NAME2')}\n...\n{_OWN.call_close}\n"
    f"{CALLS_END}\n\nString and scalar parameters should be specified as is without any "
    'escaping or quotes, while lists and objects should use JSON format. The "string" '
    'attribute should be set to "true" for string type parameters and "false" for other '
    "types (numbers, booleans, arrays, objects).\n\nIf the thinking_mode is enabled, then "
    "after function results you should strongly consider outputting a thinking block. Here "
    f"is an example:\n\n{CALLS_START}\n...\n{CALLS_END}\n\n{RESULTS_START}\n...\n"
    f"{RESULTS_END}\n\n<think>...thinking about results</think>\n\n"
    "Here are the functions available in JSONSchema format:\n<functions>\n"
)
TOOLS_END = "</functions>\n"


def _invoke(tags: XmlTags) -> ReaderFactory:
    return lambda ctx, opener: _Invoke(tags, opener)


class DeepseekV32Dsml(Format):
    name = "deepseek_v32_dsml"
    aliases = ("deepseek_v32", "deepseek_dsml", "dsml", "deepseek_v4", "deepseek_v4_dsml")
    model_prefixes = ("deepseek-ai/DeepSeek-V3.2", "deepseek-ai/DeepSeek-V4", "DeepSeek-V3.2")
    signatures = (FULLWIDTH + "invoke", FULLWIDTH + "parameter", ASCII + "invoke")
    turn_ends = (END_OF_SENTENCE,)  # also markup anywhere outside a block (`_Markup`)
    example = (
        "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n"
        "<｜DSML｜parameter name=\"city\" string=\"true\">Paris</｜DSML｜parameter>\n"
        "</｜DSML｜invoke>\n</｜DSML｜function_calls>"
    )

    models = "DeepSeek V3.2, V4"
    wire = '`<｜DSML｜invoke name="f"><｜DSML｜parameter name="k" string="true">v…`'
    grammars = ("deepseek_dsml",)
    refused_values = ("a</｜DSML｜parameter>\n</｜DSML｜invoke>",)
    result_tags = ("<result>", "</result>")
    call_region = DsmlCalls(_OWN)  # no structural tag: each parameter a tag of its own
    result_run = (RESULTS_START + "\n", "\n", "\n" + RESULTS_END)

    def call_openers(self) -> dict[str, ReaderFactory]:
        table: dict[str, ReaderFactory] = {END_OF_SENTENCE: _Markup}
        for bar, tags in TAGS.items():
            table[tags.call_open] = _invoke(tags)
            for block in BLOCKS:
                closer = f"</{bar}{block}>"
                table[f"<{bar}{block}>"] = _section(closer)
                table[closer] = lambda ctx, opener: SectionClose(opener)
        table[RESULT_START] = result_block(RESULT_END)
        return table

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # the template writes no tools section at all
            return ""
        listed = "".join(tojson(bare_tool(tool)) + "\n" for tool in tools)
        return f"{TOOLS_PREAMBLE}{listed}{TOOLS_END}"

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        return render_xml_calls(STYLE, calls, content)

    def render_result(self, call: ToolCall, result: str) -> str:
        # One result of the turn's <function_results> block, which the template opens
        # before the first result and closes after the last.
        return wrap_result(RESULT_START, RESULT_END, result)
