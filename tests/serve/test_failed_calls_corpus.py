"""Over the corpus: a turn with a failed call (malformed, or cut at a random point inside its
last call) reads the same whole and streamed (in random pieces, ``stream_calls`` whole): the
same content, the failed calls' text in it, the same complete calls, never a failed one."""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from helpers import run_on_own_loop

import toolcalls
from toolcalls.providers._response_reader import read_response
from toolcalls.serve import ServeConfig
from toolcalls.serve._proxy import answer_stream, answer_whole, plan
from toolcalls.serve.apis import APIS
from toolcalls.tools._importers import import_tools

CORPUS = Path(__file__).resolve().parents[2] / "fixtures" / "corpus"
FORMATS = sorted(path.stem for path in CORPUS.glob("*.jsonl") if path.stem != "streaming")


def _rows(fmt: str) -> list[dict[str, Any]]:
    """The format's corpus rows that have tools or calls; a row without tools (llama.cpp's
    tests send none) gets one per tool it calls, taking any arguments."""
    lines = (CORPUS / f"{fmt}.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [row for row in map(json.loads, filter(str.strip, lines))
            if row.get("tools") or row["expected"]["calls"]]
    return [{**row, "text": _whole_text(row, fmt), "tools": row.get("tools") or
             _tools_called(row)} for row in rows]


def _whole_text(row: dict[str, Any], fmt: str) -> str:
    """The row's text as a response: a call block's inside (``"scope": "tool_call_body"``)
    between the markers the format declares for it, as `tests/corpus.py` reads it."""
    if row.get("scope") != "tool_call_body":
        return str(row["text"])
    before, after = toolcalls.get_format(fmt).body_wrapper or ("", "")
    return before + row["text"] + after


