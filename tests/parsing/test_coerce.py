"""Tests for toolcalls.parsing._coerce against the value-coercion corpus, plus properties."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolcalls.parsing._coerce import (
    coerce,
    decode_json_value,
    streams_as_string,
    strip_value_newlines,
)
from toolcalls.tools._refs import property_schema

CASES_PATH = Path(__file__).parents[2] / "fixtures" / "value_coercion" / "cases.jsonl"
CASES: list[dict[str, Any]] = [
    json.loads(line) for line in CASES_PATH.read_text(encoding="utf-8").splitlines() if line
]
CORPUS_ROWS = 120  # rows copied verbatim from shared/corpus/value_coercion.jsonl

# Rows whose source we deliberately do not follow: id -> why. OUR_VALUES holds what we return.
DISAGREEMENTS: dict[str, str] = {
    "values-ollama-qwen3coder-027": "type string keeps its text as is, so it can be streamed",
    "values-vllm-dsv32-016": "type string keeps its text as is, so it can be streamed",
    "values-ollama-qwen3coder-038": "'yes' is no boolean; ollama's silent false is worse than "
    "the raw text with a problem (vLLM keeps 'yes' too, values-vllm-dsv32-014)",
    "values-vllm-dsv32-033": "type lists are sets, non-string types first; ollama expects 123 "
    "for the same input (values-ollama-qwen3coder-066)",
    "values-vllm-dsv32-036": "booleans are case-insensitive, as in ollama and SGLang and as the "
    "Qwen3-Coder template renders Python bools",
    "values-vllm-dsv32-037": "booleans are case-insensitive (see values-vllm-dsv32-036)",
    "values-vllm-dsv32-048": "booleans are case-insensitive (see values-vllm-dsv32-036)",
    "values-vllm-dsv32-049": "booleans are case-insensitive (see values-vllm-dsv32-036)",
}
OUR_VALUES: dict[str, Any] = {
    "values-ollama-qwen3coder-027": "null",
    "values-vllm-dsv32-016": "null",
    "values-ollama-qwen3coder-038": "yes",
    "values-vllm-dsv32-033": 123,
    "values-vllm-dsv32-036": True,
    "values-vllm-dsv32-037": False,
    "values-vllm-dsv32-048": True,
    "values-vllm-dsv32-049": False,
}


def schema_of(row: dict[str, Any]) -> dict[str, Any] | None:
    """Build the parameter schema of a fixture row."""
    if "schema" in row:
        return dict(row["schema"])
    types = row["schema_type"]
    if types is None:
        return None
    return {"type": types[0] if len(types) == 1 else types}


def run(row: dict[str, Any]) -> tuple[Any, str | None]:
    """Convert a fixture row the way a format parser would."""
    text = strip_value_newlines(row["raw"])
    if 'string="false"' in row["note"]:
        return decode_json_value(text)
    return coerce(text, schema_of(row))


def same(a: Any, b: Any) -> bool:
    """Compare JSON values strictly: 1, 1.0 and True all differ."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


@pytest.mark.parametrize("row", CASES, ids=[row["id"] for row in CASES])
def test_case(row: dict[str, Any]) -> None:
    value, problem = run(row)
    expected = OUR_VALUES.get(row["id"], row["expected"])
    assert same(value, expected), (value, expected, problem)
    if problem is not None:
        assert value == strip_value_newlines(row["raw"])
    if not isinstance(expected, str):
        assert problem is None


def test_fixture_shape() -> None:
    ids = [row["id"] for row in CASES]
    assert len(ids) == len(set(ids))
    assert all(row["source"] and "expected" in row for row in CASES)
    assert sum(row["id"].startswith("values-") for row in CASES) == CORPUS_ROWS


def test_disagreements_are_real() -> None:
    rows = {row["id"]: row for row in CASES}
    assert DISAGREEMENTS.keys() == OUR_VALUES.keys()
    for case_id in DISAGREEMENTS:
        assert not same(OUR_VALUES[case_id], rows[case_id]["expected"]), case_id


def test_agreement_with_corpus() -> None:
    agreed = sum(
        row["id"].startswith("values-") and row["id"] not in DISAGREEMENTS for row in CASES
    )
    assert agreed == CORPUS_ROWS - len(DISAGREEMENTS) == 112


# ---------------------------------------------------------------- unit rules


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("\nx\n", "x"),
        ("\r\nx\r\n", "x"),
        ("\n\nx\n\n", "\nx\n"),
        (" \nx\n ", " \nx\n "),
        ("\n", ""),
        ("\r\n", ""),
        ("\n\n", ""),
        ("", ""),
        ("x\r", "x\r"),
    ],
)
def test_strip_value_newlines(raw: str, expected: str) -> None:
    assert strip_value_newlines(raw) == expected


