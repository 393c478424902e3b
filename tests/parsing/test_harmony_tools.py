"""gpt-oss's tools block is its template's, for any schema.

The port of the template's TypeScript macros (`toolcalls.parsing.formats._harmony_tools`) is
checked against the template itself, rendered with jinja2 as transformers renders it, on
generated schemas: every JSON Schema shape the macros branch on (arrays of each item type,
nested objects, enums, ``nullable``, type lists, ``oneOf`` with descriptions and defaults,
``anyOf``, defaults of every JSON type).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, reject, settings
from hypothesis import strategies as st
from test_template_fidelity import _template

import toolcalls
from toolcalls import Tool

WORDS = st.text(alphabet='ab c\n"é<', max_size=6)
DEFAULTS = st.one_of(st.text("xy", max_size=2), st.integers(0, 3), st.booleans(), st.none(),
                     st.lists(st.integers(0, 2), max_size=2))
SCALAR = st.fixed_dictionaries(
    {"type": st.sampled_from(["string", "number", "integer", "boolean", "null"])},
    optional={"description": WORDS, "nullable": st.booleans(), "default": DEFAULTS,
              "enum": st.lists(st.text("xy", max_size=2), max_size=2, unique=True)},
)


def _composite(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    names = st.sampled_from(["p", "q", "r"])
    return st.one_of(
        st.fixed_dictionaries({"type": st.just("array")},
                              optional={"items": inner, "nullable": st.booleans()}),
        st.fixed_dictionaries({"type": st.just("object")}, optional={
            "properties": st.dictionaries(names, inner, max_size=3),
            "required": st.lists(names, max_size=2, unique=True)}),
        st.fixed_dictionaries({"oneOf": st.lists(inner, min_size=1, max_size=3)},
                              optional={"description": WORDS, "default": st.text("xy")}),
        st.fixed_dictionaries({"type": st.lists(st.sampled_from(["string", "number", "object"]),
                                                min_size=1, max_size=3, unique=True)}),
        st.fixed_dictionaries({"anyOf": st.lists(inner, min_size=1, max_size=2)}),
    )


SCHEMAS = st.recursive(SCALAR, _composite, max_leaves=6)
TOOLS = st.lists(
    st.builds(
        lambda name, description, properties, required: Tool(
            name=name, description=description,
            parameters={"type": "object", "properties": properties, "required": required}),
        st.sampled_from(["f", "g"]), WORDS,
        st.dictionaries(st.sampled_from(["a", "b", "c"]), SCHEMAS, max_size=3),
        st.lists(st.sampled_from(["a", "b"]), max_size=2, unique=True),
    ),
    min_size=1, max_size=2,
)


def _template_tools_block(tools: list[Tool]) -> str:
    written = [{"type": "function", "function": {"name": t.name, "description": t.description,
                                                 "parameters": t.parameters}} for t in tools]
    try:
        prompt = _template("gpt_oss").render(
            messages=[{"role": "user", "content": "hi"}], tools=written, add_generation_prompt=True)
    except TypeError:  # the template adds a non-string enum default to a string: no prompt
        reject()
    start = prompt.index("# Tools\n\n## functions")
    return prompt[start : prompt.index("<|end|>", start)]


@settings(max_examples=300, deadline=None)
@given(TOOLS)
def test_the_tools_block_is_the_templates_for_any_schema(tools: list[Tool]) -> None:
    assert toolcalls.get_format("gpt_oss").render_tools(tools) == _template_tools_block(tools)


def test_a_changed_schema_changes_the_block() -> None:
    """The comparison has teeth: the block follows the schema."""
    fmt = toolcalls.get_format("gpt_oss")
    base = Tool(name="f", parameters={"type": "object", "properties": {"a": {"type": "string"}}})
    other = Tool(name="f", parameters={"type": "object", "properties": {"a": {"type": "number"}}})
    assert fmt.render_tools([base]) == _template_tools_block([base])
    assert fmt.render_tools([other]) != _template_tools_block([base])
