"""`detect`: on the real corpus, the detected format reads the same calls as the right one."""

from __future__ import annotations

from corpus import load_cases

import toolcalls

FLOOR = 0.97  # measured 485/495 (98.0%) when the shortlist-and-parse detection landed
FLOOR_WITH_TOOLS = 0.99  # measured 491/495 (99.2%) when detection learned the tools


def calls(text: str, fmt: str, tools: object) -> list[tuple[str, object]]:
    return [(c.name, c.arguments) for c in toolcalls.parse(text, fmt, tools=tools).calls]  # type: ignore[arg-type]


def test_the_detected_format_reads_the_calls_of_real_outputs() -> None:
    cases = [c for c in load_cases() if c.row["expected"]["calls"]]
    misread = [
        (c.id, toolcalls.detect(c.text))
        for c in cases
        if calls(c.text, toolcalls.detect(c.text) or "hermes", c.row.get("tools"))
        != calls(c.text, c.format, c.row.get("tools"))
    ]
    assert 1 - len(misread) / len(cases) >= FLOOR, misread


def test_formats_that_share_a_marker_are_told_apart_by_what_parses() -> None:
    qwen = "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>"
    glm = "<tool_call>get_time</tool_call>"
    hermes = '<tool_call>{"name": "f", "arguments": {}}</tool_call>'
    xml = '<tool_call><name>f</name><arguments>{"a": 1}</arguments></tool_call>'
    assert toolcalls.detect(qwen) == "qwen3_coder"
    assert toolcalls.detect(glm) in ("glm45", "glm47")
    assert toolcalls.detect(hermes) == "hermes"
    assert toolcalls.detect(xml) == "xml"


def test_a_tool_call_with_broken_json_is_hermes_unless_xml_tags_name_it() -> None:
    # xml reads nothing of a <tool_call> without <name>; Hermes reads the broken call
    for text in ('<tool_call>{"name": "f", "arguments": {"a": }}</tool_call>',
                 '<tool_call>\n{"name": "f", "arguments": {"a": 1]}\n</tool_call>'):
        assert toolcalls.detect(text) == "hermes"
        result = toolcalls.parse(text, "auto")
        assert result.format == "hermes" and len(result.incomplete) == 1
        assert [issue.kind for issue in result.issues] == ["invalid_arguments"]
    xml = '<tool_call><name>f</name><arguments>{"a": }</arguments></tool_call>'
    assert toolcalls.detect(xml) == "xml"


def test_text_without_markers_has_no_format() -> None:
    assert toolcalls.detect("Just an answer.") is None


def test_with_tools_the_detected_format_reads_more_real_outputs() -> None:
    # Bare call lists in prose (SGLang's pythonic tests) are seen once the tools are known.
    cases = [c for c in load_cases() if c.row["expected"]["calls"]]
    misread = []
    for case in cases:
        tools = case.row.get("tools")
        detected = toolcalls.detect(case.text, tools) or "hermes"
        if calls(case.text, detected, tools) != calls(case.text, case.format, tools):
            misread.append((case.id, detected))
    assert 1 - len(misread) / len(cases) >= FLOOR_WITH_TOOLS, misread


WEATHER = [{"name": "get_weather", "parameters": {"type": "object", "properties": {}}}]


def test_ordinary_text_names_no_format_and_auto_says_so() -> None:
    # JSON and fences in an answer are not markup (llama.cpp #18183: "Bingo" became a call).
    for text in ['Here: {"name": "Bingo", "age": 30}', 'Code:\n```json\n{"name": "x"}\n```']:
        assert toolcalls.detect(text) is None
        result = toolcalls.parse(text, "auto")
        assert (result.format, result.content, result.calls) == ("none", text, [])
    thought = toolcalls.parse("<think>Easy.</think>Paris.", "auto")
    assert (thought.format, thought.reasoning, thought.content) == ("none", "Easy.", "Paris.")


def test_a_bare_call_is_detected_only_when_it_names_a_declared_tool() -> None:
    text = "Here's a tool call: [get_weather(location='New York', unit='celsius')]"  # SGLang
    assert toolcalls.detect(text) is None
    assert toolcalls.detect(text, WEATHER) == "pythonic"
    assert toolcalls.parse(text, "auto", tools=WEATHER).calls[0].name == "get_weather"
    json_call = '{"name": "Bingo", "parameters": {"age": 30}}'
    assert toolcalls.detect(json_call) == "llama3_json"  # a whole reply that is one call
    assert toolcalls.detect(json_call, WEATHER) is None
    assert toolcalls.parse(json_call, "auto", tools=WEATHER).format == "none"
