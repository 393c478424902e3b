"""MiniMax-M3's argument tags: how nested values are typed and what rendering refuses.

The goldens (fixtures/minimax_m3/) pin whole responses; these pin the value rules of
`toolcalls.parsing.formats._minimax_m3_values` one at a time.
"""

from __future__ import annotations

from typing import Any

import pytest
from helpers import checked

import toolcalls
from toolcalls import ToolCall

NS = "]<]minimax[>["


def _call(body: str) -> str:
    return f'{NS}<tool_call>\n{NS}<invoke name="f">\n{body}\n{NS}</invoke>\n{NS}</tool_call>'


def _tag(key: str, inner: str) -> str:
    return f"{NS}<{key}>{inner}{NS}</{key}>"


def _tool(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": properties}}}


def _arguments(body: str, properties: dict[str, Any] | None = None) -> dict[str, Any]:
    tools = [_tool(properties)] if properties is not None else None
    result = checked("minimax_m3", _call(body), tools=tools)
    assert len(result.calls) == 1 and not result.issues, result
    return result.calls[0].arguments


def test_a_parameter_without_a_schema_stays_text() -> None:
    assert _arguments(_tag("n", "3")) == {"n": "3"}


def test_leaves_nested_where_no_schema_says_their_type_are_json_scalars() -> None:
    body = _tag("o", _tag("n", "3") + _tag("b", "true") + _tag("s", "x"))
    assert _arguments(body, {"o": {"type": "object"}}) == {"o": {"n": 3, "b": True, "s": "x"}}


def test_items_are_a_list_and_a_repeated_key_collects_its_values() -> None:
    items = _tag("l", _tag("item", "a") + _tag("item", "b"))
    body = items + _tag("o", _tag("k", "1") + _tag("k", "2"))
    assert _arguments(body) == {"l": ["a", "b"], "o": {"k": [1, 2]}}


def test_an_item_key_is_an_object_key_when_the_schema_asks_for_an_object() -> None:
    body = _tag("o", _tag("item", "a"))
    assert _arguments(body, {"o": {"type": "object"}}) == {"o": {"item": "a"}}


def test_an_empty_leaf_is_empty_container_by_its_schema() -> None:
    body = _tag("o", "") + _tag("l", "") + _tag("s", "")
    properties = {"o": {"type": "object"}, "l": {"type": "array"}, "s": {"type": "string"}}
    assert _arguments(body, properties) == {"o": {}, "l": [], "s": ""}


@pytest.mark.parametrize(
    "arguments",
    [{"o": {}}, {"l": []}, {"o": {"k": "3"}}, {"s": f"a{NS}</s>b"}, {"bad key": 1}],
    ids=["empty-object", "empty-list", "nested-numeric-string", "own-close-tag", "key-not-a-tag"],
)
def test_rendering_refuses_what_would_read_back_otherwise(arguments: dict[str, Any]) -> None:
    call = ToolCall(id="call00000", name="f", arguments=arguments, span=(0, 0))
    with pytest.raises(ValueError):
        toolcalls.get_format("minimax_m3").render_calls([call])


def test_a_rendered_nested_call_reads_back() -> None:
    arguments = {"s": "Paris", "o": {"a": [1, "x", {"k": None}], "b": False}}
    call = ToolCall(id="call00000", name="f", arguments=arguments, span=(0, 0))
    text = toolcalls.get_format("minimax_m3").render_calls([call], "On it.")
    result = checked("minimax_m3", text)
    assert [c.arguments for c in result.calls] == [arguments]
    assert result.content == "On it."


def test_local_refs_are_followed_down_the_nested_values() -> None:
    """A ``$ref`` types the value it stands for, nested or not: the grammar writes the tags of
    its properties (without the ref followed, the value was a string of tags)."""
    node = {"type": "object", "properties": {"n": {"type": "string"},
                                             "next": {"$ref": "#/$defs/node"}}}
    tool = {"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"head": {"$ref": "#/$defs/node", "description": "x"}},
        "$defs": {"node": node}}}}
    body = _tag("head", _tag("n", "3") + _tag("next", _tag("n", "4") + _tag("next", "")))
    result = checked("minimax_m3", _call(body), tools=[tool])
    assert [c.arguments for c in result.calls] == [{"head": {"n": "3", "next": {"n": "4",
                                                                                "next": {}}}}]


def test_a_value_of_an_object_or_list_may_be_json_text() -> None:
    """As llama.cpp's M3 parser reads non-string values (and the grammar writes a free-form
    object): the text is read by its schema."""
    body = _tag("o", '{"k": [1, null]}') + _tag("l", "[1, 2]")
    properties = {"o": {"type": "object"}, "l": {"type": "array"}}
    assert _arguments(body, properties) == {"o": {"k": [1, None]}, "l": [1, 2]}
