"""A format from a model's chat template: render probe conversations, diff, describe.

The template is the one thing a model has on its first day. Rendering it on conversations
that differ in one respect shows how it writes that respect:

* an assistant turn of text, and the same turn as one call: what differs is the call, with
  the text's end-of-turn token after it;
* the call's name, argument key and value are unique probe strings, so where each lands in
  the call tells the body kind: a JSON object holding the name and the arguments (``json``,
  or ``json_list`` inside a list), the name then an arguments object (``name_json``), or
  ``name(key=value)`` in a list (``pythonic``); the text around it is the markers;
* the description so found must read back the template's own rendering of two calls, a call
  with no arguments, nested arguments and text before a call, or the derivation fails;
* a tool message's text shows how results are written; a reasoning text, the reasoning tags;
* the tools given or not show the tools section (`_template_tools`), when it is a list of
  the tools as JSON; a format derived without one writes no tools (`tools_from_template`
  says why).

What cannot be described (arguments as tags of their own, a name the template changes,
calls it does not write at all) is a `TemplateFormatError` naming the reason.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..tools._read import to_tools
from ._chat_template import ChatTemplate, TemplateFormatError
from ._models import ParseResult
from ._template_probe import (
    NESTED,
    NO_ARGUMENTS,
    ONE,
    OTHER_CONTENT,
    PROBE_TOOLS,
    TOKEN,
    TWO,
    Call,
    Probe,
    common_prefix,
    common_suffix,
)
from ._template_tools import tools_spec
from .formats._base import Format
from .formats._declared import build_format
from .formats._spec import FormatSpec, ToolsSpec
from .stream import parse_whole

__all__ = ["TemplateFormatError", "format_from_template", "spec_from_template",
           "tools_from_template"]




def format_from_template(template: str, *, name: str = "from_template",
                         context: dict[str, Any] | None = None) -> Format:
    """The format the chat template `template` (Jinja source) writes its calls in.

    Pass it wherever a format name goes (``toolcalls.parse(text, fmt)``), or register it
    (`register_format`). `context`: variables the template reads besides the conversation
    (``bos_token``...).

    Raises:
        TemplateFormatError: the template's calls are no shape a description can hold, or it
            refused the probe conversations; the message names the reason.
    """
    return build_format(spec_from_template(template, name=name, context=context))


def spec_from_template(template: str, *, name: str = "from_template",
                       context: dict[str, Any] | None = None) -> FormatSpec:
    """The description `format_from_template` builds its format from (to read or save)."""
    probe = Probe(ChatTemplate(template, _variables(context)))
    call = probe.call_text([ONE])
    fields = _call_fields(call)
    reasoning = probe.reasoning_tags()
    fields["before"] = probe.text_before_calls(call)
    emptied = _EMPTY_BLOCK.search(fields["start"])
    fields["start"] = _without_empty_blocks(fields["start"])
    if not reasoning and emptied is not None and emptied.group(1):
        # The empty block the template writes before calls is its reasoning block.
        reasoning = (f"<|START_{emptied.group(1)}|>", f"<|END_{emptied.group(1)}|>")
    if fields["body"] == "name_json":
        fields = _call_id(fields)
    if fields["body"] in ("json", "name_json") and probe.writes_several(call):
        fields = _section(fields, call, probe.call_text(list(TWO)))
    if fields["body"] == "name_json":
        fields = _name_parts(fields)
    if fields["body"] == "xml" and "section" in fields and probe.writes_several(call):
        two = probe.call_text(list(TWO))
        fields["section_per_call"] = two.count(fields["section"][0]) > 1
    draft = {"name": name, "calls": fields, "reasoning": reasoning,
             "turn_ends": probe.turn_ends()}
    results = probe.results()
    if results is not None:
        draft["results"] = results
    spec = _validated(draft)
    _check_reads_back(spec, probe)
    try:
        return spec.model_copy(update={"tools": tools_spec(probe.template)})
    except TemplateFormatError:  # calls without a tools section: `tools_from_template` says why
        return spec


def tools_from_template(template: str, *, context: dict[str, Any] | None = None) -> ToolsSpec:
    """How the chat template `template` writes its tools section (`Format.render_tools`).

    Raises:
        TemplateFormatError: the section is no list of the tools as JSON, or the template
            writes none; the message says which.
    """
    return tools_spec(ChatTemplate(template, _variables(context)))


def _variables(context: dict[str, Any] | None) -> dict[str, Any]:
    # llama.cpp hands some templates the tools as JSON text in `functions`, and the date in
    # `datetime` (FireFunction v2 reads both).
    return {"functions": json.dumps(PROBE_TOOLS, ensure_ascii=False),
            "datetime": "Jan 02 2026 03:04:05 GMT", **(context or {})}


def _call_fields(call: str) -> dict[str, Any]:
    """The body kind and markers of one written call (`ONE`)."""
    name, arguments = ONE
    python = re.search(rf"\[\s*{name}\(probe_key=", call)
    if python is not None:
        close = call.rfind("]")
        opening = call[:python.start()]
        return {"body": "pythonic", "start": opening, "end": call[close + 1:],
                "bare": not opening.strip()}
    for start, value, end in _json_values(call):
        if isinstance(value, list) and value == [{name: arguments}]:  # Apertus' name as key
            return {"body": "json_list", "name_as_key": True, "start": call[:start],
                    "end": call[end:]}
        if isinstance(value, list) and value and isinstance(value[0], dict):
            keys = _envelope_keys(value[0], name, arguments)
            if keys is not None:
                return {"body": "json_list", "start": call[:start], "end": call[end:],
                        "name_key": keys[0], "arguments_key": keys[1],
                        "bare": not call[:start].strip()}
        if isinstance(value, dict):
            keys = _envelope_keys(value, name, arguments)
            if keys is not None and keys[0] == "name":
                return {"body": "json", "start": call[:start], "end": call[end:],
                        "arguments_key": keys[1], "bare": not call[:start].strip()}
            if value == arguments:
                return _name_json(call, start, end)
    bare = re.search(rf"{name}\(probe_key=", call)
    if bare is not None:  # Olmo 3's: calls one a line between markers
        return {"body": "pythonic", "lines": True, "start": call[:bare.start()],
                "end": call[call.rfind(")") + 1:]}
    if "probe_key" in call and re.search(r'"probe_key"\s*:', call) is None:
        try:
            return _xml_fields(call)
        except TemplateFormatError:
            raise
        except ValueError:  # a tag the probe looked for is not there
            raise TemplateFormatError(f"the template writes arguments outside JSON in no "
                                      f"shape a description holds: {call!r}") from None
    raise TemplateFormatError(f"no known call shape in what the template writes for a call: "
                              f"{call!r}")


def _xml_fields(call: str) -> dict[str, Any]:
    """Each argument between tags of its own: the call tag around the name, the parameter tag
    around the key, the value's framing, the close tags and the section around them."""
    name_at, key_at, value_at = (call.find(probe) for probe in (ONE[0], "probe_key",
                                                                 "PROBE_VALUE_4X"))
    call_at, param_at = call.rfind("<", 0, name_at), call.rfind("<", 0, key_at)
    if min(name_at, key_at, value_at, call_at, param_at) < 0 or not (
            name_at < key_at < value_at):
        raise TemplateFormatError(f"the template's parameters are in no order a description "
                                  f"holds: {call!r}")
    if re.search(r'\bstring="(?:true|false)"', call):
        raise TemplateFormatError("the template marks each parameter string=\"true\" or "
                                  "\"false\" by its value's type (DSML), which no description "
                                  "holds: use the deepseek_v32_dsml format")
    name_end = name_at + len(ONE[0])
    call_tag_end = _tag_end(call, name_end, before=param_at)
    param_tag_end = call.index(">", key_at) + 1
    value_end = value_at + len("PROBE_VALUE_4X")
    close_at = call.index("<", value_end)
    param_close_end = call.index(">", close_at) + 1
    call_close_at = call.index("<", param_close_end)
    call_close_end = call.index(">", call_close_at) + 1
    gap = call[call_tag_end:param_at]
    opening, lead = call[param_tag_end:value_at], call[value_end:close_at]
    value_tag = opening.strip()
    section = (call[:call_at], call[call_close_end:])
    fields: dict[str, Any] = {
        "body": "xml",
        "start": call[call_at:call_tag_end].replace(ONE[0], "{name}"),
        "parameter": (call[param_at:param_tag_end].replace("probe_key", "{key}")
                      + (gap + value_tag if value_tag else ""), call[close_at:param_close_end]),
        "end": call[call_close_at:call_close_end],
        "separator": gap if not gap.strip() else "\n",
        "value_framing": "" if value_tag or lead != opening else lead,
    }
    if section[0].strip():
        fields["section"] = (section[0].strip(), section[1].strip())
    return fields


