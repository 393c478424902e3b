"""The executor: run the calls of one response and give every call a result, in call order.

>>> import asyncio
>>> from toolcalls import ToolCall
>>> from toolcalls.runtime import Executor, tool
>>> @tool
... def add(a: int, b: int) -> int:
...     "Add two numbers."
...     return a + b
>>> call = ToolCall(id="c1", name="add", arguments={"a": 2, "b": 3}, source="native")
>>> [result.value() for result in Executor([add]).run_sync([call]).results]
[5]

Each call goes through the same steps, and each step that refuses it gives the model an error
result it can act on (`toolcalls.runtime._results`), never an exception:

1. find the tool (by name, alias or namespaced name): else `NotFound`, with the closest names;
2. check the arguments against the schema: else `InvalidArgs`;
3. the loop guard: the same failing call repeated: `RateLimited`, with a directive;
4. permissions (`Permissions`): Deny gives `Denied`; Ask returns a `PendingApproval` in the
   call's place, answered by `resume` (or by passing ``approvals`` to a later `run`);
5. rate limits: `RateLimited`;
6. before hooks: may rewrite the arguments, or skip the call (a result saying why);
7. run, under the call's timeout (`TimedOut`) and cancel token (`Cancelled`); an exception in
   the tool is `Failed`;
8. after hooks, then the result cut to ``result_limit`` characters (the full one in ``details``).

Calls of one response run in parallel by default (`Parallel`), one after another
(`Sequential`), or in groups (`Batched`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._errors import ToolCallsError
from ..budget._session import Session
from ..parsing._models import ParseResult, ToolCall
from ..tools._calls import validate_arguments
from ._context import CancelToken, ToolContext
from ._hooks import Hooks, skip_result
from ._limits import LoopGuard, RateLimiter
from ._permissions import Answer, PendingApproval, Permissions, Trust
from ._registry import ToolRegistry
from ._results import (
    Cancelled,
    Denied,
    Failed,
    InvalidArgs,
    NotFound,
    TimedOut,
    ToolError,
    ToolResult,
)
from ._search import TOOL_SEARCH, search_tool
from ._tool import RuntimeTool
from ._truncate import truncate_result

__all__ = ["Batch", "Batched", "Executor", "ExecutorError", "Parallel", "Sequential", "Strategy"]


@dataclass(frozen=True)
class Sequential:
    """One call after another, in call order."""


@dataclass(frozen=True)
class Parallel:
    """All calls at once (the default)."""


@dataclass(frozen=True)
class Batched:
    """Groups of `size` calls at once, one group after another."""

    size: int

    def __post_init__(self) -> None:
        if self.size < 1:
            raise ValueError(f"Batched(size={self.size}): a group holds at least one call")


Strategy = Sequential | Parallel | Batched


class ExecutorError(ToolCallsError, RuntimeError):
    """The executor was used wrongly (by the program, not the model)."""


@dataclass(frozen=True)
class Batch:
    """The outcome of one response's calls: per call, in call order, its result or, where a
    permission asks, its `PendingApproval`."""

    calls: tuple[ToolCall, ...]
    outcomes: tuple[ToolResult | PendingApproval, ...]

    def __repr__(self) -> str:
        # short on purpose: asyncio.run's clean-up formats the repr of the task that returned
        # the batch (signal.getsignal), and a full one cost 47 ms per 1,000 calls
        total, waiting = len(self.calls), len(self.pending)
        return f"Batch({total} calls, {total - waiting} done, {waiting} pending)"

    @property
    def complete(self) -> bool:
        """Every call has its result: nothing waits for an answer."""
        return not self.pending

    @property
    def pending(self) -> list[PendingApproval]:
        """The calls that wait for the user's answer."""
        return [item for item in self.outcomes if isinstance(item, PendingApproval)]

    @property
    def results(self) -> list[ToolResult]:
        """Every call's result, in call order; raises `ExecutorError` while calls are pending."""
        if not self.complete:
            waiting = ", ".join(item.call.id for item in self.pending)
            raise ExecutorError(f"calls {waiting} wait for approval: answer them with "
                                "Executor.resume(batch, answers) first")
        return [item for item in self.outcomes if isinstance(item, ToolResult)]


