"""The proxy's relay (`answer_stream`, toolcalls/serve/_proxy.py) decoding the upstream's raw
stream: however its bytes are split and whatever line ends it uses, the client gets what the
upstream said, in linear work (no server: the upstream is an iterator of byte pieces)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from helpers import run_on_own_loop

import toolcalls
from toolcalls.providers._stream_reader import ProviderStream
from toolcalls.serve import ServeConfig, _proxy
from toolcalls.serve._proxy import answer_stream, plan
from toolcalls.serve.apis import APIS

CHAT = APIS["chat"]

CONFIG = ServeConfig(upstream="http://127.0.0.1:9/v1")
REQUEST = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}]}


def upstream_stream(contents: list[str], end: str = "\n") -> bytes:
    chunks = [{"object": "chat.completion.chunk", "model": "m",
               "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}
              for text in contents]
    chunks.append({"object": "chat.completion.chunk", "model": "m",
                   "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    lines = [f"data: {json.dumps(chunk)}{end}{end}" for chunk in chunks]
    return "".join([*lines, f"data: [DONE]{end}{end}"]).encode()


def relayed(pieces: list[bytes]) -> str:
    """The client's stream for an upstream that sent `pieces`."""
    planned = plan(CHAT, REQUEST, CONFIG)

    async def upstream() -> AsyncIterator[bytes]:
        for piece in pieces:
            yield piece

    async def reopen(body: object) -> AsyncIterator[bytes]:
        raise AssertionError("a single round")

    async def failed(error: Exception) -> str:
        raise error

    async def relay() -> str:
        return "".join([piece async for piece in answer_stream(planned, upstream(), reopen,
                                                                failed)])

    return run_on_own_loop(relay())


def client_reads(stream: str) -> toolcalls.ParseResult:
    reader = toolcalls.read_stream("openai")
    reader.feed(stream)
    reader.close()
    return reader.result()


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
def test_the_client_gets_the_upstreams_text_whatever_its_line_ends_and_a_bom(end: str) -> None:
    raw = b"\xef\xbb\xbf" + upstream_stream(["Hello, ", "wörld."], end)
    for pieces in ([raw], [raw[at:at + 3] for at in range(0, len(raw), 3)]):
        result = client_reads(relayed(pieces))
        assert result.content == "Hello, wörld." and result.finish_reason == "stop"
        assert result.issues == []


def test_an_error_event_of_text_mid_stream_ends_the_clients_stream_with_an_error() -> None:
    raw = upstream_stream(["Hello"])[:-len(b"data: [DONE]\n\n")]
    raw = raw.replace(b'"finish_reason": "stop"', b'"finish_reason": null')
    stream = relayed([raw, b"event: error\ndata: upstream overloaded\n\n"])
    assert '"error"' in stream and "upstream overloaded" in stream


def test_a_long_line_in_small_pieces_is_relayed_in_linear_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The relay read a line arriving in pieces by growing it piece by piece (50 MB took 20 s
    against 1 s whole). Checked without a clock: the characters the upstream's decoder looked
    at stay within a few times the stream; bench/wire_lines.py measures the time."""
    readers: list[ProviderStream] = []

    def recorded(*args: Any, **kwargs: Any) -> ProviderStream:
        readers.append(toolcalls.read_stream(*args, **kwargs))
        return readers[-1]

    monkeypatch.setattr(_proxy, "read_stream", recorded)
    long = "x" * 200_000
    raw = upstream_stream([long])
    result = client_reads(relayed([raw[at:at + 16] for at in range(0, len(raw), 16)]))
    assert result.content == long
    assert readers[0]._wire.scanned <= 4 * len(raw)
