"""Grammar export is linear in the schema, whatever its shape (issue 24, hostile input): a
schema nested as deep as `to_tools` allows (100 levels of arrays, objects, anyOf) builds in
every format and dialect, the grammar grows with the depth by a constant per level (the
pythonic grammar once wrote a list's item twice, so 2^depth copies: 14 levels took 5 s,
30 did not end), and it still accepts a call of that tool as the format's renderer writes it.
Many parameters, tools and enum values grow it linearly too. Sizes are compared, never
times."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from lark import Lark

import toolcalls
from toolcalls.decoding import grammar, structural_tag
from toolcalls.decoding._table import REGIONS, TAGGED, XGRAMMAR_STYLES

pytest.importorskip("llguidance")
pytest.importorskip("numpy")

from toolcalls.testing._sampling import accepts  # noqa: E402

DIALECTS = ("llguidance", "lark", "gbnf")
Schema = dict[str, Any]


def arrays(depth: int) -> tuple[Schema, Any]:
    schema: Schema = {"type": "string"}
    value: Any = "x"
    for _ in range(depth):
        schema, value = {"type": "array", "items": schema}, [value]
    return schema, value


def objects(depth: int) -> tuple[Schema, Any]:
    """Each level two optional members (the pythonic grammar writes the second after each
    choice of the first), one of them the next level. Closed: llguidance refuses the schema
    of an open object in an open object that the XML-family grammars write (see the report
    of issue 24's grammar-export branch)."""
    schema: Schema = {"type": "string"}
    value: Any = "x"
    for _ in range(depth):
        schema = {"type": "object", "properties": {"b": {"type": "integer"}, "a": schema},
                  "additionalProperties": False}
        value = {"a": value}
    return schema, value


def any_ofs(depth: int) -> tuple[Schema, Any]:
    """The value a list: a string would be a raw one in DSML (``string="true"``), which its
    grammar writes for a schema that is a string only."""
    schema: Schema = {"type": "array", "items": {"type": "string"}}
    for _ in range(depth):
        schema = {"anyOf": [schema, {"type": "integer"}]}
    return schema, ["x"]


SHAPES: dict[str, Callable[[int], tuple[Schema, Any]]] = {
    "arrays": arrays, "objects": objects, "any_ofs": any_ofs,
}


def tool(schema: Schema) -> list[dict[str, Any]]:
    return [{"name": "f", "parameters": {
        "type": "object", "properties": {"v": schema}, "required": ["v"]}}]


def deepest(shape: str) -> int:
    """The most levels of ``shape`` a tool's parameters may hold (`MAX_SCHEMA_NESTING`)."""
    depth = 100
    while True:
        try:
            toolcalls.to_tools(tool(SHAPES[shape](depth)[0]))
            return depth
        except toolcalls.ToolDefinitionError:
            depth -= 1


def assert_linear(sizes: list[int]) -> None:
    """Sizes at n, 2n and 4n grow by at most twice as much from 2n to 4n as from n to 2n
    (10% and a few characters spare: rule numbers gain digits); quadratic growth is 4 times,
    exponential far more."""
    small, middle, large = sizes
    assert large - middle <= 2.2 * (middle - small) + 64, sizes


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("name", sorted(REGIONS))
def test_grammar_grows_linearly_with_depth(name: str, shape: str) -> None:
    for dialect in DIALECTS:
        sizes = [len(grammar(name, tool(SHAPES[shape](depth)[0]), dialect=dialect))  # type: ignore[arg-type]
                 for depth in (10, 20, 40)]
        assert_linear(sizes)


AS_JSON = {("minimax_m3", "any_ofs"): "a union is JSON between its key's tags: the reader "
            "types a union's <item> elements by no branch (3 a number in a list of strings)"}
"""The (format, shape) pairs whose grammar writes the value as JSON, not as the renderer does;
the call is then written with the value's JSON as a string, which the renderer writes raw."""


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("name", sorted(REGIONS))
def test_deepest_schema_builds_and_accepts_its_call(name: str, shape: str) -> None:
    schema, value = SHAPES[shape](deepest(shape))
    tools = tool(schema)
    for dialect in DIALECTS:
        assert grammar(name, tools, dialect=dialect)  # type: ignore[arg-type]
    written = json.dumps(value) if (name, shape) in AS_JSON else value
    call = toolcalls.ToolCall(id="a", name="f", arguments={"v": written}, source="native")
    text = toolcalls.get_format(name).render_calls([call])
    assert accepts(grammar(name, tools, tool_choice="required"), text) is None, text[:200]
    if written is not value:  # the JSON reads back as the value
        assert [c.arguments for c in toolcalls.parse(text, name, tools=tools).calls] == [
            {"v": value}]


FRAMES_PER_LEVEL = 5
"""The stack a level of nesting may take (3 now: `_json_rules.JsonRules.rule` and the
pythonic values recurse once a level); at 100 levels, half the interpreter's 1000 frames."""


@contextmanager
def stack_of(frames: int) -> Iterator[None]:
    """Only ``frames`` more frames than the caller's: a RecursionError past them."""
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back  # type: ignore[assignment]
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + frames)
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_deepest_schema_takes_a_few_frames_a_level(shape: str) -> None:
    """No recursion that can blow the stack: at most `FRAMES_PER_LEVEL` frames a level (the
    pythonic writer once nested 8 calls a list level, a RecursionError at 100 levels)."""
    tools = toolcalls.to_tools(tool(SHAPES[shape](deepest(shape))[0]))
    with stack_of(FRAMES_PER_LEVEL * 100 + 60):
        for name in sorted(REGIONS):
            for dialect in DIALECTS:
                grammar(name, tools, dialect=dialect)  # type: ignore[arg-type]
        for name in sorted({*TAGGED, *XGRAMMAR_STYLES}):
            structural_tag(name, tools)


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("name", sorted({*TAGGED, *XGRAMMAR_STYLES}))
def test_structural_tag_grows_linearly_with_depth(name: str, shape: str) -> None:
    sizes = [len(json.dumps(structural_tag(name, tool(SHAPES[shape](depth)[0]))))
             for depth in (10, 20, 40)]
    assert_linear(sizes)
    assert structural_tag(name, tool(SHAPES[shape](deepest(shape))[0]))


