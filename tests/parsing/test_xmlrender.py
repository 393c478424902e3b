"""The XML-family writer (`_xmlrender`): one renderer, driven by each format's own `XmlTags`.

Every format whose module declares an `XmlCallStyle` renders its calls with it, and the style
writes with the very tags the format's reader reads: what it writes parses back to the same
calls, or it refuses with ValueError. Names and keys here are harsher than in
test_roundtrip.py: markup characters, quotes, blanks, and more than a header may hold.
"""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from helpers import assert_lossless
from hypothesis import given
from hypothesis import strategies as st

import toolcalls
from toolcalls import Tool, ToolCall
from toolcalls.parsing._registry import get_format
from toolcalls.parsing.formats._xmlparams import XmlTags
from toolcalls.parsing.formats._xmlrender import XmlCallStyle


def _module_values(name: str) -> list[Any]:
    module = importlib.import_module(type(get_format(name)).__module__)
    values = list(vars(module).values())
    return values + [v for d in values if isinstance(d, dict) for v in d.values()]


def _styles(name: str) -> list[XmlCallStyle]:
    return [v for v in _module_values(name) if isinstance(v, XmlCallStyle)]


XML_FORMATS = [name for name in toolcalls.list_formats() if _styles(name)]


def test_the_xml_family_is_found() -> None:
    assert {"qwen3_coder", "minimax_m2", "glm45", "glm47", "deepseek_v32_dsml"} <= set(
        XML_FORMATS)


@pytest.mark.parametrize("name", toolcalls.list_formats())
def test_a_format_with_xml_tags_writes_calls_with_them(name: str) -> None:
    """A format that reads XmlTags writes its calls with a style over the same tags object."""
    tags = [v for v in _module_values(name) if isinstance(v, XmlTags)]
    if not tags:
        pytest.skip(f"{name} is no XML-family format")
    assert _styles(name), f"{name} reads XmlTags but declares no XmlCallStyle"
    for style in _styles(name):
        assert any(style.tags is t for t in tags), name


NAME = st.one_of(
    st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True),
    st.text(st.sampled_from('ab_-.:/=>< "\'\n\t{}$日'), min_size=1, max_size=8),
    st.sampled_from(["x" * 300, "a>b", 'a"b', "a b", " a", "a\n", "<b", "a=b"]),
)
VALUE_KINDS: list[tuple[dict[str, Any], st.SearchStrategy[Any]]] = [
    ({"type": "string"}, st.text(st.sampled_from('ab<>/="\n {}'), max_size=12)),
    ({"type": "integer"}, st.integers(-1000, 1000)),
    ({"type": "boolean"}, st.booleans()),
    ({"type": "array"}, st.lists(st.integers(0, 9), max_size=3)),
    ({"type": "object"}, st.dictionaries(st.sampled_from("ab>"), st.integers(0, 9), max_size=2)),
]


@st.composite
def calls_and_tools(draw: st.DrawFn) -> tuple[list[ToolCall], list[Tool]]:
    calls, tools = [], []
    for index, name in enumerate(draw(st.lists(NAME, min_size=1, max_size=3, unique=True))):
        keys = draw(st.dictionaries(NAME, st.integers(0, len(VALUE_KINDS) - 1), max_size=3))
        arguments = {key: draw(VALUE_KINDS[kind][1]) for key, kind in keys.items()}
        properties = {key: VALUE_KINDS[kind][0] for key, kind in keys.items()}
        calls.append(ToolCall(id=f"c{index}", name=name, arguments=arguments, span=(0, 0)))
        tools.append(Tool(name=name, parameters={"type": "object", "properties": properties}))
    return calls, tools


@pytest.mark.parametrize("name", XML_FORMATS)
def test_what_the_writer_writes_reads_back_or_is_refused(name: str) -> None:
    fmt = get_format(name)

    @given(calls_and_tools(), st.sampled_from(["", "Sure."]))
    def check(drawn: tuple[list[ToolCall], list[Tool]], content: str) -> None:
        calls, tools = drawn
        try:
            text = fmt.render_calls(calls, content)
        except ValueError:
            return
        result = toolcalls.parse(text, name, tools=tools)
        assert [(c.name, c.arguments) for c in result.calls] == [
            (c.name, c.arguments) for c in calls], text
        assert result.issues == [] and result.incomplete == [], (text, result.issues)
        assert_lossless(text, result)

    check()


@pytest.mark.parametrize("name", XML_FORMATS)
@pytest.mark.parametrize("bad", ["x" * 300, "a>b"])
def test_a_name_the_reader_would_misread_is_refused(name: str, bad: str) -> None:
    """Longer than a header may be, or holding the header's end: refused, not misread."""
    as_name = ToolCall(id="c", name=bad, arguments={}, span=(0, 0))
    as_key = ToolCall(id="c", name="f", arguments={bad: "v"}, span=(0, 0))
    for call in (as_name, as_key):
        try:
            text = get_format(name).render_calls([call])
        except ValueError:
            continue
        parsed = toolcalls.parse(text, name)
        assert [(c.name, c.arguments) for c in parsed.calls] == [(call.name, call.arguments)]


@pytest.mark.parametrize("name", XML_FORMATS)
@pytest.mark.parametrize("bad", ["{", "{a", " {\"name\": 1}"])
def test_a_name_read_as_another_shape_of_call_is_refused(name: str, bad: str) -> None:
    """GLM and LongCat read a call body that starts with ``{`` as a JSON call (their styles'
    `slip_starts`): a name starting so is refused there, and reads back wherever it is
    written."""
    call = ToolCall(id="c", name=bad, arguments={"k": "v"}, span=(0, 0))
    try:
        text = get_format(name).render_calls([call])
    except ValueError:
        slips = any(s.slip_starts and bad.lstrip().startswith(s.slip_starts) for s in _styles(name))
        assert slips or bad.strip() != bad, name
        return
    parsed = toolcalls.parse(text, name)
    assert [(c.name, c.arguments) for c in parsed.calls] == [(bad, {"k": "v"})]
