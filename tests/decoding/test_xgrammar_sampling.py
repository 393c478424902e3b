"""A random "model" under each format's xgrammar structural tag (both shapes where both
exist), on a byte-level vocabulary: toolcalls reads every finished sample as calls to declared
tools, valid against their schemas, with no issue, as under the llguidance grammars
(test_grammar_sampling.py, whose tool set this is).

A small sample here (xgrammar is no dev dependency: skipped in CI); `bench/xgrammar_check.py
--sample N` runs a larger one.
"""

from __future__ import annotations

import json
import random

import pytest

import toolcalls
from toolcalls.decoding._table import TAGGED, XGRAMMAR_STYLES
from toolcalls.testing._sampling import problems

xgr = pytest.importorskip("xgrammar")
pytest.importorskip("numpy")

from test_grammar_sampling import TOOLS  # noqa: E402

from toolcalls.testing._sampling_xgrammar import (  # noqa: E402
    byte_vocabulary,
    known_disagreement,
    padded_enum,
    sample_tag,
    tag_specials,
)

SHAPES = [(name, False) for name in sorted(set(TAGGED) | set(XGRAMMAR_STYLES))] + [
    (name, True) for name in sorted(TAGGED)
]


@pytest.mark.parametrize(("format_name", "legacy"), SHAPES)
@pytest.mark.parametrize("tool_choice", ["auto", "required", "search"])
def test_samples_parse_as_valid_calls(format_name: str, legacy: bool, tool_choice: str) -> None:
    rng = random.Random(f"{format_name}-{legacy}-{tool_choice}")
    tag = toolcalls.decoding.structural_tag(format_name, TOOLS, tool_choice=tool_choice,
                                            legacy=legacy)
    # The legacy shape has no "at least one" nor "stop after first": any calls of its tools.
    expected = "auto" if legacy else tool_choice
    finished = 0
    for _ in range(4):
        text, done = sample_tag(tag, rng)
        if not done:
            continue
        finished += 1
        found = problems(format_name, text, TOOLS, expected)
        assert not found or known_disagreement(found), (text, found)
    assert finished, "no sample finished"


def test_special_tokens_are_single_tokens() -> None:
    tag = toolcalls.decoding.structural_tag("deepseek_v3", TOOLS)
    specials = tag_specials(tag)
    assert "<｜tool▁calls▁begin｜>" in specials and "<｜tool▁sep｜>" in specials
    vocab = byte_vocabulary(specials)
    assert len(vocab.pieces) == 256 + len(specials) + 1
    assert tag_specials(toolcalls.decoding.structural_tag("hermes", TOOLS)) == ()


def accepted(tag: dict[str, object], text: str) -> bool:
    if "structures" in tag:
        items = [xgr.StructuralTagItem(begin=s["begin"], schema=json.dumps(s["schema"]),
                                       end=s["end"]) for s in tag["structures"]]  # type: ignore
        grammar = xgr.Grammar.from_structural_tag(items, tag["triggers"])
    else:
        grammar = xgr.Grammar.from_structural_tag(json.dumps(tag))
    return bool(xgr.testing._is_grammar_accept_string(grammar, text))


def test_free_text_excludes_the_readers_markers() -> None:
    """A stray close tag or code fence in the text is read with an issue: the current shape's
    free text cannot hold one (as the llguidance grammar's content), the legacy one can."""
    stray = "Done.\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
    assert toolcalls.parse(stray, "deepseek_v3").issues
    assert not accepted(toolcalls.decoding.structural_tag("deepseek_v3", TOOLS), stray)
    assert accepted(toolcalls.decoding.structural_tag("deepseek_v3", TOOLS, legacy=True), stray)
    assert accepted(toolcalls.decoding.structural_tag("deepseek_v3", TOOLS), "Done, no call.")


def test_xml_styles_let_blanks_pad_an_enum_value() -> None:
    """Pinned disagreement (see `padded_enum`): xgrammar's glm_xml takes blanks around a
    value as layout, the GLM reader keeps all but one line break of them."""
    text = (
        "<tool_call>search<arg_key>q</arg_key><arg_value>x</arg_value><arg_key>tags</arg_key>"
        "<arg_value>[]</arg_value><arg_key>mode</arg_key><arg_value>\n\ndeep</arg_value>"
        "</tool_call>"
    )
    assert accepted(toolcalls.decoding.structural_tag("glm45", TOOLS), text)
    found = problems("glm45", text, TOOLS, "required")
    assert found and all(padded_enum(problem) for problem in found)
    assert not problems("glm45", text.replace("\n\ndeep", "\ndeep"), TOOLS, "required")


def test_unpaired_surrogate_escapes_pass_xgrammar_json() -> None:
    """Pinned disagreement (see `known_disagreement`): xgrammar's JSON takes ``\\udd97``
    alone; toolcalls refuses it on purpose, keeping the call incomplete."""
    text = (
        '<tool_call>\n{"name": "search", "arguments": {"q": "a\\udd97b", "tags": []}}\n'
        "</tool_call>"
    )
    assert accepted(toolcalls.decoding.structural_tag("hermes", TOOLS), text)
    found = problems("hermes", text, TOOLS, "required")
    assert known_disagreement(found) == "lone surrogate"
    assert not problems("hermes", text.replace("\\udd97", "\\ud83d\\ude00"), TOOLS, "required")
