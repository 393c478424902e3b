"""The CLI for people: the human view on a terminal, JSON when piped or asked (--json,
--compact), ``read --events``, the hint when ``parse`` waits on a terminal, defaults in
``--help``, fuzz progress, ``formats --json`` and shell completion.

Terminal behaviour is tested on a real pseudo-terminal (`pty`), the way a shell runs the
command; the rest in a new interpreter or through `main` as the other CLI tests do."""

from __future__ import annotations

import json
import os
import pty
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import toolcalls
from toolcalls.cli._main import main

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
COMMAND = [sys.executable, "-P", "-m", "toolcalls"]
RESPONSE = ('Let me check.<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", '
            '"days": 2}}</tool_call>\nSure.<tool_call>{"name": "f", "arguments": {"x": "Pa')
STREAM = FIXTURES / "providers" / "openai_chat" / "gpt4o_mini_tool_call.sse"


@pytest.fixture
def response(tmp_path: Path) -> Path:
    path = tmp_path / "response.txt"
    path.write_text(RESPONSE, encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _read_until(fd: int, wanted: bytes, seconds: float = 60) -> bytes:
    """What `fd` gives until `wanted` is in it (or it ends), waiting at most `seconds`."""
    seen, deadline = b"", time.monotonic() + seconds
    while wanted not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # the other end closed (Linux reports EIO on a pty)
                break
            if not chunk:
                break
            seen += chunk
    return seen


# -- the human view ---------------------------------------------------------------------------


def test_the_human_view_shows_calls_as_calls_and_each_issue_on_a_line(
        capsys: pytest.CaptureFixture[str], response: Path) -> None:
    code, out, _ = run(capsys, "parse", str(response), "-f", "hermes", "--human")
    assert code == 0
    assert out.splitlines() == [
        "format     hermes, 1 call",
        "content    Let me check.",
        "           Sure.",
        'call       get_weather(city="Paris", days=2)  id call_0',
        'incomplete f: <tool_call>{"name": "f", "arguments": {"x": "Pa',
        "issue      truncated_call: the text ended inside this tool call",
    ]


def test_spans_only_on_request(capsys: pytest.CaptureFixture[str], response: Path) -> None:
    _, plain, _ = run(capsys, "parse", str(response), "-f", "hermes", "--human")
    _, spanned, _ = run(capsys, "parse", str(response), "-f", "hermes", "--human", "--spans")
    assert "chars" not in plain
    result = toolcalls.parse(RESPONSE, "hermes")
    start, end = result.calls[0].span or (0, 0)
    assert f"id call_0  [chars {start}-{end}]" in spanned
    assert spanned.count("[chars ") == 3  # the call, the incomplete call, its issue


def test_a_response_without_calls_says_so(capsys: pytest.CaptureFixture[str],
                                          tmp_path: Path) -> None:
    (tmp_path / "plain.txt").write_text("", encoding="utf-8")
    _, out, _ = run(capsys, "parse", str(tmp_path / "plain.txt"), "-f", "hermes", "--human")
    assert out.splitlines() == ["format     hermes, 0 calls", "calls      none"]


def test_piped_output_is_json_and_compact_is_one_line_of_the_same(
        capsys: pytest.CaptureFixture[str], response: Path) -> None:
    _, default, _ = run(capsys, "parse", str(response), "-f", "hermes")
    _, asked, _ = run(capsys, "parse", str(response), "-f", "hermes", "--json")
    _, compact, _ = run(capsys, "parse", str(response), "-f", "hermes", "--compact")
    expected = json.loads(toolcalls.parse(RESPONSE, "hermes").model_dump_json())
    assert json.loads(default) == json.loads(asked) == json.loads(compact) == expected
    assert default == asked and default.count("\n") > 10
    assert compact.count("\n") == 1


def test_the_views_exclude_each_other(capsys: pytest.CaptureFixture[str], response: Path) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["parse", str(response), "--json", "--compact"])
    assert exited.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_a_provider_response_in_the_human_view_names_the_provider_and_finish(
        capsys: pytest.CaptureFixture[str]) -> None:
    path = FIXTURES / "providers" / "openai_chat" / "gpt4o_tool_call.json"
    code, out, _ = run(capsys, "read", str(path), "--human")
    result = toolcalls.read_response(path.read_text(encoding="utf-8"))
    lines = out.splitlines()
    assert code == 0 and lines[0] == f"format     openai response, {result.format}, 1 call"
    assert lines[-1] == f"finish     {result.finish_reason}"
    call = result.calls[0]
    assert any(line.startswith(f"call       {call.name}(") and line.endswith(f"id {call.id}")
               for line in lines)


