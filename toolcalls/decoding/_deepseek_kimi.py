"""The call regions of DeepSeek V3/R1, V3.1, V3.2 (DSML) and Kimi K2, from their readers' markers.

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

from ..parsing.formats import deepseek as _deepseek
from ..parsing.formats import deepseek_dsml as _dsml
from ..parsing.formats import kimi_k2 as _kimi
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

__all__ = ["REGIONS", "TAGGED"]


# -- deepseek_v3: function<｜tool▁sep｜>NAME, then fenced JSON ----------------------------------

_FENCE_OPEN = "```json"
_FENCE_CLOSE = "```"


def _deepseek_v3_call(tool: Tool) -> Node:
    header = f"{_deepseek.CALL_BEGIN}function{_deepseek.SEP}{tool.name}"
    return seq(
        Ws(), Lit(header), Lit("\n" + _FENCE_OPEN), Ws(), Json(arguments_schema(tool)), Ws(),
        Lit(_FENCE_CLOSE), Ws(), Lit(_deepseek.CALL_END),
    )


# -- deepseek_v31: NAME<｜tool▁sep｜>{...} ---------------------------------------------------


def _deepseek_v31_call(tool: Tool) -> Node:
    return seq(
        Ws(), Lit(f"{_deepseek.CALL_BEGIN}{tool.name}{_deepseek.SEP}"),
        Json(arguments_schema(tool)), Ws(), Lit(_deepseek.CALL_END),
    )


# -- deepseek_v32_dsml: <｜DSML｜invoke name="NAME"> with DSML parameters -------------------

_DSML = _dsml.TAGS[_dsml.FULLWIDTH]  # the model writes fullwidth bars; ASCII ones are a slip


def _dsml_call(tool: Tool) -> Node:
    listed, required = properties_of(tool)
    parts: list[Node] = [Ws(), Lit(f'{_DSML.call_open} name="{tool.name}">')]
    for name, sub in listed:
        raw = raw_value(sub, _DSML.param_close, structural_tags(_DSML))
        stops = (_DSML.param_close, *structural_tags(_DSML))
        json_value = bare_number(sub) or Json(within_tags(sub, stops, tool.parameters))
        json_param = seq(_dsml_head(name, "false"), Ws(), json_value, Ws(), Lit(_DSML.param_close))
        if raw is None and string_or_more(sub):  # a string of a union is written raw
            raw = Until(_DSML.param_close, structural_tags(_DSML))
            param = alt(seq(_dsml_head(name, "true"), raw), json_param)
        else:
            param = seq(_dsml_head(name, "true"), raw) if raw is not None else json_param
        parts.append(param if name in required else Opt(param))
    parts.append(seq(Ws(), Lit(_DSML.call_close)))
    return seq(*parts)


def _dsml_head(name: str, string: str) -> Node:
    return seq(Ws(), Lit(f'{_DSML.param_open} name="{name}" string="{string}">'))


# -- kimi_k2: functions.NAME:IDX<|tool_call_argument_begin|>{...} ----------------------------

_INDEX = Json({"type": "integer", "minimum": 0})


def _kimi_call(tool: Tool) -> Node:
    return seq(
        Ws(), Lit(_kimi.CALL_BEGIN, special=True), Ws(),
        Lit(f"{_kimi.NATIVE_PREFIX}{tool.name}:"), _INDEX, Ws(),
        Lit(_kimi.ARGUMENT_BEGIN, special=True), Ws(), Json(arguments_schema(tool)), Ws(),
        Lit(_kimi.CALL_END, special=True),
    )


REGIONS: dict[str, CallRegion] = {
    "deepseek_v3": CallRegion(
        Lit(_deepseek.CALLS_BEGIN), _deepseek_v3_call, Lit(""),
        close=seq(Ws(), Lit(_deepseek.CALLS_END)), reopen=False,
    ),
    "deepseek_v31": CallRegion(
        Lit(_deepseek.CALLS_BEGIN), _deepseek_v31_call, Lit(""),
        close=seq(Ws(), Lit(_deepseek.CALLS_END)), reopen=False,
    ),
    "deepseek_v32_dsml": CallRegion(
        Lit(_dsml.CALLS_START), _dsml_call, Lit(""),
        close=seq(Ws(), Lit(_dsml.CALLS_END)), reopen=False,
        other_sections=tuple(  # V4's block name
            (Lit(opener), seq(Ws(), Lit(close)))
            for opener, close in zip(_DSML.section_opens, _DSML.section_closes, strict=True)
            if opener != _dsml.CALLS_START
        ),
    ),
    "kimi_k2": CallRegion(
        Lit(_kimi.SECTION_BEGINS[0], special=True), _kimi_call, Lit(""),
        close=seq(Ws(), Lit(_kimi.SECTION_ENDS[0], special=True)), reopen=False,
    ),
}
"""The DeepSeek and Kimi formats' call regions, by registry name (merged into `_formats`)."""


TAGGED: dict[str, tuple[str, str, str]] = {
    # One section per call (the readers take several sections in a row); DSML's parameters
    # are not one JSON object, and Kimi's index is written as 0 (a structural tag's begin is
    # a fixed string).
    "deepseek_v3": (
        _deepseek.CALLS_BEGIN,
        f"{_deepseek.CALLS_BEGIN}{_deepseek.CALL_BEGIN}function{_deepseek.SEP}{{name}}\n"
        f"{_FENCE_OPEN}\n",
        f"\n{_FENCE_CLOSE}{_deepseek.CALL_END}{_deepseek.CALLS_END}",
    ),
    "deepseek_v31": (
        _deepseek.CALLS_BEGIN,
        f"{_deepseek.CALLS_BEGIN}{_deepseek.CALL_BEGIN}{{name}}{_deepseek.SEP}",
        f"{_deepseek.CALL_END}{_deepseek.CALLS_END}",
    ),
    "kimi_k2": (
        _kimi.SECTION_BEGINS[0],
        f"{_kimi.SECTION_BEGINS[0]}{_kimi.CALL_BEGIN}{_kimi.NATIVE_PREFIX}{{name}}:0"
        f"{_kimi.ARGUMENT_BEGIN}",
        f"{_kimi.CALL_END}{_kimi.SECTION_ENDS[0]}",
    ),
}
"""Structural tags (trigger, begin, end) of the formats whose arguments are one JSON object
between fixed strings (`_api.structural_tag`)."""
