"""Hypothesis strategies for JSON Schemas and tools: the common subset every provider reads.

Shared by tests/providers/test_native.py (tools round-trip through every provider) and
tests/tools/test_gemini.py (Gemini's schema dialect converts back and forth).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from toolcalls.tools._tool import Tool

NAMES = st.from_regex(r"[a-zA-Z_][a-zA-Z0-9_]{0,20}", fullmatch=True)
TEXT = st.text(max_size=40)


def scalar_schemas() -> st.SearchStrategy[dict[str, Any]]:
    plain = st.sampled_from(["string", "integer", "number", "boolean"]).map(lambda t: {"type": t})
    nullable = st.sampled_from(["string", "integer"]).map(lambda t: {"type": [t, "null"]})
    enum = st.lists(TEXT, min_size=1, max_size=4, unique=True).map(
        lambda values: {"type": "string", "enum": values})
    return st.one_of(plain, nullable, enum)


def with_description(schema: dict[str, Any], description: str | None) -> dict[str, Any]:
    return schema if description is None else {**schema, "description": description}


def object_schemas(depth: int) -> st.SearchStrategy[dict[str, Any]]:
    leaf = st.builds(with_description, scalar_schemas(), st.none() | TEXT)
    child: st.SearchStrategy[dict[str, Any]] = leaf
    if depth > 0:
        arrays = leaf.map(lambda item: {"type": "array", "items": item})
        child = st.one_of(leaf, arrays, object_schemas(depth - 1))
    return st.dictionaries(NAMES, child, max_size=4).flatmap(
        lambda properties: st.lists(st.sampled_from(sorted(properties)) if properties
                                    else st.nothing(), unique=True).map(
            lambda required: {"type": "object", "properties": properties,
                              **({"required": required} if required else {})}))


tools_strategy = st.builds(Tool, name=NAMES, description=TEXT, parameters=object_schemas(2))
