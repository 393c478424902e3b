"""``toolcalls parse --jsonl`` on N short Hermes responses: rows per second with 1 and 2 workers,
and peak memory, as a user runs it (the installed command, a JSONL file in, Parquet out).

The input is N rows ``{"id": i, "response": "..."}`` (the responses of `bench/arrow.py`), one
call each; each run is timed by the wall clock (workers run in parallel, so CPU time would
hide the gain). Peak memory is the largest resident set of the command's processes (the main
one and, with workers, the largest worker): each run is started by a small Python process of
its own that reads `resource.getrusage(RUSAGE_CHILDREN)` once it ends, so runs do not share a
maximum.
Also at N/10 rows, to show memory flat in the input's size. Each run is repeated and the
fastest kept: on a shared machine a slower run measures what else ran, not the command.

    .venv-wheel/bin/python bench/arrow_cli.py [--rows 1000000] [--batch-rows 10000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from arrow import responses


def write_input(path: Path, rows: int) -> None:
    with path.open("w", encoding="utf-8") as file:
        for start in range(0, rows, 100_000):
            texts = responses(min(100_000, rows - start))
            file.writelines(json.dumps({"id": start + i, "response": text}) + "\n"
                            for i, text in enumerate(texts))


_TIMED = """
import resource, subprocess, sys, time
started = time.perf_counter()
subprocess.run(sys.argv[1:], check=True, stderr=subprocess.DEVNULL)
print(time.perf_counter() - started, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def run(command: Path, source: Path, out: Path, workers: int, batch_rows: int
        ) -> tuple[float, float]:
    """Wall seconds and peak resident MB of one run of the command."""
    timed = subprocess.run(
        [sys.executable, "-c", _TIMED, str(command), "parse", "--jsonl", str(source),
         "--text-field", "response", "--format", "hermes", "--keep", "id", "--out", str(out),
         "--workers", str(workers), "--batch-rows", str(batch_rows), "--no-progress"],
        check=True, capture_output=True, text=True)
    seconds, peak_kb = timed.stdout.split()
    return float(seconds), int(peak_kb) / 1024


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--rows", type=int, default=1_000_000)
    options.add_argument("--batch-rows", type=int, default=10_000)
    options.add_argument("--repeat", type=int, default=3, help="runs of each; the fastest kept")
    args = options.parse_args()
    command = Path(sys.executable).with_name("toolcalls")
    folder = Path(tempfile.mkdtemp(prefix="toolcalls-bench-"))
    try:
        print("| rows | workers | seconds | rows/s | peak RSS (MB) | vs 1 worker |")
        print("|---:|---:|---:|---:|---:|---:|")
        for rows in (args.rows // 10, args.rows):
            source = folder / f"in-{rows}.jsonl"
            write_input(source, rows)
            base = None
            for workers in (1, 2):
                runs = [run(command, source, folder / "out.parquet", workers, args.batch_rows)
                        for _ in range(args.repeat)]
                seconds, peak = min(runs)
                base = base or seconds
                print(f"| {rows:,} | {workers} | {seconds:.1f} | {rows / seconds:,.0f} | "
                      f"{peak:.0f} | {base / seconds:.2f}x |", flush=True)
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
