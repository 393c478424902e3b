"""`plan` (`toolcalls.serve._proxy`): what a client request becomes; answering it is tested
through the app (test_chat.py, test_messages.py, test_faults.py)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from helpers import run_on_own_loop

from toolcalls.providers._stream_reader import read_stream
from toolcalls.serve import ServeConfig, _proxy
from toolcalls.serve._proxy import answer_stream, plan
from toolcalls.serve.apis import APIS

CHAT = APIS["chat"]

WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}


def _request(model: str) -> dict:
    return {"model": model, "tools": [WEATHER], "messages": [{"role": "user", "content": "go"}]}


@pytest.mark.parametrize("model", ["Qwen/Qwen3-Coder-30B", "qwen3-coder", "QWEN3-X",
                                   "org/sub/qwen3.5"])
def test_a_glob_gives_the_format_and_the_mode_by_one_rule(model: str) -> None:
    """``--model-format`` globs match case-insensitively, the whole id or its last ``/``
    part: a model whose format a glob configures is in prompt mode and read in that format."""
    config = ServeConfig(upstream="http://u/v1", model_formats={"qwen3*": "hermes"})
    planned = plan(CHAT, _request(model), config)
    assert (planned.mode, planned.format.name) == ("prompt", "hermes")
    repair = plan(CHAT, _request(model), ServeConfig(
        upstream="http://u/v1", mode="repair", model_formats={"qwen3*": "hermes"}))
    assert repair.parse_format is not None and repair.parse_format != "auto"
    assert repair.parse_format.name == "hermes"  # type: ignore[union-attr]


@pytest.mark.parametrize("model", ["llama-3", "my-qwen3", "Qwen/Coder"])
def test_a_model_no_glob_matches_is_repaired_by_markup(model: str) -> None:
    config = ServeConfig(upstream="http://u/v1", model_formats={"qwen3*": "hermes"})
    planned = plan(CHAT, _request(model), config)
    assert (planned.mode, planned.parse_format) == ("repair", "auto")


def _sse(delta: dict) -> bytes:
    chunk = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
             "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
    return f"data: {json.dumps(chunk)}\n\n".encode()


@pytest.mark.parametrize(("delta", "mode"), [
    ({"content": "word "}, "prompt"), ({"content": "word "}, "repair"),
    ({"reasoning_content": "hmm "}, "prompt"),
    ({"content": '<tool_call>\n{"name": "get_weather", "arguments": {"city": "P"}}\n'
                 "</tool_call>"}, "prompt"),
])
def test_the_relay_lets_go_of_what_it_passed_on(monkeypatch, delta: dict, mode: str) -> None:
    """Memory bounded: after a long stream the reader holds none of the text, reasoning or
    calls the client was sent (it held all of them, ~1-18 bytes per byte streamed)."""
    readers: list[Any] = []

    def recording(*args: Any, **options: Any) -> Any:
        readers.append(read_stream(*args, **options))
        return readers[-1]

    monkeypatch.setattr(_proxy, "read_stream", recording)
    config = ServeConfig(upstream="http://u/v1", mode=mode, format="hermes")  # type: ignore[arg-type]
    planned = plan(CHAT, {**_request("m"), "stream": True}, config)

    async def upstream() -> AsyncIterator[bytes]:
        for _ in range(2000):
            yield _sse(delta)
        yield _sse({}).replace(b'"finish_reason": null', b'"finish_reason": "stop"')
        yield b"data: [DONE]\n\n"

    async def relay() -> str:
        async def never(body: Any) -> Any:
            raise AssertionError("no second round")

        async def failed(error: Exception) -> str:
            raise error

        return "".join([piece async for piece in answer_stream(planned, upstream(), never,
                                                                failed)])

    sent = run_on_own_loop(relay())
    assert sent.endswith("data: [DONE]\n\n") and sent.count("data: ") > 2000
    held = readers[0].result()  # at most what the stream's close gave (a blank held back)
    assert len(held.content) <= 1 and not held.reasoning and held.calls == []
    assert len(held.segments) <= 1
