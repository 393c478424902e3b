"""Formats built from a description (`_spec.FormatSpec`): the same readers, renderers and
grammar shapes as the hand-written modules, chosen by the body kind.

| body | reader | grammar shape |
|---|---|---|
| ``json`` | `JsonCallsReader`, one object after the start marker | `JsonObjectCalls` |
| ``json_list`` | `JsonCallsReader`, a list (or one object) | `JsonListCalls` |
| ``name_json`` | `JsonCallReader`, the name as a header | `TaggedJsonCalls` |
| ``pythonic`` | `PythonicReader`, a list (or one call) | `PythonListCalls` |

Markers are written as the description gives them and read with the blanks around them
optional (``"<tool_call>\\n"`` is read as ``<tool_call>``), as models vary those blanks. After
the start marker any name makes a call (an undeclared one gets an ``unknown_tool`` issue):
the marker says the model meant to call.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from ...tools._tool import Tool
from .._models import ToolCall
from ..reader import ReaderFactory
from ._base import Format
from ._blocks import SectionClose, SectionOpen
from ._declared_xml import xml_openers, xml_style
from ._jsoncall import Header, JsonCall, JsonCallReader
from ._jsonobjects import JsonCallsReader, JsonShape
from ._pythonic_body import format_pythonic_call
from ._regions import (
    NAMED_OBJECT_HEAD,
    CallShape,
    DeepseekCalls,
    JsonArrayCalls,
    JsonListCalls,
    JsonObjectCalls,
    KimiCalls,
    PythonLineCalls,
    PythonListCalls,
    TaggedJsonCalls,
    XmlParameterCalls,
)
from ._results import protect, region_openers, result_block, wrap_result
from ._spec import CallsSpec, FormatSpec, ToolsSpec
from ._template_json import bare_tool, openai_tool, tojson
from ._xmlrender import render_xml_calls
from .apertus import KeyedCallsReader, keyed_call
from .olmo3 import Olmo3Reader
from .pythonic import PythonicReader

__all__ = ["Declared", "build_format", "write_tools"]

_PYTHON_NAME = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*")
_MAX_NAME = 200


class Declared(Format):
    """A format built from a `FormatSpec`; `build_format` makes one subclass per description."""

    name = "declared"
    spec: ClassVar[FormatSpec]

    def call_openers(self) -> dict[str, ReaderFactory]:
        calls = self.spec.calls
        if calls.body == "xml":
            return xml_openers(calls) | self._result_openers()
        if calls.lines:
            return {calls.start.strip(): _python_lines_reader(calls)} | self._result_openers()
        if calls.name_as_key:
            return {calls.start.strip(): _keyed_reader(calls)} | self._result_openers()
        if calls.section is not None and not calls.start.strip():
            return {calls.section[0].strip(): _lines_reader(calls, calls.section)} | (
                self._result_openers())
        table = {start.strip(): _call_reader(calls, start, end)
                 for start, end in ((calls.start, calls.end), *calls.other_markers)
                 if start.strip()}
        if calls.bare:
            table |= _bare_openers(calls)
        if calls.section is not None:
            table |= _section_openers(calls, calls.section)
        return table | self._result_openers()

    def _result_openers(self) -> dict[str, ReaderFactory]:
        results = self.spec.results
        if results is None:
            return {}
        start, end = results.start.strip(), results.end.strip()
        if results.tokens:
            return region_openers({start: end}, "tool_result_in_text")
        return {start: result_block(end)}

    def render_tools(self, tools: Sequence[Tool]) -> str:
        spec = self.spec.tools
        if spec is None:
            raise NotImplementedError(f"format {self.name!r} was described without [tools]: "
                                      "add it to write a tools section")
        return write_tools(spec, tools)

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        if not calls:
            return content
        if self.spec.calls.body == "xml":
            return render_xml_calls(xml_style(self.spec.calls), calls, content)
        gap = self.spec.calls.after_text if content.strip() else ""
        return content + self.spec.calls.before + gap + _write_calls(self.spec.calls, calls)

    def render_result(self, call: ToolCall, result: str) -> str:
        spec = self.spec.results
        if spec is None:
            raise NotImplementedError(f"format {self.name!r} was described without "
                                      "[results]: add it to write tool results")
        escaped = protect(result, spec.end.strip(), *spec.escape)
        if spec.run is not None:  # one element of the turn's run (`result_run`)
            return escaped
        if spec.tokens:
            return f"{spec.start}{escaped}{spec.end}"
        return wrap_result(spec.start, spec.end, result)


def write_tools(spec: ToolsSpec, tools: Sequence[Tool]) -> str:
    """The tools section `spec` describes, for `tools` ('' for none)."""
    if not tools:
        return ""
    written = openai_tool if spec.tool_object == "openai" else bare_tool
    listed = spec.separator.join(tojson(written(tool), indent=spec.indent,
                                        ensure_ascii=spec.ensure_ascii) for tool in tools)
    if spec.template:
        return spec.template.replace("{tools}", listed)
    return f"{spec.start}{listed}{spec.end}"


def build_format(spec: FormatSpec, *, shipped: bool = False) -> Declared:
    """The format `spec` describes; `shipped`: a built-in description (`formats.described`),
    whose goldens and corpus rows the tests read as a module's."""
    calls = spec.calls
    start, end = calls.start.strip(), calls.end.strip()
    region, reason = _call_region(calls)
    attributes: dict[str, Any] = {
        "__module__": __name__,
        "__doc__": f"{spec.models or spec.name}: described as data ({calls.body} calls).",
        "spec": spec,
        "name": spec.name,
        "aliases": spec.aliases,
        "model_prefixes": spec.model_ids,
        "reasoning_tags": spec.reasoning,
        "signatures": _signatures(calls),
        "bare_calls": calls.bare,
        "turn_ends": spec.turn_ends,
        "models": spec.models or spec.name,
        "wire": spec.wire or f"`{start}…{end}`".replace("{name}", "f"),
        "grammars": ("pythonic",) if calls.body == "pythonic" else (),
        "no_corpus_reason": spec.no_corpus_reason or (
            "" if shipped else "a format described at run time"),
        "example": spec.example or (render_xml_calls(xml_style(calls), [_EXAMPLE_CALL], "")
                    if calls.body == "xml" else _write_calls(calls, [_EXAMPLE_CALL])),
        "call_region": region,
        "no_call_region_reason": reason,
        "structural_tag_markers": _structural_tag(calls),
        "result_tags": _result_tags(spec),
        "result_region_end": spec.results.end.strip() if spec.results and
        spec.results.tokens else None,
    }
    if spec.results is not None and spec.results.run is not None:
        attributes["result_run"] = spec.results.run
    if calls.body == "pythonic":
        attributes["tool_name_rule"] = ("a Python dotted name, and parameter names Python "
                                        "identifiers")
    made: Declared = type(f"Declared_{spec.name}", (Declared,), attributes)()
    return made


