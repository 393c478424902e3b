"""Hostile provider input: every field of every recorded response and stream event turned into
a value of the wrong shape, JSON nested thousands deep, lone surrogates. `read_response` and
`read_stream` never raise, the result can be written as JSON, and no call goes missing without
an issue saying why."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from provider_rows import FIXTURES, PROVIDER_OF_FOLDER

import toolcalls
from toolcalls.providers._wire_decoder import WireDecoder

WHOLE = sorted(FIXTURES.glob("*/*.json"))
STREAMS = sorted([*FIXTURES.glob("*/*.sse"), *FIXTURES.glob("*/*.ndjson")])

WRONG: tuple[Any, ...] = (5, "s", [[]], {"x": [1]}, "\ud800", float("nan"))
"""Values of the wrong shape for any field (a list where an index or type is expected, a string
where an object is, a lone surrogate...)."""
EMPTY: tuple[Any, ...] = (None, [], True)
"""Values read without raising too, where a call may go without an issue: an empty field is a
shape providers send (and True is an int)."""


def deep(levels: int) -> Any:
    value: Any = [1]
    for _ in range(levels):
        value = {"a": [value]}
    return value


def paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The path of every value in `value` (its own first)."""
    yield path
    children = value.items() if isinstance(value, dict) else enumerate(value) \
        if isinstance(value, list) else ()
    for key, child in children:
        yield from paths(child, (*path, key))


def replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    changed = copy.deepcopy(value)
    target = changed
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = new
    return changed


def check_written(result: toolcalls.ParseResult) -> None:
    """The result serializes, and each call's arguments are JSON that UTF-8 encodes."""
    json.loads(result.model_dump_json())
    for call in result.calls:
        json.dumps(call.arguments, allow_nan=False).encode("utf-8")


def check_no_call_lost_silently(before: toolcalls.ParseResult,
                                after: toolcalls.ParseResult) -> None:
    """Where a call is gone (complete or incomplete), an issue new to the result says why."""
    calls = len(after.calls) + len(after.incomplete)
    if calls < len(before.calls) + len(before.incomplete):
        said = {(issue.kind, issue.message) for issue in before.issues}
        assert {(issue.kind, issue.message) for issue in after.issues} - said, after.issues


def wrong_for(value: Any) -> list[tuple[Any, bool]]:
    """The `WRONG` values of another type than `value` (text for text, or an object for an
    object, is a value of the right shape, which may rightly hold no call), then the `EMPTY`
    ones; each with whether a call it loses must have an issue."""
    return [*((wrong, True) for wrong in WRONG if type(wrong) is not type(value)),
            *((empty, False) for empty in EMPTY)]


