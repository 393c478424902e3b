"""Tests of the pythonic tool-call body parser (grammar + transformer) and its renderer."""

from __future__ import annotations

import json
import keyword
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolcalls.parsing._json import MAX_DEPTH
from toolcalls.parsing.formats._pythonic_body import (
    PythonicSyntaxError,
    format_pythonic_call,
    format_pythonic_value,
    parse_pythonic_calls,
)

CASES_FILE = Path(__file__).parents[2] / "fixtures" / "pythonic" / "body_cases.jsonl"
CASES = [json.loads(line) for line in CASES_FILE.read_text(encoding="utf-8").splitlines() if line]


def _expected_calls(case: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(call["name"], call["arguments"]) for call in case["expected"]["calls"]]


def _same(actual: object, expected: object) -> bool:
    """Equal and of the same types (``repr`` tells True from 1 and 1.0 from 1)."""
    return actual == expected and repr(actual) == repr(expected)


# ---------------------------------------------------------------- corpus (golden)


@pytest.mark.parametrize(
    "case", [c for c in CASES if "calls" in c["expected"]], ids=lambda c: c["id"]
)
def test_corpus_valid(case: dict[str, Any]) -> None:
    assert _same(parse_pythonic_calls(case["text"]), _expected_calls(case))


@pytest.mark.parametrize(
    "case", [c for c in CASES if "error" in c["expected"]], ids=lambda c: c["id"]
)
def test_corpus_rejected(case: dict[str, Any]) -> None:
    with pytest.raises(PythonicSyntaxError):
        parse_pythonic_calls(case["text"])


def test_corpus_fixture_is_not_empty() -> None:
    assert sum("calls" in c["expected"] for c in CASES) >= 25


# ---------------------------------------------------------------- hard cases

HARD_CASES: list[tuple[str, list[tuple[str, dict[str, Any]]]]] = [
    ("[f(a='x, y', b=\"p, q\")]", [("f", {"a": "x, y", "b": "p, q"})]),
    ("[f(a='])', b=\"[(\", c='}{')]", [("f", {"a": "])", "b": "[(", "c": "}{"})]),
    ('[f(code="line1\nline2")]', [("f", {"code": "line1\nline2"})]),
    ("[f(code='''def g():\n    return 1\n''')]", [("f", {"code": "def g():\n    return 1\n"})]),
    ('[f(a="""say "hi"!""")]', [("f", {"a": 'say "hi"!'})]),
    ('[f(a="x\r\ny")]', [("f", {"a": "x\ny"})]),  # a raw CR reads as LF, as in Python source
    (
        "[f(a=-1, b=-2.5, c=-1e-3, d=+3, e=1_000, g=.5, h=5., i=1.5E3)]",
        [
            (
                "f",
                {
                    "a": -1,
                    "b": -2.5,
                    "c": -0.001,
                    "d": 3,
                    "e": 1000,
                    "g": 0.5,
                    "h": 5.0,
                    "i": 1500.0,
                },
            )
        ],
    ),
    ("[f(a=(1, 2), b=(), c=('x',), d=((1)))]", [("f", {"a": [1, 2], "b": [], "c": ["x"], "d": 1})]),
    (
        "[f(from='a', class='b', in=1, def=None, True=2, null=3)]",
        [("f", {"from": "a", "class": "b", "in": 1, "def": None, "True": 2, "null": 3})],
    ),
    (
        r"""[f(a='it\'s', b="say \"hi\"", c='back\\slash')]""",
        [("f", {"a": "it's", "b": 'say "hi"', "c": "back\\slash"})],
    ),
    (
        r"""[f(a="Zürich 😀", b="\u00e9\N{BULLET}\x41\t\n", c='\d')]""",
        [("f", {"a": "Zürich 😀", "b": "é•A\t\n", "c": "\\d"})],
    ),
    ("[a(), b(x=1)]", [("a", {}), ("b", {"x": 1})]),
    ("[a(), b(), c(y='z')]", [("a", {}), ("b", {}), ("c", {"y": "z"})]),
    ("[]", []),
    (" get_time(city='Paris') ", [("get_time", {"city": "Paris"})]),
    ("[\n  f(\n    a = 1 ,\n  ) ,\n  g( )\n]", [("f", {"a": 1}), ("g", {})]),
    ("[tools.search.web(q='x')]", [("tools.search.web", {"q": "x"})]),
    (
        "[f(a=true, b=false, c=null, d=True, e=False, f=None)]",
        [("f", {"a": True, "b": False, "c": None, "d": True, "e": False, "f": None})],
    ),
    (
        "[f(m={1: 'a', 2.5: 'b', -3: 'c', \"k\": {}})]",
        [("f", {"m": {"1": "a", "2.5": "b", "-3": "c", "k": {}}})],
    ),
    (
        "[f(s={1, 2,}, l=[1, [2, [3, {'a': (4,)}]]],)]",
        [("f", {"s": [1, 2], "l": [1, [2, [3, {"a": [4]}]]]})],
    ),
    ("[f(a=r'\\d+', b=u'x', c='con' \"cat\")]", [("f", {"a": "\\d+", "b": "x", "c": "concat"})]),
]


