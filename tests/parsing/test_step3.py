"""Step-3 (`toolcalls.parsing.formats.step3`): what the goldens (fixtures/step3/) do not pin.

Model ids and ``auto`` pick Step-3 apart from Step-3.5 and from DeepSeek V3 (whose reader takes
``<｜tool_calls_begin｜>`` for one of its section openers); calls are written as SGLang's tests
build them from the chat template; a call's close read in halves, however the text is cut,
reads as the whole close does.
"""

from __future__ import annotations

import pytest
from helpers import checked

import toolcalls
from toolcalls import ToolCall

B, E = "<｜tool_calls_begin｜>", "<｜tool_calls_end｜>"
CB, CE, SEP = "<｜tool_call_begin｜>", "<｜tool_call_end｜>", "<｜tool_sep｜>"
TOOLS = [{"name": "f", "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}}}]


@pytest.mark.parametrize(
    ("model", "name"),
    [
        ("stepfun-ai/step3", "step3"),
        ("stepfun-ai/step3-fp8", "step3"),
        ("step3", "step3"),
        ("stepfun-ai/Step-3.5-Flash", "step35"),
        ("step3p5", "step35"),
        ("step3.5", "step35"),
    ],
)
def test_model_ids_tell_step3_from_step35(model: str, name: str) -> None:
    assert toolcalls.get_format(model).name == name


def test_auto_picks_step3_and_leaves_no_markup() -> None:
    text = "Checking.\n" + toolcalls.get_format("step3").example + "\nDone."
    detected = toolcalls.detect(text)
    assert detected == "step3"
    result = toolcalls.parse(text, "auto")
    assert [(c.name, c.arguments) for c in result.calls] == [("get_weather", {"city": "Paris"})]
    assert result.content == "Checking.\nDone."


def test_calls_are_written_as_sglang_builds_them_from_the_template() -> None:
    """SGLang's tests (``_step3_text``, ``_step3_entry``) write one call per line in the
    section, one parameter per line, strings raw and other values as JSON."""
    call = ToolCall(id="c0", name="plan", arguments={"to": "Tokyo", "days": 5, "ok": True,
                                                     "tags": ["a", 1], "x": None}, span=(0, 0))
    expected = (
        f'Sure.\n{B}\n{CB}function{SEP}<steptml:invoke name="plan">\n'
        '<steptml:parameter name="to">Tokyo</steptml:parameter>\n'
        '<steptml:parameter name="days">5</steptml:parameter>\n'
        '<steptml:parameter name="ok">true</steptml:parameter>\n'
        '<steptml:parameter name="tags">["a", 1]</steptml:parameter>\n'
        '<steptml:parameter name="x">null</steptml:parameter>\n'
        f"</steptml:invoke>{CE}\n{E}"
    )
    assert toolcalls.get_format("step3").render_calls([call], "Sure.") == expected


@pytest.mark.parametrize("between", ["", "\n", " \n "])
def test_a_close_in_halves_reads_as_the_whole_close(between: str) -> None:
    whole = f'{B}{CB}function{SEP}<steptml:invoke name="f"><steptml:parameter name="n">1'
    text = f"{whole}</steptml:parameter></steptml:invoke>{between}{CE}{E}"
    result = checked("step3", text, tools=TOOLS)
    assert [(c.name, c.arguments) for c in result.calls] == [("f", {"n": 1})]
    assert result.issues == [] and result.content == ""


def test_a_result_message_is_data() -> None:
    fmt = toolcalls.get_format("step3")
    quoted = fmt.render_calls([ToolCall(id="c0", name="f", arguments={"n": 1}, span=(0, 0))])
    text = fmt.render_result(ToolCall(id="c0", name="f", arguments={}, span=(0, 0)), quoted)
    result = checked("step3", text, tools=TOOLS)
    assert result.calls == [] and quoted in result.content
