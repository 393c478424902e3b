"""Shell command templates filled from a call's arguments, and running them with a timeout.

The template is configuration, written by the user; the arguments come from the model. Each
``{name}`` placeholder is replaced by the argument's value quoted for the shell
(`shlex.quote`), so no argument can end the command or start another::

    template = CommandTemplate("ruff check {path}")
    command = template.fill({"path": "a.py; rm -rf ~"})    # "ruff check 'a.py; rm -rf ~'"
    outcome = await run_command(command, cwd=Path("."), timeout=30, cancel=ctx.cancel)

A quoted value is only safe where the shell reads it as a word of its own, so a placeholder
inside quotes (``"{path}"``), after a backslash or after ``$`` is refused when the template is
read, with a message saying to leave it bare. Quoting follows POSIX ``sh``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import signal
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._errors import ToolCallsError
from ._context import CancelToken

__all__ = ["CommandOutcome", "CommandTemplate", "HookConfigError", "run_command"]

OUTPUT_LIMIT = 4_000
"""Characters of a command's output kept (its start and end)."""


class HookConfigError(ToolCallsError, ValueError):
    """A hook in the configuration cannot be used as written."""


class CommandTemplate:
    """A shell command with ``{argument}`` placeholders, checked when it is read."""

    def __init__(self, template: str) -> None:
        self.template = template
        self.fields = _checked_fields(template)

    def missing(self, arguments: dict[str, Any]) -> list[str]:
        """The placeholders that name no argument of the call."""
        return [name for name in self.fields if name not in arguments]

    def fill(self, arguments: dict[str, Any]) -> str:
        """The command with every placeholder replaced by its argument, quoted."""
        quoted = {name: shlex.quote(_as_text(arguments[name])) for name in self.fields}
        return self.template.format_map(quoted)

    def __repr__(self) -> str:
        return f"CommandTemplate({self.template!r})"


def _checked_fields(template: str) -> tuple[str, ...]:
    """The placeholder names, after checking each stands where the shell reads a whole word."""
    quote: str | None = None
    escaped = False
    names: list[str] = []
    try:
        pieces = list(string.Formatter().parse(template))
    except ValueError as error:
        raise HookConfigError(f"cannot read the hook command {template!r}: {error}; write "
                              "literal braces as {{ and }}") from None
    for literal, name, spec, conversion in pieces:
        quote, escaped = _shell_state(literal, quote, escaped)
        if name is None:
            continue
        if not name.isidentifier() or spec or conversion:
            raise HookConfigError(f"the placeholder {{{name}}} in the hook command {template!r}"
                                  " is not a plain argument name: write {name} only")
        if quote is not None or escaped or literal.endswith("$"):
            raise HookConfigError(
                f"the placeholder {{{name}}} in the hook command {template!r} is inside "
                "quotes or after '\\' or '$': leave it bare, its value is quoted for you")
        names.append(name)
    return tuple(dict.fromkeys(names))


def _shell_state(text: str, quote: str | None, escaped: bool) -> tuple[str | None, bool]:
    """Where POSIX sh is after reading `text`: inside which quote, and whether a backslash
    waits for its character."""
    for char in text:
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote is None and char in "'\"":
            quote = char
        elif char == quote:
            quote = None
    return quote, escaped


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class CommandOutcome:
    """How a command ended: its exit status and its output (stdout and stderr together)."""

    exit_code: int | None
    """None when it was stopped (see `stopped`)."""
    output: str
    stopped: str | None = None
    """Why it was stopped before it ended: "did not finish within 30 s", "was cancelled"."""


async def run_command(command: str, *, cwd: Path, timeout: float,
                      cancel: CancelToken | None = None) -> CommandOutcome:
    """Run `command` with ``sh`` in `cwd`; it and what it started are killed after `timeout`
    seconds, when `cancel` is cancelled, or when the awaiting task is cancelled."""
    process = await asyncio.create_subprocess_shell(
        command, cwd=cwd, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT, start_new_session=True)
    finished = asyncio.ensure_future(process.communicate())
    stop = asyncio.ensure_future(cancel.wait()) if cancel is not None else None
    try:
        await asyncio.wait([finished, *([stop] if stop else [])], timeout=timeout,
                           return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        await _stop(process, finished)
        raise
    finally:
        if stop is not None:
            stop.cancel()
    if not finished.done():
        await _stop(process, finished)
        why = (f"was cancelled ({cancel.reason})" if cancel is not None and cancel.cancelled
               else f"did not finish within {timeout:g} s")
        return CommandOutcome(None, "", why)
    output, _ = finished.result()
    assert process.returncode is not None  # communicate() waited for the exit
    return CommandOutcome(process.returncode, _shortened(output.decode("utf-8", "replace")))


async def _stop(process: asyncio.subprocess.Process, finished: asyncio.Future[Any]) -> None:
    await _kill(process)
    # The pipes close with the process group; a child that left the group may keep them open.
    await asyncio.wait([finished], timeout=5)
    finished.cancel()


async def _kill(process: asyncio.subprocess.Process) -> None:
    # The whole process group: a `sh -c` that started a pipeline has children of its own.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    await process.wait()


def _shortened(output: str) -> str:
    output = output.strip()
    if len(output) <= OUTPUT_LIMIT:
        return output
    half = OUTPUT_LIMIT // 2
    return f"{output[:half]}\n[… {len(output) - OUTPUT_LIMIT:,} characters …]\n{output[-half:]}"