@pytest.mark.parametrize(("text", "expected"), HARD_CASES)
def test_hard_cases(text: str, expected: list[tuple[str, dict[str, Any]]]) -> None:
    assert _same(parse_pythonic_calls(text), expected)


def test_nesting_up_to_the_json_readers_limit() -> None:
    depth = MAX_DEPTH - 1  # with the arguments object: MAX_DEPTH deep, as JSON arguments may be
    ((_name, arguments),) = parse_pythonic_calls("[f(a=" + "[" * depth + "1" + "]" * depth + ")]")
    value = arguments["a"]
    for _ in range(depth):
        (value,) = value
    assert value == 1


@pytest.mark.parametrize("depth", [MAX_DEPTH, 5000])
def test_deeper_nesting_is_refused_as_json_arguments_are(depth: int) -> None:
    """Deeper values could not be serialized (json.dumps, model_dump_json raise)."""
    with pytest.raises(PythonicSyntaxError, match="nested deeper"):
        parse_pythonic_calls("[f(a=" + "[" * depth + "1" + "]" * depth + ")]")


REJECTED = [
    ("[f(1)]", 3),  # positional argument
    ("[f(a=1, 'b')]", 8),  # positional after a keyword
    ("[f(a='x)]", 5),
    ("[f(a=1)", 7),
    ("f(a=1, a=2)", 7),  # repeated argument
    ("[f(a=b)]", 5),  # a bare name is not a value
    ("[f(a=g())]", 5),  # nor is a call
    ("[f(a=1)] trailing", 9),
    ("", 0),
    ("[1]", 1),
    ("[f(a='\\x4')]", 5),
    ("[f(a=1e999)]", 5),
    ("[f(a={'x': 1, 'y'})]", 17),
    ("[f(a=1) g(b=2)]", 8),
]


@pytest.mark.parametrize(("text", "pos"), REJECTED)
def test_rejected(text: str, pos: int) -> None:
    with pytest.raises(PythonicSyntaxError) as info:
        parse_pythonic_calls(text)
    assert info.value.pos == pos


def test_positional_argument_message() -> None:
    with pytest.raises(PythonicSyntaxError, match="must be named"):
        parse_pythonic_calls("[f('x')]")


# ---------------------------------------------------------------- rendering


def test_format_call() -> None:
    rendered = format_pythonic_call("f", {"a": 1, "b": "x", "c": [None, True], "d": {"k": 1.5}})
    assert rendered == "f(a=1, b='x', c=[None, True], d={'k': 1.5})"


@pytest.mark.parametrize("value", [float("nan"), float("inf"), b"x", {1: 2}, object()])
def test_format_rejects_non_json(value: object) -> None:
    with pytest.raises((TypeError, ValueError)):
        format_pythonic_value(value)


# ---------------------------------------------------------------- properties

PUNCTUATION = "[](){},:=.'\"\\ \n\t-+_#"
grammar_soup = st.text(alphabet=PUNCTUATION + "abfnrtuxNTFe0123456789" + "é😀\x00", max_size=60)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(), grammar_soup, st.builds(lambda s: "[f(a=" + s, grammar_soup)))
def test_arbitrary_text_raises_only_syntax_error(text: str) -> None:
    try:
        parse_pythonic_calls(text)
    except PythonicSyntaxError as exc:
        assert 0 <= exc.pos <= len(text)


identifiers = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True)
arg_names = identifiers | st.sampled_from([*keyword.kwlist, "true", "false", "null"])
func_names = st.lists(identifiers, min_size=1, max_size=3).map(".".join)
tricky_text = st.text(
    alphabet=st.characters(codec="utf-8") | st.sampled_from("'\"\\\n\r\t,)]}\x00\u2028😀"),
    max_size=30,
)
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | tricky_text
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(tricky_text, inner, max_size=4),
    max_leaves=12,
)
calls = st.lists(
    st.tuples(func_names, st.dictionaries(arg_names, json_values, max_size=4)), max_size=3
)


@settings(max_examples=300, deadline=None)  # the first example builds the parser
@given(calls)
def test_round_trip(generated: list[tuple[str, dict[str, Any]]]) -> None:
    text = "[" + ", ".join(format_pythonic_call(name, args) for name, args in generated) + "]"
    assert _same(parse_pythonic_calls(text), generated)


@settings(max_examples=200, deadline=None)
@given(calls, st.data())
def test_damaged_round_trip_raises_only_syntax_error(
    generated: list[tuple[str, dict[str, Any]]], data: st.DataObject
) -> None:
    text = "[" + ", ".join(format_pythonic_call(name, args) for name, args in generated) + "]"
    cut = data.draw(st.integers(0, len(text)))
    insert = data.draw(st.text(alphabet=PUNCTUATION, max_size=2))
    damaged = text[:cut] + insert + text[cut + 1 :]
    try:
        parse_pythonic_calls(damaged)
    except PythonicSyntaxError as exc:
        assert 0 <= exc.pos <= len(damaged)
