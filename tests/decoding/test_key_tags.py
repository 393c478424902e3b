"""MiniMax-M3's grammar (toolcalls/decoding/_key_tags.py), one value rule at a time: what the
renderer writes is accepted and reads back as the same valid call, and what the reader would
read otherwise (a key of no schema, a string holding its close tag, a value of the wrong type)
is refused. The registry-wide tests (test_grammar_*.py) run the format's goldens and samples."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

import toolcalls
from toolcalls.decoding import grammar
from toolcalls.decoding._key_tags import MAX_REF_DEPTH

pytest.importorskip("llguidance")
pytest.importorskip("numpy")

from toolcalls.testing._sampling import accepts, problems, sample  # noqa: E402

NAME = "minimax_m3"
NS = "]<]minimax[>["
FMT = toolcalls.get_format(NAME)

ORDER = json.loads(
    (Path(__file__).resolve().parents[2] / "fixtures" / NAME / "vllm_nested_order.json")
    .read_text()
)["options"]["tools"]
"""vLLM's M3 test tool (fixtures/minimax_m3/vllm_nested_order.json): nested object, list of
objects, free-form objects."""


def _tool(properties: dict[str, Any], required: list[str] | None = None,
          name: str = "f", **extra: Any) -> dict[str, Any]:
    return {"name": name, "parameters": {"type": "object", "properties": properties,
                                         "required": required or [], **extra}}


def _call(text: str, name: str = "f") -> str:
    return (f'{NS}<tool_call>\n{NS}<invoke name="{name}">\n{text}\n{NS}</invoke>\n'
            f"{NS}</tool_call>")


def _tag(key: str, inner: str) -> str:
    return f"{NS}<{key}>{inner}{NS}</{key}>"


def _rendered(arguments: dict[str, Any], name: str = "f") -> str:
    call = toolcalls.ToolCall(id="a", name=name, arguments=arguments, source="native")
    return FMT.render_calls([call])


def _read(text: str, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The arguments of the calls read from ``text``, which must be clean and valid."""
    result = toolcalls.parse(text, NAME, tools=tools, validate=True)
    assert not result.issues and not result.incomplete, result.issues
    return [call.arguments for call in result.calls]


def _round_trip(tools: list[dict[str, Any]], arguments: dict[str, Any], name: str = "f") -> None:
    text = _rendered(arguments, name)
    assert accepts(grammar(NAME, tools, tool_choice="required"), text) is None, text
    assert _read(text, tools) == [arguments]


def _taken(tools: list[dict[str, Any]], body: str) -> bool:
    return accepts(grammar(NAME, tools, tool_choice="required"), _call(body)) is None


def test_a_nested_object_and_a_list_of_objects() -> None:
    arguments = {"user_id": 42, "urgent": True, "note": "Please leave at front desk.",
                 "shipping": {"city": "Singapore", "zip": 18956},
                 "items": [{"sku": "book-001", "qty": 2}, {"sku": "pen-007", "qty": 5}]}
    _round_trip(ORDER, arguments, "create_order")


def test_members_follow_the_schema_order_and_unknown_keys_are_refused() -> None:
    tools = [_tool({"o": {"type": "object", "properties": {"a": {"type": "integer"},
                                                           "b": {"type": "string"}}}})]
    assert _taken(tools, _tag("o", _tag("a", "1") + _tag("b", "x")))
    assert not _taken(tools, _tag("o", _tag("b", "x") + _tag("a", "1")))
    assert not _taken(tools, _tag("o", _tag("c", "1")))  # a key of no schema, nested
    assert not _taken(tools, _tag("p", "1"))  # and at the top
    assert not _taken(tools, _tag("o", _tag("a", "1") + _tag("a", "2")))  # a key twice: a list


def test_empty_containers_are_empty_elements_read_by_the_schema() -> None:
    """The renderer refuses them (no schema there); the reader, given one, reads ``{}``, ``[]``."""
    tools = [_tool({"o": {"type": "object", "properties": {"a": {"type": "integer"}}},
                    "l": {"type": "array", "items": {"type": "string"}}})]
    text = _call(_tag("o", "") + _tag("l", ""))
    assert accepts(grammar(NAME, tools), text) is None
    assert _read(text, tools) == [{"o": {}, "l": []}]


