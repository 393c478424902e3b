"""Hooks around each call: before it runs (rewrite its arguments, or skip it) and after (rewrite
its result), as Python callables or as shell commands from configuration.

A before hook returns None to let the call go on unchanged, or a `BeforeAction`; an after hook
returns None to keep the result, or a new `ToolResult`. Hooks may be plain or ``async``::

    def no_force_push(call, tool, ctx):
        if "--force" in call.arguments.get("command", ""):
            return BeforeAction(skip="force pushes are not allowed here")

    hooks = Hooks(before=[no_force_push])
    hooks = Hooks.from_config({
        "after": [{"tools": "fs_write", "command": "ruff check {path}"}],   # a linter after writes
        "before": [{"tools": "shell", "command": "my-check {command}", "timeout": 10}],
    }, working_dir=project)

A hook never ends the run with an exception: a before hook that raises skips the call (the
model reads why), an after hook that raises leaves the result as it was, with a note in its
``details`` (``details["hook_notes"]``).

A shell hook runs with ``sh`` where the call works (``working_dir``, else the context's), is
killed at its timeout (30 s by default) or when the call is cancelled, and runs only for the
tools its ``tools`` names or globs match (the registered name, whatever alias the model used).
A placeholder naming an argument the call does not have means the hook does not run for that
call (logged on the ``toolcalls.runtime`` logger): a check that cannot be filled in is skipped,
not guessed at. Configure a before check without placeholders to run it for every call.
"""

from __future__ import annotations

import inspect
import logging
import tomllib
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, TypeAlias

from ..parsing._models import ToolCall
from ._command_templates import CommandOutcome, CommandTemplate, HookConfigError, run_command
from ._context import ToolContext
from ._results import Denied, Failed, Text, ToolResult
from ._tool import RuntimeTool

__all__ = ["AfterHook", "BeforeAction", "BeforeHook", "HookConfigError", "Hooks",
           "ShellAfterHook", "ShellBeforeHook", "skip_result"]

logger = logging.getLogger("toolcalls.runtime")

DEFAULT_HOOK_TIMEOUT = 30.0
"""Seconds a hook command may run."""


@dataclass(frozen=True)
class BeforeAction:
    """What a before hook decided: new arguments, or a reason to skip the call."""

    arguments: dict[str, Any] | None = None
    """The call's arguments rewritten; None leaves them unchanged."""
    skip: str | None = None
    """Do not run the call; the model reads this reason as its result."""


BeforeHook: TypeAlias = Callable[
    [ToolCall, RuntimeTool, ToolContext],
    "BeforeAction | None | Awaitable[BeforeAction | None]"]
AfterHook: TypeAlias = Callable[
    [ToolCall, RuntimeTool, ToolContext, ToolResult],
    "ToolResult | None | Awaitable[ToolResult | None]"]


def skip_result(call: ToolCall, reason: str) -> ToolResult:
    """The result the model reads for a call a hook skipped."""
    return ToolResult.failure(Denied(reason), call)


class Hooks:
    """The before and after hooks of a session, run in the order given."""

    def __init__(self, before: Iterable[BeforeHook] = (),
                 after: Iterable[AfterHook] = ()) -> None:
        self.before = list(before)
        self.after = list(after)

    def __add__(self, other: Hooks) -> Hooks:
        """These hooks, then `other`'s (Python hooks and configured ones together)."""
        return Hooks([*self.before, *other.before], [*self.after, *other.after])

    @classmethod
    def from_config(cls, data: Mapping[str, Any], *, working_dir: Path | None = None) -> Hooks:
        """Shell command hooks from configuration: ``{"before": [...], "after": [...]}`` (or
        that under a ``"hooks"`` key), each ``{"tools": name or glob or a list of them,
        "command": template, "timeout": seconds}``."""
        if "hooks" in data and not {"before", "after"} & data.keys():
            data = data["hooks"]
        if not isinstance(data, Mapping):
            raise HookConfigError(f"hooks are a table with 'before' and 'after', not {data!r}")
        unknown = set(data) - {"before", "after"}
        if unknown:
            raise HookConfigError(f"unknown hook sections {sorted(unknown)}: use 'before' and "
                                  "'after'")
        before = [ShellBeforeHook(**_hook_fields(entry, "before"), working_dir=working_dir)
                  for entry in _entries(data, "before")]
        after = [ShellAfterHook(**_hook_fields(entry, "after"), working_dir=working_dir)
                 for entry in _entries(data, "after")]
        return cls(before, after)

    @classmethod
    def from_toml(cls, source: str | Path, *, working_dir: Path | None = None) -> Hooks:
        """`from_config` of a TOML text, or of a TOML file given as a `Path`
        (``[[after]]`` tables, or ``[[hooks.after]]``)."""
        text = source.read_text(encoding="utf-8") if isinstance(source, Path) else source
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise HookConfigError(f"cannot read the hooks TOML: {error}") from None
        return cls.from_config(data, working_dir=working_dir)

    async def run_before(self, call: ToolCall, tool: RuntimeTool,
                         ctx: ToolContext) -> BeforeAction:
        """Run the before hooks in order, each seeing the arguments the previous ones wrote;
        the first skip ends the run."""
        current = call
        for hook in self.before:
            try:
                action = await _resolved(hook(current, tool, ctx))
            except Exception as error:  # a broken hook must not end the session
                reason = f"a check before the call failed ({Failed.from_exception(error).message})"
                return BeforeAction(_changed(call, current), skip=reason)
            if action is None:
                continue
            if action.arguments is not None:
                current = current.model_copy(update={"arguments": dict(action.arguments)})
            if action.skip is not None:
                return BeforeAction(_changed(call, current), skip=action.skip)
        return BeforeAction(_changed(call, current))

    async def run_after(self, call: ToolCall, tool: RuntimeTool, ctx: ToolContext,
                        result: ToolResult) -> ToolResult:
        """Run the after hooks in order, each given the result the previous one returned."""
        for hook in self.after:
            try:
                rewritten = await _resolved(hook(call, tool, ctx, result))
            except Exception as error:  # keep the result the tool gave
                name = getattr(hook, "__name__", type(hook).__name__)
                note = f"the after hook {name} failed: {Failed.from_exception(error).message}"
                result = with_note(result, note)
                continue
            if rewritten is not None:
                result = rewritten
        return result


