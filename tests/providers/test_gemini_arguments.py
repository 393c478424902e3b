"""Gemini 3's streamed function-call arguments (``partialArgs``,
`toolcalls.providers.gemini._arguments`): built as they come in `read_stream("gemini")`, the
same calls from `read_response` of the assembled response, and a piece that does not fit is an
issue, never a crash."""

from __future__ import annotations

import json
from typing import Any

import pytest
from stream_checks import FIXTURES, check_event_promises, read_all, sse_json
from test_gemini_read_stream import assemble

import toolcalls
from toolcalls import ArgumentsDelta, ToolCallEnd, ToolCallFailed, ToolCallStart
from toolcalls.providers.gemini._arguments import PartialArguments, parse_path


def chunk(call: dict[str, Any], finish: str | None = None, **part: Any) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model",
                                             "parts": [{"functionCall": call, **part}]}}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "modelVersion": "gemini-3-pro-preview"}


def piece(path: str, willcontinue: bool = False, **value: Any) -> dict[str, Any]:
    found: dict[str, Any] = {"jsonPath": path, **value}
    if willcontinue:
        found["willContinue"] = True
    return found


def streamed(name: str, *pieces: dict[str, Any], close: bool = True) -> list[dict[str, Any]]:
    """One call streamed: its name, a chunk per piece, the empty closing part."""
    chunks = [chunk({"name": name, "willContinue": True})]
    chunks += [chunk({"partialArgs": [p], "willContinue": True}) for p in pieces]
    return chunks + ([chunk({}, "STOP")] if close else [])


def read_both(chunks: list[dict[str, Any]]) -> toolcalls.ParseResult:
    """The stream's result, checked against its events and the assembled whole response."""
    events, result = read_all("gemini", chunks)
    check_event_promises(events, result)
    assert result == toolcalls.read_response(assemble(chunks), "gemini", format="auto")
    return result


def test_a_recorded_streamed_call_starts_at_its_name_and_ends_at_its_empty_part() -> None:
    path = FIXTURES / "gemini" / "gemini31pro_streamed_arguments_two_calls.sse"
    chunks = sse_json(path.read_text(encoding="utf-8"))
    parser = toolcalls.read_stream("gemini")
    per_chunk = [parser.feed(c) for c in chunks] + [parser.close()]
    kinds = [[type(e).__name__ for e in events] for events in per_chunk]
    assert kinds[:4] == [["ToolCallStart"], ["ArgumentsDelta"], [], ["ArgumentsDelta",
                                                                      "ToolCallEnd"]]
    fragments = [e.fragment for events in per_chunk for e in events
                 if isinstance(e, ArgumentsDelta)]
    assert fragments == ['{"location":"Boston', '"}', '{"location":"San Francisco', '"}']
    assert [(c.id, c.arguments) for c in parser.result().calls] == [
        ("call_0", {"location": "Boston"}), ("call_1", {"location": "San Francisco"})]


def test_recorded_nested_paths_and_numbers_give_the_whole_arguments() -> None:
    path = FIXTURES / "gemini" / "gemini31pro_streamed_arguments_nested.sse"
    (call,) = read_both(sse_json(path.read_text(encoding="utf-8"))).calls
    recipe = call.arguments["recipe"]
    assert recipe["name"] == "Lasagna" and len(recipe["ingredients"]) == 10
    assert recipe["ingredients"][0] == {"amount": "16 oz", "name": "Lasagna noodles"}
    assert recipe["steps"][4] == "In a 9x13 baking dish, spread a thin layer of meat sauce."
    path = FIXTURES / "gemini" / "gemini3flash_streamed_arguments_array_last_piece_closes.sse"
    (call,) = read_both(sse_json(path.read_text(encoding="utf-8"))).calls
    assert [op["price"] for op in call.arguments["operations"]] == [0.5, 0.3]


def test_every_kind_of_value_and_path() -> None:
    chunks = streamed(
        "f",
        piece("$.text", True, stringValue="two "), piece("$.text", stringValue="pieces"),
        piece("$.n", numberValue=3), piece("$.ok", boolValue=False),
        piece("$.none", nullValue="NULL_VALUE"), piece("$.absent"),
        piece("$['a key'].list[0][0]", numberValue=1.5),
        piece("$['a key'].list[0][1]", boolValue=True),
        piece("$['a key'].list[1][0]", stringValue='quote " and \\'),
        piece('$["a key"].after', stringValue="°C"),
    )
    (call,) = read_both(chunks).calls
    assert call.arguments == {"text": "two pieces", "n": 3, "ok": False, "none": None,
                              "absent": None, "a key": {"list": [[1.5, True], ['quote " and \\']],
                                                        "after": "°C"}}


