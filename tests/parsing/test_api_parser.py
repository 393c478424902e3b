"""`toolcalls.parser`: a parser bound to one format and its tools, read once
(`tests/tools/test_read.py` tests the reading)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from corpus import load_cases

import toolcalls

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}}
QWEN_CALL = "<tool_call>\n<function=f>\n<parameter=n>\n7\n</parameter>\n</function>\n</tool_call>"


def _openai(name: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    schema = copy.deepcopy(SCHEMA) if schema is None else schema
    return {"type": "function", "function": {"name": name, "parameters": schema}}


# -- toolcalls.parser -----------------------------------------------------------------------


CASES = load_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_parser_gives_what_parse_gives_over_the_corpus(case: Any) -> None:
    options = case.options()
    bound = toolcalls.parser(case.format, **options)
    assert bound.parse(case.text) == toolcalls.parse(case.text, case.format, **options)


def test_parser_streams_what_stream_gives() -> None:
    text = "Let me check. " + QWEN_CALL + " Done."
    bound = toolcalls.parser("qwen3_coder", tools=[_openai("f")])
    for _ in range(2):  # a new stream each time
        mine, theirs = bound.stream(), toolcalls.stream("qwen3_coder", tools=[_openai("f")])
        assert isinstance(mine, toolcalls.StreamParser)
        for start in range(0, len(text), 3):
            chunk = text[start : start + 3]
            assert mine.feed(chunk) == theirs.feed(chunk)
        assert mine.close() == theirs.close()
        assert mine.result() == theirs.result() == bound.parse(text)


def test_parser_keeps_the_tools_it_was_made_with() -> None:
    tools = [_openai("f")]
    bound = toolcalls.parser("qwen3_coder", tools=tools)
    tools[0]["function"]["parameters"]["properties"]["n"]["type"] = "string"
    assert bound.parse(QWEN_CALL).calls[0].arguments == {"n": 7}
    fresh = toolcalls.parser("qwen3_coder", tools=tools)
    assert fresh.parse(QWEN_CALL).calls[0].arguments == {"n": "7"}


def test_parser_options_are_parse_options() -> None:
    reasoning = "step one</think>" + QWEN_CALL
    assert toolcalls.parser("qwen3_coder", thinking=True).parse(reasoning).reasoning == "step one"
    with pytest.raises(toolcalls.ParseError):
        toolcalls.parser("hermes", strict=True).parse("<tool_call>{")


def test_parser_auto_detects_each_response_and_cannot_stream() -> None:
    bound = toolcalls.parser("auto", tools=[_openai("f")])
    hermes = '<tool_call>{"name": "f", "arguments": {"n": 1}}</tool_call>'
    assert bound.parse(hermes).format == "hermes"
    assert bound.parse(QWEN_CALL).format == "qwen3_coder"
    assert bound.parse(QWEN_CALL) == toolcalls.parse(QWEN_CALL, tools=[_openai("f")])
    with pytest.raises(toolcalls.UnknownFormatError, match="cannot stream"):
        bound.stream()
    with pytest.raises(toolcalls.UnknownFormatError, match="cannot stream"):
        toolcalls.stream("auto")


def test_parser_rejects_what_parse_rejects() -> None:
    with pytest.raises(toolcalls.UnknownFormatError):
        toolcalls.parser("hermse")
    with pytest.raises(toolcalls.ToolDefinitionError):
        toolcalls.parser("hermes", tools=[{"description": "no name"}])
    with pytest.raises(TypeError):
        toolcalls.parser("hermes").parse(b"bytes")  # type: ignore[arg-type]


def test_parser_is_public_and_typed() -> None:
    assert "parser" in toolcalls.__all__ and "Parser" in toolcalls.__all__
    assert isinstance(toolcalls.parser("hermes"), toolcalls.Parser)
    assert toolcalls.Parser.__module__ == "toolcalls"