_EXAMPLE_CALL = ToolCall(id="call_0", name="get_weather", arguments={"city": "Paris"},
                         source="native")


# -- reading ---------------------------------------------------------------------------------


def _call_reader(calls: CallsSpec, start: str, end: str) -> ReaderFactory:
    """The reader of calls between `start` and `end` (the description's pair or another)."""
    closer = end.strip() or None
    starts = (calls.start.strip(), *(other.strip() for other, _ in calls.other_markers))
    if calls.body == "json":  # the next call's marker ends one whose end is missing
        envelope = JsonCall(close=(closer,) if closer else (), envelope=True, tentative=True,
                            terminators=starts)
        return lambda ctx, opener: JsonCallReader(envelope, opener)
    if calls.body == "name_json":
        headed = JsonCall(close=(closer,) if closer else (), header_end=calls.name_end.strip(),
                          parse_header=_header_reader(calls),
                          terminators=starts)
        return lambda ctx, opener: JsonCallReader(headed, opener)
    if calls.body == "pythonic":
        return lambda ctx, opener: PythonicReader(opener, bare=True, closer=closer)
    # A list, or objects one after another, as models write them (unless list_only).
    listed = JsonShape(prefix=True, arrays=True, sequence=not calls.list_only, closer=closer,
                       wrapped=True,
                       name_keys=(calls.name_key,))
    return lambda ctx, opener: JsonCallsReader(listed, opener)


def _lines_reader(calls: CallsSpec, section: tuple[str, str]) -> ReaderFactory:
    """JSON call objects one after another inside the section (MiniMax M1's lines)."""
    lines = JsonShape(prefix=True, sequence=True, closer=section[1].strip() or None,
                      wrapped=True, name_keys=(calls.name_key,))
    return lambda ctx, opener: JsonCallsReader(lines, opener)


