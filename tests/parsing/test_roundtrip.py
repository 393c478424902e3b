"""Round trips through prompt rendering, for every format that renders.

* Parsing what `Format.render_calls` writes gives the content and the calls back (names and
  arguments, typed by the tools' schemas), with no issue, in one piece or streamed in chunks.
* A tool result rendered into history (`Format.render_result`) is never read back as a call,
  whatever the result holds, its format's own call markup included.

Tools and calls are generated together, so every argument matches its schema: strings
(holding every format's markup, quotes, braces, newlines, unicode), integers, numbers,
booleans, arrays and nested objects. A value that a format cannot write unambiguously (its
value close tag followed by markup) makes `render_calls` raise ValueError; such examples are
set aside, and `test_markup_values_are_representable` keeps that escape hatch narrow.
"""

from __future__ import annotations

import re

import pytest
from helpers import assert_lossless, random_chunks, stream_chunks
from hypothesis import assume, given
from hypothesis import strategies as st

import toolcalls
from toolcalls import Tool, ToolCall
from toolcalls.parsing.formats._base import Format
from toolcalls.testing import calls, prose, strings, tools

# Every format renders (tests/parsing/test_format_contract.py checks a round trip exists).
FORMATS = toolcalls.list_formats()
_PROBE = ToolCall(id="call00000", name="f", arguments={"k": "v"}, span=(0, 0))

# Close tags are no openers, so they are listed, with those every format writes in a call or a
# result; openers come from every format's own table.
_CLOSERS = {
    "</tool_call>", "</function>", "</parameter>", "</arg_key>", "</arg_value>", "</invoke>",
    "</minimax:tool_call>", "</｜DSML｜parameter>", "</｜DSML｜invoke>",
    "</｜DSML｜function_calls>", "</tool_response>", "</response>", "</result>",
    "</function_results>", "</arguments>", "</name>",
} | {
    tag
    for fmt in map(toolcalls.get_format, FORMATS)
    for written in (fmt.render_calls([_PROBE]), fmt.render_result(_PROBE, "r"))
    for tag in re.findall(r"</[^<>\s]*>", written)
}  # fmt: skip
_OPENERS = sorted(
    {
        m
        for name in toolcalls.list_formats()
        for m in toolcalls.get_format(name).compiled_openers().factories
    }
)
MARKUP = sorted(
    {
        *_CLOSERS,
        *_OPENERS,
        "<function=x>",
        '<invoke name="f">',
        '<parameter name="k">',
        "<parameter=k>",
        "<tool_response>",
        "<response>",
        "<result>",
        '"',
        "'",
        "\\",
        "{",
        "}",
        "[",
        "]",
        "\n",
        "\r\n",
        "\t",
        " ",
        "é",
        "日本語",
        "🙂",
        "\u2028",
        "null",
        "true",
        "1",
    }
)

# Tools and calls come from toolcalls.testing: arguments fit their schemas, strings hold every
# format's markup (`strings()`: MARKUP and more), content is plain prose.
TEXT = strings()
CONTENT = prose()


@st.composite
def tools_and_calls(draw: st.DrawFn) -> tuple[list[Tool], list[ToolCall]]:
    """One to three tools, and one to three calls of them whose values fit the schemas."""
    offered = draw(tools())
    return offered, draw(calls(offered))


def _rendered(fmt: Format, calls: list[ToolCall], content: str) -> str:
    try:
        return fmt.render_calls(calls, content)
    except ValueError:  # a value this format cannot write unambiguously (see module doc)
        assume(False)
        raise


@pytest.mark.parametrize("name", FORMATS)
def test_parsing_rendered_calls_gives_them_back(name: str) -> None:
    fmt = toolcalls.get_format(name)

    @given(tools_and_calls(), CONTENT, st.integers(0, 2**16))
    def check(drawn: tuple[list[Tool], list[ToolCall]], content: str, seed: int) -> None:
        tools, calls = drawn
        text = _rendered(fmt, calls, content)
        result = toolcalls.parse(text, name, tools=tools)
        assert [(c.name, c.arguments) for c in result.calls] == [
            (c.name, c.arguments) for c in calls
        ], text
        assert result.content.strip() == content, text
        assert result.incomplete == [] and result.issues == [], (text, result.issues)
        assert_lossless(text, result)
        _, streamed = stream_chunks(name, random_chunks(text, seed), tools=tools)
        assert streamed == result

    check()


def _results(fmt: Format) -> st.SearchStrategy[str]:
    """Any text, text built from markup, and results that quote the format's own calls."""

    @st.composite
    def quoting_calls(draw: st.DrawFn) -> str:
        tools, calls = draw(tools_and_calls())
        try:
            quoted = fmt.render_calls(calls, draw(CONTENT))
        except ValueError:
            quoted = ""
        cut = draw(st.integers(0, len(quoted)))
        pieces = [draw(TEXT), quoted[:cut], draw(TEXT), quoted[cut:], draw(TEXT)]
        return "".join(pieces) if draw(st.booleans()) else draw(TEXT) + quoted

    return st.one_of(st.text(), TEXT, quoting_calls())