@pytest.mark.parametrize(
    ("text", "schema", "expected"),
    [
        ("140.0", {"type": "integer"}, 140),
        ("1e3", {"type": "integer"}, 1000),
        ("+5", {"type": "integer"}, 5),
        ("12345678901234567890.0", {"type": "integer"}, 12345678901234567890),
        ("5", {"type": "number"}, 5),
        ("1e300", {"type": "number"}, 1e300),
        ("1", {"type": ["boolean", "integer"]}, 1),
        ("1", {"type": ["boolean", "string"]}, True),
        ("None", {"type": ["string", "null"]}, None),
        ("Null", {"type": "object"}, None),
        ("None", {"type": "string"}, "None"),
        ("null", {"enum": ["a", "b"]}, "null"),
        ("2", {"enum": [1, 2, 3]}, 2),
        ("auto", {"enum": [1, "auto"]}, "auto"),
        ("true", {"const": True}, True),
        ("null", {"type": "string", "nullable": True}, None),
        ("7", {"anyOf": [{"type": "integer"}, {"type": "null"}]}, 7),
        ("7", {"oneOf": [{"type": "string"}, {"type": "integer"}]}, 7),
        ('{"a": 1}', {"anyOf": [{"type": "integer"}, {"$ref": "#/$defs/A"}]}, {"a": 1}),
        ("hi", {"anyOf": [{"type": "integer"}, {}]}, "hi"),
        ('{"a": 1}', {"properties": {"a": {"type": "integer"}}}, {"a": 1}),
        ("[1]", {"items": {"type": "integer"}}, [1]),
        ("42", {"description": "no type"}, "42"),
        ("42", {"type": "any"}, 42),
        ("x", {"type": "any"}, "x"),
        ("1e400", {"type": "any"}, "1e400"),
        ("{'a': [1, None, False]}", {"type": "object"}, {"a": [1, None, False]}),
        ("['a', 2.5]", {"type": "list"}, ["a", 2.5]),
        ("  [1, 2]  ", {"type": ["array", "null"]}, [1, 2]),
    ],
)
def test_coerce_rules(text: str, schema: dict[str, Any], expected: Any) -> None:
    assert coerce(text, schema) == (expected, None)
    assert same(coerce(text, schema)[0], expected)


@pytest.mark.parametrize(
    ("text", "schema"),
    [
        ("2026-01-15", {"type": "integer"}),
        ("123.5", {"type": "integer"}),
        ("1_000", {"type": "integer"}),
        ("1e999999999", {"type": "integer"}),
        ("9" * 5000, {"type": "integer"}),
        ("nan", {"type": "number"}),
        ("Infinity", {"type": "number"}),
        ("1e999", {"type": "number"}),
        ("yes", {"type": "boolean"}),
        ("nil", {"type": "null"}),
        ("", {"type": ["integer", "null"]}),
        ("[1, 2]", {"type": "object"}),
        ("{1, 2}", {"type": "object"}),
        ("{'a': (1, 2)}", {"type": "object"}),
        ("{1: 'a'}", {"type": "object"}),
        ("['\\d']", {"type": "array"}),
        ("[NaN]", {"type": "array"}),
        ("[1e400]", {"type": "array"}),
        ("[" * 100_000, {"type": "array"}),
        ("{'a': __import__('os')}", {"type": "object"}),
    ],
)
def test_coerce_problems(text: str, schema: dict[str, Any]) -> None:
    value, problem = coerce(text, schema)
    assert value is text
    assert problem is not None and len(problem) < 120


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (None, True),
        ({}, True),
        ({"description": "anything"}, True),
        ({"type": "string"}, True),
        ({"type": ["string"]}, True),
        ({"type": "str"}, True),
        ({"enum": ["a", "b"]}, True),
        ({"const": "a"}, True),
        ({"type": "string", "enum": ["a"]}, True),
        ({"anyOf": [{"type": "string"}, {"type": "string", "minLength": 2}]}, True),
        ({"type": ["string", "null"]}, False),
        ({"type": "string", "nullable": True}, False),
        ({"anyOf": [{"type": "string"}, {"type": "integer"}]}, False),
        ({"anyOf": [{"type": "string"}, {}]}, False),
        ({"enum": ["a", 1]}, False),
        ({"type": "integer"}, False),
        ({"type": "mystery"}, False),
        ({"properties": {}}, False),
    ],
)
def test_streams_as_string(schema: dict[str, Any] | None, expected: bool) -> None:
    assert streams_as_string(schema) is expected


def test_decode_json_value() -> None:
    assert decode_json_value(" [1, null] \n") == ([1, None], None)
    assert decode_json_value("NaN")[1] is not None
    assert decode_json_value("[1e400]")[1] is not None
    assert decode_json_value("")[1] is not None
    assert decode_json_value("True")[0] == "True"
    assert decode_json_value("True")[1] is not None
    assert decode_json_value("[" * 100_000)[0] == "[" * 100_000


# ---------------------------------------------------------------- properties

