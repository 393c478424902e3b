"""What streaming costs besides time, per format: import time, peak memory, longest silence.

    .venv/bin/python bench/resources.py                            # every format, 100 MB
    .venv/bin/python bench/resources.py --size-mb 8 --formats hermes,kimi_k2

Three targets of issue 3, measured on the inputs of ``bench/inputs.py`` (the peers' generator):

- **import**: ``import toolcalls`` in a fresh interpreter, median wall time minus that of
  ``python -c pass`` (the two run in turn, so a change in the machine's load falls on both).
  Target: at most 150 ms.
- **memory**: the peak of the memory the parser holds while it streams one ``--size-mb``
  response (``inputs.sized_text``: prose, a small call, then one ``write_file`` whose string
  carries four fifths of the text), divided by the response's size in UTF-8 bytes. Target: at
  most 3×. Counted with `tracemalloc`: every allocation Python makes from the parser's creation
  through ``feed`` of every delta, ``close()`` and ``result()``. The response text is built
  before tracing starts, so it does not count; the deltas are cut from it as they are fed
  (``--delta`` characters, special tokens whole), so what the parser keeps of them counts, as
  it would in a server. Events are dropped once returned, as a server forwards them. Not
  counted: memory the allocator keeps after a free (RSS would count it, and what the previous
  run left behind too). Each format runs in its own interpreter, under an address-space limit
  of ``--limit-x`` times the size (plus 1 GB): a format over it is reported, not waited for.
- **silence**: the 64 KB and 1 MB responses streamed in one-character deltas (special tokens
  whole, as the peers get them). After each delta, silence = characters received minus
  `ReaderContext.at()`, the offset up to which the engine has accounted for the text (as content,
  reasoning, markup or call; text and reasoning are emitted as they are accounted, and a
  string argument's characters as they are consumed). Target: never above the longest marker
  of the format, which is the longest of its openers and of every marker a reader held text
  back for during the run (the ``longest`` argument of each `holdback` call). Also shown:
  the worst silence inside the long ``write_file`` string, and the longest run of characters
  inside it after which ``feed`` returned no event at all.
"""

from __future__ import annotations

import argparse
import gc
import json
import re
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import inputs  # noqa: E402

import toolcalls  # noqa: E402
from toolcalls.parsing import reader
from toolcalls.parsing._registry import get_format

__all__ = ["import_ms", "main", "measure_memory", "measure_silence"]

REPO = Path(__file__).resolve().parents[1]
TARGETS = {"import_ms": 150.0, "memory_x": 3.0}
SILENCE_SIZES = (65536, 1048576)


# -- import time ---------------------------------------------------------------------------------


def import_ms(runs: int = 15) -> float:
    """Median wall ms of ``import toolcalls`` in a fresh interpreter, minus a bare start."""

    def wall(code: str) -> float:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)
        return time.perf_counter() - started

    bare, imported = [], []
    for _ in range(runs):
        bare.append(wall("pass"))
        imported.append(wall("import toolcalls"))
    return (statistics.median(imported) - statistics.median(bare)) * 1e3


# -- memory --------------------------------------------------------------------------------------


def deltas(text: str, size: int, specials: Sequence[str]) -> Iterator[str]:
    """`text` in pieces of about `size` characters, cut as they are asked for; a special token
    is never cut (a piece that would end inside one runs to its end)."""
    ordered = sorted(specials, key=len, reverse=True)
    pattern = re.compile("|".join(map(re.escape, ordered))) if ordered else None
    longest = max(map(len, ordered), default=1)
    start = 0
    while start < len(text):
        end = min(start + size, len(text))
        if pattern is not None:
            for token in pattern.finditer(text, max(start, end - longest + 1), end + longest):
                if token.start() < end < token.end():
                    end = token.end()
        yield text[start:end]
        start = end


def _calls(result: toolcalls.ParseResult) -> list[tuple[str, dict[str, Any]]]:
    return [(call.name, call.arguments) for call in result.calls]


