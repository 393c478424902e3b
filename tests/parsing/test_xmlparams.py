"""The shared XML-parameter reader (`toolcalls.parsing.formats._xmlparams`), through its formats.

Each test names the rule it checks: the structural close rule, newline stripping, holdback of a
partial close tag inside a streamed value, and the coercion paths. Every text is also streamed
one character at a time and in every 2-way split, which must give the batch result.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from helpers import assert_events_consistent, assert_lossless, split_at, stream_chunks

import toolcalls
from toolcalls import ArgumentsDelta, ParseResult, ToolCall
from toolcalls.parsing.formats._xmlparams import StringStream

TOOLS = [
    {
        "name": "write_file",
        "parameters": {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "content": {"type": "string"},
                "mode": {"type": "integer"},
                "force": {"type": "boolean"},
                "tags": {"type": "array"},
                "note": {"type": ["string", "null"]},
            },
        },
    }
]


def qwen(*params: tuple[str, str], name: str = "write_file") -> str:
    body = "".join(f"<parameter={key}>\n{value}\n</parameter>\n" for key, value in params)
    return f"<tool_call>\n<function={name}>\n{body}</function>\n</tool_call>"


def dsml(key: str, attribute: str, raw: str, bar: str = "｜DSML｜") -> str:
    parameter = f'<{bar}parameter name="{key}" {attribute}>{raw}</{bar}parameter>'
    invoke = f'<{bar}invoke name="write_file">\n{parameter}\n</{bar}invoke>'
    return f"<{bar}function_calls>\n{invoke}\n</{bar}function_calls>"


def parse(text: str, fmt: str = "qwen3_coder", **options: Any) -> ParseResult:
    """Parse in batch, check losslessness, and check that every chunking agrees."""
    options.setdefault("tools", TOOLS)
    result = toolcalls.parse(text, fmt, **options)
    assert_lossless(text, result)
    step = max(1, len(text) // 60)
    for chunks in [list(text), *([text[:cut], text[cut:]] for cut in range(0, len(text), step))]:
        events, streamed = stream_chunks(fmt, chunks, **options)
        assert streamed == result
        assert_events_consistent(events, streamed)
    return result


def fragments(text: str, fmt: str = "qwen3_coder") -> list[str]:
    events, _ = stream_chunks(fmt, list(text), tools=TOOLS)
    return [e.fragment for e in events if isinstance(e, ArgumentsDelta)]


def kinds(result: ParseResult) -> list[str]:
    return [issue.kind for issue in result.issues]


# -- the structural close rule (LESSONS 15) -------------------------------------------------


def test_a_close_tag_followed_by_text_is_data() -> None:
    content = "see </parameter> here\n</parameter>\n</functions> and </parameter>"
    result = parse(qwen(("path", "a.md"), ("content", content)))
    assert result.calls[0].arguments == {"path": "a.md", "content": content}


def test_a_close_tag_followed_by_the_next_parameter_or_the_call_close_ends_the_value() -> None:
    text = ("<tool_call><function=write_file><parameter=path>a</parameter>  "
            "<parameter=mode>7</parameter>\t</function></tool_call>")
    assert parse(text).calls[0].arguments == {"path": "a", "mode": 7}


def test_a_close_tag_at_the_end_of_the_text_is_structural() -> None:
    result = parse("<tool_call>\n<function=write_file>\n<parameter=path>\na\n</parameter>\n")
    assert result.incomplete[0].name == "write_file"  # the call is cut, the value is not
    assert kinds(result) == ["truncated_call"]


@pytest.mark.parametrize("fmt, text", [
    ("minimax_m2", '<minimax:tool_call><invoke name="write_file"><parameter name="content">'
                   "a </parameter> b</parameter></invoke></minimax:tool_call>"),
    ("glm45", "<tool_call>write_file\n<arg_key>content</arg_key>\n"
              "<arg_value>a </arg_value> b</arg_value>\n</tool_call>"),
    ("deepseek_v32_dsml", dsml("content", 'string="true"', "a </｜DSML｜parameter> b")),
])
def test_every_format_applies_the_close_rule(fmt: str, text: str) -> None:
    result = parse(text, fmt)
    value = result.calls[0].arguments["content"]
    assert value.startswith("a </") and value.endswith("> b")


def test_markup_inside_a_value_is_data() -> None:
    content = "<function=evil>\n<parameter=x>\n</tool_call> && a < b </function>"
    result = parse(qwen(("content", content)) + "\nafter")
    assert result.calls[0].arguments == {"content": content}
    assert result.content == "\nafter"


# -- newline stripping -------------------------------------------------------------------------


@pytest.mark.parametrize("raw, value", [
    ("\nx\n", "x"),
    ("x", "x"),
    ("\r\nx\r\n", "x"),
    ("\n\nx\n\n", "\nx\n"),
    ("\n", ""),
    ("\n\n", ""),
    ("  x  ", "  x  "),
    ("\rx", "\rx"),
])
def test_one_newline_is_dropped_at_each_end(raw: str, value: str) -> None:
    text = f"<tool_call><function=write_file><parameter=content>{raw}</parameter></function>"
    assert parse(text).calls[0].arguments == {"content": value}


# The XML-parameter formats: those that write string values raw, so refuse some
# (`Format.refused_values`); each test of the family runs on every one the registry holds.
XML_FORMATS = [n for n in toolcalls.list_formats() if toolcalls.get_format(n).refused_values]
_VALUE = "VALUE"


def frame(fmt: str) -> str:
    """A call of one value as `fmt` renders it, the value (and the newlines the renderer frames
    it with) replaced by ``{}``: the value is then written raw between its tags."""
    call = ToolCall(id="call00000", name="write_file", arguments={"content": _VALUE}, span=(0, 0))
    rendered = toolcalls.get_format(fmt).render_calls([call])
    return re.sub(f"\n?{_VALUE}\n?", "{}", rendered, count=1)


# One value, written raw between its tags, in each XML-parameter format; and the ASCII bars a
# DeepSeek model may slip into (read, never rendered).
FRAMES = {fmt: frame(fmt) for fmt in XML_FORMATS}
FRAMES["deepseek_v32_dsml ascii"] = dsml("content", 'string="true"', "{}", bar="|DSML|")


def test_the_xml_parameter_family_is_found() -> None:
    assert {"qwen3_coder", "glm45", "glm47", "minimax_m2", "deepseek_v32_dsml"} <= set(FRAMES)
    assert FRAMES["glm47"] == (
        "<tool_call>write_file<arg_key>content</arg_key><arg_value>{}</arg_value></tool_call>"
    )


@pytest.mark.parametrize("frame", sorted(FRAMES))
@pytest.mark.parametrize("raw, value", [
    ("\nabc\n", "abc"),
    ("\r\nabc\r\n", "abc"),
    ("\n\nabc\n\n", "\nabc\n"),
    ("abc\n", "abc"),
    ("\nabc", "abc"),
    ("abc", "abc"),
])
def test_every_xml_format_drops_one_newline_at_each_end(frame: str, raw: str, value: str) -> None:
    """The same rule in every format: a value on lines of its own is the text between them."""
    fmt, text = frame.split()[0], FRAMES[frame].replace("{}", raw)
    assert parse(text, fmt).calls[0].arguments == {"content": value}
    # Streamed one character at a time, no newline is sent that the value then drops.
    assert "".join(fragments(text, fmt)) == "{" + f'"content": {json.dumps(value)}' + "}"


@pytest.mark.parametrize("raw", ["\nx\n", "\r\nab\r\n", "\n\n\n", "\r", "a\r\n\r\nb\n", ""])
def test_string_stream_fragments_join_to_the_stripped_value(raw: str) -> None:
    stripped = toolcalls.parsing._coerce.strip_value_newlines(raw)
    for chunks in [list(raw), [raw], *(split_at(raw, [cut]) for cut in range(len(raw)))]:
        stream = StringStream()
        sent = "".join(stream.feed(chunk) for chunk in chunks if chunk)
        assert json.loads('"' + sent + stream.finish(stripped) + '"') == stripped


# -- streaming: holdback of a partial close tag and of a last newline (LESSONS 9, 19) ---------


def test_string_values_stream_while_they_arrive() -> None:
    text = qwen(("content", "x" * 4000))
    parser = toolcalls.stream("qwen3_coder", tools=TOOLS)
    silent = longest = 0
    started = False
    for start in range(0, len(text), 4):
        events = parser.feed(text[start : start + 4])
        started = started or any(isinstance(e, ArgumentsDelta) for e in events)
        silent = 0 if events or not started else silent + 4
        longest = max(longest, silent)
    assert longest <= len("\n</parameter>\n</function>") + 4


@pytest.mark.parametrize("fmt, text", [
    ("qwen3_coder", qwen(("content", "rm -rf x"))),
    ("deepseek_v32_dsml", dsml("content", 'string="true"', "rm -rf x")),
    ("deepseek_v32_dsml", dsml("content", 'string="true"', "rm -rf x", bar="|DSML|")),
])
def test_no_partial_close_tag_or_final_newline_leaks_into_the_stream(fmt: str, text: str) -> None:
    streamed = "".join(fragments(text, fmt))
    assert streamed == '{"content": "rm -rf x"}'
    assert all("<" not in f and "\\n" not in f for f in fragments(text, fmt))


def test_non_string_values_are_emitted_once_final() -> None:
    frags = fragments(qwen(("mode", "123456"), ("force", "true"), ("tags", '["a", "b"]')))
    assert ', "force": true' in frags and ', "tags": ["a", "b"]' in frags
    assert '{"mode": 123456' in frags and not any(f in ("1", "12", "123") for f in frags)


def test_a_repeated_key_keeps_the_first_value_already_streamed() -> None:
    result = parse(qwen(("path", "a"), ("path", "b")))
    assert result.calls[0].arguments == {"path": "a"}
    assert kinds(result) == ["duplicate_parameter"]


# -- coercion paths ----------------------------------------------------------------------------


def test_values_are_typed_by_the_schema() -> None:
    text = qwen(("mode", "0644"), ("force", "True"), ("tags", "['a', 1]"), ("note", "null"))
    result = parse(text)
    assert result.calls[0].arguments == {"mode": 644, "force": True, "tags": ["a", 1], "note": None}


def test_undeclared_parameters_and_unknown_tools_keep_their_text() -> None:
    result = parse(qwen(("extra", "42")) + qwen(("n", "1"), name="other"))
    assert [c.arguments for c in result.calls] == [{"extra": "42"}, {"n": "1"}]
    assert kinds(result) == ["unknown_tool"]


def test_a_value_that_does_not_convert_stays_text_and_the_call_is_kept() -> None:
    result = parse(qwen(("mode", "2026-01-15"), ("path", "a")))
    assert result.calls[0].arguments == {"mode": "2026-01-15", "path": "a"}
    assert kinds(result) == ["invalid_value"]


@pytest.mark.parametrize("attribute, raw, value, issues", [
    ('string="false"', '["a"]', ["a"], []),
    ('string="false"', "not json", "not json", ["invalid_value"]),
    ('string="true"', '["a"]', ["a"], []),  # the schema says array: typed by it
    ('string="false"', '"quoted"', "quoted", []),
])
def test_dsml_string_false_means_json(attribute: str, raw: str, value: Any, issues: Any) -> None:
    result = parse(dsml("tags", attribute, raw), "deepseek_v32_dsml")
    assert result.calls[0].arguments == {"tags": value}
    assert kinds(result) == issues


def test_glm_escaped_json_is_unescaped_with_an_issue() -> None:
    value = '[{\\"a\\": \\"C:\\\\\\\\x\\"}]'  # GLM-4.6 escaping a JSON value once more
    text = f"<tool_call>write_file\\n<arg_key>tags</arg_key>\\n<arg_value>{value}</arg_value>"
    text += "</tool_call>"
    result = parse(text, "glm45")
    assert result.calls[0].arguments == {"tags": [{"a": "C:\\x"}]}
    assert sorted(set(kinds(result))) == ["escaped_newline", "escaped_value"]


# -- errors stay local (LESSONS 13, 14) --------------------------------------------------------


def test_a_parameter_tag_without_its_end_loses_only_that_parameter() -> None:
    text = (qwen(("path", "a")).replace("<parameter=path>", "<parameter=path") + "\n"
            + qwen(("mode", "1")))
    result = parse(text)
    assert [c.arguments for c in result.calls] == [{}, {"mode": 1}]
    assert kinds(result) == ["malformed_parameter"]


def test_text_that_is_no_call_stays_content() -> None:
    text = "Write <function=name> or <tool_call> tags.\n" + qwen(("path", "a")) + "\nDone."
    result = parse(text)
    assert result.content == "Write <function=name> or <tool_call> tags.\nDone."
    assert [c.arguments for c in result.calls] == [{"path": "a"}]


# An opener followed by what its call grammar cannot continue with: a name or attribute must
# come next (checked for every format's openers; these are the ones that end inside a tag).
NOT_OPENERS = [
    ("deepseek_v32_dsml", "<｜DSML｜invokeable"),
    ("deepseek_v32_dsml", "<｜DSML｜invoke=f"),
    ("deepseek_v32_dsml", '<｜DSML｜invoke"f"'),
    ("deepseek_v32_dsml", "<|DSML|invoked"),
    ("deepseek_v32_dsml", "<｜DSML｜invoke 3"),
    ("deepseek_v32_dsml", "<｜DSML｜invoke it is"),
    ("deepseek_v32_dsml", '<｜DSML｜invoke name="f" and so'),
    ("minimax_m2", "<invoke 3"),
    ("minimax_m2", '<invoke "f"'),
    ("minimax_m2", "<invoke <b>"),
    ("minimax_m2", "<invoke it is"),
    ("minimax_m2", "<invoke name=f x y"),
    ("qwen3_coder", "<function=<"),
    ("qwen3_coder", "<function=<b"),
]


@pytest.mark.parametrize("fmt, opener", NOT_OPENERS)
@pytest.mark.parametrize("after", ["", " more prose.", "\nmore prose."])
def test_an_opener_its_grammar_cannot_continue_is_prose(fmt: str, opener: str, after: str) -> None:
    text = f"Hi {opener}{after}"
    result = parse(text, fmt)
    assert (result.content, result.calls, result.incomplete, result.issues) == (text, [], [], [])


@pytest.mark.parametrize("fmt, opener", [
    ("deepseek_v32_dsml", "<｜DSML｜invoke"),
    ("deepseek_v32_dsml", "<｜DSML｜invoke name"),
    ("deepseek_v32_dsml", '<｜DSML｜invoke name="get_wea'),
    ("deepseek_v32_dsml", '<｜DSML｜invoke name="f" x'),
    ("minimax_m2", "<invoke "),
    ("minimax_m2", "<invoke name="),
    ("minimax_m2", "<invoke name=get"),
    ("qwen3_coder", "<function=get weather"),
])  # fmt: skip
def test_an_open_tag_the_grammar_can_still_continue_is_a_call_cut_short(
    fmt: str, opener: str
) -> None:
    result = parse(f"Hi {opener}", fmt)
    assert result.content == "Hi" and [c.raw for c in result.incomplete] == [opener]


@pytest.mark.parametrize("fmt", XML_FORMATS)
def test_random_markup_never_raises_and_loses_nothing(fmt: str) -> None:
    pieces = ["<tool_call>", "<function=a>", "<parameter=", ">", "</parameter>", "<arg_key>",
              "</arg_value>", '<invoke name="a">', "</invoke>", "<｜DSML｜parameter", "\n", "x"]
    for seed in range(30):
        text = "".join(pieces[(seed * 7 + i * i) % len(pieces)] for i in range(seed))
        result = parse(text, fmt, tools=None)
        assert_lossless(text, result)
        streamed = stream_chunks(fmt, split_at(text, range(0, len(text), 3)), tools=None)[1]
        assert streamed.model_dump() == result.model_dump(), text