def _tag_end(text: str, after: int, *, before: int) -> int:
    """Where the tag holding a name that ends at `after` ends: at its ``>``, or, where the
    name runs up to the next tag (GLM), at the name's end."""
    closing = text.find(">", after, before)
    return closing + 1 if closing >= 0 else after


_INDEXED = re.compile(r"([:.#_-])0")
_PREFIX = re.compile(r"[A-Za-z_][\w-]*[.:/]$")


def _name_parts(fields: dict[str, Any]) -> dict[str, Any]:
    """Kimi's ``functions.NAME:0``: a prefix before every name, the call's index after it."""
    start, name_end = fields["start"], fields["name_end"]
    prefix = _PREFIX.search(start)
    if prefix is not None and start[:prefix.start()].strip():
        fields = {**fields, "start": start[:prefix.start()], "name_prefix": prefix.group()}
    indexed = _INDEXED.match(name_end)
    if indexed is not None:
        fields = {**fields, "index_separator": indexed.group(1),
                  "name_end": name_end[indexed.end():]}
    return fields


_EMPTY_BLOCK = re.compile(r"<\|START_(\w+)\|>\s*<\|END_\1\|>\s*|<(\w+)>\s*</\2>\s*")


def _without_empty_blocks(start: str) -> str:
    """The call's start without the empty blocks a template writes before every call (Command
    R7B's ``<|START_THINKING|><|END_THINKING|>``): a model writes them full, or not at all."""
    kept = _EMPTY_BLOCK.sub("", start)
    return kept if kept.strip() else start