def _tools_called(row: dict[str, Any]) -> list[dict[str, Any]]:
    names = dict.fromkeys(call["name"] for call in row["expected"]["calls"] if call["name"])
    return [{"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
            for name in names]


def _cut(row: dict[str, Any], fmt: str, rng: random.Random) -> str:
    """The row's text cut at a random point inside its last call: after its name began, before
    the call's text ends as the format reads it (a row whose only call ends the text with a
    close tag, cut past the call, would hold no failed call)."""
    text = row["text"]
    at = max(1, *(text.rfind(call["name"]) for call in row["expected"]["calls"]))
    read = toolcalls.parse(text, fmt, tools=row["tools"]).calls
    end = read[-1].span[1] - 1 if read else len(text)
    # A cut just before a close token can leave the call whole (gemma's "}" then
    # "<end_function_call>"): draw again, a bounded number of times, for one that fails it.
    for _ in range(32):
        cut = text[:rng.randint(at, max(at, end))]
        if toolcalls.parse(cut, fmt, tools=row["tools"]).incomplete:
            return cut
    return text[:at + 1]


def _cases(fmt: str) -> list[tuple[str, str, list[Any]]]:
    """(text, upstream finish, tools): each row as it is (some hold malformed calls), and
    each row with calls cut."""
    rng = random.Random(fmt)
    rows = _rows(fmt)
    return [*[(row["text"], "stop", row["tools"]) for row in rows],
            *[(_cut(row, fmt, rng), "length", row["tools"]) for row in rows
              if row["expected"]["calls"]]]


def _chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    chunk = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
             "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return f"data: {json.dumps(chunk)}\n\n".encode()


async def _sse(text: str, finish: str, rng: random.Random) -> AsyncIterator[bytes]:
    at = 0
    while at < len(text):
        size = rng.randint(1, 12)
        yield _chunk({"content": text[at:at + size]})
        at += size
    yield _chunk({}, finish)
    yield b"data: [DONE]\n\n"


def _whole(planned: Any, text: str, finish: str) -> dict[str, Any]:
    async def post(body: Any) -> Any:
        return {"id": "c", "object": "chat.completion", "created": 1, "model": "m",
                "choices": [{"index": 0, "finish_reason": finish,
                             "message": {"role": "assistant", "content": text}}]}

    answer = run_on_own_loop(answer_whole(planned, post))
    if planned.api.name == "messages":
        return {"content": "".join(b["text"] for b in answer["content"] if b["type"] == "text"),
                "calls": [(b["name"], b["input"]) for b in answer["content"]
                          if b["type"] == "tool_use"]}
    message = answer["choices"][0]["message"]
    return {"content": message["content"] or "", "calls": [
        (c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in message.get("tool_calls") or []]}


def _streamed(planned: Any, text: str, finish: str, seed: int) -> dict[str, Any]:
    async def never(body: Any) -> Any:
        raise AssertionError("no second round")

    async def failed(error: Exception) -> str:
        raise error

    async def relay() -> str:
        pieces = answer_stream(planned, _sse(text, finish, random.Random(seed)), never, failed)
        return "".join([piece async for piece in pieces])

    sent = [json.loads(line[6:]) for line in run_on_own_loop(relay()).splitlines()
            if line.startswith("data: {")]
    if planned.api.name == "messages":
        return _messages_read(sent)
    content, calls = "", {}
    for event in sent:
        if event:
            for choice in event["choices"]:
                content += choice["delta"].get("content") or ""
                for call in choice["delta"].get("tool_calls") or []:
                    parts = calls.setdefault(call["index"], ["", ""])
                    parts[0] += call["function"].get("name") or ""
                    parts[1] += call["function"].get("arguments") or ""
    return {"content": content, "calls": [(calls[index][0], json.loads(calls[index][1]))
                                          for index in sorted(calls)]}


def _messages_read(events: list[dict[str, Any]]) -> dict[str, Any]:
    """A Messages stream's text and its tool_use blocks (name, input)."""
    content, calls = "", {}
    for event in events:
        if event["type"] == "content_block_start" and event["content_block"]["type"] == \
                "tool_use":
            calls[event["index"]] = [event["content_block"]["name"], ""]
        elif event["type"] == "content_block_delta":
            delta = event["delta"]
            if delta["type"] == "text_delta":
                content += delta["text"]
            elif delta["type"] == "input_json_delta":
                calls[event["index"]][1] += delta["partial_json"]
    return {"content": content, "calls": [(calls[index][0], json.loads(calls[index][1] or "{}"))
                                          for index in sorted(calls)]}


@pytest.mark.parametrize("api", ["chat", "messages"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_a_failed_call_reads_the_same_whole_and_streamed(fmt: str, api: str) -> None:
    cases = _cases(fmt)
    assert cases, f"no {fmt} rows with calls"
    config = ServeConfig(upstream="http://u/v1", mode="repair", model_formats={"m": fmt})
    failed = 0
    for number, (text, finish, tools) in enumerate(cases):
        request = _request(api, tools)
        whole = _whole(plan(APIS[api], request, config), text, finish)
        streamed = _streamed(plan(APIS[api], {**request, "stream": True}, config), text,
                             finish, number)
        assert streamed == whole, (number, text)
        raws = _failed_raws(text, fmt, tools)
        assert all(raw in whole["content"] for raw in raws), (number, text)
        failed += bool(raws)
    assert failed, f"no {fmt} turn with a failed call"


def _failed_raws(text: str, fmt: str, tools: list[Any]) -> list[str]:
    """The text of each call that fails in `text`, as the library reads it."""
    result = read_response({"model": "m", "choices": [{"index": 0, "finish_reason": "stop",
                            "message": {"role": "assistant", "content": text}}]},
                           "openai", format=fmt, tools=import_tools(tools))
    return [call.raw for call in result.incomplete if call.source == "text"]


def _request(api: str, tools: list[Any]) -> dict[str, Any]:
    messages = [{"role": "user", "content": "go"}]
    if api == "chat":
        return {"model": "m", "tools": tools, "messages": messages}
    return {"model": "m", "max_tokens": 100, "messages": messages, "tools": [
        {"name": t["function"]["name"], "input_schema": t["function"].get("parameters") or {
            "type": "object"}} for t in tools]}
