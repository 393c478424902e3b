"""Our parser against vLLM and SGLang on the same inputs, in one run: a table of ratios.

    .venv/bin/python bench/compare.py                      # every format, both peers (~25 min)
    .venv/bin/python bench/compare.py --formats hermes,kimi_k2 --repeats 3
    .venv/bin/python bench/compare.py --no-peers           # our numbers only (fast)
    .venv/bin/python bench/compare.py --formats hermes --no-peers --no-scaling   # seconds

Per format it measures, exactly as ``../shared/peers/peer_bench.py`` measures the peers (which it
runs, each peer in its own process under the peers venv, ``/tmp/peers/venv`` or
``$PEERS_VENV``; build it with ``bash ../shared/peers/setup.sh``):

- batch short / long: the 200 short and 20 long responses of peer_bench, a fresh parse each,
  the way users call it: ``toolcalls.parse(text, fmt, tools=defs)`` with the peers' tool set as
  the OpenAI tool dicts users have (the same list each time, as a server passes its tools);
  responses per second. The same with the tools as `Tool` objects is a second column
  ("Tool objs"), and ``toolcalls.parser(fmt, tools=defs).parse`` a third ("parser");
- streaming: one ~64 KB response in 4-character deltas (special tokens whole), a fresh
  ``toolcalls.stream(fmt, tools=defs)``;
- our scaling exponent b of streaming cost from 16 KB to 1 MB (t ~ size^b; 1 is linear).

Times are medians over ``--repeats`` runs of process CPU time, for us and the peers alike: the
machine is shared, and CPU time is what waiting for a core does not inflate (wall-clock ratios
are in the ``--json`` output too). Ratios are ours / the faster peer (>1: we are faster).
Every measured run is checked: the calls must equal the generated ones ("ok").
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import inputs  # noqa: E402

import toolcalls  # noqa: E402

__all__ = ["main", "measure_ours", "measure_peer"]

PEERS = ("sglang", "vllm")
STREAM_DELTA = 4
RATIO_SIZE = 65536
SCALING_SIZES = (16384, 65536, 262144, 1048576)
TARGETS = {"batch": 2.0, "stream": 3.0, "exponent": 1.1}


def _timed(run: Callable[[], Any]) -> tuple[float, float, Any]:
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    out = run()
    return time.perf_counter() - wall, time.process_time() - cpu, out


def _calls(result: toolcalls.ParseResult) -> list[tuple[str, dict[str, Any]]]:
    return [(call.name, call.arguments) for call in result.calls]


def measure_ours(fmt: str, repeats: int, scaling: bool = True) -> dict[str, Any]:
    """Batch short/long, streaming at `RATIO_SIZE` and the scaling series, for one format."""
    defs = inputs.tool_defs()  # the OpenAI tool dicts: what users pass
    objects = toolcalls.to_tools(defs)
    bound = toolcalls.parser(fmt, tools=defs)
    ways: dict[str, Callable[[str], toolcalls.ParseResult]] = {
        "dicts": lambda text: toolcalls.parse(text, fmt, tools=defs),
        "tools": lambda text: toolcalls.parse(text, fmt, tools=objects),
        "parser": bound.parse,
    }
    out: dict[str, Any] = {"format": fmt}
    for kind in ("short", "long"):
        cases = inputs.batch_cases(fmt, kind)
        ok = sum(_calls(ways["dicts"](text)) == calls for text, calls in cases)
        timings = _interleaved(ways, [text for text, _ in cases], repeats)
        timing = timings["dicts"]
        out[f"batch_{kind}"] = {
            "n": len(cases), "ok": f"{ok}/{len(cases)}",
            "resp_per_s": len(cases) / timing["wall_s"],
            "resp_per_s_cpu": len(cases) / timing["cpu_s"],
            "mb_per_s_cpu": sum(len(t.encode()) for t, _ in cases) / timing["cpu_s"] / 1e6,
            # The other ways to call, measured in turn with the dict path.
            "tools_resp_per_s_cpu": len(cases) / timings["tools"]["cpu_s"],
            "parser_resp_per_s_cpu": len(cases) / timings["parser"]["cpu_s"],
        }
    sizes = SCALING_SIZES if scaling else (RATIO_SIZE,)
    out["stream"] = _measure_streams(fmt, defs, sizes, repeats)
    if scaling:
        out["exponent"] = _slope([(s["size"], s["cpu_s"]) for s in out["stream"]])
    return out


def _interleaved(
    ways: dict[str, Callable[[str], Any]], texts: list[str], repeats: int
) -> dict[str, dict[str, float]]:
    """Median timings of each way over `texts`, the ways taking turns within each repeat: a
    change in the machine's load then falls on all of them alike."""
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in ways}
    for _ in range(repeats):
        for name, parse in ways.items():

            def run_all(parse: Callable[[str], Any] = parse) -> None:
                for text in texts:
                    parse(text)

            runs[name].append(_timed(run_all)[:2])
    return {
        name: {
            "wall_s": statistics.median(w for w, _ in timing),
            "cpu_s": statistics.median(c for _, c in timing),
        }
        for name, timing in runs.items()
    }


