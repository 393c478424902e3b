"""The flat-schema fast path never accepts arguments jsonschema would refuse."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from toolcalls.tools._schema import _surely_valid, _validator, argument_problems

TYPES = st.sampled_from(["string", "integer", "number", "boolean", "null", "array", "object"])
PROPERTY = st.fixed_dictionaries({}, optional={
    "type": st.one_of(TYPES, st.lists(TYPES, max_size=3)), "description": st.text(max_size=3),
    "default": st.integers()})
SCHEMAS = st.fixed_dictionaries(
    {"type": st.just("object"),
     "properties": st.dictionaries(st.sampled_from("abcd"), PROPERTY, max_size=4)},
    optional={"required": st.lists(st.sampled_from("abcd"), max_size=3, unique=True),
              "additionalProperties": st.booleans()})
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=2), inner,
                                                                max_size=2),
    max_leaves=4)
ARGUMENTS = st.dictionaries(st.sampled_from("abcde"), VALUES, max_size=5)


@given(SCHEMAS, ARGUMENTS)
def test_fast_path_agrees_with_jsonschema(schema: dict[str, Any],
                                          arguments: dict[str, Any]) -> None:
    if _surely_valid(schema, arguments):
        assert list(_validator(schema).iter_errors(arguments)) == []
    assert (argument_problems(schema, arguments) == []) is _validator(schema).is_valid(arguments)


def test_doubtful_values_go_to_jsonschema() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    assert not _surely_valid(schema, {"n": 1.0}) and argument_problems(schema, {"n": 1.0}) == []
    assert not _surely_valid(schema, {"n": True}) and argument_problems(schema, {"n": True})
    closed = {**schema, "additionalProperties": False}
    assert not _surely_valid(closed, {"m": 1}) and argument_problems(closed, {"m": 1})