def _python_lines_reader(calls: CallsSpec) -> ReaderFactory:
    """Bare Python calls one a line inside start ... end (Olmo 3's reader, its markers)."""
    start, end = calls.start.strip(), calls.end.strip()
    return lambda ctx, opener: Olmo3Reader(start, end)


def _keyed_reader(calls: CallsSpec) -> ReaderFactory:
    """``[{NAME: {...}}]`` after start (Apertus' reader, its markers)."""
    end = calls.end.strip()
    return lambda ctx, opener: KeyedCallsReader(ctx, opener, end)


def _bare_openers(calls: CallsSpec) -> dict[str, ReaderFactory]:
    """Calls with no markers: a Python list, or JSON objects (or a list of them) that name a
    tool; each a candidate until the text shows it is a call (`JsonCallsReader`)."""
    if calls.body == "pythonic":
        return {"[": lambda ctx, opener: PythonicReader(opener)}
    bare = JsonShape(arrays=True, name_keys=(calls.name_key,))
    return dict.fromkeys("{[", lambda ctx, opener: JsonCallsReader(bare, opener))


def _section_openers(calls: CallsSpec, section: tuple[str, str]) -> dict[str, ReaderFactory]:
    """The section's markers: its start is markup when a call's start follows it, its end
    inside an open section (`_blocks`)."""
    opening, closing = section[0].strip(), section[1].strip()
    first = (calls.start.strip(),)
    table: dict[str, ReaderFactory] = {
        opening: lambda ctx, opener: SectionOpen(opener, closing, first)}
    if closing:
        table[closing] = lambda ctx, opener: SectionClose(closing)
    return table


def _header_reader(calls: CallsSpec) -> Callable[[str], Header | None]:
    """The header between the start marker and ``name_end``: the name prefix, a name (one
    word, no blanks inside), then the call's index or its id when the format writes one."""
    prefix, call_id = calls.name_prefix.strip(), calls.call_id.strip()
    index = calls.index_separator.strip()

    def read(text: str) -> Header | None:
        text = text.strip()
        if prefix:
            if not text.startswith(prefix):
                return None
            text = text[len(prefix):]
        if index:
            text, _, position = text.rpartition(index)
            if not position.strip().isdigit():
                return None
        name, _, written_id = text.partition(call_id) if call_id else (text, "", "")
        name, written_id = name.strip(), written_id.strip()
        if not name or len(name) > _MAX_NAME or any(ch.isspace() for ch in name):
            return None
        return Header(name, written_id or None)

    return read


# -- writing ---------------------------------------------------------------------------------


def _write_calls(spec: CallsSpec, calls: Sequence[ToolCall]) -> str:
    if spec.body == "json_list" and spec.name_as_key:
        return f"{spec.start}[{', '.join(map(keyed_call, calls))}]{spec.end}"
    if spec.body == "json_list":
        return f"{spec.start}{tojson([_call_object(spec, call) for call in calls])}{spec.end}"
    if spec.body == "pythonic" and spec.lines:
        one_a_line = "\n".join(map(_python_call, calls))
        return f"{spec.start}{one_a_line}{spec.end}"
    if spec.body == "pythonic":
        return f"{spec.start}[{', '.join(map(_python_call, calls))}]{spec.end}"
    written = spec.separator.join(f"{spec.start}{_call_body(spec, call, index)}{spec.end}"
                                  for index, call in enumerate(calls))
    return f"{spec.section[0]}{written}{spec.section[1]}" if spec.section else written


def _call_body(spec: CallsSpec, call: ToolCall, index: int) -> str:
    if spec.body == "json":
        return tojson(_call_object(spec, call))
    name_end = spec.name_end.strip()
    if name_end in call.name or not call.name.strip() or any(c.isspace() for c in call.name):
        raise ValueError(f"the tool name {call.name!r} cannot be written before {name_end!r}:"
                         " a name is one word that does not hold the marker after it")
    written_id = f"{spec.call_id}{call.id}" if spec.call_id else ""
    position = f"{spec.index_separator}{index}" if spec.index_separator else ""
    return (f"{spec.name_prefix}{call.name}{position}{written_id}{spec.name_end}"
            f"{tojson(call.arguments)}")


