"""Granite-20B-FC against the template vLLM ships for it, and its detection.

The template raises on a system message (it loops over ``messages`` where it meant
``loop_messages``), so `test_template_fidelity` lists every case unrenderable; here each case
is rendered without its system message, and the tools, calls and results `Granite20bFc` writes
must appear in that output exactly.
"""

from __future__ import annotations

from typing import Any

import pytest
import test_template_fidelity as fidelity

import toolcalls

NAME = "granite_20b_fc"
FORMAT = toolcalls.get_format(NAME)


def _render_without_system(case: dict[str, Any]) -> str:
    messages = fidelity.conversation(case, NAME)
    assert messages[0]["role"] == "system"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fidelity, "conversation", lambda case, fmt: messages[1:])
        return fidelity.render_template(NAME, case)


@pytest.mark.parametrize("case", fidelity.CASES, ids=[c["name"] for c in fidelity.CASES])
def test_tools_calls_and_results_are_the_templates(case: dict[str, Any]) -> None:
    output = _render_without_system(case)
    tools = fidelity.load_toolset(case["toolset"])
    calls = fidelity.case_calls(case, NAME)
    fidelity.assert_written(FORMAT.render_tools(tools), output, "the tools block")
    fidelity.assert_written(FORMAT.render_calls(calls), output, "the calls")
    written = [FORMAT.render_result(call, result)
               for call, result in zip(calls, case["results"], strict=True)]
    for result in written:
        fidelity.assert_written(result, output, "a tool result")
    before, between, after = FORMAT.result_run  # how the proxy's prompt mode joins them
    fidelity.assert_written(before + between.join(written) + after, output, "the results")


def test_the_template_really_raises_on_a_system_message() -> None:
    with pytest.raises(Exception, match="Unexpected combination"):
        fidelity.render_template(NAME, fidelity.CASES[0])


def test_the_calls_the_template_writes_read_back() -> None:
    case = fidelity.CASES[3]
    output = _render_without_system(case)
    turn = output[output.index("\nASSISTANT:") + len("\nASSISTANT:"):output.index("<|endoftext|>")]
    parsed = toolcalls.parse(turn, format=NAME)
    expected = fidelity.case_calls(case, NAME)
    assert [(c.name, c.arguments) for c in parsed.calls] == [
        (c.name, c.arguments) for c in expected]


@pytest.mark.parametrize("model", [
    "ibm-granite/granite-20b-functioncalling", "granite-20b-functioncalling"])
def test_model_id_selects_it(model: str) -> None:
    assert toolcalls.get_format(model).name == NAME


def test_granite_3_and_4_model_ids_do_not() -> None:
    assert toolcalls.get_format("ibm-granite/granite-3.3-8b-instruct").name == "granite"
    assert toolcalls.get_format("ibm-granite/granite-4.0-h-small").name == "granite4"


def test_auto_detection_picks_it_and_keeps_no_tag_in_content() -> None:
    text = ('Let me check.\n<function_call> {"name": "get_weather", "arguments": {"city": "Oslo"}}'
            '\n<function_call> {"name": "get_time", "arguments": {}}')
    parsed = toolcalls.parse(text, format="auto")
    assert parsed.format == NAME
    assert parsed.content == "Let me check."
    assert [c.name for c in parsed.calls] == ["get_weather", "get_time"]
