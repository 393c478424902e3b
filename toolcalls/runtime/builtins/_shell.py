"""The ``shell`` tool: one ``/bin/sh -c`` command in the working directory, stopped on cancel.

The command is the model's own text, run as it is: ``shell`` is dangerous (``is_dangerous``),
so under the default permissions every call is asked about, and it declares its ``command``
argument (``command_argument``) so permission rules match each sub-command of it. The
command runs in a process group of its own: cancelling the call (``ctx.cancel``), the call's
timeout, or the task being cancelled kills the whole group, background processes included;
so does the command's own end (a ``sleep 99 &`` left behind would hold its output open).

The result is the exit code and the output, each stream capped (`MAX_OUTPUT_BYTES`; what is
cut is counted); a non-zero exit is an error result with the output. The whole output is in
the result's ``details``, as far as the cap kept it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...tools._tool import Tool
from .._context import CancelToken, ToolContext
from .._results import Cancelled, InvalidArgs, Text, TimedOut, ToolError, ToolResult
from .._tool import RuntimeTool
from ._paths import Workspace

__all__ = ["DEFAULT_TIMEOUT", "MAX_OUTPUT_BYTES", "MAX_TIMEOUT", "SHELL", "Output", "ShellBody",
           "run_command", "shell_tool"]

DEFAULT_TIMEOUT = 120.0
"""Seconds a command runs when the call names no timeout."""
MAX_TIMEOUT = 600.0
"""The longest timeout a call may ask for."""
MAX_OUTPUT_BYTES = 32_000
"""What is kept of each of stdout and stderr; the rest is read and dropped."""
_CHUNK = 65_536
_POLL = 0.02


SHELL = Tool(
    name="shell",
    description="Run a shell command (/bin/sh -c) in the working directory.",
    parameters={
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The command line, as typed in a shell."},
            "timeout": {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_TIMEOUT,
                        "description": "Seconds before the command is stopped (default "
                                       f"{DEFAULT_TIMEOUT:g})."},
        },
        "required": ["command"],
        "additionalProperties": False,
    },
    category="shell",
    is_dangerous=True,
)
"""What the model sees of the ``shell`` tool."""


def shell_tool(workspace: Workspace) -> RuntimeTool:
    """The ``shell`` tool, running commands in `workspace`'s directory."""
    # The tool's own timeout governs (the call's argument); the executor's is a backstop.
    return RuntimeTool(SHELL, ShellBody(workspace), command_argument="command",
                       timeout=MAX_TIMEOUT + 30)


