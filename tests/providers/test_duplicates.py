"""`toolcalls.providers._duplicates`: a call said natively and in the text is read once, the
later of the two failing with a ``duplicate_call`` issue, whole and streamed alike."""

from __future__ import annotations

import json
from typing import Any

import pytest

import toolcalls
from toolcalls import ToolCallEnd, ToolCallFailed

PARIS = {"city": "Paris"}
HERMES = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
QWEN = "Qwen/Qwen2.5-7B-Instruct"  # names the hermes format


def chat(content: str, arguments: list[dict[str, Any]], model: str = QWEN) -> dict[str, Any]:
    return {"model": model, "choices": [{"finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": content, "tool_calls": [
            {"id": f"call_native_{n}", "type": "function",
             "function": {"name": "get_weather", "arguments": json.dumps(args)}}
            for n, args in enumerate(arguments)]}}]}


def chat_chunks(response: dict[str, Any]) -> list[dict[str, Any]]:
    message = response["choices"][0]["message"]
    chunks: list[dict[str, Any]] = [{"model": response["model"], "choices": [
        {"index": 0, "delta": {"role": "assistant", "content": ""}}]}]
    text = message["content"]
    chunks += [{"choices": [{"index": 0, "delta": {"content": text[i:i + 7]}}]}
               for i in range(0, len(text), 7)]
    chunks += [{"choices": [{"index": 0, "delta": {"tool_calls": [{
        "index": n, "id": call["id"], "type": "function", "function": call["function"]}]}}]}
        for n, call in enumerate(message["tool_calls"])]
    return [*chunks, {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}]


def anthropic(blocks: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "message", "model": "claude-sonnet-4", "stop_reason": "tool_use",
            "content": blocks}


def anthropic_events(response: dict[str, Any]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [{"type": "message_start", "message": {
        "model": response["model"], "content": []}}]
    for index, block in enumerate(response["content"]):
        if block["type"] == "text":
            events += [{"type": "content_block_start", "index": index,
                        "content_block": {"type": "text", "text": ""}},
                       {"type": "content_block_delta", "index": index,
                        "delta": {"type": "text_delta", "text": block["text"]}}]
        else:
            events += [{"type": "content_block_start", "index": index,
                        "content_block": {**block, "input": {}}},
                       {"type": "content_block_delta", "index": index, "delta": {
                           "type": "input_json_delta", "partial_json": json.dumps(block["input"])}}]
        events.append({"type": "content_block_stop", "index": index})
    return [*events, {"type": "message_delta", "delta": {"stop_reason": response["stop_reason"]}}]


TOOL_USE = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": PARIS}


def both(provider: str, response: dict[str, Any], fmt: str
         ) -> tuple[toolcalls.ParseResult, toolcalls.ParseResult, list[Any]]:
    """The response read whole, and streamed: the stream's result and events."""
    whole = toolcalls.read_response(response, provider, format=fmt)
    chunks = chat_chunks(response) if provider == "openai" else anthropic_events(response)
    reader = toolcalls.read_stream(provider, format=fmt)
    events = [event for chunk in chunks for event in reader.feed(chunk)] + reader.close()
    return whole, reader.result(), events


@pytest.mark.parametrize("fmt", ["auto", "hermes"])
def test_a_chat_call_also_left_in_the_content_is_read_once_the_native_one_failing(
    fmt: str
) -> None:
    whole, streamed, events = both("openai", chat(f"Let me look.\n{HERMES}", [PARIS]), fmt)
    assert whole == streamed
    assert [(c.source, c.name, c.arguments) for c in whole.calls] == [
        ("text", "get_weather", PARIS)]
    (repetition,) = whole.incomplete
    assert (repetition.source, repetition.name, json.loads(repetition.raw)) == (
        "native", "get_weather", PARIS)
    assert [(i.kind, i.message) for i in whole.issues] == [(
        "duplicate_call", "native call call_native_0 (get_weather) repeats text call call_0 "
                          "with the same arguments: read once, as call_0")]
    assert whole.content == "Let me look."
    ends = [e for e in events if isinstance(e, ToolCallEnd | ToolCallFailed)]
    assert [(type(e).__name__, e.index) for e in ends] == [("ToolCallEnd", 0),
                                                            ("ToolCallFailed", 1)]


def test_a_native_call_written_out_in_a_later_text_block_is_read_once_the_text_one_failing(
) -> None:
    response = anthropic([TOOL_USE, {"type": "text", "text": f"As JSON: {HERMES}"}])
    whole, streamed, _ = both("anthropic", response, "hermes")
    assert whole == streamed
    assert [(c.source, c.id) for c in whole.calls] == [("native", "toolu_1")]
    (repetition,) = whole.incomplete
    assert repetition.source == "text" and repetition.span is not None
    (issue,) = whole.issues
    assert issue.kind == "duplicate_call" and issue.span == repetition.span
    assert "text call call_0 (get_weather) repeats native call toolu_1" in issue.message


def test_under_auto_with_a_model_naming_no_format_the_native_call_comes_first() -> None:
    response = chat(f"Let me look.\n{HERMES}", [PARIS], model="some-model")
    whole, streamed, _ = both("openai", response, "auto")
    assert whole == streamed
    assert [c.source for c in whole.calls] == ["native"]
    assert [(c.source, i.kind) for c, i in zip(whole.incomplete, whole.issues, strict=True)
            ] == [("text", "duplicate_call")]


def test_calls_with_other_arguments_are_both_read_and_each_call_repeats_at_most_one() -> None:
    content = f"{HERMES}\n{HERMES}\n" + HERMES.replace("Paris", "Oslo")
    whole, streamed, _ = both("openai", chat(content, [PARIS, {"city": "Rome"}]), "hermes")
    assert whole == streamed
    assert [(c.source, c.arguments["city"]) for c in whole.calls] == [  # native ones first
        ("native", "Rome"), ("text", "Paris"), ("text", "Paris"), ("text", "Oslo")]
    assert [(c.source, json.loads(c.raw)) for c in whole.incomplete] == [("native", PARIS)]
    assert [i.kind for i in whole.issues] == ["duplicate_call"]


def test_two_native_calls_alike_are_not_repetitions_of_each_other() -> None:
    whole, streamed, _ = both("openai", chat("", [PARIS, PARIS]), "hermes")
    assert whole == streamed and len(whole.calls) == 2 and whole.issues == []


def test_a_repetition_by_a_tool_alias_is_found_by_the_tool_own_name() -> None:
    tool = toolcalls.Tool(name="get_weather", aliases=("weather",),
                          parameters={"type": "object", "properties": {"city": {
                              "type": "string"}}})
    response = chat(HERMES, [PARIS])
    response["choices"][0]["message"]["tool_calls"][0]["function"]["name"] = "weather"
    whole = toolcalls.read_response(response, format="hermes", tools=[tool])
    assert [c.source for c in whole.calls] == ["text"]
    assert [i.kind for i in whole.issues] == ["duplicate_call"]