def test_a_surrogate_pair_split_between_pieces_joins() -> None:
    chunks = streamed("f", piece("$.s", True, stringValue="a\ud83d"),
                      piece("$.s", stringValue="\ude00b"))
    (call,) = read_both(chunks).calls
    assert call.arguments == {"s": "a\U0001F600b"}


def test_the_last_piece_without_will_continue_closes_the_call() -> None:
    chunks = [chunk({"name": "f", "partialArgs": [piece("$.a", numberValue=1)],
                     "willContinue": True}),
              chunk({"partialArgs": [piece("$.b", stringValue="x")]}),
              chunk({"name": "g", "willContinue": True}), chunk({}, "STOP")]
    result = read_both(chunks)
    assert [(c.name, c.arguments) for c in result.calls] == [("f", {"a": 1, "b": "x"}),
                                                             ("g", {})]


def test_a_call_started_while_one_is_open_ends_the_open_one() -> None:
    chunks = [*streamed("f", piece("$.a", numberValue=1), close=False),
              *streamed("g", piece("$.b", numberValue=2))]
    result = read_both(chunks)
    assert [(c.id, c.name, c.arguments) for c in result.calls] == [
        ("call_0", "f", {"a": 1}), ("call_1", "g", {"b": 2})]


def test_a_stream_cut_off_inside_a_streamed_call_fails_it() -> None:
    chunks = streamed("f", piece("$.a", True, stringValue="cut"), close=False)
    events, result = read_all("gemini", chunks)
    check_event_promises(events, result)
    assert result == toolcalls.read_response(assemble(chunks), "gemini", format="auto")
    assert result.calls == [] and [i.raw for i in result.incomplete] == ['{"a":"cut']
    assert [i.kind for i in result.issues] == ["truncated_call"]
    assert type(events[-1]) is ToolCallFailed and events[-1].index == 0


MISFITS = {
    "a key twice": [piece("$.a", numberValue=1), piece("$.b", numberValue=2),
                    piece("$.a", numberValue=3)],
    "back into a closed object": [piece("$.a.x", numberValue=1), piece("$.b", numberValue=2),
                                  piece("$.a.y", numberValue=3)],
    "an index out of turn": [piece("$.l[0]", numberValue=1), piece("$.l[2]", numberValue=3)],
    "an array opened at index 1": [piece("$.l[1]", numberValue=1)],
    "an index into an object": [piece("$.o.k", numberValue=1), piece("$.o[1]", numberValue=2)],
    "a key into an array": [piece("$.l[0]", numberValue=1), piece("$.l.k", numberValue=2)],
    "into a value written": [piece("$.a", stringValue="x"), piece("$.a.b", numberValue=1)],
    "the root itself": [piece("$", stringValue="x")],
    "no dollar": [piece("a.b", numberValue=1)],
    "a path that is no string": [{"jsonPath": ["$", "a"], "numberValue": 1}],
    "a number that is not JSON": [piece("$.a", numberValue=float("nan"))],
    "a number that is a string": [piece("$.a", numberValue="1")],
    "a bool that is a number": [piece("$.a", boolValue=1)],
    "a string that is a number": [piece("$.a", stringValue=5)],
    "a piece that is no object": ["$.a"],
}


@pytest.mark.parametrize("pieces", MISFITS.values(), ids=MISFITS.keys())
def test_a_piece_that_does_not_fit_fails_the_call_with_an_issue(
        pieces: list[Any]) -> None:
    chunks = [*streamed("f", *pieces, piece("$.z", numberValue=0)),
              *streamed("g", piece("$.ok", boolValue=True))]
    result = read_both(chunks)
    assert [(c.name, c.arguments) for c in result.calls] == [("g", {"ok": True})]
    (failed,) = result.incomplete
    assert failed.name == "f"
    (issue,) = result.issues
    assert issue.kind == "invalid_arguments" and "call_0 (f)" in issue.message
    assert "1 later piece not read" in issue.message