async def _resolved(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def _changed(original: ToolCall, current: ToolCall) -> dict[str, Any] | None:
    return None if current.arguments == original.arguments else current.arguments


def with_note(result: ToolResult, note: str) -> ToolResult:
    """`result` with `note` added to ``details["hook_notes"]`` (other details kept)."""
    details = result.details
    if details is None:
        details = {}
    elif not isinstance(details, dict):
        details = {"details": details}
    notes = [*details.get("hook_notes", ()), note]
    return replace(result, details={**details, "hook_notes": notes})


class _ShellHook:
    """A command template run for the calls of the tools it names."""

    def __init__(self, tools: str | Iterable[str], command: str, *,
                 timeout: float = DEFAULT_HOOK_TIMEOUT, working_dir: Path | None = None) -> None:
        self.tools = (tools,) if isinstance(tools, str) else tuple(tools)
        self.command = CommandTemplate(command)
        self.timeout = timeout
        self.working_dir = working_dir
        self.__name__ = repr(command)

    def applies(self, tool: RuntimeTool) -> bool:
        return any(fnmatchcase(tool.name, pattern) for pattern in self.tools)

    def command_for(self, call: ToolCall) -> str | None:
        """The filled command, or None (logged) when the call lacks an argument it names."""
        missing = self.command.missing(call.arguments)
        if missing:
            logger.info("hook %s not run for %s: no argument %s", self.command.template,
                        call.name, ", ".join(missing))
            return None
        return self.command.fill(call.arguments)

    async def run(self, command: str, ctx: ToolContext) -> CommandOutcome:
        """Run the filled command where the call works, stopped with the call."""
        cwd = self.working_dir if self.working_dir is not None else ctx.working_dir
        return await run_command(command, cwd=cwd, timeout=self.timeout, cancel=ctx.cancel)


class ShellBeforeHook(_ShellHook):
    """A check before a call: exit status 0 lets it run, any other skips it, and the command's
    output is the reason the model reads. A check that runs past its timeout skips the call."""

    async def __call__(self, call: ToolCall, tool: RuntimeTool,
                       ctx: ToolContext) -> BeforeAction | None:
        command = self.command_for(call) if self.applies(tool) else None
        if command is None:
            return None
        outcome = await self.run(command, ctx)
        if outcome.stopped is not None:
            return BeforeAction(skip=f"the check `{self.command.template}` {outcome.stopped}")
        if outcome.exit_code == 0:
            return None
        said = outcome.output or f"it exited with status {outcome.exit_code}"
        return BeforeAction(skip=f"the check `{self.command.template}` refused it: {said}")


class ShellAfterHook(_ShellHook):
    """A command after a call (a linter after a file write): its output is added to the
    result as text for the model; a command that runs past its timeout adds a note to
    ``details`` instead."""

    async def __call__(self, call: ToolCall, tool: RuntimeTool, ctx: ToolContext,
                       result: ToolResult) -> ToolResult | None:
        command = self.command_for(call) if self.applies(tool) else None
        if command is None:
            return None
        outcome = await self.run(command, ctx)
        if outcome.stopped is not None:
            return with_note(result, f"the after hook `{self.command.template}` "
                                     f"{outcome.stopped}")
        if outcome.exit_code == 0 and not outcome.output:
            return None
        header = f"`{command}` (exit status {outcome.exit_code}):"
        text = f"{header}\n{outcome.output}" if outcome.output else header
        return replace(result, content=(*result.content, Text(text)))


def _entries(data: Mapping[str, Any], section: str) -> list[Mapping[str, Any]]:
    entries = data.get(section, [])
    if not isinstance(entries, list) or not all(isinstance(e, Mapping) for e in entries):
        raise HookConfigError(f"'{section}' is a list of hooks, each a table with 'tools' and "
                              f"'command', not {entries!r}")
    return entries


def _hook_fields(entry: Mapping[str, Any], section: str) -> dict[str, Any]:
    """The fields of one configured hook, checked."""
    unknown = set(entry) - {"tools", "command", "timeout"}
    tools, command = entry.get("tools"), entry.get("command")
    timeout = entry.get("timeout", DEFAULT_HOOK_TIMEOUT)
    if unknown or not isinstance(command, str) or not command.strip():
        raise HookConfigError(f"a '{section}' hook is {{tools, command, timeout}} with a "
                              f"command string, not {dict(entry)!r}")
    if isinstance(tools, str):
        tools = [tools]
    if not isinstance(tools, list) or not tools or not all(isinstance(t, str) for t in tools):
        raise HookConfigError(f"the '{section}' hook {command!r} needs 'tools': a tool name "
                              "or glob, or a list of them")
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise HookConfigError(f"the timeout of the hook {command!r} is a positive number of "
                              f"seconds, not {timeout!r}")
    return {"tools": tools, "command": command, "timeout": float(timeout)}
