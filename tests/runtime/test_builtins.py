"""The built-in tools (`toolcalls.runtime.builtins`): safe by default, in a tmp_path each."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from toolcalls.runtime import (
    Cancelled,
    CancelToken,
    Denied,
    Failed,
    InvalidArgs,
    RuntimeTool,
    TimedOut,
    ToolContext,
    ToolResult,
    WorkingDirectoryError,
    builtin_tools,
)
from toolcalls.runtime.builtins import _shell

GENEROUS = 20.0  # seconds: a bound for what should take milliseconds, on a loaded machine


def tools(root: Path, **options: bool) -> dict[str, RuntimeTool]:
    return {tool.name: tool for tool in builtin_tools(root, **options)}


def run(tool: RuntimeTool, arguments: dict[str, object],
        token: CancelToken | None = None) -> ToolResult:
    ctx = ToolContext("call_1", tool.name, cancel=token or CancelToken())
    return asyncio.run(tool.run(dict(arguments), ctx))


def test_builtin_tools_declare_their_path_and_command_arguments(tmp_path: Path) -> None:
    found = tools(tmp_path)
    assert list(found) == ["fs_read", "fs_write", "fs_list", "shell"]
    assert [found[n].path_arguments for n in ("fs_read", "fs_write", "fs_list")] == [
        ("path",)] * 3
    assert found["shell"].command_argument == "command"


def test_fs_write_is_dangerous(tmp_path: Path) -> None:
    found = tools(tmp_path)
    assert found["fs_write"].definition.is_dangerous is True
    assert not found["fs_read"].definition.is_dangerous
    assert not found["fs_list"].definition.is_dangerous


def test_shell_is_dangerous(tmp_path: Path) -> None:
    assert tools(tmp_path)["shell"].definition.is_dangerous is True


def test_a_working_dir_that_is_no_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(WorkingDirectoryError, match="not a directory"):
        builtin_tools(tmp_path / "missing")
    assert issubclass(WorkingDirectoryError, NotADirectoryError)


# -- fs_read ----------------------------------------------------------------------------------


def test_fs_read_reads_a_text_file(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("one\ntwo\n")
    result = run(tools(tmp_path)["fs_read"], {"path": "notes.txt"})
    assert result.text() == "one\ntwo\n" and not result.is_error


def test_fs_read_offset_and_limit_say_where_to_read_on(tmp_path: Path) -> None:
    (tmp_path / "n.txt").write_text("".join(f"line {i}\n" for i in range(10)))
    result = run(tools(tmp_path)["fs_read"], {"path": "n.txt", "offset": 2, "limit": 3})
    assert result.text() == ("line 2\nline 3\nline 4\n\n"
                             "[lines 3-5 of 10; read on with offset=5]")
    assert result.details["total_lines"] == 10


def test_fs_read_outside_working_dir_is_denied(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("s3cret")
    read = tools(root)["fs_read"]
    for path in ("../secret.txt", str(tmp_path / "secret.txt"), "sub/../../secret.txt",
                 "~/.ssh/id_rsa"):
        with pytest.raises(Denied, match="outside the working directory"):
            run(read, {"path": path})


def test_fs_read_symlink_out_is_denied(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("s3cret")
    (root / "innocent.txt").symlink_to(tmp_path / "secret.txt")
    (root / "linked_dir").symlink_to(tmp_path)
    read = tools(root)["fs_read"]
    for path in ("innocent.txt", "linked_dir/secret.txt"):
        with pytest.raises(Denied):
            run(read, {"path": path})


def test_a_symlink_that_stays_inside_is_followed(tmp_path: Path) -> None:
    (tmp_path / "real.txt").write_text("inside")
    (tmp_path / "alias.txt").symlink_to(tmp_path / "real.txt")
    assert run(tools(tmp_path)["fs_read"], {"path": "alias.txt"}).text() == "inside"


def test_allow_outside_lets_paths_out(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (tmp_path / "shared.txt").write_text("shared")
    read = tools(root, allow_outside=True)["fs_read"]
    assert run(read, {"path": "../shared.txt"}).text() == "shared"


def test_fs_read_binary_file_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    (tmp_path / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    read = tools(tmp_path)["fs_read"]
    with pytest.raises(Failed, match="binary"):
        run(read, {"path": "image.png"})
    with pytest.raises(Failed, match="not UTF-8"):
        run(read, {"path": "latin1.txt"})


def test_fs_read_missing_file_and_directory_are_errors(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    read = tools(tmp_path)["fs_read"]
    with pytest.raises(Failed, match="no file 'nope.txt'"):
        run(read, {"path": "nope.txt"})
    with pytest.raises(Failed, match="is a directory"):
        run(read, {"path": "d"})


def test_fs_read_size_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolcalls.runtime.builtins import _fs

    monkeypatch.setattr(_fs, "MAX_FILE_BYTES", 10)
    (tmp_path / "big.txt").write_text("x" * 11)
    with pytest.raises(Failed, match="11 bytes, more than fs_read reads"):
        run(tools(tmp_path)["fs_read"], {"path": "big.txt"})


def test_fs_read_a_nul_in_the_path_is_invalid_args(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgs, match="path"):
        run(tools(tmp_path)["fs_read"], {"path": "a\0b"})


# -- fs_write ---------------------------------------------------------------------------------


def test_fs_write_creates_and_replaces(tmp_path: Path) -> None:
    write = tools(tmp_path)["fs_write"]
    created = run(write, {"path": "src/new.py", "content": "print(1)\n"})
    assert (tmp_path / "src" / "new.py").read_text() == "print(1)\n"
    assert created.text().startswith("Created 'src/new.py'")
    replaced = run(write, {"path": "src/new.py", "content": "print(2)\r\n"})
    assert (tmp_path / "src" / "new.py").read_bytes() == b"print(2)\r\n"  # as given
    assert replaced.details["created"] is False


def test_fs_write_outside_or_through_a_symlink_out_is_denied(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "out").symlink_to(tmp_path)
    write = tools(root)["fs_write"]
    for path in ("../evil.txt", "out/evil.txt", str(tmp_path / "evil.txt")):
        with pytest.raises(Denied):
            run(write, {"path": path, "content": "x"})
    assert not (tmp_path / "evil.txt").exists()


# -- fs_list ----------------------------------------------------------------------------------


def test_fs_list(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("")
    (tmp_path / "README.md").write_text("")
    listing = tools(tmp_path)["fs_list"]
    assert run(listing, {}).text() == "README.md\nsrc/"
    assert run(listing, {"pattern": "**/*.py"}).text() == "src/a.py"
    assert run(listing, {"path": "src"}).details["entries"] == ["a.py"]


def test_fs_list_leaves_out_what_leads_outside(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("")
    (root / "out").symlink_to(tmp_path)
    listing = tools(root)["fs_list"]
    assert "secret" not in run(listing, {"pattern": "../*"}).text()
    assert "secret" not in run(listing, {"pattern": "out/*"}).text()
    with pytest.raises(Denied):
        run(listing, {"path": ".."})


def test_fs_list_an_absolute_pattern_is_invalid_args(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgs, match="pattern"):
        run(tools(tmp_path)["fs_list"], {"pattern": "/etc/*"})


# -- shell ------------------------------------------------------------------------------------


def test_shell_runs_in_the_working_directory(tmp_path: Path) -> None:
    result = run(tools(tmp_path)["shell"], {"command": "pwd; echo err >&2"})
    assert not result.is_error
    assert result.details["stdout"].strip() == str(tmp_path.resolve())
    assert result.text() == f"exit code: 0\nstdout:\n{tmp_path.resolve()}\n\nstderr:\nerr\n"


def test_shell_nonzero_exit_is_error_result(tmp_path: Path) -> None:
    result = run(tools(tmp_path)["shell"], {"command": "echo partial; exit 3"})
    assert result.is_error and result.details["exit_code"] == 3
    assert "exit code: 3" in result.text() and "partial" in result.text()


def test_shell_invalid_arguments(tmp_path: Path) -> None:
    shell = tools(tmp_path)["shell"]
    for arguments in ({}, {"command": ""}, {"command": "ls", "timeout": 0},
                      {"command": "ls", "timeout": 10_000}, {"command": "ls", "cwd": "/"}):
        with pytest.raises(InvalidArgs):
            run(shell, arguments)


def _wait_for(path: Path) -> int:
    deadline = time.monotonic() + GENEROUS
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return int(path.read_text())
        time.sleep(0.01)
    raise AssertionError(f"{path} was never written")


def _gone(pid: int) -> bool:
    deadline = time.monotonic() + GENEROUS
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.01)
    return False


def _cancel_when_started(tmp_path: Path, command: str) -> tuple[ToolResult, int, float]:
    """Run `command` (which writes a pid to tmp_path/pid), cancel it once the pid is there."""
    token = CancelToken()

    async def scenario() -> ToolResult:
        ctx = ToolContext("call_1", "shell", cancel=token)
        task = asyncio.ensure_future(tools(tmp_path)["shell"].run({"command": command}, ctx))
        await asyncio.to_thread(_wait_for, tmp_path / "pid")
        token.cancel("the user pressed stop")
        return await task

    started = time.monotonic()
    result = asyncio.run(scenario())
    return result, int((tmp_path / "pid").read_text()), time.monotonic() - started


def test_shell_cancel_kills_process(tmp_path: Path) -> None:
    result, pid, took = _cancel_when_started(tmp_path, "echo $$ > pid; exec sleep 30")
    assert isinstance(result.error, Cancelled) and result.is_error
    assert "the user pressed stop" in result.text()
    assert took < 30 - 1  # it did not wait for sleep 30
    assert _gone(pid)


def test_shell_cancel_kills_background_children(tmp_path: Path) -> None:
    result, pid, _ = _cancel_when_started(tmp_path, "sleep 30 & echo $! > pid; wait")
    assert isinstance(result.error, Cancelled)
    assert _gone(pid)


def test_shell_task_cancelled_kills_process(tmp_path: Path) -> None:
    """The executor stops a call by cancelling its task: the process dies with it."""

    async def scenario() -> None:
        ctx = ToolContext("call_1", "shell")
        task = asyncio.ensure_future(tools(tmp_path)["shell"].run(
            {"command": "echo $$ > pid; exec sleep 30"}, ctx))
        await asyncio.to_thread(_wait_for, tmp_path / "pid")
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    assert _gone(int((tmp_path / "pid").read_text()))


def test_shell_timeout_is_timed_out_result(tmp_path: Path) -> None:
    result = run(tools(tmp_path)["shell"], {"command": "echo started; sleep 30",
                                            "timeout": 0.5})
    assert isinstance(result.error, TimedOut) and result.is_error
    assert "did not finish within 0.5 s" in result.text()


def test_shell_leaves_no_background_process_holding_its_output(tmp_path: Path) -> None:
    started = time.monotonic()
    result = run(tools(tmp_path)["shell"], {"command": "sleep 30 & echo $! > pid; echo done"})
    assert result.details["stdout"] == "done\n" and not result.is_error
    assert time.monotonic() - started < 30 - 1
    assert _gone(int((tmp_path / "pid").read_text()))


def test_shell_output_is_capped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_shell, "MAX_OUTPUT_BYTES", 100)
    result = run(tools(tmp_path)["shell"], {"command": "head -c 100000 /dev/zero | tr '\\0' x"})
    assert result.details["stdout"] == "x" * 100
    assert result.details["dropped_bytes"] == (99_900, 0)
    assert "[99900 more bytes not shown]" in result.text()
