"""Real SDK clients of the proxy (bounded by timeouts), and what they read back, accumulated."""

from __future__ import annotations

import json
import time
from typing import Any

import anthropic
import openai
import pytest

from toolcalls.providers._response_reader import read_response
from toolcalls.serve._failed_calls import restored_content

TIMEOUT = 10.0
OPEN: list[openai.OpenAI | anthropic.Anthropic] = []
"""The clients a test made: conftest closes them after it (their sockets with them)."""


def openai_client(url: str, **options: Any) -> openai.OpenAI:
    client = openai.OpenAI(base_url=f"{url}/v1", api_key="sk-test", timeout=TIMEOUT,
                           max_retries=0, **options)
    OPEN.append(client)
    return client


def anthropic_client(url: str) -> anthropic.Anthropic:
    client = anthropic.Anthropic(base_url=url, api_key="sk-ant-test", timeout=TIMEOUT,
                                 max_retries=0)
    OPEN.append(client)
    return client


def close_clients() -> None:
    while OPEN:
        OPEN.pop().close()


def chat_whole(client: openai.OpenAI, **request: Any) -> dict[str, Any]:
    """A non-streamed answer as {content, calls: [(id, name, arguments)], finish, usage}."""
    response = client.chat.completions.create(**request)
    message = response.choices[0].message
    calls = [(c.id, c.function.name, json.loads(c.function.arguments))
             for c in message.tool_calls or []]
    usage = response.usage.model_dump(exclude_none=True) if response.usage else None
    return {"content": message.content or "", "calls": calls,
            "finish": response.choices[0].finish_reason, "usage": usage}


def chat_stream_raw(client: openai.OpenAI, **request: Any) -> dict[str, Any]:
    """A streamed answer as the SDK's chunks give it: content, finish, usage, and each call as
    (id, name, arguments text), the text as it came (it may not be JSON for a call cut off)."""
    content, finish, usage = "", None, None
    calls: dict[int, list[str]] = {}
    with client.chat.completions.create(stream=True, **request) as stream:
        for chunk in stream:
            if chunk.usage:
                usage = chunk.usage.model_dump(exclude_none=True)
            for choice in chunk.choices:
                content += choice.delta.content or ""
                finish = choice.finish_reason or finish
                for call in choice.delta.tool_calls or []:
                    parts = calls.setdefault(call.index, ["", "", ""])
                    parts[0] += call.id or ""
                    parts[1] += call.function.name or "" if call.function else ""
                    parts[2] += call.function.arguments or "" if call.function else ""
    return {"content": content, "finish": finish, "usage": usage,
            "calls": [tuple(calls[index]) for index in sorted(calls)]}


def chat_streamed(client: openai.OpenAI, **request: Any) -> dict[str, Any]:
    """A streamed answer, accumulated as the SDK's chunks give it, in `chat_whole`'s shape."""
    answer = chat_stream_raw(client, **request)
    answer["calls"] = [(i, n, json.loads(a or "{}")) for i, n, a in answer["calls"]]
    return answer


def expected(text: str, fmt: str, tools: Any) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    """What the proxy should answer for `text`: as `read_response` reads it, content (with
    the text of the calls that failed, which the proxy never sends as calls) and (name,
    arguments) per call."""
    result = read_response({"model": "m", "choices": [{"index": 0, "finish_reason": "stop",
                            "message": {"role": "assistant", "content": text}}]},
                           "openai", format=fmt, tools=tools)
    return restored_content(result), [(call.name, call.arguments) for call in result.calls]


def named(calls: list[tuple[str, str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    return [(name, arguments) for _, name, arguments in calls]


def access_lines(caplog: pytest.LogCaptureFixture, count: int) -> list[dict[str, Any]]:
    """The proxy's access lines, once there are `count` (a stream's is written just after its
    last piece went out, which its client may have read first); fewer after 10 s."""
    deadline = time.monotonic() + 10
    while True:
        lines = [json.loads(record.getMessage()) for record in caplog.records
                 if hasattr(record, "access")]
        if len(lines) >= count or time.monotonic() > deadline:
            return lines
        time.sleep(0.01)
