"""``toolcalls parse --jsonl IN --out OUT``: a file of logged rows parsed into Parquet or JSONL.

    toolcalls parse --jsonl rows.jsonl[.gz|.zst] --text-field response --out parsed.parquet
                    [--format F|auto] [--tools FILE] [--provider P] [--keep FIELD ...]
                    [--workers N] [--batch-rows N] [--resume] [--progress]

The input is read as a stream, a batch of lines at a time (memory flat in its size); batches
are parsed in `--workers` processes (the command's own and N-1 more), and written as they
come, each to its own part file that is then appended to the output in order
(`toolcalls.cli._bulk_parts`), so a run stopped by Ctrl-C, a crash or a kill resumes with
``--resume`` where it stopped and ends with the same output as one that ran through. Rows are
written in input order with their line number; what each row holds is in
`toolcalls.cli._bulk_rows`. A summary line goes to stderr at the end, and a status line with
rows, rate and time left while it runs (on a terminal, or with ``--progress``).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import multiprocessing
import signal
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any, cast

from ..budget._plan import plural
from ..tools._tool import Tool
from ._bulk_arrow import need_pyarrow
from ._bulk_parts import Parts
from ._bulk_rows import RESULT_FIELDS, Batch, Job, LineReader, Parsed, field_path, parse_batch
from ._input import InputError
from ._status import StatusLine

__all__ = ["add_bulk_options", "run_bulk"]

_SUFFIXES = {".parquet": "parquet", ".jsonl": "jsonl", ".ndjson": "jsonl"}


def add_bulk_options(parser: argparse.ArgumentParser) -> None:
    bulk = parser.add_argument_group("a file of rows (JSON lines) parsed in bulk")
    bulk.add_argument("--jsonl", metavar="IN", help="JSON lines to parse, one row each (.gz "
                      "read as gzip, .zst as Zstandard; - for stdin); needs --out")
    bulk.add_argument("--text-field", metavar="PATH", help="where the text is in a row: dotted "
                      "keys and list indices, e.g. response, output.text, messages.-1.content; "
                      "with --provider, where the saved response is (default: the whole row)")
    bulk.add_argument("--out", metavar="OUT", help="OUT.parquet (needs toolcalls[arrow]) or "
                      "OUT.jsonl: the row number, the kept fields and each row's parse")
    bulk.add_argument("--provider", help="each row holds a saved response or captured stream "
                      "of this provider API (openai, anthropic, ..., or auto)")
    bulk.add_argument("--keep", metavar="FIELD", action="append", default=[],
                      help="copy this top-level field of each row into the output (repeatable)")
    bulk.add_argument("--workers", type=int, default=1, help="processes parsing batches")
    bulk.add_argument("--batch-rows", type=int, default=10_000, help="rows per batch: one "
                      "Parquet row group each, and what --resume skips at a time")
    bulk.add_argument("--resume", action="store_true", help="finish an interrupted run: the "
                      "batches already written are skipped")
    bulk.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                      help="rows, rate and time left on stderr (default: on a terminal)")


@dataclass
class _Tally:
    rows: int = 0
    calls: int = 0
    errors: int = 0
    skipped: int = 0  # batches an earlier run wrote
    started: float = field(default_factory=time.monotonic)

    def add(self, parsed: Parsed) -> None:
        self.rows += parsed.rows
        self.calls += parsed.calls
        self.errors += parsed.errors


def run_bulk(args: argparse.Namespace, tools: list[Tool]) -> int:
    output = _output_kind(args)
    job = _job(args, tools, output)
    parts = Parts(Path(args.out), Path(args.out).suffix.lower())
    source = _Source(args.jsonl)
    try:
        done = parts.start(_manifest(args, job, source), args.resume)
    except InputError:  # a run --resume cannot finish: the input is not read
        source.close()
        raise
    status = StatusLine() if (sys.stderr.isatty() if args.progress is None
                              else args.progress) else None
    tally = _Tally()
    try:
        count = _parse_all(job, source.batches(args.batch_rows), done, parts, tally,
                           args.workers, lambda: _show(status, tally, source))
    except BaseException as error:  # OUT.partial goes; the parts stay for --resume
        parts.abandon()
        if isinstance(error, KeyboardInterrupt):
            if status is not None:
                status.done()
            print(f"toolcalls: the batches written so far are in {str(parts.folder)!r}: run "
                  "the same command with --resume to finish", file=sys.stderr)
        raise
    finally:
        source.close()
    if status is not None:
        status.done()
    parts.finish(count)
    _summary(tally, args.out)
    return 0


def _output_kind(args: argparse.Namespace) -> str:
    if args.out is None:
        raise InputError("--jsonl needs --out FILE.parquet or FILE.jsonl")
    if args.stream or args.template or args.file != "-":
        raise InputError("--jsonl reads its rows from IN: give no FILE, --stream or --template")
    if args.text_field is None and args.provider is None:
        raise InputError("--jsonl needs --text-field PATH: where each row's text is")
    if args.workers < 1 or args.batch_rows < 1:
        raise InputError("--workers and --batch-rows are 1 or more")
    if args.resume and args.jsonl == "-":
        raise InputError("--resume needs IN to be a file: stdin cannot be read again")
    kind = _SUFFIXES.get(Path(args.out).suffix.lower())
    if kind is None:
        raise InputError(f"--out {args.out!r}: name a .parquet or .jsonl file")
    taken = {"row", *RESULT_FIELDS} & set(args.keep)
    if taken:
        raise InputError(f"--keep {', '.join(sorted(taken))}: the output has a column of that "
                         "name already")
    if kind == "parquet":
        need_pyarrow()
    return kind


def _job(args: argparse.Namespace, tools: list[Tool], output: str) -> Job:
    return Job(format=args.format, tools=tuple(tools), provider=args.provider,
               text_field=field_path(args.text_field), keep=tuple(args.keep),
               thinking=args.thinking, output="parquet" if output == "parquet" else "jsonl")


def _manifest(args: argparse.Namespace, job: Job, source: _Source) -> dict[str, Any]:
    """What makes two runs the same run, for --resume."""
    tools = json.dumps([tool.model_dump(mode="json") for tool in job.tools], sort_keys=True)
    return {"input": source.identity(), "batch_rows": args.batch_rows, "format": job.format,
            "provider": job.provider, "text_field": args.text_field, "keep": list(job.keep),
            "thinking": job.thinking, "tools": hashlib.sha256(tools.encode()).hexdigest()}


class _Source:
    """IN as lines of bytes, a batch at a time, with how far through the file it is."""

    def __init__(self, name: str) -> None:
        self.name = name
        try:
            self.raw: IO[bytes] = sys.stdin.buffer if name == "-" else open(name, "rb")  # noqa: SIM115
        except OSError as error:
            raise InputError(f"cannot read --jsonl {name!r}: {error.strerror}") from None
        self.size = None if name == "-" else Path(name).stat().st_size
        try:
            self.lines, self.read_errors = _decompressed(name, self.raw)
        except InputError:
            self.close()
            raise

    def identity(self) -> dict[str, Any]:
        if self.name == "-":
            return {"path": "-"}
        stat = Path(self.name).stat()
        return {"path": str(Path(self.name).resolve()), "size": stat.st_size,
                "mtime_ns": stat.st_mtime_ns}

    def fraction(self) -> float | None:
        """How much of the file is read (compressed bytes for .gz), if its size is known."""
        if not self.size:
            return None
        try:
            return min(self.raw.tell() / self.size, 1.0)
        except (OSError, ValueError):
            return None

    def batches(self, rows: int) -> Iterator[Batch]:
        """Batches of `rows` lines; one empty batch for an empty input, so the output exists."""
        lines: list[bytes] = []
        index, first = 0, 1
        try:
            for line in self.lines:
                lines.append(line.rstrip(b"\r\n"))
                if len(lines) == rows:
                    yield Batch(index, first, lines)
                    index, first, lines = index + 1, first + rows, []
        except self.read_errors as error:  # a file cut short, or not gzip or zstd at all
            raise InputError(f"cannot read --jsonl {self.name!r}: {error}") from None
        if lines or index == 0:
            yield Batch(index, first, lines)

    def close(self) -> None:
        if self.name != "-":
            if hasattr(self, "lines"):
                self.lines.close()
            self.raw.close()


_ReadErrors = tuple[type[Exception], ...]


def _decompressed(name: str, raw: IO[bytes]) -> tuple[IO[bytes], _ReadErrors]:
    """IN's lines read through gzip (.gz) or Zstandard (.zst, with the zstandard package), and
    what reading them raises when the file is cut short or not what its name says."""
    errors: _ReadErrors = (OSError, EOFError)
    if name.endswith(".gz"):
        return cast(IO[bytes], gzip.GzipFile(fileobj=raw)), errors
    if not name.endswith(".zst"):
        return raw, errors
    try:
        import zstandard  # optional, and only for .zst input
    except ImportError:
        raise InputError(f"cannot read --jsonl {name!r}: .zst needs the zstandard package "
                         "(pip install zstandard), or decompress it first") from None
    stream = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
    return cast(IO[bytes], io.BufferedReader(stream)), (*errors, zstandard.ZstdError)


def _parse_all(job: Job, batches: Iterator[Batch], done: set[int], parts: Parts, tally: _Tally,
               workers: int, tick: Callable[[], None]) -> int:
    """Parse and write every batch not in `done`; how many batches there were.

    The command's own process is one of the `workers`: it hands batches to the other processes
    while they have fewer than two each in flight, and parses a batch itself when they are full.
    (Reading and joining only, it was a third process on two cores: 2 workers gave 1.77x of 1.)
    """
    count = 0

    def finish(parsed: Parsed) -> None:
        if parsed.data is not None:  # parsed here; a worker process writes its own batches
            parts.write(parsed.index, parsed.data)
        parts.ready(parsed.index)
        tally.add(parsed)
        tick()

    others = workers - 1
    pool = ProcessPoolExecutor(
        others, mp_context=multiprocessing.get_context("spawn"), initializer=_start_worker,
        initargs=(job, parts)) if others else None
    reader = LineReader(job)
    pending: deque[Future[Parsed]] = deque()  # at most two per other process: memory stays flat
    try:
        for batch in batches:
            count += 1
            if batch.index in done:
                tally.skipped += 1
                parts.ready(batch.index)
                continue
            while pending and pending[0].done():
                finish(pending.popleft().result())
            if pool is not None and len(pending) < 2 * others:
                pending.append(pool.submit(_work, batch))
            else:
                finish(parse_batch(reader, batch))
        while pending:
            finish(pending.popleft().result())
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    return count


_WORKER: list[tuple[LineReader, Parts]] = []
"""The worker process's reader and where it writes, set once by `_start_worker`."""


