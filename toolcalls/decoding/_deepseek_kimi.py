"""The call regions of DeepSeek V3/R1, V3.1, V3.2 (DSML) and Kimi K2: the region builders of the
`DeepseekCalls`, `DsmlCalls` and `KimiCalls` shapes, from their readers' markers.

Each is a section holding the calls, written as the model's chat template writes it:

* ``deepseek_v3``: ``<｜tool▁calls▁begin｜>`` then per call ``<｜tool▁call▁begin｜>function
  <｜tool▁sep｜>NAME`` and the arguments in a fenced JSON block, calls one per line, then
  ``<｜tool▁calls▁end｜>``;
* ``deepseek_v31``: per call ``<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{...}<｜tool▁call▁end｜>``,
  chained with no separator (the model card: "without separators or spaces");
* ``deepseek_v32_dsml``: ``<｜DSML｜function_calls>`` (V3.2) or ``<｜DSML｜tool_calls>`` (V4),
  ``invoke`` calls whose parameters are raw text (``string="true"``, the
  string-typed ones) or JSON (``string="false"``), in the schema's order, optional ones left
  out as the model may;
* ``kimi_k2``: ``<|tool_calls_section_begin|>``, per call ``<|tool_call_begin|>functions.NAME:IDX
  <|tool_call_argument_begin|>{...}<|tool_call_end|>``; the index is a number the model writes
  (the template counts calls over the whole conversation), so any non-negative integer.

Special tokens. Kimi's ``<|...|>`` markers are special tokens of its tokenizer:
``Lit(special=True)``. DeepSeek's ``<｜...｜>`` tool markers are added tokens its tokenizer
does not mark special (servers keep them in the text with special tokens skipped), and DSML's
tags are plain text: both are written as text, which a tokenizer holding one as a single token
spells with it.

Blanks: the readers take any between the markers of a section; the grammar allows them where
the template writes a line break (or, for DeepSeek V3.1 and Kimi, nothing).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..parsing.formats._regions import DeepseekCalls, DsmlCalls, KimiCalls
from ..parsing.formats._xmlparams import XmlTags
from ..tools._tool import Tool
from ._ir import Json, Lit, Node, Opt, Until, Ws, alt, seq
from ._region import (
    CallRegion,
    arguments_schema,
    bare_number,
    properties_of,
    raw_value,
    string_or_more,
    structural_tags,
)
from ._tagged_json import within_tags

__all__ = ["BUILDERS", "deepseek_region", "dsml_region", "kimi_region"]


# -- deepseek_v3: function<｜tool▁sep｜>NAME, fenced JSON; deepseek_v31: NAME<｜tool▁sep｜>{...}


def deepseek_region(shape: DeepseekCalls) -> CallRegion:
    def fenced_call(tool: Tool) -> Node:
        header = f"{shape.call_begin}{shape.call_type}{shape.sep}{tool.name}"
        return seq(
            Ws(), Lit(header), Lit("\n" + shape.fence_open), Ws(), Json(arguments_schema(tool)),
            Ws(), Lit(shape.fence_close), Ws(), Lit(shape.call_end),
        )

    def call(tool: Tool) -> Node:
        return seq(
            Ws(), Lit(f"{shape.call_begin}{tool.name}{shape.sep}"),
            Json(arguments_schema(tool)), Ws(), Lit(shape.call_end),
        )

    return CallRegion(
        Lit(shape.calls_begin), fenced_call if shape.fence_open else call, Lit(""),
        close=seq(Ws(), Lit(shape.calls_end)), reopen=False,
    )


# -- deepseek_v32_dsml: <｜DSML｜invoke name="NAME"> with DSML parameters -------------------


def dsml_region(shape: DsmlCalls) -> CallRegion:
    """The first of the tags' section names (V3.2's), or any other (V4's block name)."""
    tags = shape.tags
    opener, close = tags.section_opens[0], tags.section_closes[0]
    return CallRegion(
        Lit(opener), lambda tool: _dsml_call(tool, tags), Lit(""),
        close=seq(Ws(), Lit(close)), reopen=False,
        other_sections=tuple(
            (Lit(other), seq(Ws(), Lit(other_close)))
            for other, other_close in zip(tags.section_opens, tags.section_closes, strict=True)
            if other != opener
        ),
    )


def _dsml_call(tool: Tool, tags: XmlTags) -> Node:
    listed, required = properties_of(tool)
    parts: list[Node] = [Ws(), Lit(f'{tags.call_open} name="{tool.name}">')]
    for name, sub in listed:
        raw = raw_value(sub, tags.param_close, structural_tags(tags))
        stops = (tags.param_close, *structural_tags(tags))
        json_value = bare_number(sub) or Json(within_tags(sub, stops, tool.parameters))
        json_param = seq(_dsml_head(tags, name, "false"), Ws(), json_value, Ws(),
                         Lit(tags.param_close))
        if raw is None and string_or_more(sub):  # a string of a union is written raw
            raw = Until(tags.param_close, structural_tags(tags))
            param = alt(seq(_dsml_head(tags, name, "true"), raw), json_param)
        else:
            param = seq(_dsml_head(tags, name, "true"), raw) if raw is not None else json_param
        parts.append(param if name in required else Opt(param))
    parts.append(seq(Ws(), Lit(tags.call_close)))
    return seq(*parts)


def _dsml_head(tags: XmlTags, name: str, string: str) -> Node:
    return seq(Ws(), Lit(f'{tags.param_open} name="{name}" string="{string}">'))


# -- kimi_k2: functions.NAME:IDX<|tool_call_argument_begin|>{...} ----------------------------

_INDEX = Json({"type": "integer", "minimum": 0})


def kimi_region(shape: KimiCalls) -> CallRegion:
    def call(tool: Tool) -> Node:
        return seq(
            Ws(), Lit(shape.call_begin, special=True), Ws(),
            Lit(f"{shape.name_prefix}{tool.name}{shape.index_separator}"), _INDEX, Ws(),
            Lit(shape.argument_begin, special=True), Ws(), Json(arguments_schema(tool)), Ws(),
            Lit(shape.call_end, special=True),
        )

    return CallRegion(
        Lit(shape.section_begin, special=True), call, Lit(""),
        close=seq(Ws(), Lit(shape.section_end, special=True)), reopen=False,
    )


BUILDERS: dict[type[Any], Callable[[Any], CallRegion]] = {
    DeepseekCalls: deepseek_region,
    DsmlCalls: dsml_region,
    KimiCalls: kimi_region,
}
"""The region builder of each shape this module writes."""