def test_stream_events_in_the_human_view_are_one_line_each(
        capsys: pytest.CaptureFixture[str], response: Path) -> None:
    _, out, _ = run(capsys, "parse", str(response), "-f", "hermes", "--stream", "--human")
    lines = out.splitlines()
    assert lines[0] == 'text       "Let me check."'
    assert 'call 0     get_weather(city="Paris", days=2)  id call_0' in lines
    assert lines[-2].startswith("call 1     failed: f: <tool_call>")
    assert lines[-1] == "issue      truncated_call: the text ended inside this tool call"


def test_on_a_terminal_the_view_is_human(response: Path, tmp_path: Path) -> None:
    leader, follower = pty.openpty()
    process = subprocess.Popen([*COMMAND, "parse", str(response), "-f", "hermes"],
                               stdin=subprocess.DEVNULL, stdout=follower, stderr=follower,
                               cwd=tmp_path)
    os.close(follower)
    try:
        out = _read_until(leader, b"truncated_call")
        assert process.wait(60) == 0
    finally:
        os.close(leader)
    assert b'call       get_weather(city="Paris", days=2)' in out
    assert b'"format"' not in out


def test_parse_waiting_on_a_terminal_says_how_to_give_it_input(tmp_path: Path) -> None:
    leader, follower = pty.openpty()
    process = subprocess.Popen([*COMMAND, "parse", "-f", "hermes"], stdin=follower,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    os.close(follower)
    try:
        assert process.stderr is not None
        hint = _read_until(process.stderr.fileno(), b"\n")
        assert b"paste it and end with Ctrl-D" in hint, hint
        os.write(leader, b'<tool_call>{"name": "f", "arguments": {}}</tool_call>\n\x04')
        out, _ = process.communicate(timeout=60)
    finally:
        os.close(leader)
    assert process.returncode == 0
    assert json.loads(out)["calls"][0]["name"] == "f"


def test_piped_input_gets_no_hint(tmp_path: Path) -> None:
    done = subprocess.run([*COMMAND, "parse", "-f", "hermes"], input="hi", text=True,
                          capture_output=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0 and done.stderr == ""


# -- read --events ----------------------------------------------------------------------------


def test_read_events_prints_what_read_stream_gives_one_per_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "read", str(STREAM), "--events")
    reader = toolcalls.read_stream("openai")
    expected = reader.feed(STREAM.read_text(encoding="utf-8")) + reader.close()
    printed = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [event["kind"] for event in printed] == [e.kind for e in expected] + [
        "issue"] * len(reader.result().issues)
    assert printed[-1]["call"]["name"] == reader.result().calls[-1].name


def test_read_events_from_stdin_in_the_human_view(tmp_path: Path) -> None:
    done = subprocess.run([*COMMAND, "read", "--events", "--human"], cwd=tmp_path, timeout=120,
                          input=STREAM.read_bytes(), capture_output=True)
    assert done.returncode == 0, done.stderr
    reader = toolcalls.read_stream("openai")
    reader.feed(STREAM.read_text(encoding="utf-8"))
    reader.close()
    name = reader.result().calls[0].name
    lines = done.stdout.decode().splitlines()
    assert f"call 0     {name} started" in lines
    assert any(line.startswith(f"call 0     {name}(") for line in lines)


def test_read_events_of_a_whole_response_is_one_line_saying_so(
        capsys: pytest.CaptureFixture[str]) -> None:
    path = FIXTURES / "providers" / "openai_chat" / "gpt4o_tool_call.json"
    code, out, err = run(capsys, "read", str(path), "--events")
    assert code == 2 and out == ""
    assert err == ("toolcalls: --events reads a captured stream (SSE or NDJSON); this is one "
                   "whole response: read it without --events\n")


# -- help, formats, progress, completion -------------------------------------------------------


@pytest.mark.parametrize(("command", "shown"), [
    ("parse", "format name, alias or model id (default: auto)"),
    ("fuzz", "how long to fuzz (default: 60.0)"),
    ("budget", "count in this rendering (default: OpenAI native)"),
])
def test_help_shows_the_defaults_and_no_noise(capsys: pytest.CaptureFixture[str], command: str,
                                              shown: str) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert shown in text
    assert "(default: False)" not in text and "(default: None)" not in text


def test_formats_as_json_lists_every_format_with_its_model_ids(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "formats", "--json")
    listed = json.loads(out)
    assert code == 0 and [entry["name"] for entry in listed] == toolcalls.list_formats()
    qwen = next(entry for entry in listed if entry["name"] == "qwen3_coder")
    assert "Qwen/Qwen3-Coder" in qwen["models"] and qwen["example"]


PARSERS = ("import toolcalls\n\ndef drops(text):\n"
           "    return toolcalls.parse(text, 'hermes').calls[:-1]\n")


def test_fuzz_reports_progress_each_second_when_asked(tmp_path: Path) -> None:
    (tmp_path / "parsers.py").write_text(PARSERS, encoding="utf-8")
    done = subprocess.run([*COMMAND, "fuzz", "-f", "hermes", "--against", "parsers:drops",
                           "--seconds", "3", "--progress"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=180, stdin=subprocess.DEVNULL)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.splitlines()
    assert lines and all(line.startswith("hermes: ") and line.endswith(" s left")
                         for line in lines), done.stderr
    assert "responses, " in lines[-1] and "disagreement" in lines[-1] and "/s, " in lines[-1]


def test_fuzz_is_quiet_on_stderr_when_piped(tmp_path: Path) -> None:
    (tmp_path / "parsers.py").write_text(PARSERS, encoding="utf-8")
    done = subprocess.run([*COMMAND, "fuzz", "-f", "hermes", "--against", "parsers:drops",
                           "--seconds", "2"], capture_output=True, text=True, cwd=tmp_path,
                          timeout=180, stdin=subprocess.DEVNULL)
    assert done.returncode == 1 and done.stderr == ""


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_prints_a_script_for_each_shell(capsys: pytest.CaptureFixture[str],
                                                   shell: str) -> None:
    code, out, _ = run(capsys, "completion", shell)
    assert code == 0 and "toolcalls" in out and "_ARGCOMPLETE" in out


def test_the_bash_script_is_valid_bash(capsys: pytest.CaptureFixture[str]) -> None:
    if shutil.which("bash") is None:
        pytest.fail("bash is on every machine this project runs on")
    _, out, _ = run(capsys, "completion", "bash")
    checked = subprocess.run(["bash", "-n"], input=out, text=True, capture_output=True,
                             timeout=60)
    assert checked.returncode == 0, checked.stderr


@pytest.mark.parametrize(("line", "offered"), [
    ("toolcalls pa", "parse"),
    ("toolcalls parse --fo", "--format"),
    ("toolcalls completion f", "fish"),
])
def test_the_shell_gets_completions_from_the_parser(tmp_path: Path, line: str,
                                                    offered: str) -> None:
    answer = tmp_path / "completions"
    env = {**os.environ, "_ARGCOMPLETE": "1", "COMP_LINE": line, "COMP_POINT": str(len(line)),
           "_ARGCOMPLETE_STDOUT_FILENAME": str(answer), "_ARGCOMPLETE_IFS": "\n"}
    done = subprocess.run([*COMMAND], env=env, capture_output=True, text=True, cwd=tmp_path,
                          timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert offered in [found.strip() for found in answer.read_text(encoding="utf-8").split("\n")]