def measure_memory(fmt: str, size: int, delta: int) -> dict[str, Any]:
    """Peak traced memory of streaming one `size`-character response (see the module doc)."""
    text, calls = inputs.sized_text(fmt, size)
    response_bytes = len(text.encode())
    specials = inputs._tokenizer(fmt).specials  # the peers' special tokens of this format
    tools = toolcalls.to_tools(inputs.tool_defs())
    parser_format = get_format(fmt)
    warm = parser_format.stream(tools=tools)  # grammars and caches are built outside the count
    warm.feed(inputs.sized_text(fmt, 4096)[0])
    warm.close()
    gc.collect()
    started = time.perf_counter()
    tracemalloc.start()
    parser = parser_format.stream(tools=tools)
    for piece in deltas(text, delta, specials):
        parser.feed(piece)
    parser.close()
    result = parser.result()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {
        "format": fmt,
        "response_bytes": response_bytes,
        "peak_bytes": peak,
        "peak_x": peak / response_bytes,
        "seconds": time.perf_counter() - started,
        "ok": _calls(result) == calls,
    }


def memory_in_child(fmt: str, size: int, delta: int, limit_x: float) -> dict[str, Any]:
    """`measure_memory` in a fresh interpreter under an address-space limit."""
    limit = int(limit_x * size) + 2**30

    def limit_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    command = [
        sys.executable,
        __file__,
        "--memory-child",
        fmt,
        "--size-mb",
        str(size / 2**20),
        "--delta",
        str(delta),
    ]
    done = subprocess.run(command, capture_output=True, text=True, preexec_fn=limit_memory)
    if done.returncode != 0:
        reason = (done.stderr or done.stdout).strip().splitlines() or ["no output"]
        over = "MemoryError" in reason[-1]
        return {"format": fmt, "error": f"over {limit_x:g}× + 1 GB" if over else reason[-1]}
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


# -- silence -------------------------------------------------------------------------------------


class MarkerWatch:
    """The longest marker readers hold text back for: `holdback` is wrapped wherever the
    package refers to it, and each call's ``longest`` (its longest marker) is kept."""

    def __init__(self) -> None:
        self.longest = 0
        original = reader.holdback

        def watched(buf: str, start: int, prefixes: frozenset[str], longest: int) -> int:
            self.longest = max(self.longest, longest)
            return original(buf, start, prefixes, longest)

        for name in inputs.OUR_FORMATS:
            get_format(name)  # loads every format module, so each one's reference is replaced
        for module in [m for n, m in sys.modules.items() if n.startswith("toolcalls")]:
            if getattr(module, "holdback", None) is original:
                module.holdback = watched  # type: ignore[attr-defined]


@dataclass
class Silence:
    """The worst silences of one format over the streamed sizes."""

    format: str
    longest_marker: int = 0
    held: int = 0
    """Most characters received and not yet accounted for, after any delta."""
    held_text: str = ""
    """The characters held at that moment."""
    held_by: str = ""
    """The reader holding them (``engine`` when no block is open)."""
    in_value: int = 0
    """The same, while the long string argument was arriving."""
    quiet_in_value: int = 0
    """Longest run of characters inside that string after which no event came."""
    ok: bool = True
    sizes: list[int] = field(default_factory=list)


def _value_span(text: str, value: str) -> tuple[int, int]:
    """Where the long string argument sits in `text` (its first and last characters)."""
    start = text.find(value[:32])
    end = text.rfind(value[-12:]) + 12
    if start < 0 or end < start:
        raise ValueError("the long argument was not found in the text")
    return start, end


def measure_silence(fmt: str, sizes: Sequence[int], watch: MarkerWatch) -> Silence:
    """Stream each size in one-character deltas; the worst silences seen (see the module doc)."""
    tools = toolcalls.to_tools(inputs.tool_defs())
    parser_format = get_format(fmt)
    out = Silence(fmt, sizes=list(sizes))
    watch.longest = parser_format.compiled_openers().longest
    for size in sizes:
        text, calls = inputs.sized_text(fmt, size)
        value_start, value_end = _value_span(text, calls[-1][1]["content"])
        parser = parser_format.stream(tools=tools)
        engine = parser._engine  # what it has accounted for and who holds the rest: the report
        received = quiet = 0
        for piece in inputs.split(fmt, text, 1):
            events = parser.feed(piece)
            received += len(piece)
            held = received - engine.at()
            quiet = 0 if events else quiet + len(piece)
            if held > out.held:
                reader = engine._reader  # which reader holds the text
                out.held, out.held_text = held, text[received - held : received]
                out.held_by = type(reader).__name__ if reader is not None else "engine"
            if value_start < received <= value_end:
                out.in_value = max(out.in_value, held)
                out.quiet_in_value = max(out.quiet_in_value, quiet)
        parser.close()
        out.ok = out.ok and _calls(parser.result()) == calls
    out.longest_marker = watch.longest
    return out