def _slope(points: list[tuple[float, float]]) -> float:
    """b in t ~ size^b: the least-squares slope of log t over log size (all sizes, so one
    noisy run on a shared machine moves it less than a two-point ratio would)."""
    xs = [math.log(size) for size, _ in points]
    ys = [math.log(seconds) for _, seconds in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )


def _measure_streams(
    fmt: str, tools: list[Any], sizes: tuple[int, ...], repeats: int
) -> list[dict[str, Any]]:
    """Each size streamed `repeats` times, the sizes taking turns: a change in the machine's
    load then falls on every size alike instead of bending the scaling exponent."""
    runs, rows = [], []
    for size in sizes:
        text, calls = inputs.sized_text(fmt, size)
        deltas = inputs.split(fmt, text, STREAM_DELTA)

        def run(deltas: list[str] = deltas) -> list[tuple[str, dict[str, Any]]]:
            stream = toolcalls.stream(fmt, tools=tools)
            for delta in deltas:
                stream.feed(delta)
            stream.close()
            return _calls(stream.result())

        runs.append(run)
        rows.append({"size": len(text), "deltas": len(deltas), "ok": run() == calls})
    timings: list[list[tuple[float, float]]] = [[] for _ in sizes]
    for _ in range(repeats):
        for run, timing in zip(runs, timings, strict=True):
            timing.append(_timed(run)[:2])
    for row, timing in zip(rows, timings, strict=True):
        row["wall_s"] = statistics.median(w for w, _ in timing)
        row["cpu_s"] = statistics.median(c for _, c in timing)
    return rows


def measure_peer(
    peer: str, fmt: str, repeats: int, max_seconds: float, timeout: float
) -> dict[str, Any]:
    """Run peer_bench.py's worker for one peer in the peers venv; its JSON result.

    A worker that runs past `timeout` seconds is stopped and reported as an error: SGLang's
    pythonic detector backtracks for hours on the 20 KB responses.
    """
    python = Path(os.environ.get("PEERS_VENV", "/tmp/peers/venv")) / "bin" / "python"
    command = [
        str(python), str(inputs.peers_dir() / "peer_bench.py"), "--worker", peer,
        "--format", str(inputs.peer_name(fmt)), "--repeats", str(repeats),
        "--delta", str(STREAM_DELTA), "--max-seconds", str(max_seconds),
        "--sizes", f"4096,{RATIO_SIZE}",
    ]
    environment = dict(os.environ, PEERS_NO_REEXEC="1")
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, env=environment, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return {"peer": peer, "format": fmt, "error": f"did not finish in {timeout:.0f} s"}
    if done.returncode != 0:
        return {"peer": peer, "format": fmt, "error": (done.stderr or done.stdout)[-2000:]}
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


# -- the table -----------------------------------------------------------------------------------


