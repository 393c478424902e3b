"""Arguments are strict JSON in every format (the rules are in `toolcalls.parsing._json`'s
docstring): hostile values never raise, never reach `arguments`, and never make a result that
cannot be serialized, whole or streamed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import assert_events_consistent, checked, split_at, stream_chunks
from hypothesis import given, settings
from hypothesis import strategies as st

import toolcalls
from toolcalls import ParseResult, Tool, ToolCall, ToolDefinitionError
from toolcalls.cli._main import main
from toolcalls.parsing._json import MAX_DEPTH

FORMATS = toolcalls.list_formats()


def _template(fmt: str) -> str:
    """A call of `f` with one argument ``a`` whose value is written as ``SENTINEL``."""
    call = ToolCall(name="f", arguments={"a": "SENTINEL"}, id="call_0", span=(0, 0))
    return toolcalls.get_format(fmt).render_calls([call])


JSON_FORMATS = [f for f in FORMATS if '"SENTINEL"' in _template(f)]
# The XML-parameter formats write values raw, so refuse some (`Format.refused_values`).
XML_FORMATS = [f for f in FORMATS if toolcalls.get_format(f).refused_values]


def json_call(fmt: str, raw_value: str) -> str:
    """The call with the JSON text `raw_value` as the value of ``a``."""
    return _template(fmt).replace('"SENTINEL"', raw_value)


def assert_serializable(result: ParseResult) -> None:
    """What callers do with a result: none of it may raise."""
    result.model_dump_json()
    for call in result.calls:
        json.dumps(call.arguments, allow_nan=False, ensure_ascii=False).encode()
        call.arguments_json().encode()


def parsed_every_way(fmt: str, text: str, **options: Any) -> ParseResult:
    """The batch result, checked against 1- and 7-character deltas and made serializable."""
    batch = toolcalls.parse(text, fmt, **options)
    assert_serializable(batch)
    for size in (1, 7):
        chunks = [text[i : i + size] for i in range(0, len(text), size)]
        events, streamed = stream_chunks(fmt, chunks, **options)
        assert streamed == batch, size
        assert_events_consistent(events, streamed)
    return batch


REFUSED_VALUES = [
    '"\\u-123"', '"\\u+123"', '"\\u 12a"', '"\\u1_23"', '"\\u12"',  # not four hex digits
    "NaN", "Infinity", "-Infinity", "[NaN]", '{"b": -Infinity}',  # not JSON numbers
    "1e400", "1e309", "-1e309", "[1.5e308, 1e999]",  # overflow a double
    '"\\ud800"', '"\\udc00"', '"x\\ud83d"', '"\\ud83d\\u0041"', '"\\ude00\\ud83d"',  # lone
    '{"\\ud800": 1}',  # a key is a string too
    "[" * MAX_DEPTH + "]" * MAX_DEPTH,  # with the arguments object: one level too deep
]


@pytest.mark.parametrize("fmt", JSON_FORMATS)
@pytest.mark.parametrize("value", REFUSED_VALUES)
def test_a_value_json_arguments_cannot_hold_makes_the_call_incomplete(fmt: str, value: str) -> None:
    """One rule for every JSON format: the call is incomplete with an invalid_arguments issue
    (the arguments are not strict JSON), as for any other malformed JSON."""
    result = parsed_every_way(fmt, json_call(fmt, value))
    assert not result.calls
    assert len(result.incomplete) == 1
    assert "invalid_arguments" in [issue.kind for issue in result.issues]


ACCEPTED_VALUES = {
    '"\\ud83d\\ude00"': "\U0001f600",  # a pair is one character
    '"\\uD83D\\uDE00"': "\U0001f600",
    '"\\\\ud800"': "\\ud800",  # an escaped backslash, then text
    '"\\u00e9\\u0041"': "éA",
    "1.5e308": 1.5e308,
    "12345678901234567890123456789": 12345678901234567890123456789,  # exact, as JSON reads it
    "[" * (MAX_DEPTH - 2) + "]" * (MAX_DEPTH - 2): None,
}


@pytest.mark.parametrize("fmt", JSON_FORMATS)
@pytest.mark.parametrize("value", sorted(ACCEPTED_VALUES))
def test_strict_json_values_are_read(fmt: str, value: str) -> None:
    result = parsed_every_way(fmt, json_call(fmt, value))
    assert len(result.calls) == 1, result
    if ACCEPTED_VALUES[value] is not None:
        assert result.calls[0].arguments == {"a": ACCEPTED_VALUES[value]}


@pytest.mark.parametrize("fmt", JSON_FORMATS)
def test_a_surrogate_escape_near_the_end_streams_to_the_batch_result(fmt: str) -> None:
    """Every prefix of a call ending in a surrogate escape, in every 2-way split and in
    1-character deltas (a high half waits for its low half only while it may still come)."""
    for value in ('"\\ud800"', '"\\ud83d\\ude00"', '"\\ud83d\\ud83d"'):
        text = json_call(fmt, value)
        end = text.index(value) + len(value)
        for cut in range(end - len(value), min(end + 3, len(text)) + 1):
            result = checked(fmt, text[:cut])
            assert_serializable(result)


@pytest.mark.parametrize("fmt", ["llama3_json", "ollama", "auto"])
def test_an_invalid_escape_in_prose_json_never_raises(fmt: str) -> None:
    for text in ('Hello {"x": "\\u-123"} there', 'a {"name": "f", "parameters": {"a": "\\u-1"}}',
                 '{"name": "f", "arguments": {"a": NaN}}', '{"x": "\\ud800"}'):
        result = toolcalls.parse(text, fmt)
        assert_serializable(result)
        if fmt != "auto":
            assert parsed_every_way(fmt, text) == result


@pytest.mark.parametrize("fmt", JSON_FORMATS)
@pytest.mark.parametrize(
    "inner",
    ['{\\"a\\": NaN}', '{\\"a\\": 1e400}', '{\\"a\\": \\"\\\\ud800\\"}', "[" * 1000 + "]" * 1000],
)
def test_arguments_sent_as_a_json_string_follow_the_same_rules(fmt: str, inner: str) -> None:
    text = _template(fmt).replace('{"a": "SENTINEL"}', '"' + inner + '"')
    tools = [Tool(name="f")]
    result = parsed_every_way(fmt, text, tools=tools)
    assert not result.calls, result


# -- pythonic (and llama3_json's Python-syntax calls after <|python_tag|>) ---------------------

PYTHONIC_REFUSED = [
    "[" * 1000 + "]" * 1000,
    "[" * MAX_DEPTH + "]" * MAX_DEPTH,
    '"\\ud800"',  # Python does not pair surrogate escapes: either half alone is no character
    '"\\ud83d\\ude00"',
    "{'k': '\\udc00'}",
    "1e400",
    "float('nan')",
]


@pytest.mark.parametrize("value", PYTHONIC_REFUSED)
@pytest.mark.parametrize("shape", ["[f(a={})]", "[f(s='x', a={})]", "<|python_tag|>f.call(a={})",
                                   "<|python_tag|>f.call(s='x', a={})"])
def test_pythonic_values_json_cannot_hold_are_refused(value: str, shape: str) -> None:
    """Before the list is committed (nothing streamed yet) it is prose, as any unreadable
    list; after, the call is incomplete with an issue. Never a call, never an exception."""
    fmt = "llama3_json" if shape.startswith("<|") else "pythonic"
    result = parsed_every_way(fmt, shape.format(value))
    assert not result.calls
    if "s='x'" in shape:
        assert len(result.incomplete) == 1 and result.issues


def test_pythonic_nesting_at_the_limit_is_read() -> None:
    depth = MAX_DEPTH - 1
    result = parsed_every_way("pythonic", "[f(a=" + "[" * depth + "]" * depth + ")]")
    assert len(result.calls) == 1


# -- XML-style formats: typed values -----------------------------------------------------------


@pytest.mark.parametrize("fmt", XML_FORMATS)
@pytest.mark.parametrize("kind", ["integer", "number", "array", "object"])
@pytest.mark.parametrize("raw", ["1e309", "-1e400", "NaN", "Infinity", "[1e400]", '["\\ud800"]',
                                 '{"a": NaN}', "[" * 300 + "]" * 300, "[['\\ud800']]"])
def test_a_typed_xml_value_that_json_cannot_hold_stays_text_with_an_issue(
    fmt: str, kind: str, raw: str
) -> None:
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": kind}}}}]
    result = parsed_every_way(fmt, _template(fmt).replace("SENTINEL", raw), tools=tools)
    assert [call.arguments for call in result.calls] == [{"a": raw}]
    assert [issue.kind for issue in result.issues] == ["invalid_value"]


# -- arguments: null and "" ---------------------------------------------------------------------

# A call whose arguments X sit in a {"name", "arguments"} envelope: as every format whose
# rendered calls have one writes it, and the envelopes models slip into (Mistral's list, a
# Hermes call in GLM).
ENVELOPES = {
    f: _template(f).replace('{"a": "SENTINEL"}', "X")
    for f in JSON_FORMATS
    if '"arguments": {"a"' in _template(f) or '"parameters": {"a"' in _template(f)
} | {
    "mistral": '[TOOL_CALLS][{"name": "f", "arguments": X}]',
    "glm47": '<tool_call>{"name": "f", "arguments": X}</tool_call>',
}


@pytest.mark.parametrize("fmt", sorted(ENVELOPES))
@pytest.mark.parametrize("value", ["null", '""'])
def test_null_or_empty_arguments_mean_none_like_a_missing_key(fmt: str, value: str) -> None:
    tools = [Tool(name="f")]
    result = parsed_every_way(fmt, ENVELOPES[fmt].replace("X", value), tools=tools)
    missing = toolcalls.parse(ENVELOPES[fmt].replace(', "arguments": X', "")
                              .replace(', "parameters": X', ""), fmt, tools=tools)
    assert [(c.name, c.arguments) for c in result.calls] == [("f", {})]
    assert [i.kind for i in result.issues] == [i.kind for i in missing.issues]
    assert "invalid_arguments" not in [i.kind for i in result.issues]


# -- tool definitions -------------------------------------------------------------------------


@pytest.mark.parametrize("parameters", [False, "x", "", [], [{"type": "object"}], 1, 1.5])
@pytest.mark.parametrize("shape", ["bare", "openai", "anthropic", "Tool"])
def test_parameters_that_are_no_schema_object_raise_tool_definition_error(
    parameters: Any, shape: str
) -> None:
    with pytest.raises(ToolDefinitionError, match="parameters must be a JSON Schema object"):
        if shape == "Tool":
            Tool(name="f", parameters=parameters)
        else:
            definition: dict[str, Any] = (
                {"name": "f", "input_schema": parameters} if shape == "anthropic"
                else {"name": "f", "parameters": parameters})
            if shape == "openai":
                definition = {"type": "function", "function": definition}
            toolcalls.parse("hi", "hermes", tools=[definition])


def test_parameters_true_is_the_schema_that_accepts_anything() -> None:
    assert Tool(name="f", parameters=True).parameters == {}
    result = toolcalls.parse('<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>',
                             "hermes", tools=[{"name": "f", "parameters": True}])
    assert result.calls[0].arguments == {"a": 1} and not result.issues


def test_a_field_of_the_wrong_type_is_a_tool_definition_error() -> None:
    with pytest.raises(ToolDefinitionError, match="tool #0: description"):
        toolcalls.parse("hi", "hermes", tools=[{"name": "f", "description": 5}])


# -- the whole class, by property -------------------------------------------------------------

HOSTILE = ['"\\u-123"', "NaN", "-Infinity", "1e400", '"\\ud800"', '"\\udc00"', '"\\ud83d',
           "[" * 250, "]" * 3, '"\\u', "1e30", '"ok"', "{", "}", ",", '"\\\\u12"']


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(FORMATS), st.lists(st.sampled_from(HOSTILE), min_size=1, max_size=4),
       st.integers(0, 10_000), st.lists(st.integers(0, 400), max_size=4))
def test_hostile_json_values_never_raise_and_stream_to_the_batch_result(
    fmt: str, pieces: list[str], cut: int, cuts: list[int]
) -> None:
    template = _template(fmt)
    sentinel = '"SENTINEL"' if '"SENTINEL"' in template else "SENTINEL"
    if sentinel not in template:
        sentinel = "'SENTINEL'"
    text = template.replace(sentinel, "".join(pieces))
    text = text[: cut % (len(text) + 1)] if cut % 3 == 0 else text  # sometimes cut short
    batch = toolcalls.parse(text, fmt)
    assert_serializable(batch)
    events, streamed = stream_chunks(fmt, split_at(text, cuts))
    assert streamed == batch
    assert_events_consistent(events, streamed)
    one_char = stream_chunks(fmt, list(text))[1]
    assert one_char == batch


@pytest.mark.parametrize("stream", [False, True])
def test_the_cli_prints_a_result_with_a_lone_surrogate_escape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], stream: bool
) -> None:
    response = tmp_path / "response.txt"
    response.write_text('<tool_call>{"name": "f", "arguments": {"a": "\\ud800"}}</tool_call>',
                        encoding="utf-8")
    assert main(["parse", str(response), "--format", "hermes", *(["--stream"] * stream)]) == 0
    printed = capsys.readouterr().out
    printed.encode()
    assert "invalid_arguments" in printed or "tool_call_failed" in printed
