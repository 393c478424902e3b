"""A random "model" under each grammar's mask (llguidance, o200k): toolcalls reads every
complete sample as calls to declared tools, valid against their schemas, with no issue.

A small sample here; `bench/grammar_sampling.py` runs a larger one.
"""

from __future__ import annotations

import random

import pytest

import toolcalls
from toolcalls.grammars import grammar
from toolcalls.grammars._formats import REGIONS

pytest.importorskip("llguidance")
pytest.importorskip("numpy")

from toolcalls.grammars._sampling import accepts, problems, sample  # noqa: E402

TOOLS = [
    {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"],
        },
    },
    {
        "name": "search",
        "parameters": {
            "type": "object",
            "properties": {
                "q": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "mode": {"enum": ["fast", "deep"]},
            },
            "required": ["q", "tags"],
        },
    },
]


@pytest.mark.parametrize("format_name", sorted(REGIONS))
@pytest.mark.parametrize("tool_choice", ["required", "auto", "search"])
def test_samples_parse_as_valid_calls(format_name: str, tool_choice: str) -> None:
    rng = random.Random(f"{format_name}-{tool_choice}")
    text = grammar(format_name, TOOLS, tool_choice=tool_choice)
    finished = 0
    for _ in range(3):
        sampled, done = sample(text, rng)
        if done:
            finished += 1
            assert not problems(format_name, sampled, TOOLS, tool_choice), sampled
    assert finished, "no sample finished"


@pytest.mark.parametrize("format_name", sorted(REGIONS))
def test_rendered_calls_are_accepted(format_name: str) -> None:
    """What the format's own renderer writes (the chat template's layout) is in the grammar."""
    fmt = toolcalls.get_format(format_name)
    calls = [
        toolcalls.ToolCall(
            id="a", name="get_weather", arguments={"city": "Paris", "days": 3}, source="native"
        ),
        toolcalls.ToolCall(
            id="b", name="search", arguments={"q": "x", "tags": ["a"]}, source="native"
        ),
    ]
    for content in ("", "Let me check."):
        written = fmt.render_calls(calls, content)
        assert accepts(grammar(format_name, TOOLS), written) is None, written
        assert accepts(grammar(format_name, TOOLS, parallel=False), written) is not None


@pytest.mark.parametrize("format_name", sorted(REGIONS))
def test_reasoning_block_then_calls(format_name: str) -> None:
    fmt = toolcalls.get_format(format_name)
    call = toolcalls.ToolCall(id="a", name="search", arguments={"q": "x", "tags": []},
                              source="native")
    if fmt.reasoning_tags is None:  # gpt-oss: an analysis message, then the call's message
        header = "<|start|>assistant"
        rendered = fmt.render_calls([call])
        assert rendered.startswith(header)
        written = f"<|channel|>analysis<|message|>Think.<|end|>{rendered}"
    else:
        begin, end = fmt.reasoning_tags
        written = f"{begin}Think.{end}\n\n" + fmt.render_calls([call])
    rules = grammar(format_name, TOOLS, reasoning=True, tool_choice="required")
    assert accepts(rules, written) is None
    result = toolcalls.parse(written, format_name, tools=TOOLS, validate=True)
    assert result.reasoning.strip() == "Think." and not result.issues


def test_unknown_format_and_tool_choice_are_refused() -> None:
    with pytest.raises(ValueError, match="no tool"):
        grammar("hermes", TOOLS, tool_choice="nope")
    with pytest.raises(ValueError, match="dialect"):
        grammar("hermes", TOOLS, dialect="ebnf")  # type: ignore[arg-type]
