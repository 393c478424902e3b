"""Ray Data on this machine: N short Hermes responses parsed by `toolcalls.arrow.parse_table`
in ``map_batches(batch_format="pyarrow")``, on a local Ray with 1 CPU and with 2.

The rows are the responses of `bench/arrow.py` in a pyarrow table (``from_arrow``); each run
is timed by the wall clock from the dataset's creation to the last block fetched, after a
warm-up run that starts Ray's workers and imports toolcalls in them. Ray starts on loopback,
without dashboard or usage statistics.

    .venv-wheel/bin/python bench/arrow_ray.py [--rows 1000000] [--blocks 16]
"""

from __future__ import annotations

import argparse
import os
import time
from functools import partial

import pyarrow as pa
import ray
import ray.data
from arrow import responses

from toolcalls.arrow import parse_table


def parse_all(table: pa.Table, blocks: int) -> int:
    rows = ray.data.from_arrow(table).repartition(blocks)
    parsed = rows.map_batches(partial(parse_table, column="text", format="hermes"),
                              batch_format="pyarrow")
    return sum(block.num_rows for block in ray.get(parsed.to_arrow_refs()))


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--rows", type=int, default=1_000_000)
    options.add_argument("--blocks", type=int, default=16)
    args = options.parse_args()
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    table = pa.table({"text": responses(args.rows)})
    print("| CPUs | rows | seconds | rows/s | vs 1 CPU |")
    print("|---:|---:|---:|---:|---:|")
    base = None
    for cpus in (1, 2):
        ray.init(address="local", num_cpus=cpus, include_dashboard=False, log_to_driver=False,
                 configure_logging=False, _node_ip_address="127.0.0.1")
        parse_all(table.slice(0, 10_000), cpus)  # warm-up: workers started, toolcalls imported
        started = time.perf_counter()
        assert parse_all(table, args.blocks) == args.rows
        seconds = time.perf_counter() - started
        base = base or seconds
        print(f"| {cpus} | {args.rows:,} | {seconds:.1f} | {args.rows / seconds:,.0f} | "
              f"{base / seconds:.2f}x |", flush=True)
        ray.shutdown()


if __name__ == "__main__":
    main()