def test_enum_values_and_what_is_not_one() -> None:
    tools = [_tool({"mode": {"enum": ["fast", "deep"]}, "n": {"enum": [1, 2.5, None]}},
                   ["mode"])]
    _round_trip(tools, {"mode": "deep", "n": 2.5})
    _round_trip(tools, {"mode": "fast", "n": None})
    assert not _taken(tools, _tag("mode", "slow"))
    assert not _taken(tools, _tag("mode", "fast "))
    assert not _taken(tools, _tag("mode", "fast") + _tag("n", "3"))


def test_an_enum_value_the_reader_reads_otherwise_is_left_out() -> None:
    """``"1"`` beside ``1``: the reader reads the text 1 as the integer, so only that is
    written; a string holding the value's own close tag cannot be written at all."""
    tools = [_tool({"v": {"enum": [1, "1"]}, "s": {"enum": ["a", f"b{NS}</s>"]}}, ["v"])]
    rules = grammar(NAME, tools, tool_choice="required")
    assert accepts(rules, _call(_tag("v", "1"))) is None
    assert _read(_call(_tag("v", "1")), tools) == [{"v": 1}]
    assert accepts(rules, _call(_tag("v", "1") + _tag("s", "a"))) is None
    assert accepts(rules, _call(_tag("v", "1") + f"{NS}<s>b{NS}</s>")) is not None


@pytest.mark.parametrize(("schema", "value", "wrong"), [
    ({"type": "integer"}, -7, "1.5"),
    ({"type": "number"}, -2.5, "x"),
    ({"type": "number", "minimum": 0}, 3.25, "-1"),
    ({"type": "boolean"}, False, "yes"),
    ({"type": "null"}, None, "None "),
])
def test_scalars_as_json_writes_them(schema: dict[str, Any], value: Any, wrong: str) -> None:
    tools = [_tool({"v": schema}, ["v"])]
    _round_trip(tools, {"v": value})
    assert not _taken(tools, _tag("v", wrong))
    assert not _taken(tools, _tag("v", f" {json.dumps(value)}"))  # no blanks


def test_a_string_is_raw_up_to_its_own_close_tag() -> None:
    """No escaping: quotes, ``<``, ``&``, line breaks and the format's own markup stand as they
    are; only the value's close tag cannot (it would end the value)."""
    tools = [_tool({"text": {"type": "string"}, "n": {"type": "integer"}}, ["text"])]
    for text in ['He said "hi" <b> & 日本 🙂', "line\nbreak\n",
                 f"see {NS}</invoke> and {NS}<tool_call> and {NS}<n>3{NS}</n>", ""]:
        _round_trip(tools, {"text": text})
    assert not _taken(tools, _tag("text", f"a{NS}</text>b"))


def test_a_string_beside_other_types_holds_no_namespace_token() -> None:
    tools = [_tool({"v": {"type": ["string", "null"]}}, ["v"])]
    _round_trip(tools, {"v": "Ada <L>"})
    assert _read(_call(_tag("v", "null")), tools) == [{"v": None}]
    assert _taken(tools, _tag("v", "null"))
    assert not _taken(tools, _tag("v", f"a{NS}<x>b{NS}</x>"))


def test_free_form_objects_and_unions_are_json_between_the_tags() -> None:
    """A key the schema does not name cannot be written as a tag by a grammar (its close tag
    repeats it), and a union's elements would be read by no branch: JSON, read by the schema."""
    tools = [_tool({"meta": {"type": "object"},
                    "u": {"anyOf": [{"type": "array", "items": {"type": "string"}},
                                    {"type": "integer"}]}}, ["meta"])]
    text = _call(_tag("meta", '{"k": [1, null], "z": {"y": "</meta>"}}') + _tag("u", '["3"]'))
    assert accepts(grammar(NAME, tools), text) is None
    assert _read(text, tools) == [{"meta": {"k": [1, None], "z": {"y": "</meta>"}}, "u": ["3"]}]
    assert not _taken(tools, _tag("meta", _tag("k", "1")))  # as nested tags: not written
    assert not _taken(tools, _tag("meta", json.dumps({"k": f"a{NS}<x>"})))