def _start_worker(job: Job, parts: Parts) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the command's to handle, not ours
    _WORKER.append((LineReader(job), parts))


def _work(batch: Batch) -> Parsed:
    """Parse and write one batch; only the counts go back (sending the rows back to be written
    by the command's process made 2 workers slower than 1: 0.74x at 100k rows)."""
    reader, parts = _WORKER[0]
    parsed = parse_batch(reader, batch)
    parts.write(parsed.index, parsed.data)
    return replace(parsed, data=None)


def _show(status: StatusLine | None, tally: _Tally, source: _Source) -> None:
    if status is None or not status.due():
        return
    elapsed = time.monotonic() - tally.started
    rate = tally.rows / max(elapsed, 1e-9)
    line = f"{tally.rows:,} rows, {rate:,.0f}/s"
    fraction = source.fraction()
    if fraction:
        left = elapsed * (1 - fraction) / fraction
        line += f", {fraction:.0%}, {left:,.0f} s left"
    status.show(line)


def _summary(tally: _Tally, out: str) -> None:
    seconds = time.monotonic() - tally.started
    earlier = f"; {tally.skipped:,} batches from the earlier run kept" if tally.skipped else ""
    print(f"toolcalls: {plural(tally.rows, 'row')} parsed ({tally.errors:,} could not be "
          f"read), {plural(tally.calls, 'call')}, in {seconds:.1f} s "
          f"({tally.rows / max(seconds, 1e-9):,.0f} "
          f"rows/s) into {out}{earlier}", file=sys.stderr)
