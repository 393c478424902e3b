"""The budget policy: compact schemas keep validity, lazy mode pays off, choices never cost more."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import validators

from toolcalls import Tool, to_tools
from toolcalls.budget._plan import (
    ANNOTATIONS,
    COMPACT_DESCRIPTION_CHARS,
    MIN_ACTIVE,
    Plan,
    choose,
    compact_schema,
    compact_tool,
    lazy_tools,
    mode_costs,
    openai_cost,
)
from toolcalls.budget._session import TOOL_SEARCH
from toolcalls.budget._tokens import count_openai_tools

TOOLSETS = Path(__file__).parents[2] / "fixtures" / "toolsets"
SET_NAMES = sorted(path.stem for path in TOOLSETS.glob("*.json"))
COST = openai_cost()


@cache
def toolset(name: str) -> tuple[Tool, ...]:
    return tuple(to_tools(json.loads((TOOLSETS / f"{name}.json").read_text("utf-8"))))


@cache
def plan(name: str, budget: int | None = None) -> Plan:
    return choose(toolset(name), budget)


# -- compact -----------------------------------------------------------------------------------


def test_compact_drops_annotations_only_where_they_are_schema_keywords() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "Args",
        "type": "object",
        "properties": {
            "title": {"type": "string", "title": "Title", "description": "The title"},
            "examples": {"type": "array", "items": {"type": "string", "examples": ["a"]}},
            "mode": {"enum": [{"title": "kept"}], "default": {"description": "kept too"}},
            "limit": {"type": "integer", "description": "Max results. Defaults to 10."},
        },
        "required": ["title"],
        "additionalProperties": False,
    }
    assert compact_schema(schema) == {
        "type": "object",
        "properties": {
            "title": {"type": "string"},  # "The title" says nothing the name does not
            "examples": {"type": "array", "items": {"type": "string"}},
            "mode": {"enum": [{"title": "kept"}], "default": {"description": "kept too"}},
            "limit": {"type": "integer", "description": "Max results"},
        },
        "required": ["title"],
        "additionalProperties": False,
    }


def test_compact_tool_keeps_the_first_sentence_of_the_description() -> None:
    (tool,) = toolset("mcp-sequential-thinking")
    compact = compact_tool(tool)
    assert tool.description.startswith(compact.description.rstrip("…"))
    assert len(compact.description) <= COMPACT_DESCRIPTION_CHARS
    assert compact.name == tool.name and set(compact.parameters["properties"]) == set(
        tool.parameters["properties"])


def _resolve(schema: Any, root: dict[str, Any]) -> Any:
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        node: Any = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            node = node.get(part, {}) if part and isinstance(node, dict) else node
        schema = node
    return schema


ANYTHING = st.none() | st.booleans() | st.integers(-3, 3) | st.floats(-2, 2) | st.text(
    max_size=3) | st.lists(st.integers(), max_size=2) | st.just({"x": 1})


def valid(schema: Any, root: dict[str, Any], depth: int = 0) -> st.SearchStrategy[Any]:
    """Values that mostly satisfy ``schema`` (hypothesis-jsonschema would do this, but its
    0.23.1 fails on every schema with hypothesis 6.170)."""
    schema = _resolve(schema, root)
    if not isinstance(schema, dict) or depth > 4:
        return ANYTHING
    if "const" in schema:
        return st.just(schema["const"])
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return st.sampled_from(schema["enum"])
    variants = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(variants, list) and variants:
        return st.one_of([valid(variant, root, depth + 1) for variant in variants])
    kinds = schema.get("type", "object" if "properties" in schema else None)
    if isinstance(kinds, list):
        return st.one_of([valid({**schema, "type": kind}, root, depth) for kind in kinds])
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    if kinds == "integer" or (kinds == "number" and low is not None):
        return st.integers(None if low is None else int(low), None if high is None else int(high))
    if kinds == "number":
        return st.floats(allow_nan=False, allow_infinity=False)
    if kinds == "string":
        size = schema.get("minLength", 0)
        return st.text(min_size=size, max_size=schema.get("maxLength", size + 4))
    if kinds == "boolean":
        return st.booleans()
    if kinds == "null":
        return st.none()
    if kinds == "array":
        size = schema.get("minItems", 0)
        return st.lists(valid(schema.get("items"), root, depth + 1), min_size=size,
                        max_size=schema.get("maxItems", size + 2))
    if kinds == "object":
        properties = schema.get("properties") or {}
        required = [name for name in schema.get("required", []) if name in properties]
        members = {name: valid(sub, root, depth + 1) for name, sub in properties.items()}
        return st.fixed_dictionaries({name: members[name] for name in required}, optional={
            name: strategy for name, strategy in members.items() if name not in required})
    return ANYTHING


def edges(schema: Any, root: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values at or just past the limits of ``schema``, and values of the wrong kind."""
    schema = _resolve(schema, root)
    options = [ANYTHING, st.just("not-in-any-enum")]
    if isinstance(schema, dict):
        for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            if isinstance(schema.get(key), int | float):
                options.append(st.sampled_from([schema[key] - 1, schema[key], schema[key] + 1]))
        for key in ("minLength", "maxLength", "minItems", "maxItems"):
            if isinstance(schema.get(key), int):
                n = schema[key]
                options.append(st.sampled_from(["x" * max(n - 1, 0), "x" * (n + 1), [0] * (n + 1)]))
    return st.one_of(options)