SIMPLE_SCHEMAS: list[dict[str, Any] | None] = [
    None,
    {},
    *({"type": t} for t in ("string", "integer", "number", "boolean", "null", "object", "array")),
    {"type": ["integer", "string"]},
    {"type": ["number", "null"]},
    {"type": ["boolean", "object", "array"]},
    {"anyOf": [{"type": "array"}, {"type": "string"}]},
    {"type": "int"},
    {"type": "unknown"},
    {"enum": [1, "a", None]},
]
TEXTS = st.one_of(
    st.text(),
    st.from_regex(r"\s*[+-]?[0-9]{0,30}(\.[0-9]*)?([eE][+-]?[0-9]{1,6})?\s*", fullmatch=True),
    st.sampled_from(["null", "None", "True", "0", "{'a': 1}", "[1,", "NaN", "-0.0", "1e-999999"]),
)


@given(text=TEXTS, schema=st.sampled_from(SIMPLE_SCHEMAS))
def test_coerce_never_raises_and_keeps_text_on_problem(
    text: str, schema: dict[str, Any] | None
) -> None:
    value, problem = coerce(text, schema)
    if problem is not None:
        assert value is text
    if streams_as_string(schema):
        assert (value, problem) == (text, None)
    if isinstance(value, float):
        assert math.isfinite(value)


@given(st.integers())
def test_integers_round_trip(n: int) -> None:
    assert coerce(str(n), {"type": "integer"}) == (n, None)
    assert same(coerce(f" {n}\n", {"type": "number"})[0], n)


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    max_leaves=10,
)


@given(JSON_VALUES)
def test_decode_json_value_round_trip(value: Any) -> None:
    assert decode_json_value(json.dumps(value, ensure_ascii=False)) == (value, None)


@given(st.text())
def test_strip_value_newlines_removes_at_most_one_each_side(raw: str) -> None:
    out = strip_value_newlines(raw)
    edges = ("", "\n", "\r\n")
    cuts = [(head, tail) for head in edges for tail in edges if head + out + tail == raw]
    assert cuts
    if raw.startswith(("\n", "\r\n")):
        assert any(head for head, _ in cuts)


# -- $ref: local refs are followed where they decide the type, remote ones are not ----------------

ADDRESS = {"type": "object", "properties": {"street": {"type": "string"}}}


@pytest.mark.parametrize("parameters", [
    {"properties": {"a": {"$ref": "#/$defs/Address"}}, "$defs": {"Address": ADDRESS}},
    {"properties": {"a": {"$ref": "#/definitions/Address"}}, "definitions": {"Address": ADDRESS}},
    # pydantic: Optional[Address]; pydantic v1: a ref with a description sits in an allOf
    {"properties": {"a": {"anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}]}},
     "$defs": {"Address": ADDRESS}},
    {"properties": {"a": {"allOf": [{"$ref": "#/definitions/Address"}], "description": "d"}},
     "definitions": {"Address": ADDRESS}},
    # a ref to a ref
    {"properties": {"a": {"$ref": "#/$defs/Home"}},
     "$defs": {"Home": {"$ref": "#/$defs/Address"}, "Address": ADDRESS}},
], ids=["$defs", "definitions", "optional", "allOf", "ref to a ref"])
def test_a_local_ref_types_the_value_as_what_it_points_to(parameters: dict[str, Any]) -> None:
    schema = property_schema(parameters, "a")
    assert not streams_as_string(schema)
    assert coerce('{"street": "Main"}', schema) == ({"street": "Main"}, None)


def test_cyclic_and_remote_refs_end_and_keep_what_they_cannot_type() -> None:
    tree = {"anyOf": [{"$ref": "#/$defs/Tree"},
                      {"type": "array", "items": {"$ref": "#/$defs/Tree"}}]}
    cyclic = {"properties": {"a": {"$ref": "#/$defs/Tree"}}, "$defs": {"Tree": tree}}
    assert coerce("[[1]]", property_schema(cyclic, "a")) == ([[1]], None)
    remote = {"properties": {"a": {"$ref": "https://example.com/address.json"}}}
    text = '{"street": "Main"}'
    assert coerce(text, property_schema(remote, "a")) == (text, None)
    # Definitions that each refer to the next twice: followed a bounded number of times.
    doubling = {f"D{i}": {"anyOf": [{"$ref": f"#/$defs/D{i + 1}"}] * 2} for i in range(60)}
    doubling["D60"] = {"type": "integer"}
    many = {"properties": {"a": {"$ref": "#/$defs/D0"}}, "$defs": doubling}
    assert coerce("5", property_schema(many, "a")) == (5, None)


def test_branches_nested_thousands_deep_allow_any_value() -> None:
    schema: dict[str, Any] = {"type": "integer"}
    for _ in range(5000):
        schema = {"anyOf": [schema]}
    assert coerce("5", schema) == (5, None)
