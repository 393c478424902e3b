"""The DeepSeek (V3, V3.1, DSML) and Kimi K2 grammars: what each leaves in and out beyond
the shared tests (acceptance, sampling, dialects, structural tags), which run over them too."""

from __future__ import annotations

import pytest
from lark import Lark
from lark.exceptions import LarkError

import toolcalls
from toolcalls.decoding import grammar
from toolcalls.decoding._deepseek_kimi import BUILDERS
from toolcalls.decoding._table import REGIONS as ALL_REGIONS
from toolcalls.parsing.formats import deepseek, deepseek_dsml, kimi_k2

pytest.importorskip("llguidance")
pytest.importorskip("numpy")

from toolcalls.testing._sampling import accepts  # noqa: E402

REGIONS = {name: region for name, region in ALL_REGIONS.items()
           if type(toolcalls.get_format(name).call_region) in BUILDERS}
"""The formats whose call regions `_deepseek_kimi` builds."""

TOOLS = [
    {"name": "get_weather", "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city"],
    }},
    {"name": "search", "parameters": {
        "type": "object",
        "properties": {"q": {"type": "string"}, "mode": {"enum": ["fast", "deep"]}},
        "required": ["q"],
    }},
]


def kimi(index: str, name: str = "search", arguments: str = '{"q": "x"}') -> str:
    return (f"{kimi_k2.SECTION_BEGINS[0]}{kimi_k2.CALL_BEGIN}functions.{name}:{index}"
            f"{kimi_k2.ARGUMENT_BEGIN}{arguments}{kimi_k2.CALL_END}{kimi_k2.SECTION_ENDS[0]}")


def test_every_format_of_the_family_has_a_region() -> None:
    # GigaChat 3.5's GCML invoke calls are DSML's layout with its own tag spelling.
    assert set(REGIONS) == {"deepseek_v3", "deepseek_v31", "deepseek_v32_dsml", "gigachat35",
                            "kimi_k2"}


@pytest.mark.parametrize(("name", "markers"), [
    ("deepseek_v3", (deepseek.CALLS_BEGIN, deepseek.CALL_BEGIN, deepseek.SEP, deepseek.CALL_END,
                     deepseek.CALLS_END)),
    ("deepseek_v31", (deepseek.CALLS_BEGIN, deepseek.CALL_BEGIN, deepseek.SEP,
                      deepseek.CALL_END, deepseek.CALLS_END)),
    ("deepseek_v32_dsml", (deepseek_dsml.CALLS_START, deepseek_dsml.CALLS_END,
                           "<｜DSML｜invoke", "</｜DSML｜invoke>", "</｜DSML｜parameter>")),
])
def test_markers_are_the_readers_own(name: str, markers: tuple[str, ...]) -> None:
    written = grammar(name, TOOLS, tool_choice="required")
    assert all(marker in written for marker in markers)


def test_kimi_markers_are_special_tokens_and_the_index_any_number() -> None:
    rules = grammar("kimi_k2", TOOLS, tool_choice="required")
    for marker in (kimi_k2.SECTION_BEGINS[0], kimi_k2.CALL_BEGIN, kimi_k2.ARGUMENT_BEGIN,
                   kimi_k2.CALL_END, kimi_k2.SECTION_ENDS[0]):
        assert f" {marker}" in rules and f'"{marker}"' not in rules
    assert accepts(rules, kimi("0")) is None
    assert accepts(rules, kimi("17")) is None
    assert accepts(rules, kimi("x")) is not None
    assert accepts(rules, kimi("")) is not None
    assert accepts(rules, kimi("0", name="serch")) is not None


def test_kimi_reasoning_holds_no_call_marker() -> None:
    """Kimi's reader reads a call inside reasoning (with an issue): the grammar's reasoning
    holds none (checked in plain Lark, where the markers are text); other formats' reasoning
    may rehearse a call."""
    thought = f"<think>I could write {kimi_k2.CALL_BEGIN} here.</think>"
    parser = Lark(grammar("kimi_k2", TOOLS, reasoning=True, dialect="lark"))
    parser.parse("<think>I will search.</think>" + kimi("0"))
    with pytest.raises(LarkError):
        parser.parse(thought + kimi("0"))
    Lark(grammar("hermes", TOOLS, reasoning=True, dialect="lark")).parse(
        "<think>I could write <tool_call> here.</think>")