# -- the table -----------------------------------------------------------------------------------


def _mark(good: bool) -> str:
    return "✓" if good else "✗"


def table(
    imported: float | None,
    memory: dict[str, dict[str, Any]],
    silences: dict[str, Silence],
    formats: Sequence[str],
) -> str:
    lines = [
        "| format | import ms | peak memory × size | silence (chars) | in long string "
        "| quiet in long string | longest marker | import | memory | silence | ok |",
        "|---|---:|---:|---:|---:|---:|---:|:-:|:-:|:-:|:-:|",
    ]
    for fmt in formats:
        cells = [fmt, "—" if imported is None else f"{imported:.0f}"]
        mem, quiet = memory.get(fmt), silences.get(fmt)
        if mem is None:
            cells.append("—")
        else:
            cells.append(mem["error"] if "error" in mem else f"{mem['peak_x']:.2f}")
        if quiet is None:
            cells += ["—"] * 4
        else:
            cells += [
                str(quiet.held),
                str(quiet.in_value),
                str(quiet.quiet_in_value),
                str(quiet.longest_marker),
            ]
        cells.append("—" if imported is None else _mark(imported <= TARGETS["import_ms"]))
        cells.append("—" if mem is None else _mark(mem.get("peak_x", 1e9) <= TARGETS["memory_x"]))
        cells.append("—" if quiet is None else _mark(quiet.held <= quiet.longest_marker))
        ok = (mem is None or mem.get("ok", False)) and (quiet is None or quiet.ok)
        cells.append("yes" if ok else "NO")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def details(silences: dict[str, Silence]) -> str:
    """Where each format that misses the silence target holds its text."""
    lines = []
    for quiet in silences.values():
        if quiet.held > quiet.longest_marker:
            text = quiet.held_text
            shown = text if len(text) <= 90 else f"{text[:60]}…[{len(text) - 80} more]…{text[-20:]}"
            lines.append(f"- {quiet.format}: {quiet.held} held by {quiet.held_by}: {shown!r}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--formats", default=",".join(inputs.OUR_FORMATS))
    ap.add_argument("--size-mb", type=float, default=100.0, help="response size for memory")
    ap.add_argument("--delta", type=int, default=4096, help="characters per delta for memory")
    ap.add_argument(
        "--limit-x",
        type=float,
        default=12.0,
        help="stop a memory run past this many times the size (plus 1 GB)",
    )
    ap.add_argument("--silence-sizes", default=",".join(map(str, SILENCE_SIZES)))
    ap.add_argument("--import-runs", type=int, default=15)
    ap.add_argument("--skip", default="", help="any of import,memory,silence")
    ap.add_argument("--json", help="write the raw results here")
    ap.add_argument("--memory-child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    size = int(args.size_mb * 2**20)
    if args.memory_child:
        print(json.dumps(measure_memory(args.memory_child, size, args.delta)))
        return 0
    formats, skip = args.formats.split(","), set(args.skip.split(","))
    imported = None if "import" in skip else import_ms(args.import_runs)
    if imported is not None:
        print(
            f"import toolcalls: {imported:.0f} ms (median of {args.import_runs}, wall, "
            "minus python -c pass)",
            flush=True,
        )
    memory: dict[str, dict[str, Any]] = {}
    silences: dict[str, Silence] = {}
    watch = None if "silence" in skip else MarkerWatch()
    sizes = [int(s) for s in args.silence_sizes.split(",")]
    for fmt in formats:
        started = time.time()
        if "memory" not in skip:
            memory[fmt] = memory_in_child(fmt, size, args.delta, args.limit_x)
        if watch is not None:
            silences[fmt] = measure_silence(fmt, sizes, watch)
        print(f"  {fmt}: {time.time() - started:.0f} s", file=sys.stderr, flush=True)
    print(
        f"memory: {args.size_mb:g} MB responses in {args.delta}-character deltas; silence: "
        f"{', '.join(f'{s // 1024} KB' for s in sizes)} in 1-character deltas"
    )
    print(table(imported, memory, silences, formats))
    print(details(silences))
    if args.json:
        raw = {
            "import_ms": imported,
            "memory": memory,
            "silence": {k: asdict(v) for k, v in silences.items()},
        }
        Path(args.json).write_text(json.dumps(raw, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
