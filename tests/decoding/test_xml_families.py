"""The grammars of GLM-4.5/4.7, MiniMax-M2 and Seed-OSS (toolcalls/decoding/_xml_families.py):
their markers are the readers' own, each wraps its calls as its template does, and a nullable
string value is written raw, as the reader reads it."""

from __future__ import annotations

import random

import pytest

import toolcalls
from toolcalls.decoding import grammar
from toolcalls.decoding._table import REGIONS as ALL_REGIONS
from toolcalls.decoding._table import XGRAMMAR_STYLES
from toolcalls.parsing.formats import glm, minimax_m2, seed_oss
from toolcalls.parsing.formats._regions import XmlParameterCalls

pytest.importorskip("llguidance")
pytest.importorskip("numpy")

from toolcalls.testing._sampling import accepts, sample  # noqa: E402

NOTE = {
    "name": "note",
    "parameters": {
        "type": "object",
        "properties": {
            "title": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "level": {"type": "integer"},
        },
        "required": ["title"],
    },
}
CALL = toolcalls.ToolCall(id="a", name="note", arguments={"title": "x"}, source="native")
REGIONS = {name: region for name, region in ALL_REGIONS.items()
           if isinstance(toolcalls.get_format(name).call_region, XmlParameterCalls)}
"""The XML-parameter family: the formats whose calls are `XmlParameterCalls`."""


def test_markers_are_the_readers_own() -> None:
    assert REGIONS["glm45"].opener.text == glm.TOOL_CALL_START
    assert REGIONS["minimax_m2"].opener.text == minimax_m2.TOOL_CALL_START
    assert REGIONS["seed_oss"].opener.text == seed_oss.TOOL_CALL_START
    rules = grammar("minimax_m2", [NOTE], tool_choice="required")
    assert minimax_m2.TAGS.call_open in rules and minimax_m2.TOOL_CALL_END in rules


def test_minimax_m2_holds_every_call_in_one_section() -> None:
    rules = grammar("minimax_m2", [NOTE], tool_choice="required")
    one_section = toolcalls.get_format("minimax_m2").render_calls([CALL, CALL])
    assert one_section.count(minimax_m2.TOOL_CALL_START) == 1
    assert accepts(rules, one_section) is None
    two_sections = toolcalls.get_format("minimax_m2").render_calls([CALL]) * 2
    assert accepts(rules, two_sections) is not None


def test_seed_oss_wraps_each_call_in_a_section() -> None:
    rules = grammar("seed_oss", [NOTE], tool_choice="required")
    written = toolcalls.get_format("seed_oss").render_calls([CALL, CALL])
    assert written.count(seed_oss.TOOL_CALL_START) == 2
    assert accepts(rules, written) is None


@pytest.mark.parametrize("name", ["glm45", "glm47"])
def test_glm_reasoning_may_follow_a_line_break(name: str) -> None:
    """GLM writes ``\\n<think>`` after the template's ``<|assistant|>``."""
    written = "\n<think>Hm.</think>\n" + toolcalls.get_format(name).render_calls([CALL])
    assert accepts(grammar(name, [NOTE], reasoning=True), written) is None
    assert accepts(grammar("qwen3_coder", [NOTE], reasoning=True), "\n<think>") is not None


@pytest.mark.parametrize("name", ["glm45", "glm47"])
def test_glm_reads_both_layouts(name: str) -> None:
    """Each GLM format's reader takes both templates' layouts; so does its grammar."""
    rules = grammar(name, [NOTE], tool_choice="required")
    for fmt in map(toolcalls.get_format, ("glm45", "glm47")):
        assert accepts(rules, fmt.render_calls([CALL, CALL])) is None


@pytest.mark.parametrize("name", sorted(REGIONS))
def test_nullable_string_is_written_raw(name: str) -> None:
    rules = grammar(name, [NOTE], tool_choice="required")
    written = toolcalls.get_format(name).render_calls([CALL])
    assert accepts(rules, written) is None  # "x", not the JSON '"x"'
    rng = random.Random(name)
    finished = 0
    for _ in range(3):
        text, done = sample(rules, rng)
        if done:
            finished += 1
            result = toolcalls.parse(text, name, tools=[NOTE], validate=True)
            assert result.calls and not result.issues and not result.incomplete, text
    assert finished


TWO = [
    NOTE,
    {"name": "search", "parameters": {"type": "object", "properties": {
        "q": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}},
        "required": ["q"]}},
]
CALLS = [CALL, toolcalls.ToolCall(id="b", name="search", arguments={"q": "x", "tags": ["a"]},
                                  source="native")]


