"""../shared/LESSONS.md for the formats beyond Hermes: each lesson, on the formats it names.

Every case is checked in one piece, one character at a time and at every 2-way split (LESSONS
3 and 4: chunking must never change the result), then against what the lesson requires.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from helpers import checked, stream_chunks

import toolcalls
from toolcalls import ArgumentsDelta, ParseResult, ToolCall

DSML = "｜DSML｜"


def tool(name: str, **properties: str) -> dict[str, Any]:
    schema = {key: {"type": kind} for key, kind in properties.items()}
    return {"name": name, "parameters": {"type": "object", "properties": schema}}


def calls(result: ParseResult) -> list[tuple[str, dict[str, Any]]]:
    return [(call.name, call.arguments) for call in result.calls]


def dsml_invoke(name: str, **values: str) -> str:
    params = "".join(
        f'<{DSML}parameter name="{key}" string="true">{value}</{DSML}parameter>\n'
        for key, value in values.items()
    )
    return f'<{DSML}invoke name="{name}">\n{params}</{DSML}invoke>\n'


# -- 3, 4, 5: any chunking, two chunks, several calls in one delta -----------------------------


def test_04_three_dsml_calls_survive_every_two_way_split() -> None:
    body = "".join(dsml_invoke(n, q=n) for n in ("a", "b", "c"))
    text = f"<{DSML}function_calls>\n{body}</{DSML}function_calls>"
    assert calls(checked("deepseek_v32_dsml", text)) == [(n, {"q": n}) for n in "abc"]


@pytest.mark.parametrize(
    ("fmt", "text", "expected"),
    [
        ("minimax_m2", '<minimax:tool_call><invoke name="f"><parameter name="a">1</parameter>'
         "</invoke></minimax:tool_call>", [("f", {"a": "1"})]),
        ("mistral", '[TOOL_CALLS]f[ARGS]{"a": 1}[TOOL_CALLS]g[ARGS]{"b": 2}',
         [("f", {"a": 1}), ("g", {"b": 2})]),
        ("mistral", '[TOOL_CALLS][{"name": "f", "arguments": {}}, {"name": "g", "arguments": {}}]',
         [("f", {}), ("g", {})]),
    ],
)
def test_03_calls_never_vanish_under_chunking(fmt: str, text: str, expected: list) -> None:
    assert calls(checked(fmt, text)) == expected


def test_03_an_integer_streams_as_an_integer() -> None:
    text = "<tool_call>f\n<arg_key>n</arg_key>\n<arg_value>123</arg_value>\n</tool_call>"
    result = checked("glm45", text, tools=[tool("f", n="integer")])
    assert calls(result) == [("f", {"n": 123})]
    events, _ = stream_chunks("glm45", list(text), tools=[tool("f", n="integer")])
    assert "".join(e.fragment for e in events if isinstance(e, ArgumentsDelta)) == '{"n": 123}'


@pytest.mark.parametrize(
    ("fmt", "text", "content", "names"),
    [
        # An opener cut off at the end of one reply, then prose that mentions the tag.
        ("glm45", "Calling: <tool_call>\n\nUse <tool_call> tags.\nThen <tool_call>get_time\n"
         "</tool_call>", "Calling: <tool_call>\n\nUse <tool_call> tags.\nThen", ["get_time"]),
        ("glm47", "<tool_call>\nget_time</tool_call>", "<tool_call>\nget_time</tool_call>", []),
        # Blanks after the name are read (GLM-4.5-Air, ik_llama.cpp discussion #753).
        ("glm45", "<tool_call>ls <arg_key>dirPath</arg_key> <arg_value>backend</arg_value> "
         "</tool_call>", "", ["ls"]),
        ("glm45", "<tool_call>f\n<arg_key>city\n</arg_key>\n<arg_value>x</arg_value>\n</tool_call>",
         "", ["f"]),
    ],
)  # fmt: skip
def test_03_a_glm_call_name_stands_on_the_openers_line(
    fmt: str, text: str, content: str, names: list[str]
) -> None:
    result = checked(fmt, text)
    assert result.content == content
    assert [call.name for call in result.calls] == names


# -- 9, 10, 19: arguments stream while they arrive, never a prefix to rewrite ------------------

LONG = "line of code\n" * 200
STREAMED_VALUES = {
    "qwen3_coder": (
        f"<tool_call>\n<function=w>\n<parameter=s>\n{LONG}\n</parameter>\n</function>\n</tool_call>"
    ),
    "glm45": f"<tool_call>w\n<arg_key>s</arg_key>\n<arg_value>{LONG}</arg_value>\n</tool_call>",
    "minimax_m2": (
        f'<minimax:tool_call>\n<invoke name="w">\n<parameter name="s">{LONG}</parameter>\n'
        "</invoke>\n</minimax:tool_call>"
    ),
    "deepseek_v32_dsml": (
        f"<{DSML}function_calls>\n{dsml_invoke('w', s=LONG)}</{DSML}function_calls>"
    ),
    "kimi_k2": (
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.w:0<|tool_call_argument_begin|>"
        + json.dumps({"s": LONG})
        + "<|tool_call_end|><|tool_calls_section_end|>"
    ),
    "xml": (
        "<tool_call><name>w</name><arguments>"
        + json.dumps({"s": LONG})
        + "</arguments></tool_call>"
    ),
}


_LONG_CALL = ToolCall(id="call00000", name="w", arguments={"s": LONG}, span=(0, 0))
# Each format's own rendering of the call, and the hand-written spellings above.
STREAMED = [
    (fmt, toolcalls.get_format(fmt).render_calls([_LONG_CALL])) for fmt in toolcalls.list_formats()
] + sorted(STREAMED_VALUES.items())
STREAMED_IDS = [f"{fmt}-{'rendered' if i < len(STREAMED) - len(STREAMED_VALUES) else 'written'}"
                for i, (fmt, _) in enumerate(STREAMED)]


@pytest.mark.parametrize(("fmt", "text"), STREAMED, ids=STREAMED_IDS)
def test_09_19_long_string_values_stream_as_they_arrive(fmt: str, text: str) -> None:
    parser = toolcalls.stream(fmt, tools=[tool("w", s="string")])
    streamed, longest_silence, silence = "", 0, 0
    for start in range(0, len(text), 4):
        fragments = [
            e.fragment
            for e in parser.feed(text[start : start + 4])
            if isinstance(e, ArgumentsDelta)
        ]
        silence = 0 if fragments else silence + 4
        longest_silence = max(longest_silence, silence) if streamed else 0
        streamed += "".join(fragments)
        assert "</" not in streamed and "<|" not in streamed, (
            "a partial terminal leaked into the value"
        )
    streamed += "".join(e.fragment for e in parser.close() if isinstance(e, ArgumentsDelta))
    call = parser.result().calls[0]
    # XML-style values lose one newline before the closing tag where the template adds it.
    assert call.arguments["s"] in (LONG, LONG.removesuffix("\n"))
    assert streamed == call.arguments_json()
    assert longest_silence <= 40, f"{longest_silence} characters arrived without a fragment"


@pytest.mark.parametrize("fmt", ["qwen3_coder", "glm45", "minimax_m2"])
def test_10_non_string_values_are_emitted_only_when_final(fmt: str) -> None:
    value = "12345678"
    text = {
        "qwen3_coder": (
            f"<tool_call>\n<function=f>\n<parameter=n>\n{value}\n</parameter>\n</function>\n"
            "</tool_call>"
        ),
        "glm45": (
            f"<tool_call>f\n<arg_key>n</arg_key>\n<arg_value>{value}</arg_value>\n</tool_call>"
        ),
        "minimax_m2": (
            f'<minimax:tool_call><invoke name="f"><parameter name="n">{value}</parameter>'
            "</invoke></minimax:tool_call>"
        ),
    }[fmt]
    events, result = stream_chunks(fmt, list(text), tools=[tool("f", n="integer")])
    fragments = [e.fragment for e in events if isinstance(e, ArgumentsDelta)]
    assert not any(
        value[:k] in f and value not in f for f in fragments for k in range(1, len(value))
    )
    assert result.calls[0].arguments == {"n": 12345678}


# -- 12: coercion by schema only, the raw string when it does not convert, never a lost call ----


@pytest.mark.parametrize(
    ("kind", "raw", "expected", "issue"),
    [
        ("string", "03106", "03106", False),
        ("integer", "140.0", 140, False),
        ("integer", "2026-01-15", "2026-01-15", True),
        ("boolean", "maybe", "maybe", True),
    ],
)
def test_12_coercion_follows_the_schema_and_keeps_the_call(
    kind: str, raw: str, expected: Any, issue: bool
) -> None:
    text = (
        f"<tool_call>\n<function=f>\n<parameter=v>\n{raw}\n</parameter>\n</function>\n</tool_call>"
    )
    result = checked("qwen3_coder", text, tools=[tool("f", v=kind)])
    assert calls(result) == [("f", {"v": expected})]
    assert any(i.kind == "invalid_value" for i in result.issues) == issue


# -- 13, 14, 15: errors stay local; raw text with XML specials and the format's own tags --------


def test_13_a_parameter_tag_without_its_bracket_keeps_every_other_call() -> None:
    text = (
        "<tool_call>\n<function=a>\n<parameter=x\n1\n</parameter>\n<parameter=y>\n2\n</parameter>\n"
        "</function>\n</tool_call>\n<tool_call>\n<function=b>\n</function>\n</tool_call>"
    )
    result = checked("qwen3_coder", text)
    assert [c.name for c in result.calls] == ["a", "b"]
    assert result.calls[0].arguments["y"] == "2"
    assert result.issues


SPECIALS = "pwd && ls; echo '<' \"a < b\" </parameter> x </function> y </tool_call> z"
OWN_TAGS = {
    "qwen3_coder": (
        f"<tool_call>\n<function=sh>\n<parameter=cmd>\n{SPECIALS}\n</parameter>\n</function>\n"
        "</tool_call>"
    ),
    "glm45": (
        f"<tool_call>sh\n<arg_key>cmd</arg_key>\n<arg_value>{SPECIALS} </arg_value> x</arg_value>\n"
        "</tool_call>"
    ),
    "glm47": (
        f"<tool_call>sh<arg_key>cmd</arg_key><arg_value>{SPECIALS} </arg_value> x</arg_value>"
        "</tool_call>"
    ),
    "minimax_m2": (
        f'<minimax:tool_call>\n<invoke name="sh">\n<parameter name="cmd">{SPECIALS} </invoke> x'
        "</parameter>\n</invoke>\n</minimax:tool_call>"
    ),
    "deepseek_v32_dsml": f"<{DSML}function_calls>\n"
    + dsml_invoke("sh", cmd=f"{SPECIALS} </{DSML}parameter> x")
    + f"</{DSML}function_calls>",
}


def _own_close_tag_in_value(fmt: str) -> str:
    """`fmt`'s rendered call whose value, written raw, is SPECIALS, the format's own value
    close tag, then text: a close tag that no structural tag follows is data."""
    call = ToolCall(id="call00000", name="sh", arguments={"cmd": "VALUE"}, span=(0, 0))
    rendered = toolcalls.get_format(fmt).render_calls([call])
    after = rendered[rendered.index("VALUE") + len("VALUE") :]
    close = re.match(r"\n?(</[^<>]+>)", after)
    assert close is not None, rendered
    return re.sub("\n?VALUE\n?", lambda _: f"{SPECIALS} {close.group(1)} x", rendered, count=1)


# Every XML-parameter format (`Format.refused_values`) as it renders, and hand-written calls.
OWN_TAG_CASES = [
    (fmt, _own_close_tag_in_value(fmt))
    for fmt in toolcalls.list_formats()
    if toolcalls.get_format(fmt).refused_values
] + sorted(OWN_TAGS.items())


@pytest.mark.parametrize(("fmt", "text"), OWN_TAG_CASES)
def test_14_15_raw_text_and_the_formats_own_close_tags_are_data(fmt: str, text: str) -> None:
    result = checked(fmt, text)
    assert [c.name for c in result.calls] == ["sh"]
    value = result.calls[0].arguments["cmd"]
    assert value.startswith(SPECIALS), value
    assert not result.incomplete and result.content.strip() == ""


# -- 17, 18: every observed spelling ----------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "name"),
    [("functions.get_weather:0", "get_weather"), ("get_weather:0", "get_weather"),
     ("functions.get_weather", "get_weather")],
)
def test_17_kimi_ids_are_read_in_every_spelling(header: str, name: str) -> None:
    for section in ("<|tool_calls_section_begin|>", "<|tool_call_section_begin|>"):
        text = (f"{section}<|tool_call_begin|>{header}<|tool_call_argument_begin|>"
                '{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>')
        assert calls(checked("kimi_k2", text)) == [(name, {"city": "Paris"})]


@pytest.mark.parametrize(
    "text",
    [
        f"<{DSML}function_calls>\n{dsml_invoke('f', a='1')}</{DSML}function_calls>",
        f"<{DSML}tool_calls>\n{dsml_invoke('f', a='1')}</{DSML}tool_calls>",
        f"{dsml_invoke('f', a='1')}</{DSML}function_calls>",
        f"<{DSML}function_calls>\n{dsml_invoke('f', a='1')}",
        (
            f"<{DSML}function_calls>\n{dsml_invoke('f', a='1')}then prose\n"
            f"{dsml_invoke('f', a='1')}</{DSML}function_calls>"
        ),
        (
            f"<|DSML|function_calls>\n{dsml_invoke('f', a='1').replace(DSML, '|DSML|')}"
            "</|DSML|function_calls>"
        ),
    ],
    ids=["v32", "v4", "no_wrapper", "unterminated_section", "prose_between", "ascii_pipes"],
)
def test_18_dsml_variants_are_never_silently_content(text: str) -> None:
    result = checked("deepseek_v32_dsml", text)
    assert result.calls and all(call == ("f", {"a": "1"}) for call in calls(result))
    assert "invoke" not in result.content


# -- 20: calls inside reasoning are never calls ------------------------------------------------

IN_REASONING = {
    "hermes": '<tool_call>{"name": "f", "arguments": {}}</tool_call>',
    "qwen3_coder": "<tool_call>\n<function=f>\n</function>\n</tool_call>",
    "glm45": "<tool_call>f\n</tool_call>",
    "minimax_m2": '<minimax:tool_call><invoke name="f"></invoke></minimax:tool_call>',
    "deepseek_v32_dsml": (
        f'<{DSML}function_calls><{DSML}invoke name="f"></{DSML}invoke></{DSML}function_calls>'
    ),
    "deepseek_v31": (
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}"
        "<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
    ),
}


@pytest.mark.parametrize("fmt", sorted(IN_REASONING))
def test_20_call_markup_inside_reasoning_is_reasoning(fmt: str) -> None:
    text = f"<think>draft: {IN_REASONING[fmt]}</think>answer"
    result = checked(fmt, text)
    assert not result.calls and not result.incomplete
    assert IN_REASONING[fmt] in (result.reasoning or "")
    assert result.content == "answer"


# -- 22: wrapper-less JSON that names no declared tool is content ------------------------------


@pytest.mark.parametrize("fmt", ["llama3_json", "ollama", "pythonic"])
def test_22_unwrapped_json_naming_no_tool_is_content(fmt: str) -> None:
    text = '{"name": "Bingo", "age": 30}' if fmt != "pythonic" else '[Bingo(age=30)]'
    result = checked(fmt, text, tools=[tool("get_weather", city="string")])
    assert not result.calls and result.content == text


# -- y-agent: argument text never hijacks the call; silent losses get an issue -----------------


@pytest.mark.parametrize(
    "payload", ["<name>Bob</name>", "<function=evil>", '<invoke name="X">', "</tool_call>"]
)
@pytest.mark.parametrize("fmt", ["hermes", "xml"])
def test_argument_text_never_renames_or_cuts_the_call(fmt: str, payload: str) -> None:
    args = json.dumps({"text": payload})
    text = (f'<tool_call>{{"name": "note", "arguments": {args}}}</tool_call>' if fmt == "hermes"
            else f"<tool_call><name>note</name><arguments>{args}</arguments></tool_call>")
    assert calls(checked(fmt, text)) == [("note", {"text": payload})]


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("qwen3_coder", "<tool_call>\n<function=f>\ngarbage\n</function>\n</tool_call>"),
        ("qwen3_coder", "<function=f>\n<parameter=a>\n1\n</parameter>\n</function>"),
        ("hermes", '<tool_call>{"name": "f", "parameters": {"a": 1}}</tool_call>'),
        (
            "minimax_m2",
            '<minimax:tool_call><invoke name="f"><parameter name="a">1</parameter></invoke>',
        ),
    ],
    ids=["body_garbage", "no_wrapper", "parameters_key", "minimax_unclosed_section"],
)
def test_silent_losses_become_issues(fmt: str, text: str) -> None:
    result = checked(fmt, text)
    assert result.issues, "a recovery without an issue is a silent change"
    assert result.calls or result.incomplete


def test_json_repairs_never_touch_xml_values() -> None:
    code = 'print("a\\nb")\n    """doc"""'
    text = (
        f"<tool_call>\n<function=py>\n<parameter=code>\n{code}\n</parameter>\n</function>\n"
        "</tool_call>"
    )
    assert calls(checked("qwen3_coder", text)) == [("py", {"code": code})]