def test_lists_of_untyped_items_are_any_text() -> None:
    tools = [_tool({"l": {"type": "array"}}, ["l"])]
    _round_trip(tools, {"l": [1, "x", True]})
    assert not _taken(tools, _tag("l", _tag("item", f"a{NS}b")))


LINKED = _tool({"head": {"$ref": "#/$defs/node"}}, ["head"], **{"$defs": {"node": {
    "type": "object", "properties": {"v": {"type": "string"},
                                     "next": {"$ref": "#/$defs/node"}}, "required": ["v"]}}})


def test_local_refs_are_followed_and_deep_values_become_json() -> None:
    """Nested tags down `MAX_REF_DEPTH` refs (the reader follows them all), below that JSON."""
    chain: dict[str, Any] = {"v": "end"}
    for index in range(MAX_REF_DEPTH - 1):
        chain = {"v": f"n{index}", "next": chain}
    _round_trip([LINKED], {"head": chain})
    deeper = {"v": "top", "next": chain}
    assert accepts(grammar(NAME, [LINKED]), _rendered({"head": deeper})) is not None
    text = _call(_nested_with_json(deeper))  # by hand: the renderer writes no JSON
    assert accepts(grammar(NAME, [LINKED]), text) is None
    assert _read(text, [LINKED]) == [{"head": deeper}]


def _nested_with_json(value: dict[str, Any]) -> str:
    """``head`` as nested tags down `MAX_REF_DEPTH` levels, its value there as JSON."""
    def level(node: dict[str, Any], depth: int) -> str:
        if depth > MAX_REF_DEPTH:
            return json.dumps(node)
        inner = _tag("v", node["v"])
        if "next" in node:
            inner += _tag("next", level(node["next"], depth + 1))
        return inner
    return _tag("head", level(value, 1))


def test_no_arguments_and_several_calls_in_one_block() -> None:
    tools = [_tool({}, name="ping"), _tool({"q": {"type": "string"}}, ["q"], name="search")]
    calls = [toolcalls.ToolCall(id="a", name="ping", arguments={}, source="native"),
             toolcalls.ToolCall(id="b", name="search", arguments={"q": "x"}, source="native")]
    text = FMT.render_calls(calls, "On it.")
    assert accepts(grammar(NAME, tools), text) is None
    assert _read(text, tools) == [{}, {"q": "x"}]
    assert accepts(grammar(NAME, tools, parallel=False), text) is not None
    second_block = text + FMT.render_calls(calls[:1])
    assert accepts(grammar(NAME, tools), second_block) is not None


def test_a_parameter_whose_name_is_no_tag_refuses_the_tool() -> None:
    with pytest.raises(toolcalls.ToolDefinitionError, match="not a tag name"):
        grammar(NAME, [_tool({"bad key": {"type": "string"}})])


def test_a_nested_key_that_is_no_tag_leaves_its_object_to_json() -> None:
    tools = [_tool({"o": {"type": "object", "properties": {"a b": {"type": "integer"}},
                          "required": ["a b"], "additionalProperties": False}}, ["o"])]
    text = _call(_tag("o", '{"a b": 1}'))
    assert accepts(grammar(NAME, tools), text) is None
    assert _read(text, tools) == [{"o": {"a b": 1}}]


def test_random_samples_of_the_nested_tool_read_clean() -> None:
    rng = random.Random("minimax_m3-order")
    rules = grammar(NAME, ORDER, tool_choice="required")
    finished = 0
    for _ in range(4):
        text, done = sample(rules, rng)
        finished += done
        assert not done or not problems(NAME, text, ORDER, "required"), text
    assert finished, "no sample finished"
