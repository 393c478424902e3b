"""A call's open tag that cannot be read, inside an open call section (`_xmlparams`).

Outside a section such a tag is prose that mentions the format. Inside one the model was writing
calls, so it is a call gone wrong: an incomplete call with a ``malformed_call`` issue over its
exact span, never content without an issue (LESSONS 18, "silent losses"). DeepSeek V3 reads a
header that names no tool the same way. Each case is checked in one piece, one character at a
time and at every 2-way split (LESSONS 3, 4).
"""

from __future__ import annotations

import pytest
from helpers import checked

import toolcalls
from toolcalls import ParseResult
from toolcalls.parsing.formats import deepseek_dsml, minimax_m2, qwen3_coder
from toolcalls.parsing.formats._xmlparams import XmlTags

DSML, ASCII = "｜DSML｜", "|DSML|"


class Shape:
    """How one format writes a section with calls in it."""

    def __init__(
        self, fmt: str, tags: XmlTags, section: tuple[str, str], param: str, slip: str = ""
    ) -> None:
        self.fmt, self.tags = fmt, tags
        self.open, self.close = section
        self.param = param  # one parameter, key "a", value "1"
        self.slip = slip  # the issue each good call of this spelling has (DSML ASCII pipes)

    def call(self, header: str) -> str:
        return f"{header}\n{self.param}\n{self.tags.call_close}"

    def good(self, name: str) -> str:
        return self.call(self.tags.call_example.replace("NAME", name))


MINIMAX = Shape(
    "minimax_m2", minimax_m2.TAGS, ("<minimax:tool_call>", "</minimax:tool_call>"),
    '<parameter name="a">1</parameter>',
)  # fmt: skip
QWEN = Shape(
    "qwen3_coder", qwen3_coder.TAGS, ("<tool_call>", "</tool_call>"),
    "<parameter=a>\n1\n</parameter>",
)  # fmt: skip
DSML_V32 = Shape(
    "deepseek_v32_dsml", deepseek_dsml.TAGS[DSML],
    (f"<{DSML}function_calls>", f"</{DSML}function_calls>"),
    f'<{DSML}parameter name="a" string="true">1</{DSML}parameter>',
)  # fmt: skip
DSML_V4 = Shape(
    "deepseek_v32_dsml", deepseek_dsml.TAGS[DSML],
    (f"<{DSML}tool_calls>", f"</{DSML}tool_calls>"),
    f'<{DSML}parameter name="a" string="true">1</{DSML}parameter>',
)  # fmt: skip
DSML_ASCII = Shape(
    "deepseek_v32_dsml", deepseek_dsml.TAGS[ASCII],
    (f"<{ASCII}function_calls>", f"</{ASCII}function_calls>"),
    f'<{ASCII}parameter name="a" string="true">1</{ASCII}parameter>', "ascii_pipes",
)  # fmt: skip

BROKEN = [
    (MINIMAX, '<invoke nme="f">'),
    (MINIMAX, '<invoke name=\n"f">'),
    (MINIMAX, '<invoke name="">'),
    (QWEN, "<function=\nf>"),
    (QWEN, "<function= >"),
    (DSML_V32, f'<{DSML}invoke nme="f">'),
    (DSML_V32, f'<{DSML}invoke\nname="f">'),
    (DSML_V4, f'<{DSML}invoke nme="f">'),
    (DSML_ASCII, f'<{ASCII}invoke name=\n"f">'),
]
IDS = [f"{shape.fmt}-{header!r}" for shape, header in BROKEN]


def assert_one_malformed_call(shape: Shape, text: str, raw: str, result: ParseResult) -> None:
    """`raw` (once in `text`) is the one incomplete call, with one issue over its exact span."""
    start = text.index(raw)
    span = (start, start + len(raw))
    assert [(call.name, call.raw, call.span) for call in result.incomplete] == [(None, raw, span)]
    issues = [issue for issue in result.issues if issue.kind != shape.slip]
    assert [(issue.kind, issue.span) for issue in issues] == [("malformed_call", span)]
    assert shape.tags.call_example in issues[0].message
    slips = [issue for issue in result.issues if issue.kind == shape.slip]
    assert len(slips) == (len(result.calls) if shape.slip else 0)


