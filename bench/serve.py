"""What `toolcalls serve` adds, per streamed chunk and per request, against talking to the
same fake upstream directly and against a bare pass-through proxy on the same stack (the floor,
`serve_stacks.py`); and the same for LiteLLM's proxy when a venv with it is given.

    .venv/bin/python bench/serve.py                                  # 100 clients, 30 s a phase
    .venv/bin/python bench/serve.py --clients 10 --seconds 5         # a quick run
    .venv/bin/python bench/serve.py --litellm-python /tmp/lvenv/bin/python --json out.json
    .venv/bin/python bench/serve.py --workers 2                      # the proxy in 2 processes
    .venv/bin/python bench/serve.py --stacks     # also granian, httpx (installed in --python)
    .venv/bin/python bench/serve.py --baseline-python /tmp/old/bin/python   # a build before

Three kinds of process on 127.0.0.1, each its own (the machine's cores are shared as in use):
the fake upstream (`serve.py upstream`, uvicorn), the proxy (`toolcalls serve`, the floor, or
`litellm`)
and the load generator (`serve.py load`, raw asyncio streams: an HTTP client as light as
can be, so its own cost stays out of the figures as far as possible).

How latency is measured: the upstream streams `--chunks` chunks, one every `--interval-ms`,
each chunk's content the time it was sent, ``t=NANOS;`` (CLOCK_MONOTONIC, system-wide on
Linux, so two processes read one clock). The load generator reads the stamps in what it
receives and subtracts them from its receive time. The proxy runs in prompt mode with a format
(hermes) whose plain text passes through as content, so every chunk goes through the stream
parser, the tools rendering and the writer, as a real request does. What the proxy adds is the
percentile through it minus the same percentile direct, measured in the same run.

Per target, two phases: one client making requests one after another (`--single-seconds`):
the added time to the first chunk and per chunk when nothing else runs; then `--clients`
clients for `--seconds`, each making streamed requests back to back: p50/p99 per chunk,
chunks per second, errors (a status other than 200, a stream without ``[DONE]``, a chunk
missing, a connection error) and the proxy's memory (VmRSS and VmHWM of its process and
children, from /proc). Everything is bounded: each phase stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MODEL = "bench"
FLOOR = "pass-through (uvicorn, aiohttp)"
"""The bare pass-through proxy on toolcalls' own stack (`serve_stacks.py`): the floor."""
KEY = "sk-bench-" + "5f0c" * 8
"""The key clients send (LiteLLM's proxy refuses to start without a strong master key)."""
STAMP = re.compile(rb"t=(\d+);")
TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "The weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}]


def now_ns() -> int:
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


# --- the fake upstream ------------------------------------------------------------------


def upstream_app(chunks: int, interval: float) -> Any:
    """An OpenAI-compatible upstream streaming `chunks` stamped chunks, `interval` s apart."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response, StreamingResponse
    from starlette.routing import Route

    def chunk(model: str, delta: dict[str, Any], finish: str | None = None) -> bytes:
        body = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 1,
                "model": model, "choices": [{"index": 0, "delta": delta,
                                             "finish_reason": finish}]}
        return f"data: {json.dumps(body)}\n\n".encode()

    async def stream(model: str) -> AsyncIterator[bytes]:
        # Each stamped chunk from bytes encoded once per request, the stamp put in between:
        # the upstream's own CPU per chunk stays small (it shares the cores with the proxy).
        head, tail = chunk(model, {"content": "t=STAMP;"}).split(b"STAMP")
        yield chunk(model, {"role": "assistant", "content": ""})
        for _ in range(chunks):
            await asyncio.sleep(interval)
            yield b"%b%d%b" % (head, now_ns(), tail)
        yield chunk(model, {}, "stop")
        yield b"data: [DONE]\n\n"

    async def chat(request: Request) -> Response:
        body = await request.json()
        model = str(body.get("model", MODEL))
        if body.get("stream"):
            return StreamingResponse(stream(model), media_type="text/event-stream")
        text = "".join(f"t={now_ns()};" for _ in range(chunks))
        return JSONResponse({"id": "chatcmpl-bench", "object": "chat.completion", "created": 1,
                             "model": model, "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": text}}],
                             "usage": {"prompt_tokens": 1, "completion_tokens": chunks,
                                       "total_tokens": chunks + 1}})

    async def models(request: Request) -> Response:
        return JSONResponse({"object": "list", "data": [
            {"id": MODEL, "object": "model", "created": 0, "owned_by": "bench"}]})

    return Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"]),
                             Route("/v1/models", models, methods=["GET"])])


def run_upstream(args: argparse.Namespace) -> None:
    import uvicorn

    uvicorn.run(upstream_app(args.chunks, args.interval_ms / 1000), host="127.0.0.1",
                port=args.port, log_level="warning", access_log=False)


# --- the load generator -----------------------------------------------------------------


@dataclass
class Tally:
    """What one phase's clients saw."""

    latencies: list[int] = field(default_factory=list)   # ns per chunk, stamp to receipt
    first_chunk: list[int] = field(default_factory=list)  # ns, request sent to first stamp
    requests: int = 0
    chunks: int = 0
    seconds: float = 0.0  # from the first request to the last one's end
    errors: dict[str, int] = field(default_factory=dict)

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


