"""`toolcalls.decoding.structural_tag` compiles in xgrammar in both shapes (the current
``triggered_tags`` one and the legacy ``{structures, triggers}``), and the matcher accepts
what the format's renderer writes, content before the calls included."""

from __future__ import annotations

import json

import pytest

import toolcalls
from toolcalls.decoding._table import TAGGED

xgr = pytest.importorskip("xgrammar")

TOOLS = [
    {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
    {"name": "search", "parameters": {
        "type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}},
]


def written(name: str, content: str = "") -> str:
    if name == "gpt_oss":  # the call header as the model writes it (the template puts to= first)
        preamble = f"<|channel|>commentary<|message|>{content}<|end|><|start|>assistant"
        return (preamble if content else "") + (
            '<|channel|>commentary to=functions.search <|constrain|>json<|message|>{"q": "x"}'
            "<|call|>"
        )
    call = toolcalls.ToolCall(id="a", name="search", arguments={"q": "x"}, source="native")
    return toolcalls.get_format(name).render_calls([call], content)


def accepted(grammar: object, text: str) -> bool:
    return bool(xgr.testing._is_grammar_accept_string(grammar, text))


@pytest.mark.parametrize("name", sorted(TAGGED))
def test_current_shape_compiles_and_accepts(name: str) -> None:
    tag = toolcalls.decoding.structural_tag(name, TOOLS)
    assert tag["format"]["type"] == "triggered_tags"
    grammar = xgr.Grammar.from_structural_tag(json.dumps(tag))
    assert accepted(grammar, written(name, "Let me look. "))
    assert not accepted(grammar, written(name).replace("search", "serch"))


@pytest.mark.parametrize("name", sorted(TAGGED))
def test_legacy_shape_compiles_and_accepts(name: str) -> None:
    tag = toolcalls.decoding.structural_tag(name, TOOLS, legacy=True)
    items = [
        xgr.StructuralTagItem(begin=s["begin"], schema=json.dumps(s["schema"]), end=s["end"])
        for s in tag["structures"]
    ]
    grammar = xgr.Grammar.from_structural_tag(items, tag["triggers"])
    assert accepted(grammar, written(name, "Let me look. "))


def test_formats_without_fixed_json_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="use toolcalls.decoding.grammar"):
        toolcalls.decoding.structural_tag("pythonic", TOOLS)
    with pytest.raises(ValueError, match="use toolcalls.decoding.grammar"):
        # XML content: the current shape only
        toolcalls.decoding.structural_tag("qwen3_coder", TOOLS, legacy=True)
