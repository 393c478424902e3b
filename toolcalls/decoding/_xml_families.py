"""The call regions of the XML-parameter formats (the `XmlParameterCalls` shape): Qwen3-Coder,
GLM-4.5/4.6 and GLM-4.7, MiniMax-M2 and Seed-OSS, and their xgrammar structural tags.

Each is built from its format's `XmlCallStyle` (the tags as the chat template spells them, with
the reader's own `XmlTags`), never retyped. Where the calls stand follows from those tags:

    <tool_call><function=NAME><parameter=K>V</parameter></function></tool_call>  Qwen3-Coder
        (a section around each call, Seed-OSS too: <seed:tool_call>)
    <tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>    GLM (no section)
    <minimax:tool_call><invoke name="NAME"><parameter name="K">V</parameter></invoke>...
        </minimax:tool_call>                          MiniMax-M2: one section holds every call

A string value is written raw up to its close tag and holds none of the format's structural
tags; any other value is JSON holding none of them either (`raw_value`, `within_tags`), or a
boolean or null as the template spells it. Parameters come in the schema's order, the required
ones always. Blanks are allowed between tags where the template writes a line break (GLM-4.7
writes none; its reader takes them all the same).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..parsing._coerce import _types as value_types
from ..parsing.formats._regions import XmlParameterCalls
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

__all__ = ["BUILDERS", "xgrammar_format", "xml_call", "xml_parameter_region"]


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


def xml_parameter_region(shape: XmlParameterCalls) -> CallRegion:
    """The region of ``shape``'s calls: a section around each call, one section around them
    all, or (no section in the tags) each call's own open tag as the opener."""
    style, tags = shape.style, shape.style.tags
    lead = Opt(Lit(shape.reasoning_lead)) if shape.reasoning_lead else Lit("")
    if not tags.section_opens:
        opener = tags.call_open
        return CallRegion(Lit(opener), lambda tool: xml_call(tool, style, opener), Ws(),
                          reasoning_lead=lead)
    opener, closer = tags.section_opens[0], tags.section_closes[0]
    if style.section_per_call:
        return CallRegion(Lit(opener), lambda tool: xml_call(tool, style, opener, closer), Ws(),
                          reasoning_lead=lead)
    return CallRegion(Lit(opener), lambda tool: xml_call(tool, style, opener), Ws(),
                      close=seq(Ws(), Lit(closer)), reopen=False, reasoning_lead=lead)


BUILDERS: dict[type[Any], Callable[[Any], CallRegion]] = {XmlParameterCalls: xml_parameter_region}
"""The region builder of the shape this module writes."""


# -- xgrammar structural tags -----------------------------------------------------------------
#
# The xgrammar (0.2.8+) ``json_schema`` content style that writes each format's parameters
# (`Format.xgrammar_style`): GLM's ``<arg_key>``/``<arg_value>`` pairs (``glm_xml``),
# MiniMax-M2's ``<parameter name="K">`` (``minimax_xml``), and Qwen3-Coder's (and Seed-OSS's)
# ``<parameter=K>`` (``qwen_xml``). The legacy ``{structures, triggers}`` shape has no style
# (its content is JSON), so these formats have the current shape only.


def _tag(begin: str, content: dict[str, Any], end: str) -> dict[str, Any]:
    return {"type": "tag", "begin": begin, "content": content, "end": end}


def _arguments(tool: Tool, style: str, tags: XmlTags) -> dict[str, Any]:
    # A string value holds none of the tags the reader takes as its end (as `raw_value`'s
    # exclude): without it xgrammar lets a value hold </tool_call> (found by sampling). xgrammar
    # refuses an exclude ending in a blank: "<invoke " is excluded as "<invoke" (stricter).
    return {"type": "json_schema", "json_schema": arguments_schema(tool), "style": style,
            "excludes": [tag.strip() for tag in structural_tags(tags)]}


def xgrammar_format(
    shape: XmlParameterCalls, style_name: str, tools: Sequence[Tool], tool_choice: str
) -> dict[str, Any]:
    """The ``format`` of the structural tag of a format of ``shape`` (content style
    ``style_name``) calling ``tools``: each call as its template writes it, begin and end from
    the reader's tags, laid out as `xml_parameter_region` lays out the calls."""
    style, tags = shape.style, shape.style.tags
    gap, forced = style.gap, tool_choice not in ("auto", "required")
    if not tags.section_opens:  # the call's own tag is the trigger
        trigger = tags.call_open
        tagged = [
            _tag(style.call_tag(tool.name), _arguments(tool, style_name, tags), tags.call_close)
            for tool in tools
        ]
    elif style.section_per_call:
        trigger, closer = tags.section_opens[0], tags.section_closes[0]
        tagged = [
            _tag(trigger + gap + style.call_tag(tool.name),
                 _arguments(tool, style_name, tags),
                 gap + tags.call_close + gap + closer)
            for tool in tools
        ]
    else:  # one section holds every call
        trigger, closer = tags.section_opens[0], tags.section_closes[0]
        invokes = [
            _tag(gap + style.call_tag(tool.name), _arguments(tool, style_name, tags),
                 gap + tags.call_close)
            for tool in tools
        ]
        calls = {"type": "tags_with_separator", "tags": invokes, "separator": "",
                 "at_least_one": True, "stop_after_first": forced}
        tagged = [_tag(trigger, calls, gap + closer)]
    return {"type": "triggered_tags", "triggers": [trigger], "tags": tagged,
            "at_least_one": tool_choice != "auto", "stop_after_first": forced}
