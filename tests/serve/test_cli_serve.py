"""``toolcalls serve`` as a user runs it: a subprocess on a free port, stopped by a signal."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading

import httpx
import pytest
from clients import TIMEOUT
from upstream import FakeUpstream

from toolcalls.cli import main


def _lines(stream: object) -> tuple[queue.Queue[str], threading.Thread]:
    """The lines of `stream` as they come, read by a thread that ends at its end."""
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for line in stream:  # type: ignore[attr-defined]
            lines.put(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return lines, reader


def _wait_for(lines: queue.Queue[str], pattern: str, seen: list[str]) -> re.Match[str]:
    while True:
        try:
            line = lines.get(timeout=15)
        except queue.Empty:
            raise AssertionError(f"no line matching {pattern!r} in:\n{''.join(seen)}") from None
        seen.append(line)
        if found := re.search(pattern, line):
            return found


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_serve_runs_and_stops_cleanly_on_a_signal(fake_upstream: FakeUpstream, sig,
                                                  tmp_path) -> None:
    """The installed command (``-P`` and a scratch directory: not the source tree)."""
    fake_upstream.script("Hello there.")
    env = {**os.environ, "TOOLCALLS_SERVE_MODE": "repair"}
    process = subprocess.Popen(
        [sys.executable, "-P", "-m", "toolcalls", "serve", "--upstream",
         f"{fake_upstream.url}/v1", "--port", "0"],  # type: ignore[attr-defined]
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env, cwd=tmp_path)
    seen: list[str] = []
    lines, reader = _lines(process.stderr)
    try:
        url = _wait_for(lines, r"running on (http://127\.0\.0\.1:\d+)", seen).group(1)
        assert httpx.get(f"{url}/healthz", timeout=TIMEOUT).json() == {"status": "ok"}
        answer = httpx.post(f"{url}/v1/chat/completions", timeout=TIMEOUT, json={
            "model": "m", "messages": [{"role": "user", "content": "secret words"}]}).json()
        assert answer["choices"][0]["message"]["content"] == "Hello there."
        logged = _wait_for(lines, r"toolcalls\.serve (\{.*\})$", seen).group(1)
        entry = json.loads(logged)
        assert entry["path"] == "/v1/chat/completions" and entry["status"] == 200
        assert entry["mode"] == "repair" and entry["model"] == "m"
        process.send_signal(sig)
        assert process.wait(timeout=15) == 0
        reader.join(timeout=5)
        seen.extend(iter(lambda: _next(lines), None))
        assert not any("secret words" in line for line in seen)  # no bodies in the log
        assert not any("Traceback" in line for line in seen), "".join(seen)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=5)
        reader.join(timeout=5)
        process.stderr.close()  # type: ignore[union-attr]


def _next(lines: queue.Queue[str]) -> str | None:
    try:
        return lines.get(timeout=0.5)
    except queue.Empty:
        return None


def test_serve_without_an_upstream_says_so(capsys, monkeypatch) -> None:
    monkeypatch.delenv("TOOLCALLS_SERVE_UPSTREAM", raising=False)
    assert main(["serve"]) == 2
    assert "upstream: required" in capsys.readouterr().err


def test_serve_with_an_unknown_format_says_so(capsys) -> None:
    assert main(["serve", "--upstream", "http://127.0.0.1:1/v1", "--format", "nope"]) == 2
    assert "format: unknown format 'nope'" in capsys.readouterr().err


def test_serve_stream_calls_flag_is_live_or_whole(capsys, monkeypatch) -> None:
    from toolcalls.serve import _server

    served = []
    monkeypatch.setattr(_server, "serve", served.append)
    assert main(["serve", "--upstream", "http://127.0.0.1:1/v1", "--stream-calls", "live"]) == 0
    assert main(["serve", "--upstream", "http://127.0.0.1:1/v1"]) == 0
    assert [config.stream_calls for config in served] == ["live", "whole"]
    with pytest.raises(SystemExit):
        main(["serve", "--upstream", "http://127.0.0.1:1/v1", "--stream-calls", "half"])
    assert "invalid choice: 'half'" in capsys.readouterr().err


def test_serve_without_the_extra_says_what_to_install(capsys, monkeypatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "uvicorn" else real(name, *a))
    assert main(["serve", "--upstream", "http://127.0.0.1:1/v1"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "toolcalls: serve needs uvicorn: pip install 'toolcalls[serve]'"


@pytest.mark.parametrize(("flags", "said"), [
    (["--upstream", "http://[::1"], "upstream: 'http://[::1' is not a URL"),
    (["--timeout", "nan"], "timeout: expected a positive number of seconds, got nan"),
    (["--timeout", "inf"], "timeout: expected a positive number of seconds, got inf"),
    (["--timeout", "-3"], "timeout: expected a positive number of seconds, got -3.0"),
    (["--port", "99999"], "port: expected 0..65535, got 99999"),
    (["--port", "http"], "port: expected an integer, got 'http'"),
    (["--budget", "lots"], "budget: expected an integer, got 'lots'"),
    (["--max-body-bytes", "0"], "max_body_bytes: expected a positive number of bytes, got 0"),
    (["--model-format", "qwen[3=hermes"], "model_formats: 'qwen[3' has an unclosed ["),
    (["--model-format", "qwen"], "model_formats: expected MODEL=FORMAT, got 'qwen'"),
    (["--allowed-host", "a b"], "allowed_hosts: expected a host name"),
    (["--host", " "], "host: expected an address to listen on"),
])
def test_a_bad_setting_is_one_line_and_exit_2(flags: list[str], said: str, capsys,
                                              monkeypatch) -> None:
    from toolcalls.serve import _server

    monkeypatch.setattr(_server, "serve", lambda config: pytest.fail("served"))
    argv = ["serve", *([] if flags[0] == "--upstream" else ["--upstream", "http://u/v1"]), *flags]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"toolcalls: {said}"), err


def test_a_bad_setting_from_the_environment_is_one_line_and_exit_2(capsys, monkeypatch) -> None:
    monkeypatch.setenv("TOOLCALLS_SERVE_TIMEOUT", "NaN")
    assert main(["serve", "--upstream", "http://u/v1"]) == 2
    err = capsys.readouterr().err
    assert err == "toolcalls: timeout: expected a positive number of seconds, got nan\n"


def test_forwarding_credentials_is_a_flag(monkeypatch) -> None:
    from toolcalls.serve import _server

    served = []
    monkeypatch.setattr(_server, "serve", served.append)
    monkeypatch.setenv("TOOLCALLS_SERVE_FORWARD_CREDENTIALS", "yes")
    for flags in ([], ["--no-forward-credentials"], ["--forward-credentials"]):
        assert main(["serve", "--upstream", "http://u/v1", *flags]) == 0
    assert [config.forward_credentials for config in served] == [True, False, True]
    monkeypatch.delenv("TOOLCALLS_SERVE_FORWARD_CREDENTIALS")
    assert main(["serve", "--upstream", "http://u/v1", "--allowed-host", "a.lan"]) == 0
    assert (served[-1].forward_credentials, served[-1].allowed_hosts) == (False, ("a.lan",))
