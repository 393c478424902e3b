"""The proxy's OpenAI Chat Completions API, with the openai SDK as its client."""

from __future__ import annotations

import re

import httpx
import pytest
from clients import chat_streamed, chat_whole, expected, named, openai_client
from upstream import USAGE, FakeUpstream, corpus_rows

CALL_ID = re.compile(r"call_[0-9a-f]{24}")
ROWS = [row for fmt in ("qwen3_coder", "kimi_k2", "mistral", "glm47", "deepseek_v32_dsml",
                        "minimax_m1", "llama3_json", "pythonic")
        for row in corpus_rows(fmt, calls=2)[:2]] + corpus_rows("hermes", calls=1)[:2]


def _request(row: dict, **extra: object) -> dict:
    return {"model": row["format"], "tools": row["tools"],
            "messages": [{"role": "user", "content": "go"}], **extra}


def test_healthz(start_proxy) -> None:
    response = httpx.get(f"{start_proxy()}/healthz", timeout=5)
    assert response.status_code == 200 and response.json() == {"status": "ok"}


def test_models_are_the_upstreams(start_proxy) -> None:
    models = openai_client(start_proxy()).models.list()
    assert [model.id for model in models.data] == ["qwen3_coder"]


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row["id"])
def test_repair_moves_calls_out_of_the_text(start_proxy, upstream: FakeUpstream, row) -> None:
    upstream.script(row["text"])
    answer = chat_whole(openai_client(start_proxy(mode="repair")), **_request(row))
    content, calls = expected(row["text"], row["format"], row["tools"])
    assert (answer["content"], named(answer["calls"])) == (content, calls)
    assert [name for name, _ in calls] == [call["name"] for call in row["expected"]["calls"]]
    assert answer["finish"] == "tool_calls"
    assert answer["usage"] == USAGE
    assert all(CALL_ID.fullmatch(call_id) for call_id, _, _ in answer["calls"])
    assert len({call_id for call_id, _, _ in answer["calls"]}) == len(calls)
    assert upstream.requests[0]["tools"] == row["tools"]  # repair: tools pass through


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row["id"])
@pytest.mark.parametrize("seed", [1, 2])
def test_streamed_answer_equals_whole(start_proxy, upstream: FakeUpstream, row, seed) -> None:
    client = openai_client(start_proxy(mode="repair"))
    upstream.script(row["text"], seed=seed)
    whole = chat_whole(client, **_request(row))
    streamed = chat_streamed(client, **_request(row), stream_options={"include_usage": True})
    assert upstream.requests[-1]["stream_options"] == {"include_usage": True}
    assert (streamed["content"], named(streamed["calls"]), streamed["finish"]) == (
        whole["content"], named(whole["calls"]), whole["finish"])
    assert streamed["usage"] == USAGE
    assert all(CALL_ID.fullmatch(call_id) for call_id, _, _ in streamed["calls"])


def test_unknown_model_is_repaired_by_its_markup(start_proxy, upstream: FakeUpstream) -> None:
    row = corpus_rows("qwen3_coder", calls=2)[0]
    upstream.script(row["text"])
    answer = chat_whole(openai_client(start_proxy(mode="repair")),
                        **_request(row, model="my-finetune"))
    assert named(answer["calls"]) == expected(row["text"], "qwen3_coder", row["tools"])[1]


def test_native_calls_keep_their_ids(start_proxy, upstream: FakeUpstream) -> None:
    native = [{"id": "call_native1", "type": "function",
               "function": {"name": "special_function", "arguments": '{"arg1": 1}'}}]
    row = corpus_rows("qwen3_coder", calls=2)[0]
    client = openai_client(start_proxy(mode="repair"))
    for answer in (lambda: chat_whole(client, **_request(row)),
                   lambda: chat_streamed(client, **_request(row))):
        upstream.script("", native_calls=native)
        got = answer()
        assert got["calls"] == [("call_native1", "special_function", {"arg1": 1})]
        assert got["finish"] == "tool_calls"


def test_parallel_tool_calls_false_keeps_the_first(start_proxy, upstream: FakeUpstream) -> None:
    row = corpus_rows("qwen3_coder", calls=2)[0]
    client = openai_client(start_proxy(mode="repair"))
    upstream.script(row["text"])
    first = expected(row["text"], "qwen3_coder", row["tools"])[1][:1]
    assert named(chat_whole(client, **_request(row, parallel_tool_calls=False))["calls"]) == first
    streamed = chat_streamed(client, **_request(row, parallel_tool_calls=False))
    assert named(streamed["calls"]) == first


def test_without_tools_the_text_is_the_answer(start_proxy, upstream: FakeUpstream) -> None:
    row = corpus_rows("qwen3_coder", calls=2)[0]
    upstream.script(row["text"])
    answer = chat_whole(openai_client(start_proxy(mode="repair")), model="qwen3_coder",
                        messages=[{"role": "user", "content": "go"}])
    assert answer["calls"] == [] and answer["content"] == row["text"]
    assert answer["finish"] == "stop"


def test_unknown_tool_is_returned_as_a_call(start_proxy, upstream: FakeUpstream) -> None:
    row = corpus_rows("qwen3_coder", calls=2)[0]
    upstream.script("<tool_call>\n<function=not_offered>\n</function>\n</tool_call>")
    answer = chat_whole(openai_client(start_proxy(mode="repair")), **_request(row))
    assert named(answer["calls"]) == [("not_offered", {})]
    assert answer["finish"] == "tool_calls"


def test_a_tool_schema_that_is_not_one_is_400(start_proxy, upstream: FakeUpstream) -> None:
    bad = [{"type": "function", "function": {"name": "f", "parameters": {"type": "foo"}}}]
    response = httpx.post(f"{start_proxy()}/v1/chat/completions", timeout=10, json={
        "model": "m", "tools": bad, "messages": [{"role": "user", "content": "hi"}]})
    assert response.status_code == 400
    assert response.json()["error"]["param"].startswith("tools")
    assert "not a valid JSON Schema" in response.json()["error"]["message"]
    assert upstream.requests == []


def test_a_fault_of_the_proxy_is_500_in_the_apis_shape(start_proxy, monkeypatch) -> None:
    from toolcalls.serve import _app

    async def broken(*args: object) -> None:
        raise RuntimeError("bug")

    monkeypatch.setattr(_app, "answer_whole", broken)
    for path, shape in [("/v1/chat/completions", "error"), ("/v1/messages", "type")]:
        response = httpx.post(f"{start_proxy()}{path}", timeout=10, json={
            "model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]},
            headers={"x-request-id": "fault-1"})
        assert response.status_code == 500 and shape in response.json()
        assert "RuntimeError" in str(response.json())
        assert response.headers["x-request-id"] == "fault-1"
        assert "request id fault-1" in str(response.json())
