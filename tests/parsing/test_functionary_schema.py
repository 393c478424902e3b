"""Functionary v3.2's tools block is its template's, for any schema.

The port of the template's TypeScript macros (`toolcalls.parsing.formats._functionary_schema`)
is checked against the template itself, rendered with jinja2 as transformers renders it, on
generated schemas: every shape the macros branch on (arrays of each item type, arrays of
arrays, nested objects, enums of strings and numbers, ``nullable``, type lists, ``oneOf`` with
types and formats, comments from descriptions, defaults, formats, limits and examples).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, reject, settings
from hypothesis import strategies as st
from jinja2.exceptions import TemplateError
from test_template_fidelity import _template

import toolcalls
from toolcalls import Tool

WORDS = st.text(alphabet="ab c.'\"é<", max_size=6)
VALUES = st.one_of(st.text("xy'", max_size=2), st.integers(-1, 3), st.booleans(), st.none(),
                   st.floats(0, 2, allow_nan=False).map(lambda x: round(x, 1)),
                   st.lists(st.integers(0, 2), max_size=2))
LIMITS = st.one_of(st.integers(0, 5), st.floats(0, 1).map(lambda x: round(x, 2)))
NOTES = {
    "description": WORDS, "default": VALUES, "format": st.sampled_from(["date", "uri"]),
    "maximum": LIMITS, "minimum": LIMITS, "maxLength": st.integers(0, 3),
    "minLength": st.integers(0, 3),
    "examples": st.lists(VALUES, max_size=2), "nullable": st.booleans(),
}
SCALAR = st.fixed_dictionaries(
    {"type": st.sampled_from(["string", "number", "integer", "boolean", "null"])},
    optional={**NOTES, "enum": st.lists(st.one_of(st.text("xy", max_size=2), st.integers(0, 2)),
                                        max_size=3)},
)
UNTYPED = st.fixed_dictionaries({}, optional=NOTES)


def _composite(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    names = st.sampled_from(["p", "q", "r"])
    return st.one_of(
        st.fixed_dictionaries({"type": st.just("array")}, optional={"items": inner, **NOTES}),
        st.fixed_dictionaries({"type": st.just("object")}, optional={
            "properties": st.dictionaries(names, inner, max_size=3),
            "required": st.lists(names, max_size=2, unique=True), **NOTES}),
        st.fixed_dictionaries({"oneOf": st.lists(inner, min_size=1, max_size=3)},
                              optional={"description": WORDS}),
        st.fixed_dictionaries({"type": st.lists(st.sampled_from(["string", "integer", "null"]),
                                                min_size=1, max_size=3, unique=True)}),
    )


SCHEMAS = st.recursive(st.one_of(SCALAR, UNTYPED), _composite, max_leaves=6)
TOOLS = st.lists(
    st.builds(
        lambda name, description, properties, required: Tool(
            name=name, description=description,
            parameters={"type": "object", "properties": properties, "required": required}),
        st.sampled_from(["f", "g"]), WORDS,
        st.dictionaries(st.sampled_from(["a", "b", "c"]), SCHEMAS, max_size=3),
        st.lists(st.sampled_from(["a", "b"]), max_size=2, unique=True),
    ),
    max_size=2,
)


def _template_tools_block(tools: list[Tool]) -> str:
    written = [{"type": "function", "function": {"name": t.name, "description": t.description,
                                                 "parameters": t.parameters}} for t in tools]
    try:
        prompt = _template("functionary_v32").render(
            messages=[{"role": "user", "content": "hi"}], tools=written,
            add_generation_prompt=True, bos_token="")
    except (TypeError, TemplateError):  # the macros add a number to a string: no prompt
        reject()
    start = prompt.index("You are capable")
    return prompt[start : prompt.index("<|eot_id|>", start)]


@settings(max_examples=300, deadline=None)
@given(TOOLS)
def test_the_tools_block_is_the_templates_for_any_schema(tools: list[Tool]) -> None:
    assert toolcalls.get_format("functionary_v32").render_tools(tools) == _template_tools_block(
        tools)


def test_a_changed_schema_changes_the_block() -> None:
    """The comparison has teeth: the block follows the schema."""
    fmt = toolcalls.get_format("functionary_v32")
    base = Tool(name="f", parameters={"type": "object", "properties": {"a": {"type": "string"}}})
    other = Tool(name="f", parameters={"type": "object", "properties": {"a": {"type": "integer"}}})
    assert fmt.render_tools([base]) == _template_tools_block([base])
    assert "a?: number," in fmt.render_tools([other])
    assert fmt.render_tools([other]) != _template_tools_block([base])
