"""JSON values between XML-parameter tags (toolcalls/decoding/_tagged_json.py): only the tags
the reader stops at are barred, in strings, object keys and values of no declared type."""

from __future__ import annotations

import itertools
import json
import re

import pytest

import toolcalls
from toolcalls.decoding import grammar
from toolcalls.decoding._region import structural_tags
from toolcalls.decoding._tagged_json import avoiding, avoiding_except, within_tags
from toolcalls.parsing.formats import deepseek_dsml, glm, minimax_m2, qwen3_coder, seed_oss
from toolcalls.parsing.formats._xmlparams import XmlTags

pytest.importorskip("llguidance")
pytest.importorskip("numpy")

from toolcalls.testing._sampling import accepts  # noqa: E402


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


@pytest.mark.parametrize("tags", [qwen3_coder.TAGS, glm.TAGS])
@pytest.mark.parametrize("names", [[], ["a"], ["", "a", "ab", "b"], ["<", "</", "a<b", "\\", "]"]])
def test_the_key_regex_bars_the_tags_and_the_declared_names(tags: XmlTags,
                                                             names: list[str]) -> None:
    """The other keys of an object leave its declared names to ``properties`` (names holding
    a tag, or cut short inside one, too)."""
    words = (tags.param_close, *structural_tags(tags))
    names = [*names, words[0], words[0][:3], words[0][:4] + "z"]
    pattern = re.compile(avoiding_except(words, names), re.DOTALL)
    pieces = {"x", "a", "<", *words, *(word[: len(word) // 2] for word in words), *names}
    for count in range(4):
        for parts in itertools.product(sorted(pieces), repeat=count):
            text = "".join(parts)
            clear = not any(w in text for w in words)
            assert bool(pattern.fullmatch(text)) == (clear and text not in names), text


def test_words_must_be_tags() -> None:
    with pytest.raises(ValueError, match="not tags"):
        avoiding(["a<b"])


def test_every_string_key_and_untyped_value_is_barred() -> None:
    schema = within_tags({"type": "object", "properties": {"a": {"type": "string"}, "b": {}}},
                         ["</p>"])
    assert schema["properties"]["a"]["pattern"] == avoiding(["</p>"])
    assert schema["properties"]["b"]["$ref"].startswith("#/$defs/")
    assert list(schema["patternProperties"]) == [avoiding_except(["</p>"], ["a", "b"])]
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


def _nested(depth: int, closed: bool) -> tuple[dict[str, object], object]:
    """An object parameter ``depth`` levels deep, its innermost string "vv" and, when open, an
    undeclared key "kk" beside it."""
    schema: dict[str, object] = {"type": "string"}
    value: object = "vv"
    for level in range(depth):
        inner = {"type": "object", "properties": {f"a{level}": schema}}
        schema = {**inner, "additionalProperties": False} if closed else inner
        value = {f"a{level}": value} if closed or level else {f"a{level}": value, "kk": 1}
    return schema, value


_AB = {"type": "object", "properties": {"a": {"type": "object", "properties": {
    "b": {"type": "string"}}}}}
SHAPES: dict[str, tuple[object, object, tuple[str, ...]]] = {
    **{f"{'closed' if closed else 'open'}_{depth}": (*_nested(depth, closed),
                                                     ("vv",) if closed else ("vv", "kk"))
       for depth in range(1, 5) for closed in (False, True)},
    "additional_true": ({**_AB, "additionalProperties": True},
                        {"a": {"b": "vv"}, "kk": {"x": [1]}}, ("vv", "kk", "x")),
    "additional_false": ({**_AB, "additionalProperties": False}, {"a": {"b": "vv"}}, ("vv",)),
    "additional_schema": ({**_AB, "additionalProperties": _AB},
                          {"a": {"b": "x"}, "kk": {"a": {"b": "vv"}}}, ("vv", "kk")),
    # where llguidance intersects parts of a schema only strings are barred (see _intersected)
    "user_pattern": ({**_AB, "patternProperties": {"^x_": {"type": "string"}}},
                     {"a": {"b": "vv"}, "x_1": "ww", "kk": {"z": 1}}, ("vv", "ww")),
    "user_pattern_on_a_key": ({"type": "object", "properties": {"xa": _AB},
                               "patternProperties": {"^x": {"type": "object"}}},
                              {"xa": {"a": {"b": "vv"}}}, ("vv",)),
    "all_of_objects": ({"allOf": [_AB, {"type": "object", "properties": {
        "c": {"type": "integer"}}}]}, {"a": {"b": "vv"}, "c": 1}, ("vv",)),
    "object_and_any_of": ({**_AB, "anyOf": [{"required": ["a"]}, {"required": ["c"]}]},
                          {"a": {"b": "vv"}}, ("vv",)),
    "ref_and_properties": ({"$ref": "#/$defs/ab", "properties": {"z": {"type": "string"}},
                            "$defs": {"ab": _AB}}, {"a": {"b": "vv"}, "z": "zz"}, ("vv", "zz")),
    "array_of_objects": ({"type": "array", "items": _AB},
                         [{"a": {"b": "vv"}}, {"a": {"b": "x"}, "kk": 2}], ("vv", "kk")),
    "any_of_objects": ({"anyOf": [{**_AB, "required": ["a"]}, {
        "type": "object", "properties": {"c": {"type": "integer"}}, "required": ["c"]}]},
                       {"a": {"b": "vv"}, "kk": True}, ("vv", "kk")),
    "defs_and_ref": ({"$ref": "#/$defs/node", "$defs": {"node": {"type": "object", "properties": {
        "name": {"type": "string"},
        "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}},
                     {"name": "x", "kids": [{"name": "vv", "kids": []}], "kk": 0}, ("vv", "kk")),
    "free_object": ({"type": "object"}, {"kk": {"a": ["vv"]}}, ("vv", "kk", "a")),
    "untyped": ({"description": "anything"}, {"kk": ["vv", {"a": None}]}, ("vv", "kk", "a")),
}


@pytest.mark.parametrize("format_name", XML)
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_shape_compiles_and_bars_the_close_tag(format_name: str, shape: str) -> None:
    """Declared keys matched the "any value" pattern of other keys, so llguidance intersected
    its recursive schema with itself and gave up ("Schema intersection stack level exceeded")
    for any nested object. Every shape compiles, takes what `render_calls` writes and a ``<``
    in any string, and refuses the close tag in a string, key or free value."""
    schema, value, spots = SHAPES[shape]
    assert isinstance(schema, dict)
    defs = {"$defs": schema["$defs"]} if "$defs" in schema else {}  # the tool's, for its refs
    parameter = {key: sub for key, sub in schema.items() if key != "$defs"}
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {"v": parameter},
                                          "required": ["v"], **defs}}]
    text = _call(format_name, {"v": value})
    rules = grammar(format_name, tools, tool_choice="required")
    assert accepts(rules, text) is None
    for spot in spots:
        quoted = json.dumps(spot)
        assert text.count(quoted) == 1
        assert accepts(rules, text.replace(quoted, json.dumps(f"<{spot}> <"))) is None
        assert accepts(rules, text.replace(quoted, json.dumps(CLOSE[format_name]))) is not None