def many_parameters(count: int) -> list[dict[str, Any]]:
    """Optional parameters, the last required: the pythonic grammar chooses the first written
    among all of them."""
    properties = {f"p{i}": {"type": "integer"} for i in range(count)}
    return [{"name": "f", "parameters": {
        "type": "object", "properties": properties, "required": [f"p{count - 1}"]}}]


def many_tools(count: int) -> list[dict[str, Any]]:
    return [{"name": f"f{i}", "parameters": {
        "type": "object", "properties": {"a": {"type": "string"}}}} for i in range(count)]


def many_values(count: int) -> list[dict[str, Any]]:
    return tool({"enum": [f"v{i}" for i in range(count)]})


WIDE = {"parameters": many_parameters, "tools": many_tools, "enum": many_values}


@pytest.mark.parametrize("wide", sorted(WIDE))
@pytest.mark.parametrize("name", sorted(REGIONS))
def test_grammar_grows_linearly_with_width(name: str, wide: str) -> None:
    for dialect in DIALECTS:
        sizes = [len(grammar(name, WIDE[wide](count), dialect=dialect))  # type: ignore[arg-type]
                 for count in (25, 50, 100)]
        assert_linear(sizes)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_pythonic_many_optional_parameters_accept_any_subset(dialect: str) -> None:
    """Past a few optional parameters before the first required one, the pythonic grammar
    chains them through rules (`_python_values._chained`); it still takes any subset in
    order, the required one always, and refuses a call without it."""
    tools = many_parameters(12)
    rules = grammar("pythonic", tools, dialect=dialect, tool_choice="required")  # type: ignore[arg-type]
    if dialect == "gbnf":
        return  # llguidance's GBNF reader is checked in test_grammar_dialects
    for written in (["p11"], ["p0", "p11"], ["p3", "p7", "p11"], [f"p{i}" for i in range(12)]):
        text = "[f(" + ", ".join(f"{key}=1" for key in written) + ")]"
        if dialect == "llguidance":
            assert accepts(rules, text) is None, text
        else:
            Lark(rules, parser="earley", lexer="dynamic").parse(text)
    assert accepts(grammar("pythonic", tools, tool_choice="required"), "[f(p0=1)]") is not None
