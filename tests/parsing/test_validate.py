"""`parse(..., validate=True)`: schema violations of complete calls as issues; `Tool.aliases`
resolved to the tool's name with an `alias_used` issue. Streaming gives the batch result."""

from __future__ import annotations

from typing import Any

import pytest
from corpus import load_cases
from helpers import assert_events_consistent, checked, split_at, stream_chunks
from hypothesis import given
from hypothesis import strategies as st

import toolcalls
from toolcalls import InvalidArgumentsError
from toolcalls.tools import Tool

WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"},
                   "unit": {"type": "string", "enum": ["c", "f"]}},
    "required": ["city"]}}}
SEARCH = Tool(name="search", aliases=("find", "lookup"),
              parameters={"type": "object", "properties": {"q": {"type": "string"}}})


def qwen_call(name: str, **params: str) -> str:
    body = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in params.items())
    return f"<tool_call>\n<function={name}>\n{body}</function>\n</tool_call>"


def hermes_call(name: str, arguments: dict[str, Any]) -> str:
    import json

    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


def kinds(result: toolcalls.ParseResult) -> list[str]:
    return [issue.kind for issue in result.issues]


# -- validate=True ----------------------------------------------------------------------------


def test_a_missing_required_argument_is_reported_for_the_model() -> None:
    result = checked("hermes", hermes_call("get_weather", {"days": 2}), tools=[WEATHER],
                     validate=True)
    assert kinds(result) == ["missing_argument"]
    issue = result.issues[0]
    assert "missing required argument 'city'" in issue.message
    assert "call 'get_weather' again" in issue.message  # says what to do
    assert issue.span == result.calls[0].span


def test_an_unknown_argument_is_reported_with_the_allowed_ones() -> None:
    result = toolcalls.parse(hermes_call("get_weather", {"city": "Paris", "town": "x"}),
                             "hermes", tools=[WEATHER], validate=True)
    assert kinds(result) == ["unknown_argument"]
    assert "'town'" in result.issues[0].message
    assert "city, days, unit" in result.issues[0].message


def test_an_argument_the_schema_allows_is_not_unknown() -> None:
    loose = {"name": "f", "parameters": {"type": "object", "properties": {"a": {}},
                                         "additionalProperties": True}}
    result = toolcalls.parse(hermes_call("f", {"b": 1}), "hermes", tools=[loose], validate=True)
    assert result.issues == []


def test_a_wrong_type_is_checked_after_xml_values_are_typed() -> None:
    typed = toolcalls.parse(qwen_call("get_weather", city="Paris", days="3"), "qwen3_coder",
                            tools=[WEATHER], validate=True)
    assert typed.calls[0].arguments == {"city": "Paris", "days": 3}
    assert typed.issues == []  # "3" became 3 by the schema: no wrong type
    wrong = checked("qwen3_coder", qwen_call("get_weather", city="Paris", days="three"),
                    tools=[WEATHER], validate=True)
    assert kinds(wrong) == ["invalid_value", "wrong_argument_type"]
    assert "argument 'days' must be an integer" in wrong.issues[1].message


def test_a_value_outside_an_enum_is_an_invalid_value() -> None:
    result = toolcalls.parse(hermes_call("get_weather", {"city": "Paris", "unit": "k"}),
                             "hermes", tools=[WEATHER], validate=True)
    assert kinds(result) == ["invalid_argument_value"]
    assert '"c", "f"' in result.issues[0].message


def test_validation_is_off_by_default_and_valid_calls_have_no_issue() -> None:
    text = hermes_call("get_weather", {"days": 2})
    assert toolcalls.parse(text, "hermes", tools=[WEATHER]).issues == []
    good = hermes_call("get_weather", {"city": "Paris", "days": 2, "unit": "c"})
    assert toolcalls.parse(good, "hermes", tools=[WEATHER], validate=True).issues == []


def test_incomplete_calls_and_undeclared_tools_are_not_validated() -> None:
    cut = toolcalls.parse('<tool_call>{"name": "get_weather", "arguments": {"days": 2',
                          "hermes", tools=[WEATHER], validate=True)
    assert kinds(cut) == ["truncated_call"]
    unknown = toolcalls.parse(hermes_call("nope", {}), "hermes", tools=[WEATHER], validate=True)
    assert kinds(unknown) == ["unknown_tool"]


def test_strict_validation_raises_invalid_arguments() -> None:
    with pytest.raises(InvalidArgumentsError) as raised:
        toolcalls.parse(hermes_call("get_weather", {}), "hermes", tools=[WEATHER],
                        validate=True, strict=True)
    assert raised.value.kind == "missing_argument"