async def one_request(host: str, port: int, path: str, payload: bytes, expect: int,
                      tally: Tally) -> None:
    """One streamed request over a fresh connection; chunked or sized body, read as it comes."""
    reader, writer = await asyncio.open_connection(host, port)
    try:
        sent = now_ns()
        writer.write(b"POST " + path.encode() + b" HTTP/1.1\r\nHost: " + host.encode()
                     + b"\r\nContent-Type: application/json\r\nAuthorization: Bearer "
                     + KEY.encode() + b"\r\nAccept: text/event-stream\r\nConnection: close"
                     + b"\r\nContent-Length: "
                     + str(len(payload)).encode() + b"\r\n\r\n" + payload)
        await writer.drain()
        status = (await reader.readline()).split(b" ", 2)
        headers: dict[bytes, bytes] = {}
        while (line := await reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            headers[name.strip().lower()] = value.strip()
        if len(status) < 2 or status[1] != b"200":
            tally.error(f"status {status[1].decode() if len(status) > 1 else '?'}")
            return
        buffer, seen = b"", 0
        async for data in _body(reader, headers):
            received = now_ns()
            buffer += data
            last = 0
            for match in STAMP.finditer(buffer):
                if seen == 0:
                    tally.first_chunk.append(received - sent)
                tally.latencies.append(received - int(match.group(1)))
                seen += 1
                last = match.end()
            buffer = buffer[last:] if last else buffer[-64:] if b"[DONE]" not in buffer else buffer
        tally.requests += 1
        tally.chunks += seen
        if seen != expect:
            tally.error("chunks missing")
        elif b"[DONE]" not in buffer:
            tally.error("no [DONE]")
    finally:
        writer.close()


async def _body(reader: asyncio.StreamReader, headers: dict[bytes, bytes]) -> AsyncIterator[bytes]:
    if headers.get(b"transfer-encoding", b"").lower() == b"chunked":
        while True:
            size = int((await reader.readline()).split(b";")[0], 16)
            if size == 0:
                return
            data = await reader.readexactly(size)
            await reader.readexactly(2)
            yield data
    elif b"content-length" in headers:
        yield await reader.readexactly(int(headers[b"content-length"]))
    else:
        while data := await reader.read(65536):
            yield data


async def load(url: str, clients: int, seconds: float, expect: int) -> Tally:
    """`clients` clients, each making streamed requests back to back until `seconds` pass."""
    host, port = url.removeprefix("http://").split("/")[0].split(":")
    payload = json.dumps({"model": MODEL, "stream": True, "tools": TOOLS, "messages": [
        {"role": "user", "content": "What is the weather in Paris?"}]}).encode()
    # one request first, not counted: the servers' first request imports and warms caches
    await one_request(host, int(port), "/v1/chat/completions", payload, expect, Tally())
    tally = Tally()
    deadline = time.monotonic() + seconds

    async def client() -> None:
        while time.monotonic() < deadline:
            try:
                await asyncio.wait_for(one_request(host, int(port), "/v1/chat/completions",
                                                   payload, expect, tally), timeout=60)
            except (OSError, asyncio.IncompleteReadError, TimeoutError, ValueError) as e:
                tally.error(type(e).__name__)

    started = time.monotonic()
    await asyncio.gather(*(client() for _ in range(clients)))
    tally.seconds = time.monotonic() - started
    return tally


def run_load(args: argparse.Namespace) -> None:
    cpu = time.process_time()
    tally = asyncio.run(load(args.url, args.clients, args.seconds, args.chunks))
    print(json.dumps({**tally.__dict__, "cpu_seconds": time.process_time() - cpu}))


# --- the orchestrator -------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_ready(url: str, process: subprocess.Popen[bytes], seconds: float) -> None:
    import httpx

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{url}: the server exited with {process.returncode}")
        try:
            got = httpx.get(f"{url}/v1/models", timeout=2,
                            headers={"Authorization": f"Bearer {KEY}"})
            if got.status_code < 500:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{url}: not ready after {seconds:.0f} s")


def family(pid: int) -> list[int]:
    """`pid` and its children (LiteLLM may run workers)."""
    children = Path(f"/proc/{pid}/task/{pid}/children")
    return [pid, *(int(child) for child in children.read_text().split())] \
        if children.exists() else [pid]


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of `pid` and its children so far."""
    ticks = 0
    for one in family(pid):
        try:
            fields = Path(f"/proc/{one}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)
    return ticks / os.sysconf("SC_CLK_TCK")


def memory_kb(pid: int) -> tuple[int, int]:
    """VmRSS and VmHWM (peak) of `pid` and its children, in kB."""
    rss = hwm = 0
    for one in family(pid):
        try:
            status = Path(f"/proc/{one}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                rss += int(line.split()[1])
            elif line.startswith("VmHWM:"):
                hwm += int(line.split()[1])
    return rss, hwm


def run_phase(url: str, clients: int, seconds: float, chunks: int) -> dict[str, Any]:
    """One load generator process against `url`; its tally, summarised."""
    out = subprocess.run([sys.executable, __file__, "load", "--url", url, "--clients",
                          str(clients), "--seconds", str(seconds), "--chunks", str(chunks)],
                         capture_output=True, check=True, timeout=seconds + 120)
    tally = json.loads(out.stdout)
    lat, first = sorted(tally["latencies"]), sorted(tally["first_chunk"])
    return {"requests": tally["requests"], "chunks": tally["chunks"],
            "load_cpu_us_per_chunk": tally["cpu_seconds"] / max(tally["chunks"], 1) * 1e6,
            "chunks_per_s": tally["chunks"] / tally["seconds"], "errors": tally["errors"],
            "p50_us": pct(lat, 50), "p99_us": pct(lat, 99), "max_us": lat[-1] / 1000 if lat
            else None, "first_p50_us": pct(first, 50), "first_p99_us": pct(first, 99)}


def pct(values: list[int], p: int) -> float | None:
    if not values:
        return None
    return values[min(len(values) - 1, len(values) * p // 100)] / 1000


def start(command: list[str], log: Path,
          env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    with log.open("wb") as sink:
        # cwd: the logs' folder, not the checkout, whose toolcalls/ would shadow the installed
        # (compiled) one for `python -m toolcalls`
        return subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, cwd=log.parent,
                                env={**os.environ, **(env or {})}, start_new_session=True)


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def proxies(args: argparse.Namespace, upstream: str) -> list[tuple[str, list[str], dict[str, str]]]:
    """(name, command with PORT for its port, extra environment) per proxy to measure."""

    def stack(server: str, app: str) -> tuple[str, list[str], dict[str, str]]:
        name = (f"toolcalls serve ({server})" if app == "toolcalls_app" else
                f"{FLOOR.split(' (')[0]} ({server}, {app.removeprefix('passthrough_')})")
        return name, [args.python, str(Path(__file__).with_name("serve_stacks.py")), server,
                      app, "--upstream", f"{upstream}/v1", "--port", "PORT"], {}

    serve = [args.python, "-m", "toolcalls", "serve", "--upstream", f"{upstream}/v1",
             "--mode", "prompt", "--model-format", f"{MODEL}=hermes", "--port", "PORT"]
    name = "toolcalls serve"
    if args.workers != 1:  # not passed at 1: a build from before --workers runs too
        serve += ["--workers", str(args.workers)]
        name += f" ({args.workers} workers)"
    found = [(name, serve, {}), stack("uvicorn", "passthrough_aiohttp")]
    if args.baseline_python:
        found.append(("toolcalls serve (baseline)", [args.baseline_python, *serve[1:]], {}))
    if args.stacks:
        found += [stack("uvicorn", "passthrough_httpx"), stack("granian", "passthrough_aiohttp"),
                  stack("granian", "toolcalls_app")]
    if args.litellm_python:
        litellm = str(Path(args.litellm_python).with_name("litellm"))
        found.append(("litellm proxy", [litellm, "--model", f"openai/{MODEL}", "--api_base",
                      f"{upstream}/v1", "--port", "PORT", "--host", "127.0.0.1",
                      "--telemetry", "False"],
                      {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "OPENAI_API_KEY": "sk-bench",
                       "LITELLM_MASTER_KEY": KEY, "LITELLM_LOG": "ERROR"}))
    return found


def measure(args: argparse.Namespace) -> dict[str, Any]:
    logs = Path(args.logs)
    logs.mkdir(parents=True, exist_ok=True)
    port = free_port()
    upstream_url = f"http://127.0.0.1:{port}"
    up = start([sys.executable, __file__, "upstream", "--port", str(port), "--chunks",
                str(args.chunks), "--interval-ms", str(args.interval_ms)], logs / "upstream.log")
    results: dict[str, Any] = {"load_before": os.getloadavg(), "clients": args.clients,
                               "workers": args.workers,
                               "seconds": args.seconds, "chunks": args.chunks,
                               "interval_ms": args.interval_ms, "targets": {}}
    try:
        wait_ready(upstream_url, up, 20)
        targets: list[tuple[str, str, subprocess.Popen[bytes] | None]] = [
            ("direct", upstream_url, None)]
        for name, command, env in proxies(args, upstream_url):
            proxy_port = free_port()
            command = [str(proxy_port) if part == "PORT" else part for part in command]
            process = start(command, logs / (re.sub(r"\W+", "-", name).strip("-") + ".log"), env)
            try:
                wait_ready(f"http://127.0.0.1:{proxy_port}", process, 180)
            except RuntimeError as error:
                stop(process)
                results["targets"][name] = {"failed": str(error)}
                print(f"{name}: {error} (see {logs})", flush=True)
                continue
            targets.append((name, f"http://127.0.0.1:{proxy_port}", process))
        try:
            for name, url, process in targets:
                results["targets"][name] = phases(args, name, url, process, up)
        finally:
            for _, _, process in targets:
                if process is not None:
                    stop(process)
    finally:
        stop(up)
    results["load_after"] = os.getloadavg()
    return results


def phases(args: argparse.Namespace, name: str, url: str,
           process: subprocess.Popen[bytes] | None,
           upstream: subprocess.Popen[bytes]) -> dict[str, Any]:
    single = run_phase(url, 1, args.single_seconds, args.chunks)
    print(f"{name:16} 1 client: {json.dumps(single)}", flush=True)
    cpu = cpu_seconds(process.pid) if process is not None else 0.0
    upstream_cpu = cpu_seconds(upstream.pid)
    many = run_phase(url, args.clients, args.seconds, args.chunks)
    # the harness's own share of the machine: the fake upstream's and the load generator's
    many["upstream_cpu_us_per_chunk"] = ((cpu_seconds(upstream.pid) - upstream_cpu)
                                         / max(many["chunks"], 1) * 1e6)
    if process is not None:
        # CPU per chunk: what waiting for a core on a shared machine does not inflate
        many["cpu_us_per_chunk"] = (cpu_seconds(process.pid) - cpu) / many["chunks"] * 1e6
        many["rss_kb"], many["hwm_kb"] = memory_kb(process.pid)
    print(f"{name:16} {args.clients} clients: {json.dumps(many)}", flush=True)
    return {"single": single, "load": many}


def table(results: dict[str, Any]) -> str:
    targets = results["targets"]
    direct = targets["direct"]
    rows = ["| target | 1 client: added first chunk p50 | added per chunk p50 / p99 "
            f"| {results['clients']} clients: added per chunk p50 / p99 | chunks/s | errors "
            "| proxy CPU per chunk | vs the floor | RSS (peak) |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    floor = targets.get(FLOOR, {}).get("load", {}).get("cpu_us_per_chunk")
    for name, got in sorted(targets.items(), key=lambda item: item[0] != "direct"):
        if "failed" in got:
            rows.append(f"| {name} | could not run: {got['failed']} | | | | | | | |")
            continue
        s, m, ds, dm = got["single"], got["load"], direct["single"], direct["load"]

        def added(a: dict[str, Any], b: dict[str, Any], key: str, name: str = name) -> str:
            if name == "direct":
                return f"{a[key] / 1000:.2f}"
            return f"{(a[key] - b[key]) / 1000:+.2f}"

        memory = (f"{m['rss_kb'] / 1024:.0f} MB ({m['hwm_kb'] / 1024:.0f} MB)"
                  if "rss_kb" in m else "")
        cpu = f"{m['cpu_us_per_chunk']:.0f} us" if "cpu_us_per_chunk" in m else ""
        ratio = (f"{m['cpu_us_per_chunk'] / floor:.2f}x" if floor and "cpu_us_per_chunk" in m
                 else "")
        rows.append(f"| {name} | {added(s, ds, 'first_p50_us')} ms | "
                    f"{added(s, ds, 'p50_us')} / {added(s, ds, 'p99_us')} ms | "
                    f"{added(m, dm, 'p50_us')} / {added(m, dm, 'p99_us')} ms | "
                    f"{m['chunks_per_s']:.0f} | {sum(m['errors'].values())} | {cpu} | {ratio} "
                    f"| {memory} |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="role")
    up = sub.add_parser("upstream", help="(internal) the fake upstream")
    up.add_argument("--port", type=int, required=True)
    ld = sub.add_parser("load", help="(internal) the load generator")
    ld.add_argument("--url", required=True)
    ld.add_argument("--clients", type=int, default=100)
    ld.add_argument("--seconds", type=float, default=30)
    for one in (parser, up, ld):
        one.add_argument("--chunks", type=int, default=100, help="chunks per streamed answer")
    for one in (parser, up):
        one.add_argument("--interval-ms", type=float, default=20.0,
                         help="time between two chunks of one answer (a model at 50 tokens/s)")
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=30.0, help="the load phase, per target")
    parser.add_argument("--single-seconds", type=float, default=10.0,
                        help="the one-client phase, per target")
    parser.add_argument("--python", default=sys.executable,
                        help="the Python that runs toolcalls serve (e.g. .venv-wheel/bin/python)")
    parser.add_argument("--workers", type=int, default=1,
                        help="toolcalls serve's --workers (its processes; CPU and memory are "
                        "those of the supervisor and its workers together)")
    parser.add_argument("--litellm-python", help="a venv's python with litellm[proxy] installed")
    parser.add_argument("--baseline-python",
                        help="another build's venv python, measured beside (before and after)")
    parser.add_argument("--stacks", action="store_true",
                        help="also the other stacks (serve_stacks.py: granian, aiohttp; the "
                        "--python venv needs them installed)")
    parser.add_argument("--logs", default="/tmp/toolcalls-bench-serve", help="servers' logs")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    if args.role == "upstream":
        run_upstream(args)
    elif args.role == "load":
        run_load(args)
    else:
        results = measure(args)
        print(table(results))
        direct = results["targets"]["direct"]["load"]
        print(f"harness CPU per chunk (direct phase): fake upstream "
              f"{direct['upstream_cpu_us_per_chunk']:.0f} us, load generator "
              f"{direct['load_cpu_us_per_chunk']:.0f} us")
        print(f"load average before {results['load_before']}, after {results['load_after']}")
        if args.json:
            Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
