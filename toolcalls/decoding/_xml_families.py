"""The call regions of the XML-parameter formats Qwen3-Coder (``qwen3_coder``), GLM-4.5/4.6
(``glm45``), GLM-4.7 (``glm47``), MiniMax-M2 (``minimax_m2``) and Seed-OSS (``seed_oss``),
merged into `_formats.REGIONS`.

Each is built from its reader's own `XmlTags` and its renderer's `XmlCallStyle` (the tags as
the chat template spells them), never retyped:

    <tool_call><function=NAME><parameter=K>V</parameter></function></tool_call>  Qwen3-Coder

    <tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>    GLM (no section)
    <minimax:tool_call><invoke name="NAME"><parameter name="K">V</parameter></invoke>...
        </minimax:tool_call>                          MiniMax-M2: one section holds every call
    <seed:tool_call><function=NAME><parameter=K>V</parameter></function></seed:tool_call>
                                                      Seed-OSS: a section around each call

A string value is written raw up to its close tag and holds none of the format's structural
tags; any other value is JSON holding none of them either (`raw_value`, `within_tags`), or a
boolean or null as the template spells it. Parameters come in the schema's order, the required
ones always. Blanks are allowed between tags where the template writes a line break (GLM-4.7
writes none; its reader takes them all the same).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..parsing._coerce import _types as value_types
from ..parsing.formats import glm as _glm
from ..parsing.formats import minimax_m2 as _minimax_m2
from ..parsing.formats import qwen3_coder as _qwen3_coder
from ..parsing.formats import seed_oss as _seed_oss
from ..parsing.formats._xmlparams import XmlTags
from ..parsing.formats._xmlrender import XmlCallStyle
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

__all__ = ["REGIONS", "XGRAMMAR_STYLES", "xgrammar_format"]


def xml_call(tool: Tool, style: XmlCallStyle, opener: str = "", section_close: str = "") -> Node:
    """One call of ``tool`` as ``style`` writes it, after the region's ``opener`` (GLM's call
    open tag is the opener itself), then ``section_close`` where each call has a section."""
    tags = style.tags
    head = style.call_tag(tool.name)  # raises for a name the reader would not read back
    parts: list[Node] = [Lit(head[len(opener):])] if head.startswith(opener) and opener else [
        Ws(), Lit(head)
    ]
    listed, required = properties_of(tool)
    excluded = structural_tags(tags)
    for name, sub in listed:
        tag = seq(Ws(), Lit(style.param_tag(name)))
        if tags.value_open:  # GLM: <arg_key>K</arg_key>, a blank, then <arg_value>
            tag = seq(tag, Ws(), Lit(tags.value_open))
        value = _value(sub, style, excluded, tool.parameters)
        parts.append(seq(tag, value) if name in required else Opt(seq(tag, value)))
    parts.append(seq(Ws(), Lit(tags.call_close)))
    if section_close:
        parts.append(seq(Ws(), Lit(section_close)))
    return seq(*parts)


def _value(schema: Mapping[str, Any], style: XmlCallStyle, excluded: tuple[str, ...],
           root: Mapping[str, Any]) -> Node:
    """A string raw up to its close tag, as is a nullable one (``anyOf: [string, null]``,
    which the reader keeps as text unless it is ``null``); anything else JSON, holding none of
    the tags the reader ends a value at, or the template's own spelling of a boolean or null
    (Qwen3-Coder and Seed-OSS write Jinja's ``True``, ``False``, ``None``)."""
    end = style.tags.param_close
    raw = raw_value(schema, end, excluded)
    types = value_types(dict(schema))
    if raw is None and string_or_more(schema):  # raw text holds every JSON value here too
        raw = Until(end, excluded)
    if raw is not None:
        return raw
    value = bare_number(schema) or Json(within_tags(schema, (end, *excluded), root))
    spelled = [style.value(v) for v, kind in _SPELLED if kind in types]
    others = [Lit(word) for word in dict.fromkeys(spelled) if word not in ("true", "false", "null")]
    return seq(Ws(), alt(value, *others) if "enum" not in schema and "const" not in schema
               else value, Ws(), Lit(end))


_SPELLED = ((True, "boolean"), (False, "boolean"), (None, "null"))
"""The values whose spelling the template writes as it likes (Jinja's ``string`` filter)."""


def _glm_call(tool: Tool) -> Node:
    # Both GLM formats read both layouts; the blanks of GLM-4.5 are Ws, so one call serves both.
    return xml_call(tool, _glm.STYLES[""], _glm.TOOL_CALL_START)


def _minimax_m2_call(tool: Tool) -> Node:
    return xml_call(tool, _minimax_m2.STYLE)


def _qwen3_coder_call(tool: Tool) -> Node:
    return xml_call(tool, _qwen3_coder.STYLE, section_close=_qwen3_coder.TOOL_CALL_END)


def _seed_oss_call(tool: Tool) -> Node:
    return xml_call(tool, _seed_oss.STYLE, section_close=_seed_oss.TOOL_CALL_END)


# The template's generation prompt ends with <|assistant|>: the model writes a line break
# before <think> (llama.cpp's GLM-4.5 tests).
_GLM = CallRegion(
    Lit(_glm.TOOL_CALL_START), _glm_call, Ws(), reasoning_lead=Opt(Lit("\n"))
)

REGIONS: dict[str, CallRegion] = {
    "glm45": _GLM,
    "glm47": _GLM,
    "minimax_m2": CallRegion(
        Lit(_minimax_m2.TOOL_CALL_START), _minimax_m2_call, Ws(),
        close=seq(Ws(), Lit(_minimax_m2.TOOL_CALL_END)), reopen=False,
    ),
    "seed_oss": CallRegion(Lit(_seed_oss.TOOL_CALL_START), _seed_oss_call, Ws()),
    "qwen3_coder": CallRegion(Lit(_qwen3_coder.TOOL_CALL_START), _qwen3_coder_call, Ws()),
}


# -- xgrammar structural tags -----------------------------------------------------------------

XGRAMMAR_STYLES: dict[str, str] = {
    "glm45": "glm_xml", "glm47": "glm_xml", "minimax_m2": "minimax_xml", "seed_oss": "qwen_xml",
    "qwen3_coder": "qwen_xml",
}
"""The xgrammar (0.2.8+) ``json_schema`` content style that writes each format's parameters:
GLM's ``<arg_key>``/``<arg_value>`` pairs, MiniMax-M2's ``<parameter name="K">``, and
Qwen3-Coder's (and Seed-OSS's) ``<parameter=K>``. The legacy ``{structures, triggers}`` shape has no
style (its content is JSON), so these formats have the current shape only."""


def _tag(begin: str, content: dict[str, Any], end: str) -> dict[str, Any]:
    return {"type": "tag", "begin": begin, "content": content, "end": end}


def _arguments(tool: Tool, style: str, tags: XmlTags) -> dict[str, Any]:
    # A string value holds none of the tags the reader takes as its end (as `raw_value`'s
    # exclude): without it xgrammar lets a value hold </tool_call> (found by sampling). xgrammar
    # refuses an exclude ending in a blank: "<invoke " is excluded as "<invoke" (stricter).
    return {"type": "json_schema", "json_schema": arguments_schema(tool), "style": style,
            "excludes": [tag.strip() for tag in structural_tags(tags)]}


def xgrammar_format(name: str, tools: Sequence[Tool], tool_choice: str) -> dict[str, Any]:
    """The ``format`` of the structural tag of ``name`` (one of `XGRAMMAR_STYLES`) calling
    ``tools``: each call as its template writes it, begin and end from the readers' markers."""
    style, forced = XGRAMMAR_STYLES[name], tool_choice not in ("auto", "required")
    if name == "minimax_m2":
        gap, tags = _minimax_m2.STYLE.gap, _minimax_m2.TAGS
        invokes = [
            _tag(gap + _minimax_m2.STYLE.call_tag(tool.name), _arguments(tool, style, tags),
                 gap + tags.call_close)
            for tool in tools
        ]
        calls = {"type": "tags_with_separator", "tags": invokes, "separator": "",
                 "at_least_one": True, "stop_after_first": forced}
        trigger = _minimax_m2.TOOL_CALL_START
        tagged = [_tag(trigger, calls, gap + _minimax_m2.TOOL_CALL_END)]
    elif name in ("seed_oss", "qwen3_coder"):
        # A section per call: <seed:tool_call> or <tool_call>, then <function=NAME>.
        module = _seed_oss if name == "seed_oss" else _qwen3_coder
        gap, tags = module.STYLE.gap, module.TAGS
        trigger = module.TOOL_CALL_START
        tagged = [
            _tag(trigger + gap + module.STYLE.call_tag(tool.name),
                 _arguments(tool, style, tags),
                 gap + tags.call_close + gap + module.TOOL_CALL_END)
            for tool in tools
        ]
    else:
        trigger, tags = _glm.TOOL_CALL_START, _glm.TAGS
        tagged = [
            _tag(_glm.STYLES[""].call_tag(tool.name), _arguments(tool, style, tags),
                 _glm.TOOL_CALL_END)
            for tool in tools
        ]
    return {"type": "triggered_tags", "triggers": [trigger], "tags": tagged,
            "at_least_one": tool_choice != "auto", "stop_after_first": forced}