class ShellBody:
    """Runs one call of ``shell``: the arguments checked, the command run to its end or stop."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        command, timeout = _arguments(arguments, ctx.tool_name)
        output = await run_command(command, self.workspace, ctx.cancel, timeout)
        return output.result(ctx.tool_name)


def _arguments(arguments: Mapping[str, Any], tool: str) -> tuple[str, float]:
    """The command and the timeout, or `InvalidArgs` naming each problem."""
    problems = [f"{name}: no such argument" for name in arguments
                if name not in ("command", "timeout")]
    command = arguments.get("command")
    if not isinstance(command, str) or not command.strip():
        problems.append("command: required, a non-empty string")
    timeout = arguments.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not (
            0 < timeout <= MAX_TIMEOUT):
        problems.append(f"timeout: a number of seconds above 0 and at most {MAX_TIMEOUT:g}")
    if problems:
        raise InvalidArgs(tool, problems)
    return str(command), float(timeout)


@dataclass(frozen=True)
class Output:
    """What a command gave: its exit code (None when stopped), its output, and why it was
    stopped, if it was."""

    exit_code: int | None
    stdout: str
    stderr: str
    dropped: tuple[int, int] = (0, 0)
    """Bytes of stdout and stderr cut by `MAX_OUTPUT_BYTES`."""
    stopped: ToolError | None = None
    """`Cancelled` or `TimedOut` when the command did not end by itself."""

    def text(self) -> str:
        """What the model reads: the exit code (or why it was stopped), then each stream."""
        head = (f"exit code: {self.exit_code}" if self.stopped is None
                else f"stopped: {self.stopped.message}")
        parts = [head]
        for name, text, dropped in (("stdout", self.stdout, self.dropped[0]),
                                    ("stderr", self.stderr, self.dropped[1])):
            if text or dropped:
                cut = f"\n[{dropped} more bytes not shown]" if dropped else ""
                parts.append(f"{name}:\n{text}{cut}")
        return "\n".join(parts)

    def result(self, tool: str) -> ToolResult:
        details = {"exit_code": self.exit_code, "stdout": self.stdout, "stderr": self.stderr,
                   "dropped_bytes": self.dropped}
        if self.stopped is not None:
            text = f"{self.stopped.for_model(tool)}\n{self.text()}"
            return ToolResult((Text(text),), is_error=True, details=details,
                              error=self.stopped)
        return ToolResult((Text(self.text()),), is_error=self.exit_code != 0, details=details)


async def run_command(command: str, workspace: Workspace, cancel: CancelToken,
                      timeout: float) -> Output:
    """Run `command` in `workspace` until it ends, `cancel` is set or `timeout` passes."""
    process = await asyncio.create_subprocess_exec(
        "/bin/sh", "-c", command, cwd=workspace.root, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        start_new_session=True)  # a process group of its own, to kill as one
    reading = asyncio.ensure_future(_read_both(process))
    try:
        stopped = await _until_done(process, cancel, timeout)
        _kill_group(process)  # what is left: background processes, or all of it when stopped
        (stdout, out_dropped), (stderr, err_dropped) = await reading
        code = await process.wait()
    finally:
        if process.returncode is None or not reading.done():  # this task was cancelled
            _kill_group(process)
            reading.cancel()
            await _reaped(process)
    return Output(None if stopped else code, stdout, stderr, (out_dropped, err_dropped),
                  stopped)


async def _until_done(process: asyncio.subprocess.Process, cancel: CancelToken,
                      timeout: float) -> ToolError | None:
    """Wait for the command's end; the reason when the token or the timeout came first."""
    ended = asyncio.ensure_future(_exited(process))
    cancelled = asyncio.ensure_future(cancel.wait())
    try:
        done, _ = await asyncio.wait({ended, cancelled}, timeout=timeout,
                                     return_when=asyncio.FIRST_COMPLETED)
    finally:
        cancelled.cancel()
        ended.cancel()
    if ended in done:
        return None
    if cancelled in done:
        return Cancelled(cancelled.result())
    return TimedOut(timeout)


async def _exited(process: asyncio.subprocess.Process) -> None:
    """Return once the shell has exited. Not `Process.wait`: that also waits for its output
    pipes to close, which a background process it left (``sleep 99 &``) holds open; the
    return code is set at the exit itself, so it is looked at every 20 ms."""
    while process.returncode is None:
        await asyncio.sleep(_POLL)


async def _reaped(process: asyncio.subprocess.Process) -> None:
    """Wait (a little) for a killed process, so its transport closes now and is not left for
    the garbage collector to find open (a ResourceWarning)."""
    with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
        await asyncio.wait_for(asyncio.shield(process.wait()), _REAP_SECONDS)


_REAP_SECONDS = 5.0


def _kill_group(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # the group is gone
        os.killpg(process.pid, signal.SIGKILL)


async def _read_both(process: asyncio.subprocess.Process) -> tuple[tuple[str, int], ...]:
    assert process.stdout is not None and process.stderr is not None
    return tuple(await asyncio.gather(_read_capped(process.stdout),
                                      _read_capped(process.stderr)))


async def _read_capped(stream: asyncio.StreamReader) -> tuple[str, int]:
    """The stream's text up to `MAX_OUTPUT_BYTES`, and how many bytes after it were dropped
    (read all the same, so the command never blocks on a full pipe)."""
    kept = bytearray()
    dropped = 0
    while chunk := await stream.read(_CHUNK):
        room = MAX_OUTPUT_BYTES - len(kept)
        kept += chunk[:room]
        dropped += max(0, len(chunk) - room)
    return kept.decode("utf-8", errors="replace"), dropped