def at(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


@pytest.mark.parametrize("path", WHOLE, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_field_of_a_recorded_response_of_the_wrong_shape_is_read_without_raising(
    path: Path
) -> None:
    raw = json.loads(path.read_text(encoding="utf-8"))
    provider = PROVIDER_OF_FOLDER[path.parent.name]
    before = toolcalls.read_response(raw, provider, format="auto")
    for where in list(paths(raw))[1:]:
        for value, said in wrong_for(at(raw, where)):
            after = toolcalls.read_response(replaced(raw, where, value), provider, format="auto")
            check_written(after)
            if said:
                check_no_call_lost_silently(before, after)


def _events(path: Path) -> list[dict[str, Any]]:
    wire = WireDecoder()
    return [*wire.feed(path.read_text(encoding="utf-8")), *wire.finish()]


def _read_events(provider: str, events: list[dict[str, Any]]) -> toolcalls.ParseResult:
    reader = toolcalls.read_stream(provider, format="auto")
    for event in events:
        reader.feed(event)
    reader.close()
    return reader.result()


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_field_of_a_recorded_stream_event_of_the_wrong_shape_is_read_without_raising(
    path: Path
) -> None:
    events = _events(path)
    provider = PROVIDER_OF_FOLDER[path.parent.name]
    before = _read_events(provider, events)
    for number, event in enumerate(events):
        for where in list(paths(event))[1:]:
            for value, said in wrong_for(at(event, where)):
                changed = [*events[:number], replaced(event, where, value), *events[number + 1:]]
                after = _read_events(provider, changed)
                check_written(after)
                if said and where != ("type",):  # an event of a type no reader knows: skipped
                    check_no_call_lost_silently(before, after)


# -- the issue's examples, and deep nesting ------------------------------------------------------


@pytest.mark.parametrize(("provider", "response", "says"), [
    ("openai", {"choices": [{"message": {"content": "hi", "tool_calls": 5}}]},
     "message.tool_calls is 5, not a list"),
    ("openai_responses", {"object": "response", "output": 1}, "output is 1, not a list"),
    ("anthropic", {"type": "message", "content": [{"type": ["tool_use"]}]},
     'a content block of type ["tool_use"] was not read'),
    ("gemini", {"candidates": [{"content": {"parts": [{"functionCall": [1]}]}}]},
     "a part's functionCall is [1], not an object"),
    ("ollama", {"message": {"tool_calls": "f()"}}, 'message.tool_calls is "f()", not a list'),
])
def test_a_field_of_the_wrong_shape_is_an_issue(
    provider: str, response: dict[str, Any], says: str
) -> None:
    result = toolcalls.read_response(response, provider)
    assert any(says in issue.message for issue in result.issues), result.issues


def test_a_list_for_a_stream_index_or_event_type_does_not_stop_the_stream() -> None:
    anthropic = [
        {"type": "content_block_start", "index": [0], "content_block": {
            "type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}},
        {"type": "content_block_delta", "index": [0], "delta": {
            "type": "input_json_delta", "partial_json": '{"a": 1}'}},
        {"type": "content_block_stop", "index": [0]},
    ]
    result = _read_events("anthropic", anthropic)
    assert [(call.name, call.arguments) for call in result.calls] == [("f", {"a": 1})]
    responses = [{"type": ["response.output_text.delta"], "delta": "x"},
                 {"type": "response.output_text.delta", "item_id": [1], "delta": "hi"}]
    assert _read_events("openai_responses", responses).content == "hi"
    chat = [{"choices": [{"index": [1], "delta": {"content": "other"}}]},
            {"choices": [{"index": 0, "delta": {"content": "hi"}}]}]
    result = _read_events("openai", chat)
    assert result.content == "hi" and [i.kind for i in result.issues] == ["other_choices"]
    gemini = [{"candidates": [{"index": [1]}, {"content": {"parts": [{"text": "hi"}]}}]}]
    assert _read_events("gemini", gemini).content == "hi"


NESTED = deep(3000)


@pytest.mark.parametrize("field", ["arguments", "usage", "reasoning", "error", "id", "text"])
@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "stream"])
def test_a_value_nested_thousands_deep_anywhere_is_read_without_raising(
    field: str, streamed: bool
) -> None:
    block: dict[str, Any] = {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}
    message: dict[str, Any] = {"type": "message", "model": "claude", "content": [block],
                               "usage": {"output_tokens": 1}}
    if field == "arguments":
        block["input"] = {"a": NESTED}
    elif field == "usage":
        message["usage"] = {"a": NESTED}
    elif field == "reasoning":
        message["content"].insert(0, {"type": "thinking", "thinking": "x", "signature": NESTED})
    elif field == "error":
        message["error"] = {"type": NESTED, "message": NESTED}
    elif field == "id":
        block["id"] = NESTED
    else:
        message["content"].insert(0, {"type": "text", "text": NESTED})
    if streamed:
        events: list[dict[str, Any]] = [{"type": "message_start", "message": {
            **message, "content": []}}]
        for index, each in enumerate(message["content"]):
            events += [{"type": "content_block_start", "index": index, "content_block": each},
                       {"type": "content_block_stop", "index": index}]
        if "error" in message:
            events.append({"type": "error", "error": message["error"]})
        result = _read_events("anthropic", events)
    else:
        result = toolcalls.read_response(message, "anthropic")
    check_written(result)
    if field != "id":  # an id that is not a string: the call is given its own, as for none
        assert result.issues
    if field == "arguments":
        assert result.calls == [] and result.issues[0].kind == "invalid_arguments"
        assert "nest deeper than 200" in result.issues[0].message


def test_response_text_nested_deeper_than_json_reads_is_refused_with_a_value_error() -> None:
    text = '{"choices": [{"message": {"content": ' + "[" * 5000 + "]" * 5000 + "}}]}"
    with pytest.raises(ValueError, match="nested too deep"):
        toolcalls.read_response(text)
    reader = toolcalls.read_stream("openai")
    assert reader.feed(f"data: {text}\n\n") == []  # the line is not an event it can read
    reader.close()


def test_json_text_of_another_kind_is_refused_with_a_value_error_naming_it() -> None:
    for text, kind in [("[1]", "an array"), ("null", "null"), ('"hi"', "a string"),
                       ("3", "a number"), ("true", "a boolean")]:
        with pytest.raises(ValueError, match=f"a response is a JSON object, not {kind}"):
            toolcalls.read_response(text)


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "stream"])
def test_a_lone_surrogate_in_text_reasoning_or_an_id_is_read_as_u_fffd_with_an_issue(
    streamed: bool
) -> None:
    message = {"type": "message", "model": "claude", "stop_reason": "tool_use\ud800",
               "content": [{"type": "thinking", "thinking": "hm\udc00", "signature": "s"},
                           {"type": "text", "text": "caf\ud800"},
                           {"type": "tool_use", "id": "toolu\ud800", "name": "f", "input": {}}]}
    if streamed:
        events: list[dict[str, Any]] = [{"type": "message_start", "message": {
            **message, "content": []}}]
        for index, block in enumerate(message["content"]):
            events += [{"type": "content_block_start", "index": index, "content_block": block},
                       {"type": "content_block_stop", "index": index}]
        events.append({"type": "message_delta", "delta": {"stop_reason": "tool_use\ud800"}})
        result = _read_events("anthropic", events)
    else:
        result = toolcalls.read_response(message, "anthropic")
    check_written(result)
    assert result.content == "caf\ufffd" and result.reasoning == "hm\ufffd"
    assert [call.id for call in result.calls] == ["call_0"]
    assert [(issue.kind, issue.message) for issue in result.issues] == [
        ("lone_surrogate", "the reasoning holds a lone surrogate ('\\udc00'): each read as U+FFFD"),
        ("lone_surrogate", "native call call_0: its id \"toolu\\ud800\" holds a lone surrogate:"
                           " given its own"),
        ("unread_part", 'a reasoning block of type "thinking" is not kept: its fields hold a '
                        "lone surrogate, which UTF-8 cannot encode")]