@pytest.mark.parametrize(("shape", "header"), BROKEN, ids=IDS)
def test_a_broken_header_in_a_section_is_a_malformed_call_and_the_next_call_is_read(
    shape: Shape, header: str
) -> None:
    broken = shape.call(header)
    text = f"Sure.\n{shape.open}\n{broken}\n{shape.good('g')}\n{shape.close}\nDone."
    result = checked(shape.fmt, text)
    assert [(call.name, call.arguments) for call in result.calls] == [("g", {"a": "1"})]
    assert_one_malformed_call(shape, text, broken, result)
    assert result.content == "Sure.\nDone."


@pytest.mark.parametrize(("shape", "header"), BROKEN, ids=IDS)
def test_a_broken_header_after_a_good_call_in_the_same_section(shape: Shape, header: str) -> None:
    broken = shape.call(header)
    text = f"{shape.open}\n{shape.good('g')}\n{broken}\n{shape.close}"
    result = checked(shape.fmt, text)
    assert [call.name for call in result.calls] == ["g"]
    assert_one_malformed_call(shape, text, broken, result)
    assert result.content == ""


@pytest.mark.parametrize(("shape", "header"), BROKEN, ids=IDS)
def test_a_broken_header_cut_off_by_the_end_is_reported_as_malformed(
    shape: Shape, header: str
) -> None:
    text = f"{shape.open}\n{shape.good('g')}\n{header}\n{shape.param[:12]}"
    result = checked(shape.fmt, text)
    assert [call.name for call in result.calls] == ["g"]
    assert_one_malformed_call(shape, text, text[text.index(header) :], result)


@pytest.mark.parametrize(("shape", "header"), BROKEN, ids=IDS)
def test_outside_a_section_a_broken_header_is_prose(shape: Shape, header: str) -> None:
    text = f"Write {header} to call a tool.\n{shape.open}\n{shape.good('g')}\n{shape.close}"
    result = checked(shape.fmt, text)
    assert result.content == f"Write {header} to call a tool."
    assert [call.name for call in result.calls] == ["g"]
    assert result.incomplete == []
    assert [issue.kind for issue in result.issues] == ([shape.slip] if shape.slip else [])


def test_a_close_tag_inside_a_value_of_the_broken_call_is_data() -> None:
    # LESSONS 15: the call ends at its structural close, not at the first "</invoke>".
    broken = '<invoke nme="w">\n<parameter name="c">a </invoke> b</parameter>\n</invoke>'
    text = f"<minimax:tool_call>\n{broken}\n{MINIMAX.good('g')}\n</minimax:tool_call>"
    result = checked("minimax_m2", text)
    assert [call.name for call in result.calls] == ["g"]
    assert_one_malformed_call(MINIMAX, text, broken, result)


def test_strict_mode_raises_on_a_broken_header_in_a_section() -> None:
    broken = MINIMAX.call('<invoke nme="f">')
    text = f"<minimax:tool_call>\n{broken}\n</minimax:tool_call>"
    with pytest.raises(toolcalls.ParseError) as raised:
        toolcalls.parse(text, "minimax_m2", strict=True)
    assert raised.value.kind == "malformed_call"
    assert raised.value.span == (20, 20 + len(broken))


@pytest.mark.parametrize("tags", [minimax_m2.TAGS, qwen3_coder.TAGS, *deepseek_dsml.TAGS.values()])
def test_the_tag_the_message_expects_is_read_as_a_call(tags: XmlTags) -> None:
    tag = tags.parse_tag(tags.call_example)
    assert tag is not None and (tag.kind, tag.name) == ("call", "NAME")
