"""`read_stream("openai")`: recorded Chat Completions streams read in any grouping give the
result `read_response` gives for the assembled ``chat.completion``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from openai.types.chat import ChatCompletionChunk
from stream_checks import (
    FIXTURES,
    ambiguous_with_lines,
    check_event_promises,
    read_all,
    split_at,
    sse_json,
)

import toolcalls
from toolcalls import ArgumentsDelta, ReasoningDelta, ToolCallEnd, ToolCallFailed, ToolCallStart

STREAMS = sorted((FIXTURES / "openai_chat").glob("*.sse"))
IDS = [path.stem for path in STREAMS]


def assemble(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """The ``chat.completion`` the chunks make, built here independently of the library."""
    message: dict[str, Any] = {"role": "assistant"}
    calls: dict[int, dict[str, Any]] = {}
    response: dict[str, Any] = {"object": "chat.completion", "model": chunks[0].get("model"),
                                "choices": [{"index": 0, "message": message}]}
    for chunk in chunks:
        if chunk.get("usage"):
            response["usage"] = chunk["usage"]
        if chunk.get("error"):  # OpenRouter's error chunk
            response["error"] = chunk["error"]
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            for key in ("content", "reasoning_content", "reasoning", "refusal"):
                if delta.get(key):
                    message[key] = message.get(key, "") + delta[key]
            for part in delta.get("tool_calls") or []:
                call = calls.setdefault(part["index"], {"type": "function", "function": {
                    "name": "", "arguments": ""}})
                call["id"] = part.get("id") or call.get("id")
                function = part.get("function") or {}
                call["function"]["name"] += function.get("name") or ""
                call["function"]["arguments"] += function.get("arguments") or ""
            if choice.get("finish_reason"):
                response["choices"][0]["finish_reason"] = choice["finish_reason"]
    message["tool_calls"] = [calls[i] for i in sorted(calls)]
    return response


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", STREAMS, ids=IDS)
@pytest.mark.parametrize("fmt", ["auto", None, "hermes"])
def test_a_recorded_stream_reads_as_its_assembled_response(path: Path, fmt: str | None) -> None:
    chunks = sse_json(_text(path))
    events, result = read_all("openai", [path.read_bytes()], fmt)
    check_event_promises(events, result)
    whole = toolcalls.read_response(assemble(chunks), "openai", format=fmt)
    assert result.model_dump(exclude={"reasoning_blocks"}) == whole.model_dump(
        exclude={"reasoning_blocks"})
    # The chunks as dicts, and as the SDK's objects, one by one: the same events.
    assert read_all("openai", chunks, fmt) == (events, result)
    sdk = [ChatCompletionChunk.model_validate(chunk) for chunk in chunks]
    assert read_all("openai", sdk, fmt) == (events, result)


@pytest.mark.parametrize("path", STREAMS, ids=IDS)
@settings(max_examples=40, deadline=None)
@given(cuts=st.lists(st.floats(0, 1), max_size=12), as_bytes=st.booleans(), crlf=st.booleans())
def test_any_split_of_the_sse_text_gives_the_same_events(
    path: Path, cuts: list[float], as_bytes: bool, crlf: bool
) -> None:
    text = _text(path)
    expected = read_all("openai", [text])
    if crlf:
        text = text.replace("\n", "\r\n")
    raw: str | bytes = text.encode() if as_bytes else text
    pieces = list(split_at(raw, [int(cut * len(raw)) for cut in cuts]))  # type: ignore[arg-type]
    assume(not ambiguous_with_lines(pieces))  # see the decoder's docstring
    assert read_all("openai", pieces) == expected


def test_a_streamed_call_in_content_is_read_from_the_text() -> None:
    path = FIXTURES / "openai_chat" / "constructed_ollama_call_in_delta_content.sse"
    for fmt in ("auto", "hermes"):
        events, result = read_all("openai", sse_json(_text(path)), fmt)
        assert [(c.name, c.arguments, c.source) for c in result.calls] == [
            ("get_current_weather", {"location": "San Francisco"}, "text")]
        assert result.format == "hermes" and result.content == ""
        assert result.finish_reason == "stop"


def test_a_named_format_streams_the_text_call_before_the_end() -> None:
    path = FIXTURES / "openai_chat" / "constructed_ollama_call_in_delta_content.sse"
    parser = toolcalls.read_stream("openai", format="hermes")
    early = [event for chunk in sse_json(_text(path))[:3] for event in parser.feed(chunk)]
    kinds = [type(e) for e in early]
    assert kinds[0] is ToolCallStart and kinds[-1] is ToolCallEnd
    # "auto" with a model id that names the format streams as well.
    renamed = [dict(chunk, model="Qwen/Qwen3-8B") for chunk in sse_json(_text(path))]
    parser = toolcalls.read_stream("openai", format="auto")
    early = [event for chunk in renamed[:3] for event in parser.feed(chunk)]
    assert ToolCallEnd in [type(e) for e in early]


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"object": "chat.completion.chunk", "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _fragment(index: int, arguments: str, ident: str | None = None,
              name: str | None = None) -> dict[str, Any]:
    function: dict[str, Any] = {"arguments": arguments}
    if name:
        function["name"] = name
    part: dict[str, Any] = {"index": index, "function": function}
    if ident:
        part["id"] = ident
    return _chunk({"tool_calls": [part]})


PARALLEL = [
    _fragment(0, "", "call_a", "f"),
    _fragment(0, '{"x": '),
    _fragment(1, "", "call_b", "g"),
    _fragment(1, '{"y": 2}'),
    _fragment(0, "1}"),  # a server may interleave: the first call was not closed by the second
    _chunk({}, "tool_calls"),
    {"object": "chat.completion.chunk", "model": "m", "choices": [], "usage": {"total": 9}},
]


def test_parallel_calls_end_only_at_the_finish_reason() -> None:
    parser = toolcalls.read_stream("openai")
    before = [event for chunk in PARALLEL[:5] for event in parser.feed(chunk)]
    assert not [e for e in before if isinstance(e, ToolCallEnd)]
    events = before + [e for chunk in PARALLEL[5:] for e in parser.feed(chunk)] + parser.close()
    result = parser.result()
    check_event_promises(events, result)
    assert [(c.id, c.name, c.arguments) for c in result.calls] == [
        ("call_a", "f", {"x": 1}), ("call_b", "g", {"y": 2})]
    assert result.usage == {"total": 9} and result.finish_reason == "tool_calls"
    assert result == toolcalls.read_response(assemble(PARALLEL), "openai")


def test_a_new_id_at_a_calls_index_starts_another_call() -> None:
    # Servers that number every call 0 (each with its own id): not glued to the first.
    chunks = [_fragment(0, '{"a": 1}', "call_a", "f"), _fragment(0, '{"b": 2}', "call_b", "g"),
              _fragment(0, "", "call_c", "h"), _fragment(0, "{}"), _chunk({}, "tool_calls")]
    events, result = read_all("openai", chunks)
    check_event_promises(events, result)
    assert [(c.id, c.name, c.arguments) for c in result.calls] == [
        ("call_a", "f", {"a": 1}), ("call_b", "g", {"b": 2}), ("call_c", "h", {})]
    assert result.issues == []
    calls = [{"id": ident, "type": "function", "function": {"name": name, "arguments": args}}
             for ident, name, args in (("call_a", "f", '{"a": 1}'), ("call_b", "g", '{"b": 2}'),
                                       ("call_c", "h", "{}"))]
    whole = {"object": "chat.completion", "model": "m", "choices": [{
        "index": 0, "finish_reason": "tool_calls",
        "message": {"role": "assistant", "content": None, "tool_calls": calls}}]}
    assert result == toolcalls.read_response(whole, "openai")


def test_an_id_given_twice_and_repeated_on_each_fragment_keeps_each_call_whole() -> None:
    chunks = [_fragment(0, '{"a": ', "dup", "f"), _fragment(0, "1}", "dup"),
              _fragment(1, '{"b": ', "dup", "g"), _fragment(1, "2}", "dup"),
              _chunk({}, "tool_calls")]
    events, result = read_all("openai", chunks)
    check_event_promises(events, result)
    assert [(c.id, c.name, c.arguments) for c in result.calls] == [
        ("dup", "f", {"a": 1}), ("call_0", "g", {"b": 2})]
    assert [i.kind for i in result.issues] == ["duplicate_call_id"]


def test_a_new_name_at_an_index_without_ids_starts_another_call_once_arguments_began() -> None:
    chunks = [_fragment(0, "", None, "f"), _fragment(0, '{"a": 1}'),
              _fragment(0, '{"b": 2}', None, "g"), _chunk({}, "tool_calls")]
    events, result = read_all("openai", chunks)
    check_event_promises(events, result)
    assert [(c.id, c.name, c.arguments) for c in result.calls] == [
        ("call_0", "f", {"a": 1}), ("call_1", "g", {"b": 2})]


def test_a_tool_calls_entry_that_is_no_object_is_an_issue() -> None:
    chunks = [_chunk({"tool_calls": [5, {"index": 0, "id": "c", "function": {
        "name": "f", "arguments": "{}"}}]}), _chunk({}, "tool_calls")]
    events, result = read_all("openai", chunks)
    check_event_promises(events, result)
    assert [c.name for c in result.calls] == ["f"]
    assert [i.kind for i in result.issues] == ["malformed_call"]


def test_a_call_cut_off_before_the_finish_fails() -> None:
    events, result = read_all("openai", PARALLEL[:5])
    failed = [e for e in events if isinstance(e, ToolCallFailed)]
    assert [e.index for e in failed] == [0, 1]
    assert result.calls == [] and [i.raw for i in result.incomplete] == ['{"x": 1}', '{"y": 2}']
    assert {issue.kind for issue in result.issues} == {"truncated_call"}


def test_invalid_arguments_fail_and_empty_arguments_are_an_empty_object() -> None:
    chunks = [_fragment(0, '{"x": ', "call_a", "f"), _fragment(1, "", "call_b", "g"),
              _chunk({}, "tool_calls")]
    events, result = read_all("openai", chunks)
    check_event_promises(events, result)
    assert [(c.id, c.arguments) for c in result.calls] == [("call_b", {})]
    assert [e.index for e in events if isinstance(e, ToolCallFailed)] == [0]
    assert ArgumentsDelta(1, "{}") in events
    assert result == toolcalls.read_response(assemble(chunks), "openai")


def test_a_native_call_by_alias_streams_and_ends_with_the_tools_name() -> None:
    tools = [{"name": "f", "aliases": ["alias_f"]}]
    chunks = [_fragment(0, '{"x": 1}', "call_a", "alias_f"), _fragment(1, '{"x": ', "call_b",
                                                                      "alias_f"),
              _chunk({}, "tool_calls")]
    parser = toolcalls.read_stream("openai", tools=tools)
    events = [e for chunk in chunks for e in parser.feed(chunk)] + parser.close()
    result = parser.result()
    check_event_promises(events, result)
    assert [e.name for e in events if isinstance(e, ToolCallStart)] == ["f", "f"]
    assert [e.call.name for e in events if isinstance(e, ToolCallEnd)] == ["f"]
    assert [e.incomplete.name for e in events if isinstance(e, ToolCallFailed)] == ["f"]
    assert [i.kind for i in result.issues].count("alias_used") == 2
    assert result == toolcalls.read_response(assemble(chunks), "openai", tools=tools)


def test_arguments_encoded_twice_are_given_as_the_object() -> None:
    inner = json.dumps(json.dumps({"x": 1}))
    events, result = read_all("openai", [_fragment(0, inner, "c", "f"), _chunk({}, "stop")])
    check_event_promises(events, result)
    assert [e.fragment for e in events if isinstance(e, ArgumentsDelta)] == ['{"x": 1}']


def test_arguments_that_are_no_object_cost_no_rejoin_per_fragment() -> None:
    # 50,000 fragments of 200 characters of a JSON string holding the object: re-joined on
    # every fragment that is 2.5e11 characters copied (minutes); looked at once, under a second.
    inner = json.dumps(json.dumps({"text": "x" * 10_000_000}))
    pieces = [inner[i:i + 200] for i in range(0, len(inner), 200)]
    parser = toolcalls.read_stream("openai", format=None)
    parser.feed(_fragment(0, "", "c", "f"))
    for piece in pieces:
        parser.feed({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "function": {"arguments": piece}}]}}]})
    events = parser.feed(_chunk({}, "stop")) + parser.close()
    assert len(pieces) > 50_000
    (end,) = [e for e in events if isinstance(e, ToolCallEnd)]
    assert end.call.arguments == {"text": "x" * 10_000_000}


def test_reasoning_deltas_and_the_usage_chunk() -> None:
    path = FIXTURES / "openai_chat" / "openrouter_minimax_reasoning_cut_by_length.sse"
    events, result = read_all("openai", [_text(path)], None)
    assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == result.reasoning
    assert result.reasoning and result.finish_reason == "length" and result.usage
    assert result.reasoning_blocks and result.reasoning_blocks[0]["text"] == result.reasoning


def test_sse_comments_event_lines_and_multiline_data() -> None:
    text = (': keep-alive\r\nevent: chunk\r\ndata: {"model": "m", "choices": [{"index": 0,\r\n'
            'data: "delta": {"content": "hi"}}]}\r\n\r\ndata: [DONE]\r\n')
    assert read_all("openai", [text], None)[1].content == "hi"


def test_repr_and_feeding_after_close() -> None:
    parser = toolcalls.read_stream("openai", format="hermes")
    parser.feed(PARALLEL[0])
    assert repr(parser) == ("<toolcalls.read_stream 'openai' (hermes): 1 chunks, "
                            "0 complete calls, open>")
    parser.close()
    with pytest.raises(RuntimeError):
        parser.feed(PARALLEL[1])
    with pytest.raises(ValueError, match="unknown provider"):
        toolcalls.read_stream("nope")


@pytest.mark.parametrize("path", STREAMS, ids=IDS)
def test_lines_without_their_newline_read_as_the_whole_text(path: Path) -> None:
    """What ``httpx``'s ``iter_lines()`` gives: each line without its newline, blanks as ""."""
    text = _text(path)
    assert read_all("openai", text.splitlines()) == read_all("openai", [text])
    lines = [line.encode() for line in text.splitlines()]
    assert read_all("openai", lines) == read_all("openai", [text])
