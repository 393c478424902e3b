"""One long SSE line, whole and in small pieces: `WireDecoder` and the proxy's relay.

A line that arrives in many pieces must cost what it costs whole: the decoder keeps the
pieces of the line still arriving and looks for a line break only in the piece that came
(issue 24: a 20 MB line in 1 KB pieces took 6.6 s, the relay took 20 s for 50 MB). This
times, for each size, the decoder fed the line whole and in `--piece` byte pieces, and the
proxy's relay (`answer_stream`, no network) given the upstream's bytes the same two ways.

    .venv/bin/python bench/wire_lines.py [--mb 20] [--relay-mb 50] [--piece 1024]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import AsyncIterator

from toolcalls.providers._wire_decoder import WireDecoder
from toolcalls.serve._config import ServeConfig
from toolcalls.serve._proxy import answer_stream, plan
from toolcalls.serve.apis import APIS


def sse_line(size: int) -> bytes:
    """One Chat Completions chunk whose content makes the ``data:`` line `size` bytes long."""
    chunk = {"object": "chat.completion.chunk", "model": "m",
             "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": None}]}
    empty = len(f"data: {json.dumps(chunk)}\n\n")
    chunk["choices"][0]["delta"]["content"] = "x" * max(0, size - empty)
    return f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()


def pieces(data: bytes, size: int) -> list[bytes]:
    return [data[at:at + size] for at in range(0, len(data), size)]


def time_decoder(parts: list[bytes]) -> float:
    wire = WireDecoder()
    started = time.perf_counter()
    events = [event for part in parts for event in wire.feed(part)] + wire.finish()
    elapsed = time.perf_counter() - started
    assert len(events) == 1, len(events)
    return elapsed


def time_relay(parts: list[bytes]) -> float:
    config = ServeConfig(upstream="http://127.0.0.1:9/v1")
    planned = plan(APIS["chat"], {"model": "m", "stream": True,
                              "messages": [{"role": "user", "content": "hi"}]}, config)

    async def upstream() -> AsyncIterator[bytes]:
        for part in parts:
            yield part

    async def reopen(body: object) -> AsyncIterator[bytes]:
        raise AssertionError("no second round")

    async def failed(error: Exception) -> str:
        raise error

    async def relay() -> int:
        return sum([len(piece) async for piece in answer_stream(planned, upstream(), reopen,
                                                                 failed)])

    started = time.perf_counter()
    written = asyncio.run(relay())
    elapsed = time.perf_counter() - started
    assert written > len(parts[0]), written
    return elapsed


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--mb", type=float, default=20.0, help="the decoder's line (MB)")
    args.add_argument("--relay-mb", type=float, default=50.0, help="the relay's line (MB)")
    args.add_argument("--piece", type=int, default=1024, help="bytes per piece")
    options = args.parse_args()
    line = sse_line(int(options.mb * 1_000_000))
    print(f"WireDecoder, {options.mb:g} MB line: whole {time_decoder([line]):.2f} s, "
          f"in {options.piece} B pieces {time_decoder(pieces(line, options.piece)):.2f} s")
    line = sse_line(int(options.relay_mb * 1_000_000))
    print(f"relay (answer_stream), {options.relay_mb:g} MB line: whole "
          f"{time_relay([line]):.2f} s, in {options.piece} B pieces "
          f"{time_relay(pieces(line, options.piece)):.2f} s")


if __name__ == "__main__":
    main()