def test_auto_parser_and_stream_take_validate() -> None:
    text = hermes_call("get_weather", {})
    assert kinds(toolcalls.parse(text, "auto", tools=[WEATHER], validate=True)) == [
        "missing_argument"]
    bound = toolcalls.parser("hermes", tools=[WEATHER], validate=True)
    assert kinds(bound.parse(text)) == ["missing_argument"]
    stream = bound.stream()
    events = stream.feed(text)
    assert events[-1].kind == "tool_call_end"
    assert kinds(stream.result()) == ["missing_argument"]  # known when the call ends


# -- aliases ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("fmt", "text"), [
    ("hermes", hermes_call("find", {"q": "x"})),
    ("qwen3_coder", qwen_call("lookup", q="x")),
])
def test_an_alias_resolves_to_the_tools_name(fmt: str, text: str) -> None:
    result = checked(fmt, text, tools=[SEARCH])
    assert [call.name for call in result.calls] == ["search"]
    assert kinds(result) == ["alias_used"]
    assert "an alias of 'search'" in result.issues[0].message
    events, _ = stream_chunks(fmt, [text], tools=[SEARCH])
    assert [e.name for e in events if e.kind == "tool_call_start"] == ["search"]


def test_an_alias_is_typed_and_validated_by_its_tools_schema() -> None:
    counted = Tool(name="count", aliases=("n",), parameters={
        "type": "object", "properties": {"k": {"type": "integer"}}, "required": ["k"]})
    result = toolcalls.parse(qwen_call("n", k="7"), "qwen3_coder", tools=[counted], validate=True)
    assert result.calls[0].arguments == {"k": 7}
    assert kinds(result) == ["alias_used"]


def test_strict_mode_does_not_raise_on_an_alias() -> None:
    # `alias_used` is informational (toolcalls/parsing/issues.py INFORMATIONAL): no fault
    result = toolcalls.parse(hermes_call("find", {"q": "x"}), "hermes", tools=[SEARCH],
                             strict=True)
    assert [call.name for call in result.calls] == ["search"]
    assert kinds(result) == ["alias_used"]
    with pytest.raises(InvalidArgumentsError):  # a fault after the alias still raises
        toolcalls.parse(hermes_call("find", {"q": 1}), "hermes", tools=[SEARCH], strict=True,
                        validate=True)


def test_a_tools_own_name_wins_over_anothers_alias() -> None:
    shadow = Tool(name="find", parameters={"type": "object"})
    result = toolcalls.parse(hermes_call("find", {}), "hermes", tools=[SEARCH, shadow])
    assert result.calls[0].name == "find" and result.issues == []


# -- streaming == batch -----------------------------------------------------------------------

CASES = [case for case in load_cases() if case.row.get("tools") and case.row.get("kind") == "valid"]


@pytest.mark.parametrize("case", CASES[::7], ids=lambda case: case.id)
def test_validated_corpus_rows_stream_to_the_batch_result(case: Any) -> None:
    options = {**case.options(), "validate": True}
    batch = toolcalls.parse(case.text, case.format, **options)

    @given(st.lists(st.integers(0, len(case.text)), max_size=8))
    def check(cuts: list[int]) -> None:
        events, streamed = stream_chunks(case.format, split_at(case.text, cuts), **options)
        assert streamed == batch
        assert_events_consistent(events, streamed)

    check()


def _aliased(case: Any) -> list[Tool]:
    """The row's tools renamed, their old names kept as aliases: every call uses an alias."""
    tools = toolcalls.tools.import_tools(case.row["tools"])
    return [tool.model_copy(update={"name": tool.name + "_v2", "aliases": (tool.name,)})
            for tool in tools]


BY_FORMAT = {fmt: [case for case in CASES if case.format == fmt]
             for fmt in sorted({case.format for case in CASES})}


@pytest.mark.parametrize("fmt", sorted(BY_FORMAT))
def test_calls_by_alias_carry_the_tools_name_in_every_format(fmt: str) -> None:
    for case in BY_FORMAT[fmt]:
        options = {**case.options(), "tools": _aliased(case)}
        plain = toolcalls.parse(case.text, fmt, **case.options())
        aliased = toolcalls.parse(case.text, fmt, **options)
        declared = {tool.name for tool in toolcalls.tools.import_tools(case.row["tools"])}
        expected = [call.name + "_v2" if call.name in declared else call.name
                    for call in plain.calls]
        assert [call.name for call in aliased.calls] == expected, case.id
        used = [issue for issue in aliased.issues if issue.kind == "alias_used"]
        assert len(used) >= sum(name.endswith("_v2") for name in expected), case.id


