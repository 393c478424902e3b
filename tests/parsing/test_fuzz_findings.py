"""The leniencies the differential fuzzer found (bench/README.md, "Differential fuzzing"),
each decided here as a rule: read or not, and an accepted slip always carries an issue.

- Hermes ``{"name": "f", "": {}}``: a member other than name, arguments (or "parameters") and
  id is not read, and an ``unexpected_text`` issue names it (it was dropped silently). SGLang
  reads ``f({})`` silently; vLLM needs "arguments" and reads no call. Kept lenient: the call
  is read, the member is reported.
- Hermes ``<tool>`` as an opener: a wrapper Hermes 2 Pro was seen to emit (hermes.py), kept,
  with its ``recovered_slip`` issue.
- DSML ``<｜DSML｜invokename="f">``: no model seen to write it, and vLLM and SGLang require
  the blank. Not a call tag: batch read it silently while a stream, which must decide before
  the attribute comes, failed it. Inside a block it is a call that fails (``malformed_call``,
  its text kept raw); outside, prose.
"""

from __future__ import annotations

import pytest
from helpers import checked


def kinds_and_calls(fmt: str, text: str) -> tuple[list[str], list[tuple[str, dict]]]:
    result = checked(fmt, text)
    return ([issue.kind for issue in result.issues],
            [(call.name, call.arguments) for call in result.calls])


@pytest.mark.parametrize(("body", "member"), [
    ('{"name": "f", "": {}}', "''"),
    ('{"name": "f", "args": {"a": 1}}', "'args'"),
    ('{"name": "f", "arguments": {}, "parameters": {"a": 1}}', "'parameters'"),
])
def test_hermes_names_a_member_it_does_not_read(body: str, member: str) -> None:
    result = checked("hermes", f"<tool_call>{body}</tool_call>")
    assert [(call.name, call.arguments) for call in result.calls] == [("f", {})]
    assert [issue.kind for issue in result.issues] == ["unexpected_text"]
    assert member in result.issues[0].message


@pytest.mark.parametrize("body", [
    '{"name": "f"}', '{"id": "c1", "name": "f", "arguments": {"a": 1}}',
    '{"name": "f", "parameters": {"a": 1}}',
])
def test_hermes_known_members_raise_no_unexpected_text(body: str) -> None:
    kinds, calls = kinds_and_calls("hermes", f"<tool_call>{body}</tool_call>")
    assert "unexpected_text" not in kinds and [name for name, _ in calls] == ["f"]


def test_hermes_tool_opener_is_a_known_wrapper_with_its_issue() -> None:
    kinds, calls = kinds_and_calls("hermes", '<tool>{"name": "f", "arguments": {}}</tool>')
    assert calls == [("f", {})] and kinds == ["recovered_slip"]


@pytest.mark.parametrize("bar", ["｜DSML｜", "|DSML|"])
def test_dsml_invoke_without_a_blank_is_no_call_tag(bar: str) -> None:
    call = (f'<{bar}invokename="f">\n<{bar}parameter name="a" string="true">x</{bar}parameter>'
            f"\n</{bar}invoke>")
    text = f"<{bar}function_calls>\n{call}\n</{bar}function_calls>"
    result = checked("deepseek_v32_dsml", text)
    assert result.calls == [] and [c.raw for c in result.incomplete] == [call]
    assert [issue.kind for issue in result.issues] == ["malformed_call"]
    assert checked("deepseek_v32_dsml", call).content == call  # outside a block: prose
    spaced = checked("deepseek_v32_dsml", text.replace("invokename", "invoke name"))
    assert [(c.name, c.arguments) for c in spaced.calls] == [("f", {"a": "x"})]
