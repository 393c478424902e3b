"""MiniMax-M2: ``<invoke>`` calls with XML parameters inside ``<minimax:tool_call>``.

    <minimax:tool_call>
    <invoke name="get_weather">
    <parameter name="city">Paris</parameter>
    <parameter name="days">3</parameter>
    </invoke>
    </minimax:tool_call>

One block may hold several invokes. Values are raw text typed by the tool's schema (see
`_xmlparams`). Recovered with an issue: invokes without the opening ``<minimax:tool_call>``
(``missing_section_open``), a missing ``</invoke>`` or ``</minimax:tool_call>``
(``missing_close_tag``).
"""

from __future__ import annotations

from .._engine import Engine, ReaderFactory
from ._base import Format
from ._blocks import SectionClose
from ._xmlparams import AttributeTags, SectionOpen, XmlCallReader, XmlTags, grammar_tags

__all__ = ["MinimaxM2", "TAGS"]

TOOL_CALL_START = "<minimax:tool_call>"
TOOL_CALL_END = "</minimax:tool_call>"
INVOKE_START = "<invoke "

TAGS = XmlTags(
    call_open=INVOKE_START,
    call_close="</invoke>",
    param_open="<parameter ",
    param_close="</parameter>",
    parse_tag=grammar_tags("minimax_m2", AttributeTags()),
    section_closes=(TOOL_CALL_END,),
)


def _section(ctx: Engine, opener: str) -> SectionOpen:
    return SectionOpen(opener, TOOL_CALL_END, (INVOKE_START,))


class MinimaxM2(Format):
    name = "minimax_m2"
    aliases = ("minimax", "minimax-m2", "minimax_m2.1")
    model_prefixes = ("MiniMaxAI/MiniMax-M2", "MiniMax-M2")
    signatures = (TOOL_CALL_START, '<invoke name="', "</invoke>")
    example = (
        '<minimax:tool_call>\n<invoke name="get_weather">\n'
        '<parameter name="city">Paris</parameter>\n</invoke>\n</minimax:tool_call>'
    )

    def call_openers(self) -> dict[str, ReaderFactory]:
        return {
            TOOL_CALL_START: _section,
            TOOL_CALL_END: lambda ctx, opener: SectionClose(opener),
            INVOKE_START: lambda ctx, opener: XmlCallReader(TAGS, opener),
        }
