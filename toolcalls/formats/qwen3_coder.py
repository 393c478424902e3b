"""Qwen3-Coder: XML parameters inside ``<tool_call>`` (Qwen3-Coder, Qwen3.5, Nemotron 3 Nano).

    <tool_call>
    <function=get_weather>
    <parameter=city>
    Paris
    </parameter>
    <parameter=days>
    3
    </parameter>
    </function>
    </tool_call>

Values are raw text typed by the tool's schema (see `_xmlparams`). Names are kept verbatim
(quotes too, as ollama does). Recovered with an issue: ``<function=`` without ``<tool_call>``
(``missing_section_open``), a missing ``</function>`` or ``</tool_call>``
(``missing_close_tag``).
"""

from __future__ import annotations

from lark import Token, Transformer

from .._engine import Engine, ReaderFactory
from ._base import Format
from ._blocks import SectionClose
from ._xmlparams import SectionOpen, Tag, XmlCallReader, XmlTags, grammar_tags

__all__ = ["Qwen3Coder", "TAGS"]

TOOL_CALL_START = "<tool_call>"
TOOL_CALL_END = "</tool_call>"
FUNCTION_START = "<function="


class _Tags(Transformer[Token, Tag]):
    def call_tag(self, children: list[Token]) -> Tag:
        return Tag("call", str(children[0]).strip())

    def param_tag(self, children: list[Token]) -> Tag:
        return Tag("param", str(children[0]).strip())


TAGS = XmlTags(
    call_open=FUNCTION_START,
    call_close="</function>",
    param_open="<parameter=",
    param_close="</parameter>",
    parse_tag=grammar_tags("qwen3_coder", _Tags()),
    section_closes=(TOOL_CALL_END,),
)


def _section(ctx: Engine, opener: str) -> SectionOpen:
    return SectionOpen(opener, TOOL_CALL_END, (FUNCTION_START,))


class Qwen3Coder(Format):
    name = "qwen3_coder"
    aliases = ("qwen3coder", "qwen3_xml", "qwen3.5", "qwen35")
    model_prefixes = (
        "Qwen/Qwen3-Coder",
        "Qwen/Qwen3.5",
        "Qwen3-Coder",
        "nvidia/NVIDIA-Nemotron-3-Nano",
    )
    signatures = (FUNCTION_START, "<parameter=", "</parameter>")
    example = (
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
        "</function>\n</tool_call>"
    )

    def call_openers(self) -> dict[str, ReaderFactory]:
        return {
            TOOL_CALL_START: _section,
            TOOL_CALL_END: lambda ctx, opener: SectionClose(opener),
            FUNCTION_START: lambda ctx, opener: XmlCallReader(TAGS, opener),
        }