@pytest.mark.parametrize("fmt", sorted(BY_FORMAT))
def test_mutated_responses_with_aliases_and_validation_stream_to_the_batch_result(
    fmt: str,
) -> None:
    @given(st.sampled_from(BY_FORMAT[fmt]), st.integers(0, 10_000), st.integers(0, 30),
           st.text(max_size=4), st.lists(st.integers(0, 400), max_size=6))
    def check(case: Any, at: int, cut: int, insert: str, cuts: list[int]) -> None:
        start = at % (len(case.text) + 1)
        text = case.text[:start] + insert + case.text[start + cut :]
        options = {**case.options(), "tools": _aliased(case), "validate": True}
        batch = toolcalls.parse(text, fmt, **options)
        events, streamed = stream_chunks(fmt, split_at(text, cuts), **options)
        assert streamed == batch
        assert_events_consistent(events, streamed)

    check()


# -- $ref in a parameter schema ------------------------------------------------------------------

PERSON = {"name": "save", "parameters": {  # what pydantic's model_json_schema() writes
    "type": "object", "required": ["address"],
    "properties": {"address": {"$ref": "#/$defs/Address"},
                   "backup": {"anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}]}},
    "$defs": {"Address": {"type": "object", "required": ["zip"], "properties": {
        "street": {"type": "string"}, "zip": {"type": "integer"}}}}}}
SAVE = ("<tool_call>\n<function=save>\n<parameter=address>\n{\"street\": \"Main\", \"zip\": 1}\n"
        "</parameter>\n<parameter=backup>\nnull\n</parameter>\n</function>\n</tool_call>")


def test_a_value_typed_by_a_local_ref_is_an_object_that_validates() -> None:
    # On main the value stayed a string and the model was told it "must be an object".
    result = checked("qwen3_coder", SAVE, tools=[PERSON], validate=True)
    assert result.calls[0].arguments == {"address": {"street": "Main", "zip": 1}, "backup": None}
    assert result.issues == []
    wrong = toolcalls.parse(SAVE.replace('"zip": 1', '"zip": "one"'), "qwen3_coder",
                            tools=[PERSON], validate=True)
    assert [issue.kind for issue in wrong.issues] == ["wrong_argument_type"]
    assert "address.zip" in wrong.issues[0].message


def test_a_remote_ref_is_not_followed_and_never_raises() -> None:
    remote = {"name": "save", "parameters": {"type": "object", "properties": {
        "address": {"$ref": "https://example.com/address.json"}}}}
    for text in (SAVE, SAVE[:70]):  # whole, and cut inside the value
        result = toolcalls.parse(text, "qwen3_coder", tools=[remote], validate=True)
        assert not [i for i in result.issues if i.kind == "wrong_argument_type"]
    events, streamed = stream_chunks("qwen3_coder", list(SAVE), tools=[remote], validate=True)
    assert streamed == toolcalls.parse(SAVE, "qwen3_coder", tools=[remote], validate=True)


@pytest.mark.parametrize("ref", ["#/$defs/Missing", "#/properties/nope", "#missing_anchor"])
def test_a_local_ref_that_points_nowhere_is_a_broken_definition(ref: str) -> None:
    broken = {"name": "f", "parameters": {"type": "object", "properties": {"a": {"$ref": ref}}}}
    with pytest.raises(toolcalls.ToolDefinitionError, match="points nowhere"):
        toolcalls.to_tools([broken])


def test_arguments_too_deep_to_check_are_an_issue_not_a_crash() -> None:
    # A recursive schema over arguments 190 deep: RecursionError from jsonschema on main.
    tree = {"name": "f", "parameters": {
        "type": "object", "properties": {"a": {"$ref": "#/$defs/N"}},
        "$defs": {"N": {"anyOf": [{"type": "array", "items": {"$ref": "#/$defs/N"}},
                                  {"type": "integer"}]}}}}
    text = ('<tool_call>\n{"name": "f", "arguments": {"a": ' + "[" * 190 + "1" + "]" * 190
            + "}}\n</tool_call>")
    result = toolcalls.parse(text, "hermes", tools=[tree], validate=True)
    assert len(result.calls) == 1
    assert [issue.kind for issue in result.issues] == ["invalid_argument_value"]
    assert "too deep to be checked" in result.issues[0].message
    events, streamed = stream_chunks("hermes", split_at(text, [7, 100, 300]), tools=[tree],
                                     validate=True)
    assert streamed == result
    shallow = text.replace("[" * 190, "[" * 20).replace("]" * 190, "]" * 20)
    assert toolcalls.parse(shallow, "hermes", tools=[tree], validate=True).issues == []
