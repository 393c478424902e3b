"""../shared/LESSONS.md, one test per failure existing parsers shipped (numbers refer to it).

Format-specific lessons also live in each format's fixtures; these run on the engine through
the Hermes format, whose JSON bodies exercise the shared JSON streaming.
"""

from __future__ import annotations

import json

import pytest
from helpers import assert_events_consistent, stream_chunks

import toolcalls
from toolcalls import ArgumentsDelta, TextDelta, ToolCallEnd, ToolCallStart


def hermes(arguments: dict, name: str = "run") -> str:
    body = json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)
    return f"<tool_call>\n{body}\n</tool_call>"


def test_01_23_fragments_concatenate_to_the_canonical_arguments() -> None:
    text = hermes({"path": "a.py", "n": [1, 2.5, None, True], "o": {"k": "v"}})
    for size in (1, 3, 7, len(text)):
        events, result = stream_chunks(
            "hermes", [text[i : i + size] for i in range(0, len(text), size)]
        )
        joined = "".join(e.fragment for e in events if isinstance(e, ArgumentsDelta))
        assert joined == result.calls[0].arguments_json()


def test_02_braces_inside_string_arguments() -> None:
    text = hermes({"cmd": "mkdir -p test/{test1,test2"})
    events, result = stream_chunks("hermes", list(text))
    assert result.calls[0].arguments == {"cmd": "mkdir -p test/{test1,test2"}
    assert_events_consistent(events, result)


def test_05_one_delta_holds_several_calls() -> None:
    text = hermes({"a": 1}, "f") + hermes({"b": 2}, "g") + "done"
    events, result = stream_chunks("hermes", [text])
    assert [e.name for e in events if isinstance(e, ToolCallStart)] == ["f", "g"]
    assert [c.arguments for c in result.calls] == [{"a": 1}, {"b": 2}]


def test_07_ids_are_assigned_once_and_deterministically() -> None:
    text = hermes({"a": 1}) + hermes({"b": 2})
    runs = [stream_chunks("hermes", list(text))[0], stream_chunks("hermes", [text])[0]]
    ids = [[e.id for e in events if isinstance(e, ToolCallStart)] for events in runs]
    assert ids[0] == ids[1] == ["call_0", "call_1"]


@pytest.mark.parametrize(
    "value", ['say \\"hi\\"', "back\\\\slash", "caf\\u00e9", "\\ud83d\\ude00 x"]
)
def test_08_escapes_split_at_every_position(value: str) -> None:
    text = '<tool_call>{"name": "f", "arguments": {"s": "' + value + '"}}</tool_call>'
    expected = toolcalls.parse(text, "hermes")
    assert expected.calls[0].arguments == {"s": json.loads('"' + value + '"')}
    for cut in range(len(text) + 1):
        events, result = stream_chunks("hermes", [text[:cut], text[cut:]])
        assert result == expected
        assert_events_consistent(events, result)


def test_09_long_string_arguments_stream_while_they_arrive() -> None:
    content = "x" * 5000
    text = hermes({"path": "big.txt", "content": content})
    parser = toolcalls.stream("hermes")
    silent = longest = 0
    started = False
    for start in range(0, len(text), 4):
        events = parser.feed(text[start : start + 4])
        started = started or any(isinstance(e, ToolCallStart) for e in events)
        silent = 0 if events or not started else silent + 4
        longest = max(longest, silent)
    # Once the call is named, nothing waits longer than a closing marker could be.
    assert started and longest <= len("</tool_call>") + 4, longest


def test_10_non_string_values_are_emitted_only_when_final() -> None:
    text = hermes({"n": 123456789, "f": -1.5e-3})
    events, _ = stream_chunks("hermes", list(text))
    numbers = [
        e.fragment for e in events if isinstance(e, ArgumentsDelta) and e.fragment[:1].isdigit()
    ]
    assert "123456789" in numbers or any("123456789" in f for f in numbers)
    assert not any(f in ("1", "12", "123") for f in numbers)


def test_11_the_envelope_never_leaks_into_arguments() -> None:
    events, _ = stream_chunks("hermes", list(hermes({"q": "x"}, "search")))
    joined = "".join(e.fragment for e in events if isinstance(e, ArgumentsDelta))
    assert json.loads(joined) == {"q": "x"} and "search" not in joined


def test_13_one_malformed_call_keeps_the_others() -> None:
    text = '<tool_call>{"name": "f", "arguments": {"a": }}</tool_call>' + hermes({"b": 1}, "g")
    result = toolcalls.parse(text, "hermes")
    assert [c.name for c in result.calls] == ["g"]
    assert result.incomplete[0].name == "f" and result.issues[0].kind == "invalid_arguments"


def test_24_truncation_is_never_a_finished_call() -> None:
    text = hermes({"path": "a", "content": "long"})[:-20]
    events, result = stream_chunks("hermes", [text])
    assert not result.calls and not any(isinstance(e, ToolCallEnd) for e in events)
    assert result.incomplete[0].name == "run"


def test_prose_that_mentions_the_tag_loses_nothing() -> None:
    text = "Answer inside <tool_call> tags. " + hermes({"a": 1})
    events, result = stream_chunks("hermes", list(text))
    assert result.content == "Answer inside <tool_call> tags."
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == result.content
    assert len(result.calls) == 1


def test_parameterless_call_keeps_empty_arguments() -> None:
    result = toolcalls.parse(
        '<tool_call>{"name": "get_time", "arguments": {}}</tool_call>', "hermes"
    )
    assert result.calls[0].arguments == {}


def test_close_tag_inside_a_string_of_malformed_json_streams_like_batch() -> None:
    text = '<tool_call>{"name": "f", "arguments": {"a": "x</tool_call>y" junk}}</tool_call>'
    expected = toolcalls.parse(text, "hermes")
    assert expected.incomplete and expected.incomplete[0].raw == text
    for chunks in (list(text), [text[:30], text[30:]]):
        assert stream_chunks("hermes", chunks)[1] == expected


@pytest.mark.parametrize("order", ["id_first", "id_last"])
def test_07_a_model_id_is_used_only_if_known_at_call_start(order: str) -> None:
    body = (
        '"id": "x1", "name": "f"'
        if order == "id_first"
        else '"name": "f", "arguments": {}, "id": "x1"'
    )
    text = "<tool_call>{" + body + "}</tool_call>"
    expected = toolcalls.parse(text, "hermes")
    assert expected.calls[0].id == ("x1" if order == "id_first" else "call_0")
    assert stream_chunks("hermes", list(text))[1] == expected


def test_an_opener_that_prefixes_a_longer_one_waits_for_it() -> None:
    text = '<function_call>{"name": "f", "arguments": {"a": 1}}</function_call>'
    expected = toolcalls.parse(text, "hermes")
    assert [c.name for c in expected.calls] == ["f"]
    for cut in range(len(text) + 1):
        assert stream_chunks("hermes", [text[:cut], text[cut:]])[1] == expected