def _peer_stream_seconds(result: dict[str, Any]) -> tuple[float, bool] | None:
    """A peer's CPU seconds for the `RATIO_SIZE` stream, and whether they were measured
    (peer_bench skips a run it predicts to exceed --max-seconds and gives the prediction)."""
    rows = [r for r in result.get("stream", []) if r.get("size", 0) > RATIO_SIZE // 2]
    if not rows:
        return None
    if "cpu_s" in rows[0]:
        return rows[0]["cpu_s"], True
    predicted = re.search(r"~([\d.]+)s", rows[0].get("skipped", ""))
    return (float(predicted[1]), False) if predicted else None


def _best(peers: list[dict[str, Any]], value: Callable[[dict[str, Any]], float | None]) -> Any:
    """(value, peer name) of the peer with the highest value, or None."""
    scored = [(v, p["peer"]) for p in peers if "error" not in p and (v := value(p)) is not None]
    return max(scored) if scored else None


def row(ours: dict[str, Any], peers: list[dict[str, Any]]) -> dict[str, Any]:
    """Ratios of one format: ours / the faster peer."""
    out: dict[str, Any] = {"format": ours["format"]}
    for kind in ("short", "long"):
        mine = ours[f"batch_{kind}"]["resp_per_s_cpu"]
        best = _best(peers, lambda p, k=kind: p[f"batch_{k}"]["resp_per_s_cpu"])
        out[kind] = (mine, best, mine / best[0] if best else None)
    mine_s = next(s for s in ours["stream"] if s["size"] > RATIO_SIZE // 2)["cpu_s"]
    timed = [(found, p["peer"]) for p in peers
             if "error" not in p and (found := _peer_stream_seconds(p)) is not None]
    best = min(timed, default=None)  # ((seconds, measured), peer)
    out["stream"] = (mine_s, best, best[0][0] / mine_s if best else None)
    out["ways"] = {k: (ours[f"batch_{k}"]["resp_per_s_cpu"],
                       ours[f"batch_{k}"].get("tools_resp_per_s_cpu"),
                       ours[f"batch_{k}"].get("parser_resp_per_s_cpu")) for k in ("short", "long")}
    out["exponent"] = ours.get("exponent")
    ok_batch = all(ours[f"batch_{k}"]["ok"].split("/")[0] == ours[f"batch_{k}"]["ok"].split("/")[1]
                   for k in ("short", "long"))
    out["ok"] = ok_batch and all(s["ok"] for s in ours["stream"])
    return out


def _ratio(value: float | None, target: float) -> str:
    if value is None:
        return "—"
    return f"{value:.1f}×" + ("" if value >= target else " ✗")


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| format | short: ours resp/s | faster peer | ratio | long: ours resp/s | faster peer "
        "| ratio | 64 KB/4-char stream: ours ms | faster peer ms | ratio | b 16 KB→1 MB | ok |",
        "|---|---:|---|---:|---:|---|---:|---:|---|---:|---:|---|",
    ]
    for r in rows:
        cells = [r["format"]]
        for kind in ("short", "long"):
            mine, best, ratio = r[kind]
            cells += [f"{mine:,.0f}" if kind == "short" else f"{mine:,.1f}",
                      f"{best[0]:,.0f} ({best[1]})" if best else "no peer",
                      _ratio(ratio, TARGETS["batch"])]
        mine_s, best, ratio = r["stream"]
        peer_ms, mark = "no peer", ""
        if best:
            (seconds, measured), name = best
            mark = "" if measured else "~"  # a prediction: peer_bench did not run it
            peer_ms = f"{mark}{seconds * 1e3:,.0f} ({name}{'' if measured else ', predicted'})"
        cells += [f"{mine_s * 1e3:,.1f}", peer_ms, mark + _ratio(ratio, TARGETS["stream"])]
        exponent = r["exponent"]
        cells.append("—" if exponent is None else f"{exponent:.2f}" + (
            "" if exponent <= TARGETS["exponent"] else " ✗"))
        cells.append("yes" if r["ok"] else "NO")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def ways_table(rows: list[dict[str, Any]]) -> str:
    """Our batch throughput by the way it is called: tools as dicts (the table above), as
    `Tool` objects, and a `toolcalls.parser` bound to the dicts; dicts ÷ Tool objects."""
    lines = [
        "| format | short: dicts | Tool objs | parser | dicts ÷ Tool objs | long: dicts "
        "| Tool objs | parser | dicts ÷ Tool objs |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        cells = [r["format"]]
        for kind in ("short", "long"):
            dicts, tools, bound = r["ways"][kind]
            digits = 0 if kind == "short" else 1
            cells += [f"{dicts:,.{digits}f}", f"{tools:,.{digits}f}", f"{bound:,.{digits}f}",
                      f"{dicts / tools:.2f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def machine() -> str:
    import importlib.metadata as md

    load = os.getloadavg()
    versions = ", ".join(f"{p} {md.version(p)}" for p in ("toolcalls", "pydantic", "regex", "lark"))
    return (f"{platform.platform()}; {os.cpu_count()} cores; Python {platform.python_version()}; "
            f"{versions}; load average {load[0]:.1f}/{load[1]:.1f}/{load[2]:.1f}")


def import_ms(runs: int = 5) -> float:
    """Median wall time of ``import toolcalls`` in a fresh interpreter, minus a bare start."""
    def median_run(code: str) -> float:
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            times.append(time.perf_counter() - started)
        return statistics.median(times)

    return (median_run("import toolcalls") - median_run("pass")) * 1e3


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--formats", default=",".join(inputs.OUR_FORMATS))
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--no-peers", action="store_true", help="measure our parser only")
    ap.add_argument("--no-scaling", action="store_true", help="skip the 16 KB→1 MB series")
    ap.add_argument("--max-seconds", type=float, default=30.0,
                    help="skip a peer's 64 KB stream predicted to take longer than this")
    ap.add_argument("--peer-timeout", type=float, default=900.0,
                    help="stop a peer's run for one format after this many seconds")
    ap.add_argument("--json", help="write all raw results here")
    args = ap.parse_args(argv)
    print(f"machine: {machine()}", flush=True)
    print(f"import toolcalls: {import_ms():.0f} ms (median of 5, wall)", flush=True)
    rows, raw = [], []
    for fmt in args.formats.split(","):
        started = time.time()
        ours = measure_ours(fmt, args.repeats, scaling=not args.no_scaling)
        peers = []
        if not args.no_peers and inputs.peer_name(fmt):
            peers = [measure_peer(p, fmt, args.repeats, args.max_seconds, args.peer_timeout)
                     for p in PEERS]
        rows.append(row(ours, peers))
        raw.append({"ours": ours, "peers": peers})
        # Each row as soon as it is measured (a full run takes ~40 min; a crash keeps the rest).
        print(f"  {fmt}: {time.time() - started:.0f} s  " + table(rows[-1:]).splitlines()[-1],
              file=sys.stderr, flush=True)
        if args.json:
            Path(args.json).write_text(json.dumps(raw, indent=1))
    print(f"load average at the end: {'/'.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(table(rows))
    print()
    print(ways_table(rows))
    for entry in raw:
        for peer in entry["peers"]:
            if "error" in peer:
                reason = peer["error"].strip().splitlines()[-1][:160]
                print(f"- {entry['ours']['format']}: {peer['peer']} failed: {reason}")
    if args.json:
        Path(args.json).write_text(json.dumps(raw, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
