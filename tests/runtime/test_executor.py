"""The executor: every call gets a result, in call order, whatever goes wrong with it."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest

from toolcalls import ToolCall
from toolcalls.runtime import (
    Batched,
    BeforeAction,
    CancelToken,
    Executor,
    ExecutorError,
    Hooks,
    LoopGuard,
    Parallel,
    PendingApproval,
    Permissions,
    RateLimiter,
    Sequential,
    ToolContext,
    ToolResult,
    tool,
)

LONG = 60.0  # a bound that only a broken executor reaches, even on a loaded machine


def call(name: str, call_id: str = "c1", /, **arguments: Any) -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments=arguments, source="native")


def kinds(results: list[ToolResult]) -> list[str | None]:
    return [result.error.kind if result.error is not None else None for result in results]


@tool
def echo(text: str) -> str:
    """Say it back."""
    return text


@tool
def explode(text: str) -> str:
    """Always fails."""
    raise OSError(f"cannot {text}")


@tool
async def hang() -> str:
    """Never returns."""
    await asyncio.Event().wait()
    return "unreachable"


@tool
def huge() -> str:
    """One megabyte of text."""
    return "x" * 1_000_000


@tool(is_dangerous=True)
def delete(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


def test_tool_that_raises_becomes_failed_result() -> None:
    (result,) = Executor([explode]).run_sync([call("explode", text="fly")]).results
    assert result.is_error and result.error is not None and result.error.kind == "failed"
    assert "OSError: cannot fly" in result.text()


def test_tool_past_its_timeout_becomes_timed_out_result() -> None:
    (result,) = Executor([hang], timeout=0.05).run_sync([call("hang")]).results
    assert kinds([result]) == ["timed_out"] and "0.05 s" in result.text()


def test_tool_timeout_beats_executor_default() -> None:
    patient = tool(timeout=0.05)(hang.body.function)  # type: ignore[attr-defined]
    (result,) = Executor([patient], timeout=LONG).run_sync([call("hang")]).results
    assert kinds([result]) == ["timed_out"]


def test_cancel_mid_run_becomes_cancelled_result() -> None:
    started = asyncio.Event()

    @tool
    async def slow(ctx: ToolContext) -> str:
        started.set()
        await asyncio.Event().wait()
        return "unreachable"

    async def scenario() -> list[ToolResult]:
        token = CancelToken()
        running = asyncio.ensure_future(Executor([slow, echo]).run(
            [call("slow", "a"), call("echo", "b", text="hi")], cancel=token))
        await asyncio.wait_for(started.wait(), LONG)
        token.cancel("the user pressed stop")
        return (await asyncio.wait_for(running, LONG)).results

    results = asyncio.run(scenario())
    assert kinds(results) == ["cancelled", None]
    assert "the user pressed stop" in results[0].text() and results[1].value() == "hi"


def test_cancelled_token_runs_nothing() -> None:
    ran: list[str] = []

    @tool
    def record() -> str:
        ran.append("ran")
        return "ran"

    token = CancelToken()
    token.cancel("before the turn")
    (result,) = Executor([record]).run_sync([call("record")], cancel=token).results
    assert kinds([result]) == ["cancelled"] and ran == []


def test_one_megabyte_result_is_truncated_with_the_full_one_in_details() -> None:
    (result,) = Executor([huge]).run_sync([call("huge")]).results
    assert len(result.text()) < 11_000
    assert "1000000" in json.dumps(result.details, default=str) or "x" * 1_000_000 in str(
        result.details)


def test_denied_call_becomes_denied_result() -> None:
    executor = Executor([delete], permissions=Permissions(deny=["delete"]))
    (result,) = executor.run_sync([call("delete", path="a")]).results
    assert kinds([result]) == ["denied"] and "delete" in result.text()


def test_rate_limit_violation_is_error_result() -> None:
    executor = Executor([echo], limits=RateLimiter({"echo": "1/min"}))
    results = executor.run_sync([call("echo", "a", text="1"), call("echo", "b", text="2")],
                                ).results
    assert sorted(kinds(results), key=str) == [None, "rate_limited"]


def test_invalid_arguments_give_invalid_args_result() -> None:
    (result,) = Executor([echo]).run_sync([call("echo", text=3)]).results
    assert kinds([result]) == ["invalid_arguments"]
    assert "Do not retry with the same arguments" in result.text()


def test_unknown_tool_gives_not_found_with_did_you_mean() -> None:
    (result,) = Executor([echo]).run_sync([call("ecoh", text="x")]).results
    assert kinds([result]) == ["not_found"] and "'echo'" in result.text()


def test_dangerous_tool_asks_then_runs_on_yes() -> None:
    executor = Executor([delete, echo])
    batch = executor.run_sync([call("echo", "a", text="hi"), call("delete", "b", path="f")])
    assert not batch.complete and [p.call.id for p in batch.pending] == ["b"]
    with pytest.raises(ExecutorError, match="resume"):
        _ = batch.results
    done = executor.resume_sync(batch, {"b": "yes"})
    assert [r.value() for r in done.results] == ["hi", "deleted f"]
    assert not executor.run_sync([call("delete", "c", path="g")]).complete  # yes: once only


def test_ask_always_trusts_tool_for_session() -> None:
    executor = Executor([delete])
    batch = executor.run_sync([call("delete", "a", path="f")])
    executor.resume_sync(batch, {"a": "always"})
    assert executor.run_sync([call("delete", "b", path="g")]).complete


def test_ask_no_denies_the_call() -> None:
    executor = Executor([delete])
    batch = executor.run_sync([call("delete", "a", path="f")])
    (result,) = executor.resume_sync(batch, {"a": "no"}).results
    assert kinds([result]) == ["denied"]


def test_approval_answered_in_a_later_process() -> None:
    batch = Executor([delete]).run_sync([call("delete", "a", path="f")])
    saved = json.dumps([pending.to_dict() for pending in batch.pending])
    (pending,) = [PendingApproval.from_dict(item) for item in json.loads(saved)]
    later = Executor([delete]).run_sync([pending.call], approvals={pending.call.id: "yes"})
    assert [r.value() for r in later.results] == ["deleted f"]


def test_every_fault_in_one_batch_gets_a_result_in_call_order() -> None:
    calls = [call("explode", "1", text="x"), call("hang", "2"), call("huge", "3"),
             call("nope", "4"), call("echo", "5", text=7), call("echo", "6", text="ok")]
    brief = tool(timeout=0.05)(hang.body.function)  # type: ignore[attr-defined]
    results = Executor([explode, brief, huge, echo], timeout=LONG).run_sync(calls).results
    assert [r.call.id for r in results if r.call] == ["1", "2", "3", "4", "5", "6"]
    assert kinds(results) == ["failed", "timed_out", None, "not_found", "invalid_arguments",
                              None]


def test_results_in_call_order_whatever_order_they_finish() -> None:
    order: list[str] = []

    @tool
    async def wait_for(name: str, after: str = "") -> str:
        while after and after not in order:
            await asyncio.sleep(0.001)
        order.append(name)
        return name

    calls = [call("wait_for", "1", name="c", after="b"), call("wait_for", "2", name="b",
             after="a"), call("wait_for", "3", name="a")]
    results = Executor([wait_for], timeout=LONG).run_sync(calls).results
    assert order == ["a", "b", "c"] and [r.value() for r in results] == ["c", "b", "a"]


def concurrency(strategy: Any, calls: int) -> int:
    running, peak = 0, 0

    @tool
    async def step() -> str:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        for _ in range(5):
            await asyncio.sleep(0)
        running -= 1
        return "done"

    Executor([step], strategy=strategy).run_sync([call("step", str(i)) for i in range(calls)])
    return peak


def test_parallel_runs_calls_at_once() -> None:
    assert concurrency(Parallel(), 6) == 6


def test_sequential_runs_one_at_a_time() -> None:
    assert concurrency(Sequential(), 6) == 1


def test_batched_runs_groups() -> None:
    assert concurrency(Batched(2), 6) == 2


def test_sync_tool_does_not_hold_up_async_ones() -> None:
    release = threading.Event()

    @tool
    def blocking() -> str:
        release.wait(LONG)
        return "unblocked"

    @tool
    async def freer() -> str:
        release.set()
        return "free"

    results = Executor([blocking, freer]).run_sync([call("blocking", "1"), call("freer", "2")])
    assert [r.value() for r in results.results] == ["unblocked", "free"]


def test_before_hook_skip_gives_synthetic_result() -> None:
    hooks = Hooks(before=[lambda c, t, ctx: BeforeAction(skip="dry run")])
    (result,) = Executor([echo], hooks=hooks).run_sync([call("echo", text="x")]).results
    assert result.is_error and "dry run" in result.text()


def test_loop_guard_stops_the_same_failing_call() -> None:
    executor = Executor([explode], loop_guard=LoopGuard(repeats=2))
    first = [executor.run_sync([call("explode", str(i), text="x")]).results[0]
             for i in range(3)]
    assert kinds(first) == ["failed", "failed", "rate_limited"]


def test_progress_and_updates_reach_the_caller() -> None:
    @tool
    def work(ctx: ToolContext) -> str:
        ctx.on_progress(1, 2, "half")
        ctx.on_update("partial")
        return "done"

    heard: list[Any] = []
    executor = Executor([work], on_progress=lambda c, *p: heard.append((c.id, *p)),
                        on_update=lambda c, partial: heard.append((c.id, partial)))
    executor.run_sync([call("work", "w")])
    assert heard == [("w", 1, 2, "half"), ("w", "partial")]


def test_state_is_shared_by_the_calls_of_a_session() -> None:
    @tool
    def count(ctx: ToolContext) -> int:
        ctx.state["n"] = ctx.state.get("n", 0) + 1
        return int(ctx.state["n"])

    executor = Executor([count], strategy=Sequential())
    results = executor.run_sync([call("count", "1"), call("count", "2")]).results
    assert [r.value() for r in results] == [1, 2] and executor.state == {"n": 2}


def test_run_sync_inside_an_event_loop_says_to_await() -> None:
    async def inside() -> None:
        Executor([echo]).run_sync([call("echo", text="x")])

    with pytest.raises(ExecutorError, match="await executor.run"):
        asyncio.run(inside())


def test_executor_cancelled_from_outside_is_not_swallowed() -> None:
    async def scenario() -> None:
        running = asyncio.ensure_future(Executor([hang], timeout=LONG).run([call("hang")]))
        await asyncio.sleep(0.01)
        running.cancel()
        await running

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(scenario())


def test_tool_search_is_answered_by_the_session_before_the_registry() -> None:
    from toolcalls.budget import Session

    session = Session([echo.definition, explode.definition], pinned=["echo"])
    executor = Executor([echo, explode], session=session)
    (found,) = executor.run_sync([call("tool_search", names=["explode"])]).results
    assert not found.is_error and "explode" in found.text()
    assert session.is_loaded("explode")


def test_builtins_under_permissions_end_to_end(tmp_path: Any) -> None:
    from toolcalls.runtime import builtin_tools

    (tmp_path / "notes.txt").write_text("hello\n")
    executor = Executor(builtin_tools(tmp_path), working_dir=tmp_path,
                        permissions=Permissions(allow=["shell(cat *)"],
                                                deny=["fs_read(**/.ssh/**)"],
                                                working_dir=tmp_path))
    batch = executor.run_sync([
        call("fs_read", "1", path="notes.txt"),
        call("fs_read", "2", path="../outside.txt"),
        call("fs_read", "3", path="~/.ssh/id_rsa"),
        call("shell", "4", command="cat notes.txt"),
        call("shell", "5", command="cat notes.txt; rm notes.txt"),
    ])
    assert [p.call.id for p in batch.pending] == ["5"]
    results = executor.resume_sync(batch, {"5": "no"}).results
    assert "hello" in results[0].text()
    assert kinds(results)[1:3] == ["denied", "denied"]
    assert "hello" in results[3].text() and kinds(results)[4] == "denied"
    assert (tmp_path / "notes.txt").exists()
