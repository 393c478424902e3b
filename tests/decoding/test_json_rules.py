"""`JsonRules` (the Lark and GBNF dialects' JSON values): one rule per distinct schema, found
by a key made once per schema (issue 24: the key was the schema's whole text, made again at
each level above it, so a large schema nested deep cost its size times its depth)."""

from __future__ import annotations

import json
import types
from typing import Any

import pytest

from toolcalls.decoding import _json_rules
from toolcalls.decoding._json_rules import JsonRules


def fat(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"enum": [f"value {i}" for i in range(2000)]}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"a": schema}, "required": ["a"],
                  "additionalProperties": False}
    return schema


def dumped(monkeypatch: pytest.MonkeyPatch, schema: dict[str, Any]) -> int:
    """The characters `_json_rules` writes with json.dumps while making the rules."""
    written = [0]

    def dumps(value: Any, **options: Any) -> str:
        text = json.dumps(value, **options)
        written[0] += len(text)
        return text

    monkeypatch.setattr(_json_rules, "json", types.SimpleNamespace(dumps=dumps))
    JsonRules("lark").rule(schema)
    monkeypatch.undo()
    return written[0]


def test_keys_cost_the_schema_size_not_size_times_depth(monkeypatch: pytest.MonkeyPatch) -> None:
    shallow, deep = dumped(monkeypatch, fat(2)), dumped(monkeypatch, fat(40))
    assert deep < 1.2 * shallow, (shallow, deep)


@pytest.mark.parametrize("dialect", ["lark", "gbnf"])
def test_equal_schemas_share_a_rule_and_others_do_not(dialect: str) -> None:
    rules = JsonRules(dialect)
    one = rules.rule({"type": "array", "items": {"type": "string"}})
    assert rules.rule({"items": {"type": "string"}, "type": "array"}) == one
    assert rules.rule({"type": "array", "items": {"type": "integer"}}) != one
    # A list holding an object and a list holding a number are two values, whatever numbers
    # the keys give the object.
    assert rules.rule({"enum": [[{"a": 1}]]}) != rules.rule({"enum": [[0]]})
    assert rules.rule({"enum": [[1]]}) != rules.rule({"enum": [[True]]})
