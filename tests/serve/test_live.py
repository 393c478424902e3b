"""Streamed calls through the proxy: live (``stream_calls="live"``; arguments stream as they
are read) or whole (the default), with the openai and anthropic SDKs as clients."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from clients import (
    anthropic_client,
    chat_stream_raw,
    chat_streamed,
    chat_whole,
    named,
    openai_client,
)
from upstream import FakeUpstream, corpus_rows

WRITE_FILE = {"type": "function", "function": {
    "name": "write_file", "description": "Write a file.",
    "parameters": {"type": "object", "required": ["path", "content"], "properties": {
        "path": {"type": "string"}, "content": {"type": "string"}}}}}
CONTENT = "".join(f"print({n})\n" for n in range(300))
LONG_CALL = ("I will write it.\n<tool_call>\n" + json.dumps(
    {"name": "write_file", "arguments": {"path": "a.py", "content": CONTENT}}) + "\n</tool_call>")


def _chat(**extra: Any) -> dict[str, Any]:
    return {"model": "hermes", "tools": [WRITE_FILE],
            "messages": [{"role": "user", "content": "write a.py"}], **extra}


def _messages() -> dict[str, Any]:
    function = WRITE_FILE["function"]
    return {"model": "hermes", "max_tokens": 256, "messages": [
        {"role": "user", "content": "write a.py"}], "tools": [{
            "name": function["name"], "description": function["description"],
            "input_schema": function["parameters"]}]}


# --- the arguments reach the client while the model is still writing them ----------------------

@pytest.mark.parametrize("calls", ["live", "whole"])
def test_chat_arguments_arrive_before_the_upstream_has_sent_them_all(
        start_proxy, upstream: FakeUpstream, calls: str) -> None:
    """The upstream stops halfway through the call until the client has read some of its
    arguments: live, the client opens it; whole, nothing of the call comes until the end."""
    gate = threading.Event()
    upstream.script(LONG_CALL, gate=gate, seed=4)
    client = openai_client(start_proxy(mode="repair", stream_calls=calls))
    before_gate, arguments, pieces = "", "", 0
    with client.chat.completions.create(stream=True, **_chat()) as stream:
        for chunk in stream:
            for call in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
                if call.function and call.function.arguments:
                    arguments += call.function.arguments
                    pieces += 1
                    if not gate.is_set():
                        before_gate = arguments
                        gate.set()
    assert json.loads(arguments) == {"path": "a.py", "content": CONTENT}
    assert upstream.gate_opened == (calls == "live")
    if calls == "live":
        assert 0 < len(before_gate) < len(arguments) // 2
        assert arguments.startswith(before_gate) and pieces > 20
    else:
        assert before_gate == arguments and pieces == 1


def test_messages_arguments_arrive_before_the_upstream_has_sent_them_all(
        start_proxy, upstream: FakeUpstream) -> None:
    gate = threading.Event()
    upstream.script(LONG_CALL, gate=gate, seed=5)
    client = anthropic_client(start_proxy(mode="repair", stream_calls="live"))
    before_gate, pieces = "", 0
    with client.messages.stream(**_messages()) as stream:
        for event in stream:
            if event.type == "content_block_delta" and event.delta.type == "input_json_delta":
                pieces += 1
                if not gate.is_set():
                    before_gate = event.delta.partial_json
                    gate.set()
        message = stream.get_final_message()
    assert upstream.gate_opened and pieces > 20 and 0 < len(before_gate) < len(CONTENT) // 2
    assert [(b.name, b.input) for b in message.content if b.type == "tool_use"] == [
        ("write_file", {"path": "a.py", "content": CONTENT})]
    assert message.stop_reason == "tool_use"


# --- streamed equals whole, either way ---------------------------------------------------------

ROWS = [row for fmt in ("qwen3_coder", "kimi_k2", "glm47", "minimax_m1", "hermes")
        for row in (corpus_rows(fmt, calls=2) or corpus_rows(fmt, calls=1))[:1]]


@pytest.mark.parametrize("calls", ["live", "whole"])
@pytest.mark.parametrize("row", ROWS, ids=lambda row: row["id"])
def test_streamed_equals_whole_in_either_mode(start_proxy, upstream: FakeUpstream, row,
                                              calls: str) -> None:
    request = {"model": row["format"], "tools": row["tools"],
               "messages": [{"role": "user", "content": "go"}]}
    client = openai_client(start_proxy(mode="repair", stream_calls=calls))
    upstream.script(row["text"], seed=7)
    whole = chat_whole(client, **request)
    streamed = chat_streamed(client, **request)
    assert (streamed["content"], named(streamed["calls"]), streamed["finish"]) == (
        whole["content"], named(whole["calls"]), whole["finish"])
    assert whole["finish"] == "tool_calls" and whole["calls"]


# --- a call cut off after it started -------------------------------------------------------------

CUT_ROW = corpus_rows("qwen3_coder", calls=2)[0]
CUT_TEXT = CUT_ROW["text"][:CUT_ROW["text"].rindex("<parameter=") + 14]
"""The row's text cut inside its second call, as a turn ends at max_tokens."""


def _chat_lenient(client: Any, **request: Any) -> tuple[list[tuple[str, str, str]], Any]:
    """A streamed answer's calls as (id, name, arguments text) and its finish_reason."""
    answer = chat_stream_raw(client, **request)
    return answer["calls"], answer["finish"]


@pytest.mark.parametrize("calls", ["live", "whole"])
def test_chat_a_call_cut_off_is_never_complete(start_proxy, upstream: FakeUpstream,
                                               calls: str) -> None:
    upstream.script(CUT_TEXT, finish_reason="length", seed=2)
    request = {"model": "qwen3_coder", "tools": CUT_ROW["tools"],
               "messages": [{"role": "user", "content": "go"}]}
    got, finish = _chat_lenient(openai_client(start_proxy(mode="repair", stream_calls=calls)),
                                **request)
    first = CUT_ROW["expected"]["calls"][0]
    assert (got[0][1], json.loads(got[0][2])) == (first["name"], first["arguments"])
    if calls == "whole":  # the cut call is never written: the first one is the turn's call
        assert len(got) == 1 and finish == "tool_calls"
    else:  # written as far as it came, its arguments no complete JSON; the turn is no
        # tool-calls turn, the finish is the upstream's
        assert finish == "length"
        assert len(got) == 2 and got[1][1] == CUT_ROW["expected"]["calls"][1]["name"]
        with pytest.raises(json.JSONDecodeError):
            json.loads(got[1][2])


def test_messages_a_call_cut_off_stays_open(start_proxy, upstream: FakeUpstream) -> None:
    upstream.script(CUT_TEXT, finish_reason="length", seed=2)
    tools = [{"name": t["function"]["name"], "input_schema": t["function"]["parameters"]}
             for t in CUT_ROW["tools"]]
    client = anthropic_client(start_proxy(mode="repair", stream_calls="live"))
    with client.messages.stream(model="qwen3_coder", max_tokens=256, tools=tools,
                                messages=[{"role": "user", "content": "go"}]) as stream:
        events = list(stream)
        message = stream.get_final_message()
    started = [e.index for e in events if e.type == "content_block_start"
               and e.content_block.type == "tool_use"]
    stopped = {e.index for e in events if e.type == "content_block_stop"}
    assert len(started) == 2 and started[0] in stopped and started[1] not in stopped
    assert message.stop_reason == "max_tokens"
