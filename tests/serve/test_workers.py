"""``toolcalls serve --workers N`` (`toolcalls.serve._workers`): N processes on one port,
as a user runs it, in front of the tests' fake upstream, with the real openai SDK."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from clients import TIMEOUT, chat_stream_raw, chat_whole, openai_client
from test_cli_serve import _lines, _next, _wait_for
from test_requests import WEATHER
from upstream import FakeUpstream

from toolcalls.cli import main
from toolcalls.serve import ServeConfig
from toolcalls.serve._config import ConfigError, load_config
from toolcalls.serve._workers import CONFIG_VARIABLE, worker_app

CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
STOP_WITHIN = 15.0  # seconds from the signal to every process ended (workers get 5 to drain)


def _children(pid: int) -> list[int]:
    found = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(child) for child in found.read_text().split()] if found.exists() else []


def _started_workers(lines: queue.Queue[str], seen: list[str], count: int) -> set[int]:
    """The process ids of `count` workers, once each said it started and `count` said their
    app's startup is complete. Each worker says the two in order, but the workers run side by
    side: one may be complete before another has started."""
    started: set[int] = set()
    complete = 0
    while len(started) < count or complete < count:
        found = _wait_for(lines, r"Started server process \[(\d+)\]|Application startup "
                          r"complete", seen)
        if found.group(1) is None:
            complete += 1
        else:
            started.add(int(found.group(1)))
    assert len(started) == count and complete == count, "".join(seen)
    return started


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_two_workers_serve_concurrent_clients_log_and_stop_on_a_signal(
        fake_upstream: FakeUpstream, sig: signal.Signals, tmp_path: Path) -> None:
    fake_upstream.script(CALL)
    process = subprocess.Popen(
        [sys.executable, "-P", "-m", "toolcalls", "serve", "--upstream",
         f"{fake_upstream.url}/v1", "--port", "0", "--format", "hermes",  # type: ignore[attr-defined]
         "--workers", "2"],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if not k.startswith("TOOLCALLS_SERVE_")})
    seen: list[str] = []
    lines, reader = _lines(process.stderr)
    try:
        url = _wait_for(lines, r"running on (http://127\.0\.0\.1:\d+)", seen).group(1)
        workers = _started_workers(lines, seen, 2)
        assert workers <= set(_children(process.pid))
        assert httpx.get(f"{url}/healthz", timeout=TIMEOUT).json() == {"status": "ok"}

        client = openai_client(url)
        request: dict[str, Any] = {"model": "m", "tools": [WEATHER],
                                   "messages": [{"role": "user", "content": "Weather?"}]}

        def ask(number: int) -> dict[str, Any]:
            if number % 2:
                return chat_stream_raw(client, **request)
            return chat_whole(client, **request)

        # every request has its access line, written by the worker that served it; the
        # kernel picks the worker that accepts: more rounds (bounded) until both have served
        logged: list[tuple[int, dict[str, Any]]] = []
        for _ in range(10):
            with ThreadPoolExecutor(8) as pool:
                answers = list(pool.map(ask, range(24)))
            for answer in answers:
                assert answer["finish"] == "tool_calls"
                assert [call[1] for call in answer["calls"]] == ["get_weather"]
            for _ in answers:
                found = _wait_for(lines, r"\[(\d+)\] toolcalls\.serve (\{.*\})$", seen)
                logged.append((int(found.group(1)), json.loads(found.group(2))))
            if {pid for pid, _ in logged} == workers:
                break
        assert {pid for pid, _ in logged} == workers
        assert all(entry["status"] == 200 and entry["mode"] == "prompt" for _, entry in logged)

        started = time.monotonic()
        process.send_signal(sig)
        assert process.wait(timeout=STOP_WITHIN) == 0
        assert time.monotonic() - started < STOP_WITHIN
        reader.join(timeout=5)
        seen.extend(iter(lambda: _next(lines), None))
        for pid in workers:  # reaped by the supervisor: gone, not left running
            assert not Path(f"/proc/{pid}").exists() or "(Z)" in Path(
                f"/proc/{pid}/stat").read_text()
        assert sum("Finished server process" in line for line in seen) == 2
        assert not any("Traceback" in line for line in seen), "".join(seen)
    finally:
        if process.poll() is None:
            for pid in _children(process.pid):
                os.kill(pid, signal.SIGKILL)
            process.kill()
            process.wait(timeout=5)
        reader.join(timeout=5)
        process.stderr.close()  # type: ignore[union-attr]


def test_workers_are_started_whichever_finishes_its_startup_first() -> None:
    """On a loaded machine a worker can be complete before the other has started."""
    lines: queue.Queue[str] = queue.Queue()
    for line in ["Started server process [11]", "Application startup complete.",
                 "Started server process [12]", "Waiting for application startup.",
                 "Application startup complete."]:
        lines.put(line + "\n")
    assert _started_workers(lines, [], 2) == {11, 12}


@pytest.mark.parametrize("value", ["0", "65", "-1", "two", "1.5"])
def test_a_bad_workers_value_is_one_line_and_exit_2(value: str, capsys) -> None:
    assert main(["serve", "--upstream", "http://127.0.0.1:1/v1", "--workers", value]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("toolcalls: workers: "), err


def test_workers_come_from_flag_environment_and_toml(tmp_path: Path) -> None:
    toml = tmp_path / "serve.toml"
    toml.write_text('upstream = "http://u/v1"\nworkers = 3\n')
    assert load_config({}, {}, toml).workers == 3
    assert load_config({}, {"TOOLCALLS_SERVE_WORKERS": "4"}, toml).workers == 4
    assert load_config({"workers": "5"}, {"TOOLCALLS_SERVE_WORKERS": "4"}, toml).workers == 5
    assert ServeConfig(upstream="http://u/v1").workers == 1
    with pytest.raises(ConfigError, match=r"^workers: expected 1\.\.64, got 65$"):
        ServeConfig(upstream="http://u/v1", workers=65)


def test_one_worker_serves_in_this_process(monkeypatch) -> None:
    from toolcalls.serve import _server

    ran: list[str] = []
    monkeypatch.setattr(_server, "serve_workers", lambda config: ran.append("workers"))
    monkeypatch.setattr("uvicorn.Server.run", lambda self, sockets=None: ran.append("server"))
    _server.serve(ServeConfig(upstream="http://u/v1"))
    _server.serve(ServeConfig(upstream="http://u/v1", workers=2))
    assert ran == ["server", "workers"]


def test_the_worker_app_is_built_from_the_environment(monkeypatch) -> None:
    monkeypatch.delenv(CONFIG_VARIABLE, raising=False)
    with pytest.raises(RuntimeError, match=CONFIG_VARIABLE):
        worker_app()
    config = {"upstream": "http://u/v1", "model_formats": {"q*": "hermes"}, "workers": 2,
              "budget": 500}
    monkeypatch.setenv(CONFIG_VARIABLE, json.dumps(config))
    routes = {getattr(route, "path", "") for route in worker_app().routes}
    assert {"/v1/chat/completions", "/v1/messages", "/healthz"} <= routes
    assert re.fullmatch(r"_TOOLCALLS_SERVE_\w+", CONFIG_VARIABLE)  # not read as a setting
