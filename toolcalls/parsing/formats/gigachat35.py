"""GigaChat 3.5: ``invoke`` calls in GCML tags (vLLM ``gigachat35``).

    I will check.<｜GCML｜tool_calls><｜GCML｜invoke name="get_weather"><｜GCML｜parameter
    name="city" string="true">Tokyo</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls>

DeepSeek's DSML layout with ``GCML`` in the tags (one line on the wire: the model writes no
blanks between tags). ``string="true"`` values are raw text (typed by the schema when it is not
a string); ``string="false"`` values are JSON, kept as text with an ``invalid_value`` issue
when they are not. The end-of-sequence ``</s>`` ending the text is markup. Recovered with an
issue: invokes without their block (``missing_section_open``), a missing close tag
(``missing_close_tag``); an invoke without a name is no call (``malformed_call``).

No GigaChat 3.5 chat template is public: calls are rendered as vLLM's tests write them (no
gap between tags); the tools and results as GigaChat 3's template writes them (a TypeScript
``namespace functions``, a ``function result`` message), which 3.5 is assumed to keep.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from ...tools._tool import Tool
from .._models import ToolCall
from ..reader import ReaderContext, ReaderFactory
from ._base import Format
from ._blocks import SectionClose
from ._regions import DsmlCalls
from ._results import region_openers
from ._xmlparams import ATTRIBUTES, AttributeTags, SectionOpen, XmlCallReader, XmlTags, grammar_tags
from ._xmlrender import XmlCallStyle, json_unless_string, render_xml_calls
from .gigachat import END_OF_SEQUENCE, MESSAGE_SEP, RESULT_ROLE, Gigachat3

__all__ = ["Gigachat35"]

BAR: Final = "｜GCML｜"
SECTION_OPEN: Final = f"<{BAR}tool_calls>"
SECTION_CLOSE: Final = f"</{BAR}tool_calls>"

TAGS: Final = XmlTags(
    call_open=f"<{BAR}invoke",
    call_close=f"</{BAR}invoke>",
    param_open=f"<{BAR}parameter",
    param_close=f"</{BAR}parameter>",
    parse_tag=grammar_tags("gigachat35", AttributeTags()),
    # blanks, then attributes, must follow the opener: "<｜GCML｜invokeable" is no call tag
    call_header_start=re.compile(rf"(?:[ \t\r]+{ATTRIBUTES})?"),
    call_example=f'<{BAR}invoke name="NAME">',
    section_closes=(SECTION_CLOSE,),
    section_opens=(SECTION_OPEN,),
)

STYLE: Final = XmlCallStyle(
    TAGS,
    call_header=' name="{name}">',
    param_header=' name="{name}" string="{string}">',  # "false": the value is JSON
    value=json_unless_string,
    gap="",
    content_separator="",
)


def _invoke(ctx: ReaderContext, opener: str) -> XmlCallReader:
    return XmlCallReader(TAGS, opener)


def _section(ctx: ReaderContext, opener: str) -> SectionOpen:
    return SectionOpen(opener, SECTION_CLOSE, (TAGS.call_open,))


def _section_close(ctx: ReaderContext, opener: str) -> SectionClose:
    return SectionClose(opener)


class Gigachat35(Format):
    """GigaChat 3.5 (GCML)."""

    name = "gigachat35"
    aliases = ("gigachat3_5", "gigachat_3_5", "gcml")
    model_prefixes = ("ai-sage/GigaChat3.5", "GigaChat3.5")
    signatures = (f"{BAR}invoke", f"{BAR}parameter", SECTION_OPEN)
    turn_ends = (END_OF_SEQUENCE,)
    example = (f'{SECTION_OPEN}<{BAR}invoke name="get_weather"><{BAR}parameter name="city" '
               f'string="true">Paris</{BAR}parameter></{BAR}invoke>{SECTION_CLOSE}')

    models = "GigaChat 3.5"
    wire = '`<｜GCML｜invoke name="f"><｜GCML｜parameter name="k" string="true">v…`'
    grammars = ("gigachat35",)
    no_corpus_reason = ("no corpus file: vLLM's gigachat35 test cases are the goldens "
                        "(fixtures/gigachat35/README.md)")
    refused_values = (f"a</{BAR}parameter></{BAR}invoke>",)
    result_region_end = MESSAGE_SEP
    call_region = DsmlCalls(TAGS)  # no structural tag: each parameter a tag of its own
    result_run = ("", "", "")

    def call_openers(self) -> dict[str, ReaderFactory]:
        table: dict[str, ReaderFactory] = {
            TAGS.call_open: _invoke,
            SECTION_OPEN: _section,
            SECTION_CLOSE: _section_close,
        }
        return table | region_openers({RESULT_ROLE: MESSAGE_SEP}, "tool_result_in_text")

    def render_tools(self, tools: Sequence[Tool]) -> str:
        return Gigachat3().render_tools(tools)

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        return render_xml_calls(STYLE, calls, content)

    def render_result(self, call: ToolCall, result: str) -> str:
        return Gigachat3().render_result(call, result)