@pytest.mark.parametrize("junk", [[1], "x", 5, True], ids=repr)
def test_a_function_call_of_the_wrong_shape_does_not_end_a_streamed_call(junk: Any) -> None:
    """Noted (and a call without a name), whole and streamed alike: the open call goes on, so
    its arguments are not taken as complete before its end came."""
    chunks = [*streamed("f", piece("$.a", True, stringValue="Bo"), close=False),
              chunk(junk), chunk({"partialArgs": [piece("$.a", stringValue="ston")],
                                  "willContinue": True}), chunk({}, "STOP")]
    result = read_both(chunks)
    assert [(c.name, c.arguments) for c in result.calls] == [("f", {"a": "Boston"})]
    assert [i.name for i in result.incomplete] == [None]
    assert [i.kind for i in result.issues] == ["unread_part", "malformed_call"]
    assert "a part's functionCall is" in result.issues[0].message
    cut = read_both([*chunks[:2], chunk(junk)])  # no end: the open call is cut off
    assert cut.calls == [] and [i.kind for i in cut.issues] == ["unread_part", "malformed_call",
                                                                 "truncated_call"]


def test_a_streamed_value_that_utf8_or_json_cannot_hold_fails_the_call() -> None:
    for value in ({"stringValue": "\ud800"}, {"numberValue": float("inf")},
                  {"numberValue": 1e400}):
        result = read_both(streamed("f", piece("$.a", **value)))
        assert result.calls == [] and [i.kind for i in result.issues] == ["invalid_arguments"]
        json.loads(result.model_dump_json())


def test_partial_args_of_the_wrong_shape_fail_the_call() -> None:
    for bad in ({"partialArgs": "x", "willContinue": True}, {"args": [1], "willContinue": True}):
        chunks = [chunk({"name": "f", "willContinue": True}), chunk(bad), chunk({}, "STOP")]
        result = read_both(chunks)
        assert result.calls == [] and [i.kind for i in result.issues] == ["invalid_arguments"]


def test_args_in_a_streamed_part_are_written_whole() -> None:
    chunks = [chunk({"name": "f", "args": {"a": {"b": [1, 2]}}, "willContinue": True}),
              chunk({"partialArgs": [piece("$.c", stringValue="x")], "willContinue": True}),
              chunk({}, "STOP")]
    (call,) = read_both(chunks).calls
    assert call.arguments == {"a": {"b": [1, 2]}, "c": "x"}


def test_the_text_is_a_prefix_of_the_arguments_all_along() -> None:
    arguments = PartialArguments()
    steps = [piece("$.a[0].b", True, stringValue="x"), piece("$.a[0].b", stringValue="y"),
             piece("$.a[1]", numberValue=2), piece("$.c", boolValue=True)]
    for step in steps:
        arguments.read({"partialArgs": [step]})
        assert json.dumps({"a": [{"b": "xy"}, 2], "c": True},
                          separators=(",", ":")).startswith("".join(arguments.text))
    arguments.close()
    assert json.loads("".join(arguments.text)) == {"a": [{"b": "xy"}, 2], "c": True}


def test_json_paths() -> None:
    assert parse_path("$.a['b.c'][0][\"d\\\"e\"]") == ["a", "b.c", 0, 'd"e']
    for bad in ("$", "", "a", "$.", "$[x]", "$.a[-1]", "$.a..b", None, 5):
        assert parse_path(bad) is None, bad


def test_a_call_streamed_with_no_name_is_malformed_not_a_crash() -> None:
    chunks = [chunk({"willContinue": True, "partialArgs": [piece("$.a", numberValue=1)]}),
              chunk({}, "STOP")]
    result = read_both(chunks)
    assert result.calls == [] and [i.kind for i in result.issues] == ["malformed_call"]


def test_streamed_calls_read_from_the_sdk_objects_as_from_the_json() -> None:
    from google.genai.types import GenerateContentResponse

    path = FIXTURES / "gemini" / "gemini3flash_thought_whole_call_then_streamed_calls.sse"
    chunks = sse_json(path.read_text(encoding="utf-8"))
    events, result = read_all("gemini", chunks)
    sdk = [GenerateContentResponse.model_validate(c) for c in chunks]
    assert read_all("gemini", sdk) == (events, result)
    assert [(e.id, e.name) for e in events if isinstance(e, ToolCallStart)] == [
        ("call_0", "read_theme"), ("call_1", "read_screen"), ("call_2", "read_screen"),
        ("call_3", "read_screen")]
    assert [e.call.arguments for e in events if isinstance(e, ToolCallEnd)] == [
        {}, {"id": "A"}, {"id": "B"}, {"id": "C"}]
