"""Batch parsing: the 200 short and 20 long responses of ``peer_bench.py``, every format.

    .venv/bin/pytest bench/test_bench_batch.py            # pytest-benchmark tables per group

Each round parses every response of the set once (a fresh parse each, with the peers' tools);
the calls are checked against the generated ones, so a fast wrong parser cannot pass.
"""

from __future__ import annotations

import inputs
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

import toolcalls
from toolcalls.parsing._registry import get_format

TOOLS = toolcalls.to_tools(inputs.tool_defs())


@pytest.mark.parametrize("kind", ["short", "long"])
@pytest.mark.parametrize("fmt", inputs.OUR_FORMATS)
def test_batch(benchmark: BenchmarkFixture, fmt: str, kind: str) -> None:
    parser = get_format(fmt)
    cases = inputs.batch_cases(fmt, kind)
    texts = [text for text, _ in cases]
    benchmark.group = f"batch {kind} ({len(texts)} responses a round)"
    benchmark.extra_info["responses"] = len(texts)

    def parse_all() -> list[toolcalls.ParseResult]:
        return [parser.parse(text, tools=TOOLS) for text in texts]

    results = benchmark(parse_all)
    got = [[(call.name, call.arguments) for call in result.calls] for result in results]
    assert got == [calls for _, calls in cases]
