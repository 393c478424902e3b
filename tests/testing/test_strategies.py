"""toolcalls.testing's strategies: their docstring examples run, and what each promises holds."""

from __future__ import annotations

import doctest
import json
import subprocess
import sys

import jsonschema
import pytest
from helpers import assert_lossless, stream_chunks
from hypothesis import given
from hypothesis import strategies as st

import toolcalls
from toolcalls import Tool
from toolcalls.testing import (
    _fuzz,
    _strategies,
    arguments,
    calls,
    chunkings,
    delimiters,
    mutations,
    responses,
    schemas,
    tools,
)

FORMATS = toolcalls.list_formats()
SEARCH = [Tool(name="search", parameters={"type": "object", "properties": {
    "query": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["query"]})]


@pytest.mark.parametrize("module", [_strategies, _fuzz], ids=lambda m: m.__name__)
def test_the_docstring_examples_run(module: object) -> None:
    failed, attempted = doctest.testmod(module, raise_on_error=False, verbose=False)  # type: ignore[arg-type]
    assert attempted > 0 and failed == 0


def test_every_public_strategy_has_an_example() -> None:
    import toolcalls.testing as testing

    for name in testing.__all__:
        value = getattr(testing, name)
        if callable(value) and not isinstance(value, type) :
            assert ">>> " in (value.__doc__ or ""), name


def test_import_toolcalls_does_not_load_hypothesis() -> None:
    script = ("import sys, toolcalls; toolcalls.parse('x', 'hermes'); "
              "print('hypothesis' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@given(tools(parameters=schemas(2)).flatmap(
    lambda offered: st.tuples(st.just(offered), st.sampled_from(offered).flatmap(arguments))))
def test_arguments_are_valid_against_rich_schemas(drawn: tuple[list[Tool], dict]) -> None:
    offered, args = drawn
    assert offered
    # the arguments were drawn for one of the tools: one of the schemas accepts them
    assert any(jsonschema.Draft202012Validator(tool.parameters).is_valid(args) for tool in offered)


@given(tools().flatmap(lambda offered: st.tuples(st.just(offered), calls(offered))))
def test_calls_name_offered_tools_with_fitting_arguments(drawn: tuple[list[Tool], list]) -> None:
    offered, made = drawn
    by_name = {tool.name: tool for tool in offered}
    assert [call.id for call in made] == [f"call{i:05d}" for i in range(len(made))]
    for call in made:
        jsonschema.validate(call.arguments, by_name[call.name].parameters)


@pytest.mark.parametrize("fmt", FORMATS)
def test_clean_responses_parse_back_to_their_calls(fmt: str) -> None:
    @given(tools().flatmap(lambda offered: st.tuples(
        st.just(offered), _strategies._cases(fmt, offered, True, True, False))))
    def check(drawn: tuple[list[Tool], tuple[str, list]]) -> None:
        offered, (text, intended, origin) = drawn
        assert origin == "clean"
        result = toolcalls.parse(text, fmt, tools=offered)
        assert [(c.name, c.arguments) for c in result.calls] == [
            (c.name, c.arguments) for c in intended], text
        assert result.incomplete == [], text

    check()


@pytest.mark.parametrize("fmt", FORMATS)
def test_hostile_responses_stream_to_the_batch_result(fmt: str) -> None:
    @given(responses(fmt, SEARCH, reasoning=True, hostile=True).flatmap(
        lambda text: chunkings(text).map(lambda chunks: (text, chunks))))
    def check(drawn: tuple[str, list[str]]) -> None:
        text, chunks = drawn
        assert "".join(chunks) == text
        batch = toolcalls.parse(text, fmt, tools=SEARCH)
        assert_lossless(text, batch)
        assert stream_chunks(fmt, chunks, tools=SEARCH)[1] == batch

    check()


def test_hostile_values_hold_the_formats_delimiters() -> None:
    seen: set[str] = set()

    @given(responses("qwen3_coder", SEARCH, hostile=True))
    def collect(text: str) -> None:
        seen.update(marker for marker in delimiters("qwen3_coder") if marker in text)

    collect()
    assert {"<tool_call>", "</parameter>", "<parameter=k>"} & seen


def test_delimiters_are_the_formats_own() -> None:
    assert {"<tool_call>", "</tool_call>", "<think>"} <= set(delimiters("hermes"))
    assert "<minimax:tool_call>" not in delimiters("hermes")
    assert "<minimax:tool_call>" in delimiters()
    assert delimiters("Qwen/Qwen3-Coder-30B-A3B-Instruct") == delimiters("qwen3_coder")


@given(st.text(max_size=40).flatmap(lambda text: st.tuples(st.just(text), chunkings(text))))
def test_chunkings_join_to_the_text(drawn: tuple[str, list[str]]) -> None:
    text, chunks = drawn
    assert "".join(chunks) == text and (all(chunks) or chunks == [""])


def test_mutations_edit_the_text() -> None:
    text = '<tool_call>{"name": "f", "arguments": {}}</tool_call>'
    edited: set[str] = set()

    @given(mutations(text, format="hermes"))
    def collect(mutated: str) -> None:
        edited.add(mutated)

    collect()
    assert len(edited - {text}) > 5
    assert any(text.startswith(one) and one != text for one in edited)  # truncations


def test_the_strategies_are_json_clean() -> None:
    @given(tools(parameters=schemas(1)))
    def check(offered: list[Tool]) -> None:
        json.dumps([tool.parameters for tool in offered])

    check()
