"""The regions of `_other_families` and the Python values of `_python_values`: what each
grammar lets a model write, and what it refuses, beyond the shared acceptance and sampling
tests."""

from __future__ import annotations

import pytest

import toolcalls
from toolcalls.decoding import grammar

pytest.importorskip("llguidance")
pytest.importorskip("numpy")

from toolcalls.testing._sampling import accepts  # noqa: E402

TOOLS = [
    {"name": "book", "parameters": {"type": "object", "properties": {
        "who": {"type": "string"},
        "seats": {"type": "integer"},
        "vip": {"type": "boolean"},
        "note": {"type": ["string", "null"]},
        "where": {"type": "object", "properties": {"city": {"type": "string"}},
                  "required": ["city"]},
        "extra": {},
    }, "required": ["seats"]}},
    {"name": "ping", "parameters": {"type": "object", "properties": {}}},
]


def clean(name: str, text: str) -> toolcalls.ParseResult:
    result = toolcalls.parse(text, name, tools=TOOLS, validate=True)
    assert not result.issues and not result.incomplete, result
    return result


@pytest.mark.parametrize("text", [
    "[book(seats=2)]",
    "[book(who='Ann', seats=2, vip=True, note=None)]",
    '[book(who="A \\"B\\" \\\\ \\n", seats=-3, where={\'city\': "Oslo"})]',
    "[book(seats=1, extra=[1, 'x', {'k': None}]), ping()]",
    "[book(seats=1, extra=[1.5e3, -0.25, 1E+99])]",
    "[book(who='\x01 \x0b \x7f \u2028 \ufeff', seats=1)]",  # control characters Python takes
    "Sure. [ping()] Done.",
    "<|python_start|>[ping()]<|python_end|>",
])
def test_pythonic_values_are_python_literals(text: str) -> None:
    assert accepts(grammar("pythonic", TOOLS), text) is None
    assert clean("pythonic", text).calls


@pytest.mark.parametrize("text", [
    "[book()]",  # seats is required
    "[book(seats=2, who='Ann')]",  # the schema's order
    "[book(seats=true)]",  # JSON, not Python
    "[book(seats=2, vip=1)]",
    "[book(seats=2, where={})]",  # city is required
    "[book(who='a\nb', seats=1)]",  # a raw line break in a string
    "[book(who='a\x00b', seats=1)]",  # NUL: Python refuses it, so the reader does
    "[book(seats=1, extra={'a\x00': 1})]",
    "[book(seats=1, extra=1e400)]",  # infinite: the reader refuses it
    "[book(seats=1, extra=[1" + "0" * 200 + "])]",
    "[nope()]",
    "[book(seats=1, extra=[[[1]]])]",  # a value of no declared type nests 2 deep at most
])
def test_pythonic_refuses_what_the_schema_does_not_allow(text: str) -> None:
    assert accepts(grammar("pythonic", TOOLS), text) is not None


@pytest.mark.parametrize("dialect", ["llguidance", "lark", "gbnf"])
def test_control_characters_are_written_as_escapes(dialect: str) -> None:
    """The NUL the pythonic strings exclude is written ``\\x00``, never raw."""
    rules = grammar("pythonic", TOOLS, dialect=dialect)  # type: ignore[arg-type]
    assert "\\x00" in rules
    assert not any(ord(char) < 0x20 and char != "\n" for char in rules)


def test_pythonic_tool_choice_names_one_call() -> None:
    rules = grammar("pythonic", TOOLS, tool_choice="ping")
    assert accepts(rules, "[ping()]") is None
    assert accepts(rules, "[ping(), ping()]") is not None
    assert accepts(rules, "Hi [ping()]") is not None


def test_minimax_m1_parallel_calls_share_one_block() -> None:
    text = ('<tool_calls>\n{"name": "ping", "arguments": {}}\n'
            '{"name": "book", "arguments": {"seats": 1}}\n</tool_calls>')
    assert accepts(grammar("minimax_m1", TOOLS), text) is None
    assert len(clean("minimax_m1", text).calls) == 2
    assert accepts(grammar("minimax_m1", TOOLS, parallel=False), text) is not None


def test_ollama_writes_the_first_prefix_per_call() -> None:
    text = ('Checking.<tool_call>{"name": "ping", "arguments": {}}</tool_call>\n'
            '<tool_call>{"name": "ping", "arguments": {}}</tool_call>')
    assert accepts(grammar("ollama", TOOLS), text) is None
    assert len(clean("ollama", text).calls) == 2
    assert accepts(grammar("ollama", TOOLS), '[TOOL_CALLS][{"name": "ping"}]') is not None


ANALYSIS = "<|channel|>analysis<|message|>Think.<|end|><|start|>assistant"
CALL = '<|channel|>commentary to=functions.ping <|constrain|>json<|message|>{}<|call|>'


@pytest.mark.parametrize("text", [
    ANALYSIS + CALL,
    CALL,
    ANALYSIS + "<|channel|>final<|message|>It is sunny.<|return|>",
    ANALYSIS + "<|channel|>commentary<|message|>On it.<|end|><|start|>assistant" + CALL,
    ANALYSIS + ' to=functions.ping<|channel|>commentary json<|message|>{}<|call|>',
    ANALYSIS + CALL[:-len("<|call|>")],  # the server stripped the stop token
])
def test_gpt_oss_messages(text: str) -> None:
    assert accepts(grammar("gpt_oss", TOOLS), text) is None
    clean("gpt_oss", text)


def test_gpt_oss_reasoning_and_tool_choice() -> None:
    assert accepts(grammar("gpt_oss", TOOLS, reasoning=True), CALL) is not None
    assert accepts(grammar("gpt_oss", TOOLS, reasoning=True), ANALYSIS + CALL) is None
    final = ANALYSIS + "<|channel|>final<|message|>Hi<|return|>"
    assert accepts(grammar("gpt_oss", TOOLS, tool_choice="required"), final) is not None
    two = CALL + "<|start|>assistant" + CALL
    assert accepts(grammar("gpt_oss", TOOLS), two) is None
    assert accepts(grammar("gpt_oss", TOOLS, tool_choice="ping"), two) is not None
    # a token's text inside a message would end it for the reader
    assert accepts(grammar("gpt_oss", TOOLS),
                   "<|channel|>final<|message|>say <|end|> twice") is not None