def _call_object(spec: CallsSpec, call: ToolCall) -> dict[str, Any]:
    return {spec.name_key: call.name, spec.arguments_key: call.arguments}


def _python_call(call: ToolCall) -> str:
    unnamed = [key for key in call.arguments if not key.isidentifier()]
    if _PYTHON_NAME.fullmatch(call.name) is None or unnamed:
        raise ValueError(f"{call.name!r} with arguments {list(call.arguments)!r} cannot be "
                         "written as a Python call: names must be Python identifiers")
    return format_pythonic_call(call.name, call.arguments)


# -- what decoding reads ---------------------------------------------------------------------


def _call_region(calls: CallsSpec) -> tuple[CallShape | None, str]:
    start, end = calls.start.strip(), calls.end.strip()
    if calls.body == "xml":
        return XmlParameterCalls(xml_style(calls)), ""
    if calls.name_as_key:
        special = _is_token(start) if calls.tokens is None else calls.tokens
        return JsonArrayCalls(start, end, name_as_key=True, special=special), ""
    if calls.body in ("json", "json_list") and calls.name_key != "name":
        return None, f"the tool's name is under {calls.name_key!r}, which no grammar writes"
    if not start and calls.section is None:
        return None, "bare calls, with no marker for a grammar to begin a call at"
    if calls.lines:
        return PythonLineCalls(start, end), ""
    if calls.call_id:
        return None, "a call id between the name and the arguments, which no grammar writes"
    if calls.section is not None:
        section_open, section_close = (marker.strip() for marker in calls.section)
        if calls.body == "json" and not start:
            return JsonObjectCalls(section_open, section_close=section_close), ""
        if calls.body == "json":
            return None, "JSON calls each in markers inside a section: no grammar shape yet"
        if calls.index_separator:
            return KimiCalls(section_open, section_close, start, calls.name_prefix.strip(),
                             calls.index_separator.strip(), calls.name_end.strip(), end), ""
        return DeepseekCalls(section_open, section_close, start, calls.name_end.strip(),
                             end), ""
    if calls.body == "json":
        return JsonObjectCalls(start, call_close=end or None), ""
    if calls.body == "json_list" and calls.grammar_list:
        return JsonArrayCalls(start, end, special=bool(calls.tokens)), ""
    if calls.body == "json_list":
        special = _is_token(start) if calls.tokens is None else calls.tokens
        return JsonListCalls(start, close=end, special=special), ""
    if calls.body == "name_json":
        return TaggedJsonCalls(start, "", calls.name_end.strip(), "", "", end), ""
    return PythonListCalls(start, end), ""


def _is_token(marker: str) -> bool:
    """Whether `marker` looks like a special token (``<|tool_call|>``) rather than a tag."""
    return marker.startswith("<|") and marker.endswith("|>")


def _structural_tag(calls: CallsSpec) -> tuple[str, str, str] | None:
    start, end = calls.start.strip(), calls.end.strip()
    literal = start.replace("{", "{{").replace("}", "}}")
    if calls.section is not None or calls.call_id or calls.index_separator or calls.name_as_key:
        return None  # a structural tag has no section around its calls, nor an id or index
    if calls.body == "name_json":
        name_end = calls.name_end.strip().replace("{", "{{").replace("}", "}}")
        return start, f"{literal}{{name}}{name_end}", end
    if not start or calls.body in ("pythonic", "xml") or (calls.name_key, calls.arguments_key) != (
            "name", "arguments"):
        return None
    if calls.body == "json_list":  # the calls begin inside the list
        return start, f"{literal}[{NAMED_OBJECT_HEAD}", f"}}]{end}"
    return start, f"{literal}{NAMED_OBJECT_HEAD}", f"}}{end}"


def _signatures(calls: CallsSpec) -> tuple[str, ...]:
    if calls.body == "xml":
        style = xml_style(calls)
        return (style.tags.call_open, style.tags.param_open, style.tags.param_close)
    return tuple(marker for marker in (calls.start.strip(), calls.end.strip()) if marker)


def _result_tags(spec: FormatSpec) -> tuple[str, str] | None:
    results = spec.results
    if results is None or results.tokens or results.run is not None:
        return None  # no tag pair around each result
    return results.start.strip(), results.end.strip()