@dataclass
class Executor:
    """Runs calls against a registry, under one session's permissions, limits and hooks."""

    registry: ToolRegistry | Iterable[RuntimeTool | Callable[..., Any]]
    permissions: Permissions = field(default_factory=Permissions)
    """Allow, Ask or Deny per call; the default asks before a tool marked ``is_dangerous``."""
    trust: Trust = field(default_factory=Trust)
    """This session's answers (Always, Never) so far."""
    limits: RateLimiter = field(default_factory=RateLimiter)
    loop_guard: LoopGuard | None = field(default_factory=LoopGuard)
    hooks: Hooks = field(default_factory=Hooks)
    strategy: Strategy = field(default_factory=Parallel)
    timeout: float | None = 60.0
    """Seconds a call may run when its tool sets none; None: no limit."""
    result_limit: int | None = 10_000
    """Characters of content the model gets per result; None: no limit."""
    validate: bool = True
    """Check arguments against the tool's schema before the call runs."""
    working_dir: Path = field(default_factory=Path.cwd)
    state: dict[str, Any] = field(default_factory=dict)
    """The session's state, handed to every call's `ToolContext`."""
    on_update: Callable[[ToolCall, Any], None] | None = None
    on_progress: Callable[[ToolCall, float, float | None, str | None], None] | None = None
    session: Session | None = None
    """Lazy loading: its ``tool_search`` calls are answered before the registry is asked."""
    _search: RuntimeTool | None = field(init=False, default=None, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.registry, ToolRegistry):
            self.registry = ToolRegistry(self.registry)
        self.working_dir = Path(self.working_dir)
        self._search = search_tool(self.session) if self.session is not None else None

    async def run(self, calls: Iterable[ToolCall] | ParseResult, *,
                  cancel: CancelToken | None = None,
                  approvals: Mapping[str, Answer] | None = None) -> Batch:
        """Run `calls` (a list, or a `ParseResult`'s calls); ``approvals`` answers calls that
        ask, by call id (from a `PendingApproval` shown earlier, maybe in another process)."""
        listed = tuple(calls.calls if isinstance(calls, ParseResult) else calls)
        token = cancel if cancel is not None else CancelToken()
        answers = dict(approvals or {})
        outcomes = await self._run_all(listed, token, answers)
        return Batch(listed, tuple(outcomes))

    def run_sync(self, calls: Iterable[ToolCall] | ParseResult, *,
                 cancel: CancelToken | None = None,
                 approvals: Mapping[str, Answer] | None = None) -> Batch:
        """`run` for code without an event loop."""
        _no_running_loop("run_sync", "run")
        return asyncio.run(self.run(calls, cancel=cancel, approvals=approvals))

    async def resume(self, batch: Batch, answers: Mapping[str, Answer], *,
                     cancel: CancelToken | None = None) -> Batch:
        """Answer a batch's pending calls (by call id) and run those allowed; a call left
        unanswered stays pending."""
        waiting = [(i, item.call) for i, item in enumerate(batch.outcomes)
                   if isinstance(item, PendingApproval) and item.call.id in answers]
        token = cancel if cancel is not None else CancelToken()
        done = await self._run_all(tuple(call for _, call in waiting), token, dict(answers))
        outcomes = list(batch.outcomes)
        for (index, _), outcome in zip(waiting, done, strict=True):
            outcomes[index] = outcome
        return Batch(batch.calls, tuple(outcomes))

    def resume_sync(self, batch: Batch, answers: Mapping[str, Answer], *,
                    cancel: CancelToken | None = None) -> Batch:
        """`resume` for code without an event loop."""
        _no_running_loop("resume_sync", "resume")
        return asyncio.run(self.resume(batch, answers, cancel=cancel))

    async def _run_all(self, calls: Sequence[ToolCall], cancel: CancelToken,
                       answers: dict[str, Answer]) -> list[ToolResult | PendingApproval]:
        run = self._one
        if isinstance(self.strategy, Sequential):
            return [await run(call, cancel, answers) for call in calls]
        size = self.strategy.size if isinstance(self.strategy, Batched) else max(len(calls), 1)
        outcomes: list[ToolResult | PendingApproval] = []
        for start in range(0, len(calls), size):
            group = calls[start:start + size]
            outcomes += await asyncio.gather(*(run(call, cancel, answers) for call in group))
        return outcomes

    async def _one(self, call: ToolCall, cancel: CancelToken,
                   answers: dict[str, Answer]) -> ToolResult | PendingApproval:
        try:
            outcome = await self._steps(call, cancel, answers)
        except ToolError as error:
            outcome = ToolResult.failure(error, call)
        except Exception as error:  # noqa: BLE001 - a crash anywhere is the call's result
            outcome = ToolResult.failure(Failed.from_exception(error), call)
        if isinstance(outcome, ToolResult):
            if outcome.call is not call:
                outcome = outcome.for_call(call)
            if self.loop_guard is not None:
                self.loop_guard.record(call, outcome)
        return outcome

    async def _steps(self, call: ToolCall, cancel: CancelToken,
                     answers: dict[str, Answer]) -> ToolResult | PendingApproval:
        tool = self._checked_tool(call)
        waiting = self._permission(call, tool, answers.get(call.id))
        if waiting is not None:
            return waiting
        refused = self.limits.acquire(tool.name)
        if refused is not None:
            raise refused
        ctx = self._context(call, tool, cancel.child())
        arguments = call.arguments
        if self.hooks.before:  # checked first: awaiting no hooks cost 3 µs a call
            action = await self.hooks.run_before(call, tool, ctx)
            if action.skip is not None:
                return skip_result(call, action.skip)
            arguments = action.arguments if action.arguments is not None else arguments
        result = (await self._run_tool(tool, dict(arguments), ctx)).for_call(call)
        if self.hooks.after:
            result = await self.hooks.run_after(call, tool, ctx, result)
        if self.result_limit is not None:
            result = truncate_result(result, self.result_limit)
        return result

    def _checked_tool(self, call: ToolCall) -> RuntimeTool:
        assert isinstance(self.registry, ToolRegistry)
        found = (self._search if self._search is not None and call.name == TOOL_SEARCH
                 else self.registry.resolve(call.name))
        if isinstance(found, NotFound):
            raise found
        if self.validate:
            problems = validate_arguments(found.definition, call.arguments)
            if problems:
                raise InvalidArgs(found.name, problems)
        if self.loop_guard is not None:
            repeated = self.loop_guard.check(call)
            if repeated is not None:
                raise repeated
        return found

    def _permission(self, call: ToolCall, tool: RuntimeTool,
                    answer: Answer | None) -> PendingApproval | None:
        verdict = self.permissions.evaluate(call, tool, self.trust)
        if verdict.decision == "deny":
            raise Denied(verdict.reason, rule=verdict.rule)
        if verdict.decision == "allow":
            return None
        approval = self.permissions.approval(call, tool, verdict)
        if answer is None:
            return approval
        self.trust.record(approval, answer)
        if answer in ("no", "never"):
            raise Denied("the user refused it")
        return None

    def _context(self, call: ToolCall, tool: RuntimeTool, token: CancelToken) -> ToolContext:
        ctx = ToolContext(call.id, tool.name, token, self.state, self.working_dir)
        if self.on_update is not None:
            update = self.on_update
            ctx.on_update = lambda partial: update(call, partial)
        if self.on_progress is not None:
            progress = self.on_progress
            ctx.on_progress = lambda done, total, message: progress(call, done, total, message)
        return ctx

    async def _run_tool(self, tool: RuntimeTool, arguments: dict[str, Any],
                        ctx: ToolContext) -> ToolResult:
        """The tool's own result, or `TimedOut` / `Cancelled` when it is stopped."""
        ctx.cancel.raise_if_cancelled()
        loop = asyncio.get_running_loop()
        task = loop.create_task(tool.run(arguments, ctx))

        def stop(_: str) -> None:
            loop.call_soon_threadsafe(task.cancel)

        forget = ctx.cancel.on_cancel(stop)
        seconds = tool.timeout if tool.timeout is not None else self.timeout
        try:
            async with asyncio.timeout(seconds) as deadline:
                return await task
        except asyncio.CancelledError:
            if not ctx.cancel.cancelled:
                raise  # the executor itself is being cancelled: not the call's to answer
            raise Cancelled(ctx.cancel.reason or "cancelled") from None
        except TimeoutError:
            if not deadline.expired():
                raise  # the tool's own TimeoutError: a failure like any other
            ctx.cancel.cancel(f"timed out after {seconds:g} s")
            raise TimedOut(seconds or 0.0) from None
        finally:
            forget()


def _no_running_loop(sync: str, the_async: str) -> None:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise ExecutorError(f"Executor.{sync} was called inside a running event loop: "
                        f"use `await executor.{the_async}(...)` there")