def near(schema: Any, root: dict[str, Any], depth: int = 0) -> st.SearchStrategy[Any]:
    """Valid values, edge values, and valid values with one member (at any depth) changed."""
    options = [valid(schema, root, depth), edges(schema, root)]
    resolved = _resolve(schema, root)
    if isinstance(resolved, dict) and isinstance(resolved.get("properties"), dict) and depth < 4:
        properties = resolved["properties"]
        options.append(st.tuples(valid(resolved, root, depth), st.sampled_from(
            [*properties, "unexpected_member"])).flatmap(
            lambda pair: near(properties.get(pair[1]), root, depth + 1).map(
                lambda value, base=pair[0], key=pair[1]: {**base, key: value})))
        options.append(valid(resolved, root, depth).map(lambda base: dict(list(base.items())[1:])))
    if isinstance(resolved, dict) and isinstance(resolved.get("items"), dict) and depth < 4:
        options.append(st.lists(near(resolved["items"], root, depth + 1), min_size=1, max_size=3))
    return st.one_of(options)


WRONG_KINDS = [None, True, 0, 1.5, "s", [], {}]


def minimal(schema: Any, root: dict[str, Any]) -> Any:
    """A small value that satisfies ``schema`` in the common cases (the base for `boundary`)."""
    schema = _resolve(schema, root)
    if not isinstance(schema, dict):
        return None
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    if schema.get("anyOf") or schema.get("oneOf"):
        return minimal((schema.get("anyOf") or schema.get("oneOf"))[0], root)
    kind = schema.get("type", "object" if "properties" in schema else None)
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", -1) + 1)
        return min(low, schema.get("maximum", low))
    properties = schema.get("properties") or {}
    return {
        "string": "x" * schema.get("minLength", 0),
        "boolean": False,
        "array": [minimal(schema.get("items"), root)] * schema.get("minItems", 0),
        "object": {name: minimal(properties.get(name), root)
                   for name in schema.get("required", [])},
    }.get(kind)


def boundary(schema: Any, root: dict[str, Any], depth: int = 0) -> list[Any]:
    """Values on both sides of every limit of ``schema``, one member changed at a time."""
    schema = _resolve(schema, root)
    values = [minimal(schema, root), *WRONG_KINDS, "not-in-any-enum"]
    if not isinstance(schema, dict) or depth > 3:
        return values
    values += schema.get("enum") or []
    for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        if isinstance(schema.get(key), int | float):
            values += [schema[key] + delta for delta in (-1, -0.5, 0, 0.5, 1)]
    for key in ("minLength", "maxLength", "minItems", "maxItems"):
        if isinstance(schema.get(key), int):
            values += [kind * (schema[key] + delta) for kind in ("x", [0]) for delta in (-1, 0, 1)
                       if schema[key] + delta >= 0]
    for variant in (schema.get("anyOf") or []) + (schema.get("oneOf") or []):
        values += boundary(variant, root, depth + 1)
    if isinstance(schema.get("items"), dict):
        values += [[item] for item in boundary(schema["items"], root, depth + 1)]
    base = minimal(schema, root)
    if isinstance(base, dict):
        for name, sub in (schema.get("properties") or {}).items():
            values += [{**base, name: value} for value in boundary(sub, root, depth + 1)]
        values += [{k: v for k, v in base.items() if k != name} for name in base]
        values.append({**base, "unexpected_member": 1})
    return values


@pytest.mark.parametrize("set_name", SET_NAMES)
def test_compact_schemas_agree_with_full_ones_on_every_boundary(set_name: str) -> None:
    verdicts: set[bool] = set()
    for tool in toolset(set_name):
        full, compact = tool.parameters, compact_tool(tool).parameters
        validator = validators.validator_for(full, default=validators.Draft202012Validator)
        check_full, check_compact = validator(full), validator(compact)
        for instance in boundary(full, full):
            verdict = check_full.is_valid(instance)
            assert verdict == check_compact.is_valid(instance), (tool.name, instance)
            verdicts.add(verdict)
    assert verdicts == {True, False}  # the boundaries test both sides


