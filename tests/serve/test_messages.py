"""The proxy's Anthropic Messages API, with the anthropic SDK as its client."""

from __future__ import annotations

import json
import re

import anthropic
import httpx
import pytest
from clients import TIMEOUT, anthropic_client, expected
from upstream import FakeUpstream, corpus_rows

TOOLU_ID = re.compile(r"toolu_[0-9a-f]{24}")
ROWS = [row for fmt in ("qwen3_coder", "kimi_k2", "mistral", "hermes")
        for row in (corpus_rows(fmt, calls=2) or corpus_rows(fmt, calls=1))[:1]]


def _tools(row: dict) -> list[dict]:
    return [{"name": t["function"]["name"], "description": t["function"].get("description", ""),
             "input_schema": t["function"].get("parameters") or {"type": "object"}}
            for t in row["tools"]]


def _request(row: dict, **extra: object) -> dict:
    return {"model": row["format"], "max_tokens": 256, "tools": _tools(row),
            "system": "Be brief.", "messages": [{"role": "user", "content": "go"}], **extra}


def _read(message: anthropic.types.Message) -> tuple[str, list[tuple[str, dict]], str | None]:
    text = "".join(block.text for block in message.content if block.type == "text")
    calls = [(block.name, block.input) for block in message.content if block.type == "tool_use"]
    return text, calls, message.stop_reason


@pytest.mark.parametrize("mode", ["repair", "prompt"])
@pytest.mark.parametrize("row", ROWS, ids=lambda row: row["id"])
def test_messages_whole_and_streamed(start_proxy, upstream: FakeUpstream, row, mode) -> None:
    client = anthropic_client(start_proxy(mode=mode))
    upstream.script(row["text"])
    whole = client.messages.create(**_request(row))
    content, calls = expected(row["text"], row["format"], row["tools"])
    assert _read(whole) == (content, calls, "tool_use")
    assert all(TOOLU_ID.fullmatch(b.id) for b in whole.content if b.type == "tool_use")
    assert (whole.usage.input_tokens, whole.usage.output_tokens) == (11, 7)
    sent = upstream.requests[0]
    assert sent["messages"][0] == {"role": "system", "content": sent["messages"][0]["content"]}
    assert sent["messages"][0]["content"].startswith("Be brief.")
    assert ("tools" in sent) == (mode == "repair")
    upstream.script(row["text"], seed=3)
    with client.messages.stream(**_request(row)) as stream:
        streamed = stream.get_final_message()
    assert _read(streamed) == _read(whole)
    assert (streamed.usage.input_tokens, streamed.usage.output_tokens) == (11, 7)


def test_history_with_tool_results(start_proxy, upstream: FakeUpstream) -> None:
    row = corpus_rows("qwen3_coder", calls=2)[0]
    history = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "toolu_1", "name": "special_function",
             "input": {"arg1": 1}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "42"}]},
    ]
    upstream.script("The answer is 42.")
    answer = anthropic_client(start_proxy(mode="repair")).messages.create(
        **_request(row, messages=history))
    assert _read(answer) == ("The answer is 42.", [], "end_turn")
    sent = upstream.requests[0]["messages"]
    assistant = next(m for m in sent if m["role"] == "assistant")
    assert assistant["tool_calls"][0]["id"] == "toolu_1"
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"arg1": 1}
    tool = next(m for m in sent if m["role"] == "tool")
    assert tool["tool_call_id"] == "toolu_1" and "42" in str(tool["content"])


def test_disable_parallel_tool_use(start_proxy, upstream: FakeUpstream) -> None:
    row = corpus_rows("qwen3_coder", calls=2)[0]
    upstream.script(row["text"])
    answer = anthropic_client(start_proxy(mode="repair")).messages.create(**_request(
        row, tool_choice={"type": "auto", "disable_parallel_tool_use": True}))
    assert _read(answer)[1] == expected(row["text"], "qwen3_coder", row["tools"])[1][:1]


def test_errors_in_anthropics_shape(start_proxy, upstream: FakeUpstream) -> None:
    url = start_proxy()
    missing = httpx.post(f"{url}/v1/messages", timeout=TIMEOUT, json={
        "model": "m", "messages": [{"role": "user", "content": "hi"}]})
    assert missing.status_code == 400
    assert missing.json()["type"] == "error"
    assert missing.json()["error"]["type"] == "invalid_request_error"
    assert missing.json()["error"]["message"].startswith("max_tokens: ")
    upstream.script(fault="status_500")
    with pytest.raises(anthropic.APIStatusError) as raised:
        anthropic_client(url).messages.create(
            model="m", max_tokens=5, messages=[{"role": "user", "content": "hi"}])
    assert raised.value.status_code == 502
    assert "answered 500" in raised.value.message


def test_cut_stream_raises_in_the_sdk(start_proxy, upstream: FakeUpstream) -> None:
    row = corpus_rows("qwen3_coder", calls=2)[0]
    upstream.script(row["text"], fault="disconnect")
    with pytest.raises(anthropic.APIStatusError, match="upstream"):  # noqa: SIM117
        with anthropic_client(start_proxy()).messages.stream(**_request(row)) as stream:
            stream.get_final_message()
