"""Prompt mode: the upstream gets no tools; they are in its system prompt, in the model's own
format, with the history's calls and results as its template writes them; its text is parsed
back into calls."""

from __future__ import annotations

import re

import pytest
from clients import chat_streamed, chat_whole, expected, named, openai_client
from upstream import FakeUpstream, corpus_rows

from toolcalls import ToolCall, get_format
from toolcalls.tools import import_tools

CALL_ID = re.compile(r"call_[0-9a-f]{24}")
ROWS = [row for fmt in ("qwen3_coder", "kimi_k2", "glm47", "mistral")
        for row in corpus_rows(fmt, calls=2)[:1]]


def _request(row: dict, **extra: object) -> dict:
    return {"model": row["format"], "tools": row["tools"], "tool_choice": "auto",
            "messages": [{"role": "system", "content": "Be brief."},
                         {"role": "user", "content": "go"}], **extra}


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row["id"])
def test_tools_go_into_the_system_prompt(start_proxy, upstream: FakeUpstream, row) -> None:
    upstream.script(row["text"])
    client = openai_client(start_proxy(mode="prompt"))
    whole = chat_whole(client, **_request(row, parallel_tool_calls=True))
    sent = upstream.requests[0]
    assert not {"tools", "tool_choice", "parallel_tool_calls"} & set(sent)
    block = get_format(row["format"]).render_tools(import_tools(row["tools"]))
    assert sent["messages"][0]["role"] == "system"
    assert sent["messages"][0]["content"].startswith("Be brief.")
    assert block in sent["messages"][0]["content"]
    assert (whole["content"], named(whole["calls"])) == expected(
        row["text"], row["format"], row["tools"])
    assert whole["finish"] == "tool_calls"
    assert all(CALL_ID.fullmatch(call_id) for call_id, _, _ in whole["calls"])
    streamed = chat_streamed(client, **_request(row))
    assert (streamed["content"], named(streamed["calls"]), streamed["finish"]) == (
        whole["content"], named(whole["calls"]), whole["finish"])


def test_history_is_written_as_the_model_writes_it(start_proxy, upstream: FakeUpstream) -> None:
    row = corpus_rows("qwen3_coder", calls=2)[0]
    fmt = get_format("qwen3_coder")
    history = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_a", "type": "function",
             "function": {"name": "special_function", "arguments": '{"arg1": 1}'}}]},
        {"role": "tool", "tool_call_id": "call_a", "content": "42"},
    ]
    chat_whole(openai_client(start_proxy(mode="prompt")), model="qwen3_coder",
               tools=row["tools"], messages=history)
    sent = upstream.requests[0]["messages"]
    call = ToolCall(id="call_a", name="special_function", arguments={"arg1": 1},
                    source="native")
    assistant = [m for m in sent if m["role"] == "assistant"]
    assert len(assistant) == 1 and "tool_calls" not in assistant[0]
    assert fmt.render_calls([call]).strip() in assistant[0]["content"]
    assert not [m for m in sent if m["role"] == "tool"]
    assert fmt.render_result(call, "42").strip() in sent[-1]["content"]
    assert sent[-1]["role"] == "user"


def test_unknown_model_gets_the_xml_prompt_format(start_proxy, upstream: FakeUpstream) -> None:
    row = corpus_rows("qwen3_coder", calls=2)[0]
    xml = get_format("xml")
    calls = [ToolCall(id="call_0", name="special_function", arguments={"arg1": 7},
                      source="native")]
    upstream.script(xml.render_calls(calls, "Calling."))
    whole = chat_whole(openai_client(start_proxy(mode="prompt")),
                       **_request(row, model="my-finetune"))
    assert xml.render_tools(import_tools(row["tools"])) in (
        upstream.requests[0]["messages"][0]["content"])
    assert named(whole["calls"]) == [("special_function", {"arg1": 7})]


def test_auto_mode_prompts_the_configured_models_only(start_proxy,
                                                      upstream: FakeUpstream) -> None:
    row = corpus_rows("qwen3_coder", calls=2)[0]
    url = start_proxy(mode="auto", model_formats={"qwen*": "qwen3_coder"})
    upstream.script(row["text"])
    configured = chat_whole(openai_client(url), **_request(row, model="qwen3-30b"))
    assert "tools" not in upstream.requests[0]
    assert named(configured["calls"]) == expected(row["text"], "qwen3_coder", row["tools"])[1]
    upstream.script(row["text"])
    chat_whole(openai_client(url), **_request(row, model="llama-3"))
    assert upstream.requests[0]["tools"] == row["tools"]  # not configured: repair mode
