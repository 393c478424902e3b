"""Described XML-parameter formats: the `XmlTags` the shared reader reads and the
`XmlCallStyle` the shared writer writes, from a description's tag templates.

    start = "<function={name}>"                      call_open "<function=", header end ">"
    parameter = ["<parameter={key}>", "</parameter>"]
    start = '<invoke name="{name}">'                 call_open '<invoke name="', end '">'
    parameter = ["<arg_key>{key}</arg_key>\\n<arg_value>", "</arg_value>"]   GLM: value_open
    start = "<tool_call>{name}"                      GLM: the name runs up to the next tag

A tag is read by a pattern made from its template (the name between the text before and
after ``{name}``), where the hand-written formats use a Lark grammar: the tags of a described
format are fixed strings around the name, which a pattern says exactly.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Final

from ..reader import ReaderFactory
from ._blocks import SectionClose
from ._spec import CallsSpec
from ._xmlparams import SectionOpen, Tag, XmlCallReader, XmlTags
from ._xmlrender import XmlCallStyle, json_unless_string

__all__ = ["xml_openers", "xml_style"]

_RUNS_TO_NEXT_TAG: Final = re.compile("(?=<)")
_NAME_LINE: Final = re.compile(r"[ \t]*(?:[^\s<>]+[ \t\r\n]*)?")
"""A name that runs up to the next tag (GLM): one word, then blanks; every prefix fits."""


def _split(template: str, slot: str) -> tuple[str, str]:
    before, _, after = template.partition(slot)
    return before.strip(), after


def _tags(calls: CallsSpec) -> XmlTags:
    assert calls.parameter is not None  # checked by the description (`_spec._check_xml`)
    call_open, call_after = _split(calls.start, "{name}")
    param_open, param_after = _split(calls.parameter[0], "{key}")
    header_end, _, value_open = param_after.partition(">")
    section = calls.section
    call_end = call_after.strip()
    call_pattern = re.compile(re.escape(call_open) + r"(?P<name>[^\n]+?)"
                              + (re.escape(call_end) if call_end else r"\s*"))
    param_pattern = re.compile(re.escape(param_open) + r"(?P<name>[^\n]+?)"
                               + re.escape(header_end + ">"))
    return XmlTags(
        call_open=call_open,
        call_close=calls.end.strip(),
        param_open=param_open,
        param_close=calls.parameter[1].strip(),
        parse_tag=_tag_reader(call_pattern, param_pattern),
        call_header_end=re.compile(re.escape(call_end)) if call_end else _RUNS_TO_NEXT_TAG,
        param_header_end=re.compile(re.escape(header_end + ">")),
        call_header_chars=None if call_end else _NAME_LINE,
        call_example=f"{call_open}NAME{call_end}",
        value_open=value_open.strip(),
        section_closes=(section[1].strip(),) if section else (),
        section_opens=(section[0].strip(),) if section else (),
    )


def _tag_reader(call: re.Pattern[str],
                param: re.Pattern[str]) -> Callable[[str], Tag | None]:
    @functools.lru_cache(maxsize=1024)
    def parse_tag(text: str) -> Tag | None:
        for kind, pattern in (("call", call), ("param", param)):
            found = pattern.fullmatch(text)
            if found is not None and found["name"].strip():
                return Tag(kind, found["name"].strip())
        return None

    return parse_tag


@functools.cache
def xml_style(calls: CallsSpec) -> XmlCallStyle:
    """How a described XML format writes its calls, over the tags it reads."""
    assert calls.parameter is not None
    tags = _tags(calls)
    call_header = calls.start.partition("{name}")[2].strip()
    param_after = calls.parameter[0].partition("{key}")[2]
    return XmlCallStyle(
        tags,
        call_header="{name}" + call_header,
        param_header="{name}" + param_after.partition(">")[0] + ">",
        value=json_unless_string,
        gap=calls.separator,
        value_framing=calls.value_framing,
        section_per_call=calls.section_per_call,
        content_separator=calls.before or calls.separator,
    )


def xml_openers(calls: CallsSpec) -> dict[str, ReaderFactory]:
    """The call tag, and the section's tags when calls stand in one."""
    tags = xml_style(calls).tags
    table: dict[str, ReaderFactory] = {
        tags.call_open: lambda ctx, opener: XmlCallReader(tags, opener)}
    if tags.section_opens:  # a description has one section at most
        closing = tags.section_closes[0]
        table[tags.section_opens[0]] = lambda ctx, opener: SectionOpen(
            opener, closing, (tags.call_open,))
        table[closing] = lambda ctx, opener: SectionClose(opener)
    return table