def _call_id(fields: dict[str, Any]) -> dict[str, Any]:
    """Mistral's ``NAME[CALL_ID]ID[ARGS]``: the probe's id inside what follows the name."""
    name_end: str = fields["name_end"]
    at = name_end.find("call00000")
    if at < 0:
        return fields
    return {**fields, "call_id": name_end[:at], "name_end": name_end[at + len("call00000"):]}


def _section(fields: dict[str, Any], one: str, two: str) -> dict[str, Any]:
    """Split what surrounds one call into a section and the call's own markers, from how two
    calls are written: ``SECTION_OPEN START a END SEPARATOR START b END SECTION_CLOSE``."""
    spans_one, spans_two = _body_spans(one, fields), _body_spans(two, fields)
    if len(spans_one) != 1 or len(spans_two) != 2:
        return fields
    before, after = one[:spans_one[0][0]], one[spans_one[0][1]:]
    between = two[spans_two[0][1]:spans_two[1][0]]
    start = before[_token_edge(before, len(before) - len(common_suffix(before, between)),
                               later=True):]
    end = after[:_token_edge(after, len(common_prefix(after, between[: len(between)
                                                                      - len(start)])))]
    section = (before[: len(before) - len(start)], after[len(end):])
    found = {**fields, "start": start, "end": end,
             "separator": between[len(end): len(between) - len(start)]}
    if section[0].strip():
        return {**found, "section": section}
    # No section: blanks around the calls belong to the first start and the last end.
    return {**found, "start": section[0] + start, "end": end + section[1]}