@pytest.mark.parametrize("set_name", SET_NAMES)
@settings(max_examples=40)
@given(data=st.data())
def test_compact_schemas_accept_and_reject_exactly_what_full_ones_do(
    set_name: str, data: st.DataObject
) -> None:
    tool = data.draw(st.sampled_from(toolset(set_name)))
    full = tool.parameters
    compact = compact_tool(tool).parameters
    validator = validators.validator_for(full, default=validators.Draft202012Validator)
    check_full, check_compact = validator(full), validator(compact)
    for instance in data.draw(st.lists(near(full, full), min_size=8, max_size=8)):
        assert check_full.is_valid(instance) == check_compact.is_valid(instance), (
            tool.name, instance)


def test_compact_only_removes_annotations_and_descriptions_from_real_schemas() -> None:
    removed: set[str] = set()

    def compare(full: Any, compact: Any) -> None:
        if isinstance(full, dict):
            removed.update(set(full) - set(compact))
            for key in compact:
                if key != "description":
                    compare(full[key], compact[key])
        elif isinstance(full, list):
            assert len(full) == len(compact)
            for a, b in zip(full, compact, strict=True):
                compare(a, b)
        else:
            assert full == compact

    for name in SET_NAMES:
        for tool in toolset(name):
            compare(tool.parameters, compact_tool(tool).parameters)
    assert removed <= ANNOTATIONS | {"description"}
    assert {"title", "$schema", "description"} <= removed  # the real sets have all three


# -- lazy --------------------------------------------------------------------------------------


def test_lazy_mode_sends_pinned_tools_and_the_search_tool() -> None:
    tools = toolset("github-mcp-server-all")
    start = lazy_tools(tools, pinned=["get_me", "search_code"])
    assert [tool.name for tool in start] == ["get_me", "search_code", TOOL_SEARCH]
    assert start[0] == tools[[t.name for t in tools].index("get_me")]  # pinned: in full
    index = start[-1].description.split("\n\n", 1)[1].splitlines()
    assert len(index) == len(tools) - 2


def test_github_all_saves_at_least_90_percent_at_session_start() -> None:
    costs = plan("github-mcp-server-all").costs
    full, lazy = costs["full"].tokens, costs["lazy"].tokens
    assert abs(full - 15_086) <= 0.10 * 15_086  # an independent rendering of the namespace
    assert 1 - lazy / full >= 0.90
    assert costs["lazy"].eligible


def test_lazy_is_not_chosen_when_it_costs_more_than_full() -> None:
    tiny = [Tool(name="now", description="Current time.")]
    costs = mode_costs(tiny, COST)
    assert costs["lazy"].tokens > costs["full"].tokens and not costs["lazy"].eligible
    assert choose(tiny, budget=1).mode == "full"  # nothing fits: the cheapest eligible mode


# -- choosing ----------------------------------------------------------------------------------


@pytest.mark.parametrize("set_name", SET_NAMES)
def test_the_chosen_mode_never_costs_more_than_full(set_name: str) -> None:
    costs = plan(set_name).costs
    full = costs["full"].tokens
    budgets = [None, full, full - 1, costs["compact"].tokens, costs["lazy"].tokens,
               costs["lazy"].tokens - 1, 1]
    for budget in budgets:
        picked = plan(set_name, budget)
        assert picked.tokens <= full and picked.full_tokens == full
        if picked.mode == "lazy":
            session_max = picked.costs["lazy"].ceiling_tokens
            assert session_max is not None and session_max <= full
            assert picked.max_active is not None and picked.max_active >= 1
            if picked.fits:
                assert picked.max_active >= min(MIN_ACTIVE, len(toolset(set_name)))
                assert budget is None or session_max <= budget
        if picked.fits and budget is not None:
            assert picked.tokens <= budget


@pytest.mark.parametrize("set_name", ["github-mcp-server-all", "playwright-mcp", "codex-cli"])
def test_the_mode_is_degraded_only_as_far_as_the_budget_needs(set_name: str) -> None:
    costs = plan(set_name).costs
    assert plan(set_name).mode == "full"
    assert plan(set_name, costs["full"].tokens).mode == "full"
    assert plan(set_name, costs["full"].tokens - 1).mode == "compact"
    assert plan(set_name, costs["compact"].tokens - 1).mode == "lazy"
    assert not plan(set_name, 1).fits


def test_a_lazy_session_at_its_ceiling_stays_within_full_and_budget() -> None:
    tools = toolset("github-mcp-server-default")
    picked = choose(tools, budget=4000)
    assert picked.mode == "lazy" and picked.fits
    session = picked.session(tools)
    largest = sorted(tools, key=lambda tool: count_openai_tools([tool]), reverse=True)
    for tool in largest[: picked.max_active]:
        session.activate(tool.name)
    assert COST(session.request_tools()) <= 4000


def test_pinned_tools_must_be_in_the_catalog() -> None:
    with pytest.raises(ValueError, match="nope"):
        choose(toolset("mcp-git"), 100, pinned=["nope"])
    with pytest.raises(ValueError, match="lazy"):
        choose(toolset("mcp-git")).session(toolset("mcp-git"))
