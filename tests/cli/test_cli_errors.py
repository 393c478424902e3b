"""The ``toolcalls`` command as users run it, on bad input: one line on stderr, never a traceback.

Each test runs the installed command in a new interpreter (``-P`` and a scratch working
directory, so the package imported is the installed one, not the source tree), and checks the
exit status that `toolcalls.cli._main` documents.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

import toolcalls

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
TOOLSETS = FIXTURES / "toolsets"
PLAYWRIGHT = TOOLSETS / "playwright-mcp.json"
COMMAND = [sys.executable, "-P", "-m", "toolcalls"]
OPEN_CALL = b'Hello.\n<tool_call>\n{"name": "f", "arguments": {"a": "x'


def run(cwd: Path, *argv: str | Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([*COMMAND, *map(str, argv)], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, encoding="utf-8", cwd=cwd,
                          timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def run_bytes(cwd: Path, *argv: str | Path, stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    done = subprocess.run([*COMMAND, *map(str, argv)], input=stdin, capture_output=True,
                          cwd=cwd, timeout=120)
    assert b"Traceback" not in done.stderr, done.stderr
    return done


def one_line(stderr: str) -> str:
    """The one line the command wrote on stderr."""
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("toolcalls"), stderr
    return lines[0]


def events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines()]


# -- parse: what the input is ------------------------------------------------------------------


@pytest.mark.parametrize("streamed", [False, True], ids=["batch", "stream"])
def test_a_binary_file_is_refused_in_one_line(tmp_path: Path, streamed: bool) -> None:
    binary = tmp_path / "image.png"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    done = run(tmp_path, "parse", binary, "-f", "hermes", *(["--stream"] if streamed else []))
    assert done.returncode == 2 and done.stdout == ""
    assert "is a binary file (a NUL byte at offset 8)" in one_line(done.stderr)


BAD_UTF8 = 'Caf\xe9 \u2014 '.encode("latin-1", "replace") + b'\xff<tool_call>\n{"name": "f", ' \
    b'"arguments": {"city": "Z\xc3\xbcrich \xe2\x82"}}\n</tool_call>'


@pytest.mark.parametrize("where", ["file", "stdin"])
def test_invalid_utf8_reads_as_u_fffd_with_one_warning_the_same_streamed(
    tmp_path: Path, where: str
) -> None:
    response = tmp_path / "response.txt"
    response.write_bytes(BAD_UTF8)
    source: list[str | Path] = [response] if where == "file" else []
    stdin = BAD_UTF8 if where == "stdin" else b""
    batch = run_bytes(tmp_path, "parse", *source, "-f", "hermes", stdin=stdin)
    streamed = run_bytes(tmp_path, "parse", *source, "-f", "hermes", "--stream", stdin=stdin)
    assert batch.returncode == streamed.returncode == 0
    warning = one_line(batch.stderr.decode())
    assert warning == one_line(streamed.stderr.decode())
    assert "not valid UTF-8 (byte 0xe9 at offset 3)" in warning and "U+FFFD" in warning
    result = json.loads(batch.stdout)
    printed = events(streamed.stdout.decode())
    assert result["content"] == "".join(e["text"] for e in printed if e["kind"] == "text")
    assert result["calls"][0]["arguments"] == {"city": "Z\xfcrich \ufffd"}
    assert [e["call"] for e in printed if e["kind"] == "tool_call_end"] == result["calls"]


def test_stream_prints_the_issues_as_events_after_the_others(tmp_path: Path) -> None:
    response = tmp_path / "response.txt"
    response.write_bytes(b'<tool_call>{"name": "f", "arguments": {"a": 1}</tool_call>' + OPEN_CALL)
    batch = json.loads(run(tmp_path, "parse", response, "-f", "hermes").stdout)
    printed = events(run(tmp_path, "parse", response, "-f", "hermes", "--stream").stdout)
    issues = [e["issue"] for e in printed if e["kind"] == "issue"]
    assert issues == batch["issues"] and len(issues) >= 1
    assert [e["kind"] for e in printed[-len(issues):]] == ["issue"] * len(issues)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is a POSIX signal")
def test_ctrl_c_during_stream_ends_the_open_call_and_exits_130(tmp_path: Path) -> None:
    # SIGINT as a terminal delivers it: a test run started in the background (``cmd &`` in a
    # script) has SIGINT ignored, the child inherits that, and Python then installs no handler
    process = subprocess.Popen([*COMMAND, "parse", "-f", "hermes", "--stream"], cwd=tmp_path,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    watchdog = threading.Timer(60, process.kill)
    watchdog.start()
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(OPEN_CALL)
        process.stdin.flush()
        seen = [process.stdout.readline()]
        while b"tool_call_start" not in seen[-1]:  # the call is open: now interrupt
            seen.append(process.stdout.readline())
        process.send_signal(signal.SIGINT)
        # stdin stays open until the process has gone: closing it at once raced the signal
        # (under load the parser read end-of-input first and exited 0)
        process.wait(60)
        out, err = process.communicate()
    finally:
        watchdog.cancel()
    printed = events(b"".join([*seen, out]).decode())
    assert process.returncode == 130 and one_line(err.decode()) == "toolcalls: interrupted"
    kinds = [e["kind"] for e in printed]
    assert kinds[:2] == ["text", "tool_call_start"] and kinds[-2:] == ["tool_call_failed", "issue"]
    assert printed[-2]["incomplete"]["raw"].endswith('{"a": "x')


def test_a_closed_pipe_exits_141_silently(tmp_path: Path) -> None:
    response = tmp_path / "many.txt"
    response.write_text('<tool_call>{"name": "f", "arguments": {}}</tool_call>\n' * 20000,
                        encoding="utf-8")
    process = subprocess.Popen([*COMMAND, "parse", str(response), "-f", "hermes", "--stream"],
                               cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    first = process.stdout.readline()
    process.stdout.close()  # as `| head -1` does
    err = process.stderr.read().decode()
    process.stderr.close()
    assert process.wait(timeout=120) == 141 and json.loads(first)["kind"] == "tool_call_start"
    assert err == ""  # as `yes | head -1`: the reader left, nothing to say


# -- read: what the response is -----------------------------------------------------------------


@pytest.mark.parametrize(("content", "says"), [
    ("[1, 2]", "a response is a JSON object, not an array"),
    ("null", "a response is a JSON object, not null"),
    ('"hello"', "a response is a JSON object, not a string"),
    ('{"choices": [{"message": {"content": ' + "[" * 5000 + "]" * 5000 + "}}]}",
     "JSON nested too deep to read"),
])
def test_read_refuses_json_that_is_no_response_in_one_line_with_status_2(
    tmp_path: Path, content: str, says: str
) -> None:
    saved = tmp_path / "response.json"
    saved.write_text(content, encoding="utf-8")
    done = run(tmp_path, "read", saved)
    assert done.returncode == 2 and done.stdout == ""
    assert f"cannot read {str(saved)!r} as a response: {says}" in one_line(done.stderr)


def test_read_gives_a_result_for_hostile_fields_deep_arguments_and_lone_surrogates(
    tmp_path: Path
) -> None:
    arguments = '{"a": ' + "[" * 600 + "]" * 600 + "}"
    response = {"choices": [{"message": {"content": "caf\ud800", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}},
        {"id": "c2", "type": "function", "function": {"name": "g", "arguments": '{"x": NaN}'}},
        5]}}], "usage": [1]}
    saved = tmp_path / "response.json"
    saved.write_text(json.dumps(response), encoding="utf-8")
    done = run(tmp_path, "read", saved, "-f", "none")
    assert done.returncode == 0 and done.stderr == ""
    result = json.loads(done.stdout)
    assert result["content"] == "caf\ufffd" and result["calls"] == []
    assert [issue["kind"] for issue in result["issues"]] == [
        "invalid_arguments", "invalid_arguments", "malformed_call", "lone_surrogate"]


# -- render and budget: options ----------------------------------------------------------------


@pytest.mark.parametrize("command", ["render", "budget"])
def test_a_negative_budget_is_a_usage_error(tmp_path: Path, command: str) -> None:
    done = run(tmp_path, command, PLAYWRIGHT, "-f", "openai", "--budget", "-5")
    assert done.returncode == 2 and done.stdout == ""
    assert "--budget: a budget is 0 or more, not -5" in one_line(done.stderr)


def test_a_plot_in_a_missing_folder_is_one_line(tmp_path: Path) -> None:
    done = run(tmp_path, "budget", PLAYWRIGHT, "--plot", tmp_path / "no" / "such" / "plot.svg")
    assert done.returncode == 2 and done.stdout == ""
    assert "cannot write --plot" in one_line(done.stderr)
    assert f"the folder {str(tmp_path / 'no' / 'such')!r} does not exist" in done.stderr


def test_render_auto_names_the_providers_and_formats_it_takes(tmp_path: Path) -> None:
    done = run(tmp_path, "render", PLAYWRIGHT, "-f", "auto")
    line = one_line(done.stderr)
    assert done.returncode == 2 and "rendering needs one named" in line
    names = ("openai", "anthropic", "gemini", *toolcalls.list_formats())
    assert all(name in line for name in names)
    assert "'auto' to detect" not in line


@pytest.mark.parametrize("command", ["render", "budget"])
def test_an_unknown_encoding_names_the_shipped_ones(tmp_path: Path, command: str) -> None:
    done = run(tmp_path, command, PLAYWRIGHT, "-f", "openai", "--encoding", "gpt2")
    line = one_line(done.stderr)
    assert done.returncode == 2 and "unknown --encoding 'gpt2'" in line
    assert "cl100k_base, o200k_base, o200k_harmony" in line and "count(text)" not in line


@pytest.mark.parametrize(("option", "says"), [
    (["--pin", "no_such_tool"], "--pin names no tool"),
    (["--max-active", "0"], "--max-active is 1 or more, not 0"),
])
def test_other_bad_options_are_one_line(tmp_path: Path, option: list[str], says: str) -> None:
    done = run(tmp_path, "budget", PLAYWRIGHT, *option)
    assert done.returncode == 2 and says in one_line(done.stderr)


# -- the command itself ------------------------------------------------------------------------


def test_version(tmp_path: Path) -> None:
    done = run(tmp_path, "--version")
    assert done.returncode == 0 and done.stdout == f"toolcalls {toolcalls.__version__}\n"


def test_help_lists_every_command_and_the_exit_statuses_without_markup(tmp_path: Path) -> None:
    from toolcalls.cli._main import _parser

    commands = next(action for action in _parser()._actions  # noqa: SLF001 - the registered ones
                    if isinstance(action.choices, dict)).choices
    done = run(tmp_path, "--help")
    assert done.returncode == 0 and {"parse", "read", "render", "budget"} <= set(commands)
    # a name too long for the column (completion) has its help on the next line
    assert all(f"    {name} " in done.stdout or f"    {name}\n" in done.stdout
               for name in commands)
    assert "`" not in done.stdout and "exit status:" in done.stdout
    assert all(f"\n    {status} " in done.stdout for status in (0, 1, 2, 70, 130, 141))
