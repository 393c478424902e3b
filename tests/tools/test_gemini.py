"""Gemini's schema dialect (`toolcalls.tools._gemini`): the OpenAPI subset, uppercase types."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given

from toolcalls.testing import schemas
from toolcalls.tools._gemini import gemini_schema, json_schema_from_gemini


def test_gemini_schema_inlines_refs_and_guards_recursion() -> None:
    schema = {
        "type": "object",
        "properties": {"node": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": {"type": "object", "properties": {
            "label": {"type": "string"}, "child": {"$ref": "#/$defs/Node"}}}},
    }
    node = gemini_schema(schema)["properties"]["node"]
    assert node["properties"]["label"] == {"type": "STRING"}
    assert node["properties"]["child"] == {
        "type": "OBJECT", "description": "(recursive or unresolved type)"}
    assert "$defs" not in gemini_schema(schema)


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": ["string", "null"]}, {"type": "STRING", "nullable": True}),
        ({"anyOf": [{"type": "integer"}, {"type": "null"}]}, {"type": "INTEGER", "nullable": True}),
        ({"oneOf": [{"type": "integer"}, {"type": "string"}]},
         {"anyOf": [{"type": "INTEGER"}, {"type": "STRING"}]}),
        ({"type": ["integer", "string"]}, {"anyOf": [{"type": "INTEGER"}, {"type": "STRING"}]}),
        ({"const": "fixed"}, {"type": "STRING", "enum": ["fixed"]}),
        ({"type": "integer", "enum": [1, 2]}, {"type": "INTEGER", "description": "(one of: 1, 2)"}),
        ({"type": "string", "format": "uri", "description": "Link"},
         {"type": "STRING", "description": "Link (format: uri)"}),
        ({"type": "string", "format": "date-time"}, {"type": "STRING", "format": "date-time"}),
        ({"allOf": [{"type": "boolean"}], "description": "Flag"},
         {"type": "BOOLEAN", "description": "Flag"}),
        ({"type": "object", "properties": {"a": {"type": "string"}},
          "additionalProperties": False},
         {"type": "OBJECT", "properties": {"a": {"type": "STRING"}}}),
    ],
)
def test_gemini_schema_subset(schema: dict[str, Any], expected: dict[str, Any]) -> None:
    assert gemini_schema(schema) == expected



@given(schemas(2))
def test_gemini_schema_conversion_is_reversible_on_the_common_subset(
    schema: dict[str, Any],
) -> None:
    assert json_schema_from_gemini(gemini_schema(schema)) == schema
