"""Streaming: responses of 1 KB to 1 MB fed in 1-, 4- and 64-character deltas, every format.

    .venv/bin/pytest bench/test_bench_stream.py                    # all (~5 min)
    .venv/bin/pytest bench/test_bench_stream.py -k "65536 and -4-"  # the 64 KB / 4-char row

The input is ``peer_gen.sized_response`` (prose, a small call, then one ``write_file`` whose
content carries most of the bytes), cut as the peers get it (special tokens whole). A round is a
fresh parser fed every delta, then closed; the calls are checked against the generated ones.
Compare the rows of one format across sizes for the scaling (linear: 16× the time per 16× size).
"""

from __future__ import annotations

import inputs
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

import toolcalls
from toolcalls.parsing._registry import get_format

TOOLS = toolcalls.to_tools(inputs.tool_defs())
SIZES = [1024, 16384, 65536, 1048576]
DELTAS = [1, 4, 64]
ROUNDS = {1024: 20, 16384: 5, 65536: 3, 1048576: 1}


@pytest.mark.parametrize("delta", DELTAS)
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("fmt", inputs.OUR_FORMATS)
def test_stream(benchmark: BenchmarkFixture, fmt: str, size: int, delta: int) -> None:
    parser = get_format(fmt)
    text, calls = inputs.sized_text(fmt, size)
    deltas = inputs.split(fmt, text, delta)
    benchmark.group = f"stream {size} chars in {delta}-char deltas"
    benchmark.extra_info.update(chars=len(text), deltas=len(deltas))

    def stream_all() -> toolcalls.ParseResult:
        stream = parser.stream(tools=TOOLS)
        for piece in deltas:
            stream.feed(piece)
        stream.close()
        return stream.result()

    result = benchmark.pedantic(stream_all, rounds=ROUNDS[size], iterations=1, warmup_rounds=0)
    assert [(call.name, call.arguments) for call in result.calls] == calls
