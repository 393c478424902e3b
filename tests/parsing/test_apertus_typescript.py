"""Apertus' tools block (`formats._apertus_typescript`) on the schema shapes its template's
TypeScript macros treat one by one, which the real tool sets of the template fidelity test
barely reach: ``oneOf`` variants with descriptions and defaults, nested objects, arrays of
objects and of arrays, nullable and multi-type values, enum and plain defaults, a tool with no
parameters. What we write must be what the real template writes, blanks included."""

from __future__ import annotations

from typing import Any

from test_template_fidelity import RENDER, _environment, _openai_tool

import toolcalls
from toolcalls import Tool

AWKWARD: dict[str, Any] = {
    "type": "object",
    "properties": {
        "tags": {"type": "array", "nullable": True, "items": {
            "type": "object", "properties": {"k": {"type": "string"}, "v": {"type": "integer"}},
            "required": ["k"]}},
        "mode": {"oneOf": [{"type": "string", "description": "a name", "default": "x"},
                           {"type": "integer"}], "default": "x"},
        "shape": {"oneOf": [{"type": "object"},
                            {"type": "object", "properties": {"a": {"type": "number"}}}]},
        "unit": {"type": "string", "enum": ["c", "f"], "default": "c", "description": "The unit"},
        "both": {"type": ["string", "null"]},
        "maybe": {"type": "string", "nullable": True},
        "nested": {"type": "object", "required": ["inner"], "properties": {
            "inner": {"type": "object", "properties": {"z": {"type": "boolean"}}}}},
        "grid": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}},
        "free": {},
        "n": {"type": "integer", "default": 3},
    },
    "required": ["mode"],
}
TOOLS = [Tool(name="probe", description="A probe", parameters=AWKWARD),
         Tool(name="bare", description="", parameters={})]


def _template_output(tools: list[Tool]) -> str:
    source = (RENDER / "apertus" / "template.jinja").read_text(encoding="utf-8")
    template = _environment("immutable").from_string(source)
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    return template.render(messages=messages, tools=[_openai_tool(tool) for tool in tools],
                           add_generation_prompt=True, bos_token="<s>")


def test_awkward_schemas_are_written_as_the_template_writes_them() -> None:
    ours = toolcalls.get_format("apertus").render_tools(TOOLS)
    assert "(_: {\n" in ours and " | \n" in ours  # the shapes under test were reached
    assert ours in _template_output(TOOLS)


def test_a_changed_description_is_caught() -> None:
    changed = [Tool(name="probe", description="A probe!", parameters=AWKWARD)]
    assert toolcalls.get_format("apertus").render_tools(changed) not in _template_output(TOOLS)
