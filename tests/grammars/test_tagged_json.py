"""JSON values between XML-parameter tags (toolcalls/grammars/_tagged_json.py): only the tags
the reader stops at are barred, in strings, object keys and values of no declared type."""

from __future__ import annotations

import itertools
import json
import re

import pytest

import toolcalls
from toolcalls.grammars import grammar
from toolcalls.grammars._region import structural_tags
from toolcalls.grammars._tagged_json import avoiding, within_tags
from toolcalls.parsing.formats import deepseek_dsml, glm, minimax_m2, qwen3_coder, seed_oss
from toolcalls.parsing.formats._xmlparams import XmlTags

pytest.importorskip("llguidance")
pytest.importorskip("numpy")

from toolcalls.grammars._sampling import accepts  # noqa: E402


@pytest.mark.parametrize("tags", [qwen3_coder.TAGS, glm.TAGS, minimax_m2.TAGS])
def test_the_regex_bars_exactly_the_tags(tags: XmlTags) -> None:
    words = (tags.param_close, *structural_tags(tags))
    pattern = re.compile(avoiding(words), re.DOTALL)
    # every string of up to 3 pieces: a tag, a tag cut short, "<", a letter
    pieces = {"x", "<", "\n", *words, *(word[: len(word) // 2] for word in words)}
    for count in range(4):
        for parts in itertools.product(sorted(pieces), repeat=count):
            text = "".join(parts)
            assert bool(pattern.fullmatch(text)) == (not any(w in text for w in words)), text


def test_words_must_be_tags() -> None:
    with pytest.raises(ValueError, match="not tags"):
        avoiding(["a<b"])


def test_every_string_key_and_untyped_value_is_barred() -> None:
    schema = within_tags({"type": "object", "properties": {"a": {"type": "string"}, "b": {}}},
                         ["</p>"])
    assert schema["properties"]["a"]["pattern"] == avoiding(["</p>"])
    assert schema["properties"]["b"]["$ref"].startswith("#/$defs/")
    assert avoiding(["</p>"]) in schema["patternProperties"]
    assert schema["additionalProperties"] is False


PERSON = {"name": "f", "parameters": {"type": "object", "properties": {
    "p": {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
          "required": ["name", "age"]},
    "free": {"type": "object"}}, "required": ["p"]}}
XML = ["qwen3_coder", "seed_oss", "glm45", "glm47", "minimax_m2", "deepseek_v32_dsml"]


def _call(format_name: str, arguments: dict[str, object]) -> str:
    call = toolcalls.ToolCall(id="a", name="f", arguments=arguments, source="native")
    return toolcalls.get_format(format_name).render_calls([call])


@pytest.mark.parametrize("format_name", XML)
def test_a_json_value_may_hold_a_less_than(format_name: str) -> None:
    """The issue's example: ``<`` inside an object parameter's string was refused."""
    text = _call(format_name, {"p": {"name": 'Ada "A" <L>', "age": 36}, "free": {"<k>": "<v>"}})
    assert accepts(grammar(format_name, [PERSON]), text) is None
    result = toolcalls.parse(text, format_name, tools=[PERSON], validate=True)
    assert result.calls[0].arguments["p"]["name"] == 'Ada "A" <L>' and not result.issues


CLOSE = {
    "qwen3_coder": qwen3_coder.TAGS.param_close, "seed_oss": seed_oss.TAGS.param_close,
    "glm45": glm.TAGS.param_close, "glm47": glm.TAGS.param_close,
    "minimax_m2": minimax_m2.TAGS.param_close,
    "deepseek_v32_dsml": deepseek_dsml.TAGS[deepseek_dsml.FULLWIDTH].param_close,
}


@pytest.mark.parametrize("format_name", XML)
@pytest.mark.parametrize("spot", ['"n"', '"v"', '"k"'])
def test_a_json_value_may_not_hold_its_close_tag(format_name: str, spot: str) -> None:
    """Nor may a key or value of a free object (which was not barred at all)."""
    text = _call(format_name, {"p": {"name": "n", "age": 1}, "free": {"k": "v"}})
    rules = grammar(format_name, [PERSON])
    assert accepts(rules, text) is None
    assert accepts(rules, text.replace(spot, json.dumps(CLOSE[format_name]))) is not None


@pytest.mark.parametrize("format_name", XML)
def test_a_number_parameter_is_finite(format_name: str) -> None:
    """``%json`` lets a number have any exponent; the readers refuse ``1e400``."""
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {
        "n": {"type": "number"}, "i": {"type": "integer"}}, "required": ["n", "i"]}}]
    text = _call(format_name, {"n": 1.5, "i": 7})
    rules = grammar(format_name, tools)
    assert accepts(rules, text) is None
    assert accepts(rules, text.replace("1.5", "1.5e3")) is None
    assert accepts(rules, text.replace("1.5", "1e400")) is not None
    assert accepts(rules, text.replace("7", "7.5")) is not None
