"""toolcalls inside vLLM and SGLang: what the plugin costs to load, and per delta beside the
server's own parser for the same format (issue 32).

    .venv/bin/python bench/integrations.py [--formats hermes,qwen3_coder] [--repeats 5]

Runs under the peers' venv (``../shared/peers/setup.sh``; ``$PEERS_VENV``, default
/tmp/peers/venv), each server in its own process, with this checkout's toolcalls source first on
the path (pure Python there: the venv has no compiled wheel for it). Both parsers of a row are
driven through the server's own entry point, the same way: vLLM's ``ParserManager`` parser and
its ``parse_delta``, SGLang's ``FunctionCallParser.parse_stream_chunk`` (then
``parse_stream_end``), one parser per response as the servers make them.

- import: a fresh process with the server's parser modules already imported (the server has
  them at start), timed from there to the plugin registered (vLLM: ``import_tool_parser`` of
  the plugin file; SGLang: the entry point's ``register``); medians of `--repeats` processes.
- per delta: a response of ~4 KB and one of ~64 KB (``peer_gen.sized_response``: content and
  two calls, one carrying most of the bytes) cut into 4-character deltas with the special tokens
  whole (``peer_parse.split_deltas``), median process CPU time per delta over `--repeats` runs;
  a run predicted over `--max-seconds` (from the 4 KB run, assuming quadratic growth) is left
  out and said so. Every run checks the calls it streamed against the generated ones.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HARNESS = Path(os.environ.get("PEERS_HARNESS", ROOT.parent / "shared" / "peers"))
VENV = Path(os.environ.get("PEERS_VENV", "/tmp/peers/venv"))
FORMATS = {  # toolcalls' format -> the peer harness's name for it (its FORMATS table)
    "hermes": "hermes", "qwen3_coder": "qwen3_coder", "glm45": "glm45", "glm47": "glm47",
    "deepseek_v3": "deepseek_v3", "deepseek_v31": "deepseek_v31",
    "deepseek_v32_dsml": "deepseek_v32_dsml", "minimax_m2": "minimax_m2", "kimi_k2": "kimi_k2",
    "llama3_json": "llama3", "mistral": "mistral", "pythonic": "pythonic",
}
SIZES = (4096, 65536)
DELTA = 4


# -- the parent: one worker process per server ----------------------------------------------


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--formats", default=",".join(FORMATS))
    options.add_argument("--repeats", type=int, default=5)
    options.add_argument("--max-seconds", type=float, default=20.0)
    options.add_argument("--toolcalls-from", default=str(ROOT), metavar="DIR",
                         help="where the workers import toolcalls from (default: this checkout, "
                              "pure Python; a `pip install --no-deps --target DIR` of the "
                              "compiled wheel measures what ships)")
    options.add_argument("--worker", help=argparse.SUPPRESS)
    options.add_argument("--import-only", action="store_true", help=argparse.SUPPRESS)
    args = options.parse_args()
    formats = args.formats.split(",")
    if args.worker:
        print(json.dumps(worker(args.worker, formats, args.repeats, args.max_seconds,
                                args.import_only)))
        return
    with tempfile.TemporaryDirectory() as site:
        _link_missing(Path(site))
        path = os.pathsep.join([args.toolcalls_from, site])
        for server in ("vllm", "sglang"):
            imports = [_run(server, path, ["--import-only"])["import"] for _ in range(args.repeats)]
            rows = _run(server, path, ["--formats", args.formats, "--repeats", str(args.repeats),
                                       "--max-seconds", str(args.max_seconds)])["rows"]
            _print(server, imports, rows)


def _link_missing(site: Path) -> None:
    """toolcalls' pure dependencies the peers' venv lacks, linked from this interpreter's."""
    import lark
    import mypy_extensions

    (site / "lark").symlink_to(Path(lark.__file__).parent)
    (site / "mypy_extensions.py").symlink_to(Path(mypy_extensions.__file__))


