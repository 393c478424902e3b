"""`toolcalls.arrow.parse_array` on short Hermes responses: rows per second, and what building
the Arrow column costs beside parsing.

Three timings on the same N responses (one call each, some prose before it): the parse alone
(`toolcalls.parser("hermes").parse` per row), `parse_array` on a pyarrow string column (parse
and build), and the build alone two ways: `ResultColumns` (one tuple per row and per call,
columns at the end) and ``pa.array(list_of_dicts, type=RESULT_TYPE)``. Times are the best of
`--repeats` runs of process CPU time.

    .venv-wheel/bin/python bench/arrow.py [--rows 50000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

import pyarrow as pa

import toolcalls
from toolcalls.arrow import RESULT_TYPE, parse_array
from toolcalls.arrow._build import ResultColumns


def responses(rows: int) -> list[str]:
    return [f'I will check.<tool_call>{{"name": "get_weather", "arguments": {{"city": '
            f'"Paris {i}", "days": {i % 7}}}}}</tool_call>' for i in range(rows)]


def as_dict(result: toolcalls.ParseResult) -> dict[str, Any]:
    """The row as `RESULT_TYPE`'s Python value, for the pa.array way of building."""
    def span(pair: tuple[int, int] | None) -> dict[str, int] | None:
        return None if pair is None else {"start": pair[0], "end": pair[1]}

    return {"format": result.format, "content": result.content, "reasoning": result.reasoning,
            "calls": [{"id": c.id, "name": c.name, "arguments": c.arguments_json(),
                       "span": span(c.span), "source": c.source} for c in result.calls],
            "incomplete": [], "issues": [], "provider": None, "finish_reason": None,
            "usage": None if result.usage is None else json.dumps(result.usage), "error": None}


def best_cpu(run: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--rows", type=int, default=50_000)
    options.add_argument("--repeats", type=int, default=3)
    args = options.parse_args()
    texts = responses(args.rows)
    column = pa.array(texts)
    parser = toolcalls.parser("hermes")
    results = [parser.parse(text) for text in texts]

    def with_columns() -> object:
        built = ResultColumns()
        for result in results:
            built.add(result)
        return built.array()

    timed = {
        "parse only": best_cpu(lambda: [parser.parse(text) for text in texts], args.repeats),
        "parse_array (parse + build)": best_cpu(lambda: parse_array(column, "hermes"),
                                                args.repeats),
        "build: ResultColumns": best_cpu(with_columns, args.repeats),
        "build: pa.array(dicts)": best_cpu(
            lambda: pa.array([as_dict(r) for r in results], type=RESULT_TYPE), args.repeats),
    }
    print(f"| {args.rows:,} rows | us per row | rows per s |\n|---|---:|---:|")
    for name, seconds in timed.items():
        print(f"| {name} | {seconds / args.rows * 1e6:.2f} | {args.rows / seconds:,.0f} |")


if __name__ == "__main__":
    main()
