"""A call whose close tag is missing ends where the next call's opener begins.

In every format whose calls have close tags, ``CALL_1`` (close tag left out) then ``CALL_2``
gives both calls, with a ``missing_close_tag`` issue for the first (gpt-oss, whose calls end
with a token: ``missing_end_token``); the same where a whole call section is left open and the
next one begins. Each text is checked in one piece, one character at a time and in every 2-way
split (`helpers.checked`).
"""

from __future__ import annotations

import re

import pytest
from helpers import checked

import toolcalls
from toolcalls import ToolCall

DSML = "｜DSML｜"
TOOLS = [
    {"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}}},
    {"name": "g", "parameters": {"type": "object", "properties": {}}},
]

CASES = {
    "hermes": (
        "hermes",
        '<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n'
        '<tool_call>\n{"name": "g", "arguments": {}}\n</tool_call>',
    ),
    "hermes_function_tag": (
        "hermes",
        '<function=f>{"a": 1}\n<function=g>{}</function>',
    ),
    "hermes_function_name": (
        "hermes",
        '<function name="f">{"a": 1}\n<function name="g">{}</function>',
    ),
    "hermes_mixed": (
        "hermes",
        '<tool_call>{"name": "f", "arguments": {"a": 1}}\n<function=g>{}</function>',
    ),
    "xml": (
        "xml",
        '<tool_call>\n<name>f</name>\n<arguments>{"a": 1}</arguments>\n'
        "<tool_call>\n<name>g</name>\n<arguments>{}</arguments>\n</tool_call>",
    ),
    "xml_no_arguments_close": (
        "xml",
        '<tool_call>\n<name>f</name>\n<arguments>{"a": 1}\n'
        "<tool_call>\n<name>g</name>\n<arguments>{}</arguments>\n</tool_call>",
    ),
    "qwen3_coder": (
        "qwen3_coder",
        "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n"
        "<tool_call>\n<function=g>\n</function>\n</tool_call>",
    ),
    "qwen3_coder_section": (
        "qwen3_coder",
        "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n"
        "<tool_call>\n<function=g>\n</function>\n</tool_call>",
    ),
    "glm45": (
        "glm45",
        "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n<tool_call>g\n</tool_call>",
    ),
    "glm47": (
        "glm47",
        "<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value><tool_call>g</tool_call>",
    ),
    "glm45_json": (
        "glm45",
        '<tool_call>{"name": "f", "arguments": {"a": 1}}\n'
        '<tool_call>{"name": "g", "arguments": {}}</tool_call>',
    ),
    "minimax_m1_section": (
        "minimax_m1",
        '<tool_calls>\n{"name": "f", "arguments": {"a": 1}}\n'
        '<tool_calls>\n{"name": "g", "arguments": {}}\n</tool_calls>',
    ),
    "minimax_m2": (
        "minimax_m2",
        '<minimax:tool_call>\n<invoke name="f">\n<parameter name="a">1</parameter>\n'
        '<invoke name="g">\n</invoke>\n</minimax:tool_call>',
    ),
    "minimax_m2_section": (
        "minimax_m2",
        '<minimax:tool_call>\n<invoke name="f">\n<parameter name="a">1</parameter>\n'
        '<minimax:tool_call>\n<invoke name="g">\n</invoke>\n</minimax:tool_call>',
    ),
    "deepseek_v32_dsml": (
        "deepseek_v32_dsml",
        f'<{DSML}function_calls>\n<{DSML}invoke name="f">\n'
        f'<{DSML}parameter name="a" string="false">1</{DSML}parameter>\n'
        f'<{DSML}invoke name="g">\n</{DSML}invoke>\n</{DSML}function_calls>',
    ),
    "deepseek_v32_dsml_section": (
        "deepseek_v32_dsml",
        f'<{DSML}function_calls>\n<{DSML}invoke name="f">\n'
        f'<{DSML}parameter name="a" string="false">1</{DSML}parameter>\n'
        f'<{DSML}tool_calls>\n<{DSML}invoke name="g">\n</{DSML}invoke>\n</{DSML}tool_calls>',
    ),
    "deepseek_v3": (
        "deepseek_v3",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n"
        '{"a": 1}\n```<｜tool▁call▁begin｜>function<｜tool▁sep｜>g\n```json\n{}\n```'
        "<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    ),
    "deepseek_v3_hermes": (
        "deepseek_v3",
        '<tool_call>{"name": "f", "arguments": {"a": 1}}\n'
        '<tool_call>{"name": "g", "arguments": {}}</tool_call>',
    ),
    "deepseek_v31": (
        "deepseek_v31",
        '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": 1}'
        "<｜tool▁call▁begin｜>g<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    ),
    "kimi_k2": (
        "kimi_k2",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0"
        '<|tool_call_argument_begin|>{"a": 1}<|tool_call_begin|>functions.g:1'
        "<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>",
    ),
    "kimi_k2_section": (
        "kimi_k2",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0"
        '<|tool_call_argument_begin|>{"a": 1}<|tool_call_end|>'
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.g:1"
        "<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>",
    ),
    "gpt_oss": (
        "gpt_oss",
        '<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1}'
        "<|start|>assistant<|channel|>commentary to=functions.g <|constrain|>json"
        "<|message|>{}<|call|>",
    ),
}

_F = ToolCall(id="call00000", name="f", arguments={"a": 1}, span=(0, 0))
_G = ToolCall(id="call00001", name="g", arguments={}, span=(0, 0))


def _rendered_without_last_close_tag(fmt: str) -> str:
    """`fmt`'s rendered call of f, cut before its last close tag, then its rendered call of g."""
    first = toolcalls.get_format(fmt).render_calls([_F])
    # A close tag, or a special token that closes (Step-3's <｜tool_calls_end｜>).
    last = re.search(r"(?:</[^<>]+>|<｜[^<>｜]+_end｜>)\s*$", first)
    assert last is not None, first
    return first[: last.start()] + toolcalls.get_format(fmt).render_calls([_G])


# And every XML-parameter format (`Format.refused_values`) as it renders its calls.
CASES |= {
    f"{fmt}_rendered": (fmt, _rendered_without_last_close_tag(fmt))
    for fmt in toolcalls.list_formats()
    if toolcalls.get_format(fmt).refused_values
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_call_without_its_close_tag_ends_at_the_next_call(case: str) -> None:
    fmt, text = CASES[case]
    result = checked(fmt, text, tools=TOOLS)
    assert [(c.name, c.arguments) for c in result.calls] == [("f", {"a": 1}), ("g", {})]
    assert result.incomplete == [] and result.content == ""
    kinds = {issue.kind for issue in result.issues} - {"json_call"}  # GLM: a Hermes-style call
    assert kinds == {"missing_end_token" if fmt == "gpt_oss" else "missing_close_tag"}
    # Each issue is the first call's (or its section's), reported before the second starts.
    first, second = (call.span for call in result.calls)
    assert all(first[0] <= issue.span[0] <= second[0] for issue in result.issues), result.issues


@pytest.mark.parametrize("broken", ["", ",}"])  # JSON cut, or bad before its line ends
@pytest.mark.parametrize(
    ("fmt", "opener"),
    [("hermes", "<tool_call>"), ("xml", "<tool_call>\n<name>f</name>\n<arguments>")],
)
def test_a_malformed_call_without_its_close_tag_ends_at_the_next_call(
    fmt: str, opener: str, broken: str
) -> None:
    """At the next call's opener, where the JSON breaks or where a later line begins."""
    body = '{"a": 1' if fmt == "xml" else '{"name": "f", "arguments": {"a": 1'
    body += broken
    second = (
        '<tool_call>{"name": "g", "arguments": {}}</tool_call>'
        if fmt == "hermes"
        else "<tool_call>\n<name>g</name>\n<arguments>{}</arguments>\n</tool_call>"
    )
    result = checked(fmt, f"{opener}{body}\n{second}", tools=TOOLS)
    assert [(c.name, c.arguments) for c in result.calls] == [("g", {})]
    assert [c.name for c in result.incomplete] == ["f"]
    assert [issue.kind for issue in result.issues] == ["invalid_arguments"]


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        (
            "hermes",
            '<tool_call>{"name": "f", "arguments": {"a": 1}}\nNow g:\n'
            '<tool_call>{"name": "g", "arguments": {}}</tool_call>',
        ),
        (
            "xml",
            '<tool_call>\n<name>f</name>\n<arguments>{"a": 1}</arguments>\nNow g:\n'
            "<tool_call>\n<name>g</name>\n<arguments>{}</arguments>\n</tool_call>",
        ),
    ],
)
def test_text_after_a_call_without_its_close_tag_ends_at_the_next_call(fmt: str, text: str) -> None:
    """The text is skipped as before (``unexpected_text``), but only up to the next call."""
    result = checked(fmt, text, tools=TOOLS)
    assert [(c.name, c.arguments) for c in result.calls] == [("f", {"a": 1}), ("g", {})]
    assert [issue.kind for issue in result.issues] == ["unexpected_text", "missing_close_tag"]


def test_a_malformed_call_mentioning_the_opener_inside_a_line_still_ends_at_its_close() -> None:
    text = '<tool_call>{"name": "f", "arguments": {"a": 1,, "doc": "a <tool_call>"}}</tool_call>'
    result = checked("hermes", text, tools=TOOLS)
    assert result.calls == [] and [c.raw for c in result.incomplete] == [text]