@pytest.mark.parametrize("name", sorted(REGIONS))
def test_one_section_holds_the_calls(name: str) -> None:
    fmt = toolcalls.get_format(name)
    one = toolcalls.ToolCall(id="a", name="search", arguments={"q": "x"}, source="native")
    two = toolcalls.ToolCall(id="b", name="get_weather", arguments={"city": "P"},
                             source="native")
    rules = grammar(name, TOOLS)
    assert accepts(rules, fmt.render_calls([one, two], "Hi.")) is None
    # Two sections: the grammar writes one, the reader reads both.
    assert accepts(rules, fmt.render_calls([one]) + fmt.render_calls([two])) is not None
    assert accepts(grammar(name, TOOLS, tool_choice="search"),
                   fmt.render_calls([one, one])) is not None


def test_deepseek_v3_takes_blanks_around_the_fenced_json() -> None:
    text = (f"{deepseek.CALLS_BEGIN}\n{deepseek.CALL_BEGIN}function{deepseek.SEP}search\n"
            f'```json\n  {{"q": "x"}}  \n```\n{deepseek.CALL_END}\n{deepseek.CALLS_END}')
    assert accepts(grammar("deepseek_v3", TOOLS, tool_choice="required"), text) is None
    assert toolcalls.parse(text, "deepseek_v3", tools=TOOLS, validate=True).issues == []


def test_dsml_writes_strings_raw_and_the_rest_as_json() -> None:
    rules = grammar("deepseek_v32_dsml", TOOLS, tool_choice="required")
    assert 'name=\\"city\\" string=\\"true\\"' in rules
    assert 'name=\\"days\\" string=\\"false\\"' in rules
    assert 'name=\\"mode\\" string=\\"true\\"' in rules  # an enum of strings, written raw
    call = toolcalls.ToolCall(id="a", name="get_weather", arguments={"city": "P", "days": 3},
                              source="native")
    written = toolcalls.get_format("deepseek_v32_dsml").render_calls([call])
    assert accepts(rules, written) is None
    assert accepts(rules, written.replace('string="false">3', 'string="true">3')) is not None


def test_structural_tags_cover_the_json_formats_only() -> None:
    for name in ("deepseek_v3", "deepseek_v31", "kimi_k2"):
        tag = toolcalls.decoding.structural_tag(name, TOOLS, tool_choice="search")
        assert [t["begin"] for t in tag["format"]["tags"]][0].endswith(
            ("search\n```json\n", f"search{deepseek.SEP}", f"search:0{kimi_k2.ARGUMENT_BEGIN}"))
    with pytest.raises(ValueError, match="use toolcalls.decoding.grammar"):
        toolcalls.decoding.structural_tag("deepseek_v32_dsml", TOOLS)


def test_dsml_writes_either_block_name() -> None:
    """V3.2 names the block ``function_calls``, V4 ``tool_calls``: both, each closed by its
    own end tag."""
    call = toolcalls.ToolCall(id="a", name="search", arguments={"q": "x"}, source="native")
    v32 = toolcalls.get_format("deepseek_v32_dsml").render_calls([call], "Hi.")
    v4 = v32.replace("function_calls>", "tool_calls>")
    mixed = v32.replace("</｜DSML｜function_calls>", "</｜DSML｜tool_calls>")
    for tool_choice in ("auto", "required"):
        rules = grammar("deepseek_v32_dsml", TOOLS, tool_choice=tool_choice)
        text = v32 if tool_choice == "auto" else v32.removeprefix("Hi.\n\n")
        assert accepts(rules, text) is None
        assert accepts(rules, text.replace("function_calls>", "tool_calls>")) is None
    assert accepts(grammar("deepseek_v32_dsml", TOOLS), v4) is None
    assert accepts(grammar("deepseek_v32_dsml", TOOLS), mixed) is not None