@pytest.mark.parametrize("name", FORMATS)
def test_a_rendered_result_is_never_read_as_a_call(name: str) -> None:
    fmt = toolcalls.get_format(name)
    try:
        fmt.render_result(ToolCall(id="call00000", name="f", arguments={}, span=(0, 0)), "")
    except NotImplementedError as missing:
        pytest.skip(str(missing))

    @given(tools_and_calls(), _results(fmt), st.integers(0, 2**16))
    def check(drawn: tuple[list[Tool], list[ToolCall]], result: str, seed: int) -> None:
        tools, calls = drawn
        text = fmt.render_result(calls[0], result)
        parsed = toolcalls.parse(text, name, tools=tools)
        assert parsed.calls == [] and parsed.incomplete == [], text
        assert_lossless(text, parsed)
        _, streamed = stream_chunks(name, random_chunks(text, seed), tools=tools)
        assert streamed == parsed

    check()


@pytest.mark.parametrize("name", FORMATS)
@pytest.mark.parametrize("marker", MARKUP)
def test_markup_values_are_representable(name: str, marker: str) -> None:
    """Each piece of markup, alone or inside text, renders and reads back as a string value."""
    fmt = toolcalls.get_format(name)
    tool = Tool(
        name="note", parameters={"type": "object", "properties": {"text": {"type": "string"}}}
    )
    for value in (marker, f"a {marker} b", f"{marker}\nb", f"a\n{marker}"):
        call = ToolCall(id="call00000", name="note", arguments={"text": value}, span=(0, 0))
        parsed = toolcalls.parse(fmt.render_calls([call]), name, tools=[tool])
        assert [c.arguments for c in parsed.calls] == [{"text": value}]


# A string each XML-parameter format cannot write unambiguously (`Format.refused_values`): its
# value close tag followed by the next structural tag, or (Qwen3-Coder) an edge newline the
# reader takes as framing.
REFUSED = [(name, value) for name in FORMATS for value in toolcalls.get_format(name).refused_values]
_PLACEHOLDER = "PLACEHOLDER"


def _written_flush(name: str) -> bool:
    """Whether the format writes a string value flush against its tags (no framing newline)."""
    call = ToolCall(id="call00000", name="note", arguments={"text": _PLACEHOLDER}, span=(0, 0))
    return f">{_PLACEHOLDER}</" in toolcalls.get_format(name).render_calls([call])


# The XML-parameter formats (they refuse values) whose templates write values flush.
FLUSH = [n for n in FORMATS if toolcalls.get_format(n).refused_values and _written_flush(n)]


def test_the_xml_parameter_family_is_found() -> None:
    assert {"qwen3_coder", "glm45", "minimax_m2"} <= {name for name, _ in REFUSED}
    assert {"glm45", "glm47", "minimax_m2", "deepseek_v32_dsml"} <= set(FLUSH)


@pytest.mark.parametrize(("name", "value"), REFUSED)
def test_refused_values_are_the_ones_the_format_cannot_carry(name: str, value: str) -> None:
    """render_calls refuses the value, and writing it anyway (raw, as templates do) misreads."""
    fmt = toolcalls.get_format(name)
    tool = Tool(
        name="note", parameters={"type": "object", "properties": {"text": {"type": "string"}}}
    )

    def call(text: str) -> ToolCall:
        return ToolCall(id="call00000", name="note", arguments={"text": text}, span=(0, 0))

    with pytest.raises(ValueError, match="text"):
        fmt.render_calls([call(value)])
    raw = fmt.render_calls([call(_PLACEHOLDER)]).replace(_PLACEHOLDER, value)
    parsed = toolcalls.parse(raw, name, tools=[tool])
    assert [c.arguments for c in parsed.calls] != [{"text": value}] or parsed.issues


@pytest.mark.parametrize("name", FLUSH)
@pytest.mark.parametrize(("value", "written"), [
    ("abc", ">abc</"),
    ("\nabc", ">\n\nabc</"),
    ("abc\n", ">abc\n\n</"),
    ("\r\nabc\r\n", ">\n\r\nabc\r\n\n</"),
    ("\n", ">\n\n\n</"),
    ("", "></"),
])  # fmt: skip
def test_values_are_written_flush_with_a_newline_added_only_where_they_have_one(
    name: str, value: str, written: str
) -> None:
    """As the templates write them, but the reader drops one newline at each end of a value."""
    tool = Tool(
        name="note", parameters={"type": "object", "properties": {"text": {"type": "string"}}}
    )
    call = ToolCall(id="call00000", name="note", arguments={"text": value}, span=(0, 0))
    text = toolcalls.get_format(name).render_calls([call])
    assert written in text
    parsed = toolcalls.parse(text, name, tools=[tool])
    assert [c.arguments for c in parsed.calls] == [{"text": value}] and parsed.issues == []
    _, streamed = stream_chunks(name, list(text), tools=[tool])
    assert streamed == parsed


def test_kimi_k2_names_with_dots_come_back_whole() -> None:
    # The id is "functions." + name + ":" + index: the name is all that lies between them.
    calls = [
        ToolCall(id=f"call{i}", name=name, arguments={"q": i}, span=(0, 0))
        for i, name in enumerate(["api.search", "mcp.fs.read_file", "functions"])
    ]
    text = toolcalls.get_format("kimi_k2").render_calls(calls)
    result = toolcalls.parse(text, "kimi_k2")
    assert [(c.name, c.arguments) for c in result.calls] == [(c.name, c.arguments) for c in calls]
    assert [c.id for c in result.calls] == [f"functions.{c.name}:{i}" for i, c in enumerate(calls)]
    assert result.issues == []
    _, streamed = stream_chunks("kimi_k2", list(text))
    assert streamed == result