def _token_edge(text: str, cut: int, *, later: bool = False) -> int:
    """`cut`, or the edge of the token it falls inside: the later one with `later`."""
    for token in TOKEN.finditer(text):
        if token.start() < cut < token.end():
            return token.end() if later else token.start()
    return cut


def _body_spans(text: str, fields: dict[str, Any]) -> list[tuple[int, int]]:
    """Where each call's body is: its JSON object (``json``), or its name through its
    arguments (``name_json``)."""
    values = _json_values(text)
    if fields["body"] == "json":
        return [(start, end) for start, value, end in values
                if isinstance(value, dict) and "name" in value]
    spans = []
    for name in re.finditer(r"probe_(?:alpha|beta)", text):
        closing = [end for start, value, end in values
                   if start > name.end() and isinstance(value, dict)]
        if closing:
            spans.append((name.start(), closing[0]))
    return spans


def _name_json(call: str, start: int, end: int) -> dict[str, Any]:
    at = call.rfind(ONE[0], 0, start)
    if at < 0:
        raise TemplateFormatError("the template writes the arguments without the tool's name")
    return {"body": "name_json", "start": call[:at], "name_end": call[at + len(ONE[0]):start],
            "end": call[end:]}


def _envelope_keys(value: dict[str, Any], name: str,
                   arguments: dict[str, Any]) -> tuple[str, str] | None:
    named = [key for key, item in value.items() if item == name]
    argued = [key for key, item in value.items() if item == arguments]
    if named and argued and argued[0] in ("arguments", "parameters"):
        return named[0], argued[0]
    return None


def _json_values(text: str) -> list[tuple[int, Any, int]]:
    """Every JSON object or list in `text` that is not inside an earlier one."""
    decoder = json.JSONDecoder()
    found: list[tuple[int, Any, int]] = []
    at = 0
    while True:
        starts = [i for i in (text.find("{", at), text.find("[", at)) if i >= 0]
        if not starts:
            return found
        start = min(starts)
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            at = start + 1
            continue
        found.append((start, value, end))
        at = end


def _validated(draft: dict[str, Any]) -> FormatSpec:
    try:
        return FormatSpec.model_validate(draft)
    except ValueError as exc:
        raise TemplateFormatError(f"the template's calls found no valid description: {exc}"
                                  ) from None


def _check_reads_back(spec: FormatSpec, probe: Probe) -> None:
    """The description must read the template's own calls: several, none, nested, after
    text."""
    try:
        fmt = build_format(spec)
    except ValueError as exc:  # the description's tags cannot even write a call
        raise TemplateFormatError(f"the derived {spec.calls.body!r} description cannot write "
                                  f"the template's calls: {exc}") from None
    probes: list[tuple[list[Call], str]] = [([ONE], ""), ([NO_ARGUMENTS], ""), ([NESTED], ""),
                                            ([ONE], OTHER_CONTENT)]
    if probe.writes_several(probe.call_text([ONE])):
        probes.append((list(TWO), ""))
    for calls, content in probes:
        written = probe.call_text(calls, content)
        result = _parse(fmt, written)
        read = [(call.name, call.arguments) for call in result.calls]
        if read != list(calls):
            raise TemplateFormatError(
                f"the derived {spec.calls.body!r} description does not read back the "
                f"template's {len(calls)} call(s) {[c[0] for c in calls]}: it read {read} "
                f"from {written!r}")


def _parse(fmt: Format, text: str) -> ParseResult:
    # With the probe tools: values written as raw text (XML parameters) are typed by them.
    return parse_whole(fmt, text, to_tools(PROBE_TOOLS), False, False, False)


