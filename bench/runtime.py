"""The executor's own cost per call, beside the floor of running the same calls by hand.

Per call, the executor finds the tool, checks the arguments against the schema, asks the loop
guard, the permissions and the rate limiter, runs the before and after hooks, runs the tool
under its timeout and cancel token, and cuts the result to size. The floor is what any program
pays to run the same tools without it: ``asyncio.gather`` over the bodies (async tools), or a
loop calling them (sync tools, which the executor runs on worker threads). The overhead is
(executor − floor) / calls in process CPU time; targets: under 50 µs per call, and 1,000
parallel calls of an async no-op in under 0.2 s (wall clock).

Calls are the path users take: `ToolCall`s as a parser gives them, tools declared with
``@tool`` from typed functions, the default `Executor` (permissions, limits, loop guard and a
10,000-character result limit all on).

    .venv-wheel/bin/python bench/runtime.py [--calls 1000] [--repeats 7]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Callable

from toolcalls import ToolCall
from toolcalls.runtime import Executor, Parallel, Sequential, tool


@tool
async def noop_async(x: int) -> int:
    """Return x."""
    return x


@tool
def noop_sync(x: int) -> int:
    """Return x."""
    return x


def make_calls(name: str, count: int) -> list[ToolCall]:
    return [ToolCall(id=f"call_{i}", name=name, arguments={"x": i}, source="native")
            for i in range(count)]


def timed(run: Callable[[], object], repeats: int) -> tuple[float, float]:
    """Median (process CPU time, wall-clock time) of `repeats` runs."""
    cpu, wall = [], []
    for _ in range(repeats):
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        run()
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start_wall)
    return statistics.median(cpu), statistics.median(wall)


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--calls", type=int, default=1000)
    options.add_argument("--repeats", type=int, default=7)
    args = options.parse_args()
    n = args.calls
    async_calls, sync_calls = make_calls("noop_async", n), make_calls("noop_sync", n)
    parallel = Executor([noop_async, noop_sync], strategy=Parallel())
    sequential = Executor([noop_async, noop_sync], strategy=Sequential())

    async def floor_async() -> None:
        await asyncio.gather(*(noop_async.body.execute(c.arguments, None)  # type: ignore[arg-type]
                               for c in async_calls))

    def floor_sync() -> None:
        for c in sync_calls:
            noop_sync.body.function(**c.arguments)  # type: ignore[attr-defined]

    rows = [
        ("1,000 async no-ops, parallel", lambda: parallel.run_sync(async_calls),
         lambda: asyncio.run(floor_async())),
        ("1,000 async no-ops, sequential", lambda: sequential.run_sync(async_calls),
         lambda: asyncio.run(floor_async())),
        ("1,000 sync no-ops, parallel (threads)", lambda: parallel.run_sync(sync_calls),
         floor_sync),
    ]
    print(f"{n:,} calls per run, medians of {args.repeats} runs; overhead from process CPU "
          "time (what a loaded machine does not inflate), the run's wall clock beside it")
    print("| run | executor CPU s | floor CPU s | overhead µs/call | executor wall s |")
    print("|---|---:|---:|---:|---:|")
    for label, executed, floor in rows:
        (ours, ours_wall), (base, _) = timed(executed, args.repeats), timed(floor, args.repeats)
        print(f"| {label.replace('1,000', f'{n:,}')} | {ours:.3f} | {base:.3f} | "
              f"{(ours - base) / n * 1e6:.1f} | {ours_wall:.3f} |")


if __name__ == "__main__":
    main()