def _run(server: str, path: str, extra: list[str]) -> dict[str, Any]:
    environment = {**os.environ, "PYTHONPATH": path, "PYTHONWARNINGS": "ignore"}
    done = subprocess.run([str(VENV / "bin" / "python"), __file__, "--worker", server, *extra],
                          capture_output=True, text=True, env=environment, check=False)
    if done.returncode:
        sys.exit(done.stderr[-3000:])
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _print(server: str, imports: list[dict[str, float]], rows: list[dict[str, Any]]) -> None:
    wall = statistics.median(run["wall_ms"] for run in imports)
    cpu = statistics.median(run["cpu_ms"] for run in imports)
    print(f"\n{server}: plugin import and registration {wall:.0f} ms wall, {cpu:.0f} ms CPU "
          f"(median of {len(imports)} processes)")
    print(f"| format | size | deltas | toolcalls µs/delta | {server} µs/delta | ratio | ok |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for row in rows:
        ours, theirs = row["toolcalls"], row["server"]
        ratio = f"{theirs['us'] / ours['us']:.1f}x" if "us" in theirs else ""
        shown = f"{theirs['us']:.1f}" if "us" in theirs else theirs["skipped"]
        print(f"| {row['format']} | {row['size'] // 1024} KB | {row['deltas']} | "
              f"{ours['us']:.1f} | {shown} | {ratio} | {ours['ok']} / {theirs.get('ok', '-')} |")


# -- the worker, in the peers' venv ---------------------------------------------------------


def worker(server: str, formats: list[str], repeats: int, max_seconds: float,
           import_only: bool) -> dict[str, Any]:
    sys.path.insert(0, str(HARNESS))
    import peer_parse
    import peer_stubs

    peer_parse._quiet_logs()
    if server == "vllm":
        peer_stubs.install_vllm_shims()
        driver: Any = VllmDriver()
    else:
        peer_stubs.install_sglang_shims()
        driver = SglangDriver()
    loaded = driver.load_plugin()
    if import_only:
        return {"import": loaded}
    rows = []
    for fmt in formats:
        rows += _format_rows(driver, fmt, repeats, max_seconds)
    return {"rows": rows}


def _format_rows(driver: Any, fmt: str, repeats: int, max_seconds: float) -> list[dict[str, Any]]:
    import peer_gen
    import peer_parse

    peer = FORMATS[fmt]
    tokenizer = peer_parse.FakeTokenizer(peer_parse.FORMATS[peer]["specials"])
    tools = peer_gen.tool_defs()
    rows, predicted = [], {"toolcalls": 0.0, "server": 0.0}
    for size in SIZES:
        text, calls, _ = peer_gen.sized_response(peer, size, seed=size)
        deltas = peer_parse.split_deltas(tokenizer, text, str(DELTA))
        expected = [{"name": name, "arguments": arguments} for name, arguments in calls]
        row: dict[str, Any] = {"format": fmt, "size": len(text), "deltas": len(deltas)}
        for side, name in (("toolcalls", f"toolcalls_{fmt}"),
                           ("server", peer_parse.FORMATS[peer][driver.peer])):
            if predicted[side] > max_seconds:
                row[side] = {"skipped": f"left out (~{predicted[side]:.0f} s a run predicted)"}
                continue
            row[side] = _measure(driver, name, deltas, tools, expected, repeats, tokenizer)
            predicted[side] = row[side]["seconds"] * (SIZES[-1] / size) ** 2
        rows.append(row)
    return rows


def _measure(driver: Any, name: str, deltas: list[tuple[str, list[int]]], tools: Any,
             expected: list[dict[str, Any]], repeats: int, tokenizer: Any) -> dict[str, Any]:
    import peer_parse

    driver.stream(name, deltas[:64], tools, tokenizer)  # warm: the format's modules load once
    times, ok = [], 0
    for _ in range(repeats):
        gc.collect()
        start = time.process_time()
        calls = driver.stream(name, deltas, tools, tokenizer)
        times.append(time.process_time() - start)
        ok += peer_parse.normalize(None, calls)["calls"] == expected
    seconds = statistics.median(times)
    return {"us": seconds / len(deltas) * 1e6, "seconds": seconds, "ok": f"{ok}/{repeats}"}


class VllmDriver:
    peer = "vllm"

    def __init__(self) -> None:
        from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
        from vllm.parser.parser_manager import ParserManager
        from vllm.tool_parsers import ToolParserManager

        self.request_class, self.parsers, self.manager = (
            ChatCompletionRequest, ParserManager, ToolParserManager)

    def load_plugin(self) -> dict[str, float]:
        from toolcalls.integrations.vllm import plugin_path  # the package: no vLLM, no parsers

        path = str(plugin_path())
        wall, cpu = time.perf_counter(), time.process_time()
        self.manager.import_tool_parser(path)
        return {"wall_ms": (time.perf_counter() - wall) * 1e3,
                "cpu_ms": (time.process_time() - cpu) * 1e3}

    def stream(self, name: str, deltas: list[tuple[str, list[int]]], tools: Any,
               tokenizer: Any) -> list[dict]:
        request = self.request_class(model="bench", tools=tools, tool_choice="auto",
                                     messages=[{"role": "user", "content": "hi"}])
        parser = self.parsers.get_parser(tool_parser_name=name, enable_auto_tools=True)(
            tokenizer, request.tools)
        calls: dict[int, dict[str, Any]] = {}
        for number, (text, ids) in enumerate(deltas):
            message = parser.parse_delta(text, list(ids), request, prompt_token_ids=[],
                                         finished=number == len(deltas) - 1)
            for call in (message.tool_calls if message else ()):
                entry = calls.setdefault(call.index, {"name": None, "arguments": ""})
                function = call.function
                if function is not None:
                    entry["name"] = function.name or entry["name"]
                    entry["arguments"] += function.arguments or ""
        return [calls[index] for index in sorted(calls)]


class SglangDriver:
    peer = "sglang"

    def __init__(self) -> None:
        from sglang.srt.entrypoints.openai.protocol import Tool
        from sglang.srt.function_call.function_call_parser import FunctionCallParser

        self.tool_class, self.parser_class = Tool, FunctionCallParser

    def load_plugin(self) -> dict[str, float]:
        wall, cpu = time.perf_counter(), time.process_time()
        from toolcalls.integrations.sglang import register  # what the entry point loads

        register()
        return {"wall_ms": (time.perf_counter() - wall) * 1e3,
                "cpu_ms": (time.process_time() - cpu) * 1e3}

    def stream(self, name: str, deltas: list[tuple[str, list[int]]], tools: Any,
               tokenizer: Any) -> list[dict]:
        import peer_parse

        parser = self.parser_class([self.tool_class.model_validate(tool) for tool in tools], name)
        calls: dict[int, dict[str, Any]] = {}
        pieces = [parser.parse_stream_chunk(text)[1] for text, _ in deltas]
        pieces.append(parser.parse_stream_end()[1])
        for found in pieces:
            for call in found:
                entry = calls.setdefault(call.tool_index, {"name": None, "arguments": ""})
                entry["name"] = call.name or entry["name"]
                entry["arguments"] += call.parameters or ""
        unstreamed = peer_parse._sgl_remaining(parser)  # what SGLang's serving layer adds
        if unstreamed is not None:
            calls[unstreamed[0]]["arguments"] += unstreamed[1]
        return [calls[index] for index in sorted(calls)]


if __name__ == "__main__":
    main()
