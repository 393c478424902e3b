"""`Session`: a response read once, delta by delta, as the servers' tool parsers want it."""

from __future__ import annotations

import json

import pytest

import toolcalls
from toolcalls.integrations._session import AUTO, Session, Step, parser_names, tools_of

TOOLS = [{"type": "function", "function": {
    "name": "get_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"},
                                                    "days": {"type": "integer"}}}}}]
QWEN = ("Let me check.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n"
        "</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>")


def _streamed(session: Session, text: str, size: int) -> list[Step]:
    steps = [session.feed(text[at:at + size]) for at in range(0, len(text), size)]
    return [*steps, session.close()]


def _joined(steps: list[Step]) -> tuple[str, dict[int, list[str]], dict[int, str]]:
    names: dict[int, str] = {}
    arguments: dict[int, list[str]] = {}
    for step in steps:
        for piece in step.calls:
            if piece.name is not None:
                assert piece.index not in names, "a call's name comes once"
                names[piece.index] = piece.name
            arguments.setdefault(piece.index, []).append(piece.arguments)
    return "".join(step.content for step in steps), arguments, names


@pytest.mark.parametrize("size", [1, 2, 7, len(QWEN)])
def test_a_stream_in_any_chunks_is_the_whole_reading(size: int) -> None:
    whole = Session("qwen3_coder", tools_of(TOOLS))
    step = whole.whole(QWEN)
    streamed = Session("qwen3_coder", tools_of(TOOLS))
    content, arguments, names = _joined(_streamed(streamed, QWEN, size))
    assert content == step.content == "Let me check."
    assert names == {0: "get_weather"}
    assert json.loads("".join(arguments[0])) == {"city": "Paris", "days": 3}  # typed by tools
    assert [call.arguments for _, call in streamed.complete_calls()] == [
        call.arguments for _, call in whole.complete_calls()] == ["".join(arguments[0])]


def test_each_delta_is_read_once_not_the_text_so_far() -> None:
    session = Session("hermes")
    first = session.feed('Hi <tool_call>{"name": "f", "arguments": {"a": ')
    second = session.feed('1}}</tool_call>')
    assert first.content == "Hi" and [piece.name for piece in first.calls] == ["f"]
    assert "".join(piece.arguments for piece in [*first.calls, *second.calls]) == '{"a": 1}'
    assert session.complete_calls()[0][1].name == "f"


def test_a_failed_call_is_content_and_never_complete() -> None:
    text = 'ok <tool_call>{"name": "f", "arguments": {"a": '
    session = Session("hermes")
    steps = _streamed(session, text, 5)
    content, _, names = _joined(steps)
    assert content == 'ok<tool_call>{"name": "f", "arguments": {"a": '  # the call's own text
    assert names == {0: "f"}  # it had started
    assert session.complete_calls() == [] and session.calls[0].failed
    assert Session("hermes").whole(text).content == content


def test_reasoning_is_content_in_its_place() -> None:
    step = Session("hermes").whole("<think>hmm</think>Sure.")
    assert step.content == "hmmSure."


def test_auto_streams_in_the_format_the_model_names() -> None:
    session = Session(AUTO, tools_of(TOOLS), model="Qwen/Qwen3-Coder-30B-A3B-Instruct")
    assert session.feed(QWEN).calls  # read as it comes
    assert session.close().calls == []


def test_auto_without_a_named_format_holds_the_text_to_the_end() -> None:
    session = Session(AUTO, tools_of(TOOLS), model="served-model")
    assert session.feed(QWEN) == Step()
    end = session.close()
    assert end.content == "Let me check." and [piece.name for piece in end.calls] == [
        "get_weather"]
    assert Session(AUTO, model=None).close() == Step()  # nothing came


def test_unreadable_tools_leave_the_parse_running(caplog: pytest.LogCaptureFixture) -> None:
    twice = [TOOLS[0], TOOLS[0]]  # two tools of one name: toolcalls refuses them
    assert tools_of(twice) == []
    assert "not used" in caplog.text
    assert Session("qwen3_coder", tools_of(twice)).whole(QWEN).calls  # still read


def test_every_format_has_a_parser_name_that_no_server_uses() -> None:
    names = parser_names()
    assert names["toolcalls_auto"] == AUTO
    assert {fmt for name, fmt in names.items() if name != "toolcalls_auto"} == set(
        toolcalls.list_formats())
    assert all(name.startswith("toolcalls_") for name in names)
