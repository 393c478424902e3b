"""`read_stream` on an OpenAI Chat stream beside `stream()` on the same text (target ≤ 1.2×).

A 64 KB response (prose, then a Hermes call) in 4-character ``delta.content`` deltas, each a
``chat.completion.chunk`` dict as the openai SDK's ``to_dict()`` gives it, then the finish and
usage chunks; `toolcalls.stream("hermes")` is fed the same 4-character deltas. Times are the
median process CPU time of `--repeats` runs; the chunk dicts are built before timing.

    .venv-wheel/bin/python bench/read_stream.py [--kb 64] [--repeats 7]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import toolcalls

CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'


def make_text(size: int) -> str:
    prose = "The quick brown fox jumps over the lazy dog, then checks the weather. "
    return (prose * (size // len(prose) + 1))[: size - len(CALL)] + CALL


def make_chunks(deltas: list[str]) -> list[dict[str, Any]]:
    head = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 1,
            "model": "gpt-4o-mini"}
    chunks = [{**head, "choices": [{"index": 0, "delta": {"content": delta},
                                    "logprobs": None, "finish_reason": None}]}
              for delta in deltas]
    chunks.append({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    chunks.append({**head, "choices": [], "usage": {"prompt_tokens": 1, "total_tokens": 2}})
    return chunks


def timed(run: Callable[[], int], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return statistics.median(times)


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--kb", type=int, default=64)
    options.add_argument("--repeats", type=int, default=7)
    args = options.parse_args()
    text = make_text(args.kb * 1024)
    deltas = [text[i:i + 4] for i in range(0, len(text), 4)]
    chunks = make_chunks(deltas)

    def streamed() -> int:
        parser = toolcalls.stream("hermes")
        for delta in deltas:
            parser.feed(delta)
        parser.close()
        return len(parser.result().calls)

    def read() -> int:
        parser = toolcalls.read_stream("openai", format="hermes")
        for chunk in chunks:
            parser.feed(chunk)
        parser.close()
        return len(parser.result().calls)

    assert streamed() == read() == 1
    base = timed(streamed, args.repeats)
    ours = timed(read, args.repeats)
    print(f"{args.kb} KB in {len(deltas)} deltas of 4 characters")
    print(f"stream():      {base * 1e3:8.1f} ms")
    print(f"read_stream(): {ours * 1e3:8.1f} ms")
    print(f"ratio:         {ours / base:8.2f}x (target <= 1.2x)")


if __name__ == "__main__":
    main()