@pytest.mark.parametrize("name", sorted(XGRAMMAR_STYLES))
def test_structural_tag_in_xgrammar_accepts_the_template_layout(name: str) -> None:
    xgr = pytest.importorskip("xgrammar")
    import json

    def accepted(tag: dict[str, object], text: str) -> bool:
        compiled = xgr.Grammar.from_structural_tag(json.dumps(tag))
        return bool(xgr.testing._is_grammar_accept_string(compiled, text))

    fmt = toolcalls.get_format(name)
    tag = toolcalls.decoding.structural_tag(name, TWO)
    assert accepted(tag, fmt.render_calls(CALLS, "Let me look."))
    assert not accepted(tag, fmt.render_calls(CALLS).replace("search", "serch"))
    wrong = toolcalls.ToolCall(id="c", name="note", arguments={"title": "x", "level": "many"},
                               source="native")
    assert not accepted(tag, fmt.render_calls([wrong]))  # a string where an integer goes
    opener = ALL_REGIONS[name].opener.text
    holding = toolcalls.ToolCall(id="d", name="note", arguments={"title": f"a {opener} b"},
                                 source="native")
    assert not accepted(tag, fmt.render_calls([holding]))  # the reader would end the value
    forced = toolcalls.decoding.structural_tag(name, TWO, tool_choice="search")
    assert accepted(forced, fmt.render_calls(CALLS[1:]))
    assert not accepted(forced, fmt.render_calls(CALLS[:1]))
    assert not accepted(toolcalls.decoding.structural_tag(name, TWO, tool_choice="required"), "Hi.")


def test_structural_tag_legacy_shape_holds_json_only() -> None:
    with pytest.raises(ValueError, match="use toolcalls.decoding.grammar"):
        toolcalls.decoding.structural_tag("glm45", TWO, legacy=True)


FLAGS = {
    "name": "flags",
    "parameters": {
        "type": "object",
        "properties": {
            "on": {"type": "boolean"},
            "gone": {"type": "null"},
            "either": {"type": ["boolean", "integer"]},
        },
        "required": ["on"],
    },
}


@pytest.mark.parametrize("name", ["qwen3_coder", "seed_oss"])
def test_booleans_and_null_as_the_template_writes_them(name: str) -> None:
    """Their templates write a non-string value with Jinja's ``string`` filter: ``True``,
    ``False``, ``None``, as `render_calls` does; JSON's spelling stays allowed."""
    fmt = toolcalls.get_format(name)
    rules = grammar(name, [FLAGS])
    for arguments in ({"on": True, "gone": None, "either": False}, {"on": False, "either": 3}):
        call = toolcalls.ToolCall(id="a", name="flags", arguments=arguments, source="native")
        written = fmt.render_calls([call])
        assert "True" in written or "False" in written
        assert accepts(rules, written) is None, written
        for python, spelled in (("True", "true"), ("False", "false"), ("None", "null")):
            written = written.replace(python, spelled)
        assert accepts(rules, written) is None, written
    assert accepts(rules, fmt.render_calls([toolcalls.ToolCall(
        id="a", name="flags", arguments={"on": "TRUE"}, source="native")])) is not None


_UNIONS = {
    "any_of": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    "type_list": {"type": ["string", "integer"]},
    "one_of_object": {"oneOf": [{"type": "string"}, {"type": "object"}]},
}
_XML_FORMATS = ["qwen3_coder", "seed_oss", "glm45", "glm47", "minimax_m2", "deepseek_v32_dsml"]


_UNION_VALUES = [(union, value) for union in sorted(_UNIONS) for value in ("x", "Ada <L> & co")]
_UNION_VALUES += [("any_of", 7), ("type_list", 7), ("one_of_object", {"k": [1]})]


@pytest.mark.parametrize("format_name", _XML_FORMATS)
@pytest.mark.parametrize(("union", "value"), _UNION_VALUES)
def test_a_string_of_a_union_is_written_raw(format_name: str, union: str, value: object) -> None:
    """`render_calls` writes a string raw (DSML: ``string="true"``) whatever its schema; the
    grammar of a union with string took only JSON there, so it refused the rendered call."""
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {
        "v": _UNIONS[union]}, "required": ["v"]}}]
    call = toolcalls.ToolCall(id="a", name="f", arguments={"v": value}, source="native")
    text = toolcalls.get_format(format_name).render_calls([call])
    assert accepts(grammar(format_name, tools, tool_choice="required"), text) is None
    result = toolcalls.parse(text, format_name, tools=tools, validate=True)
    assert result.calls[0].arguments == {"v": value} and not result.issues
