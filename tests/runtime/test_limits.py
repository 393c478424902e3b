"""Rate limits per tool, per session and global, and the loop guard: refusals are results."""

from __future__ import annotations

import threading

import pytest

from toolcalls import ToolCall
from toolcalls.runtime import (
    Failed,
    LimitSyntaxError,
    LoopGuard,
    RateLimit,
    RateLimited,
    RateLimiter,
    SharedLimit,
    ToolResult,
)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def call(name: str = "fs_read", **arguments: object) -> ToolCall:
    return ToolCall(id="c1", name=name, arguments=arguments, source="native")


def failure(message: str = "no such file") -> ToolResult:
    return ToolResult.failure(Failed(message))


@pytest.mark.parametrize(("text", "calls", "seconds"), [
    ("10/min", 10, 60), ("3/s", 3, 1), ("100/h", 100, 3600), ("5/30s", 5, 30),
    ("2 / 5 minutes", 2, 300), ("1000/day", 1000, 86400), ("1/hours", 1, 3600),
])
def test_rate_limit_parses_calls_per_period(text: str, calls: int, seconds: float) -> None:
    assert RateLimit.parse(text) == RateLimit(calls, seconds)


@pytest.mark.parametrize("text", ["10", "ten/min", "10/ms", "0/min", "5/fortnight", "/s"])
def test_rate_limit_refuses_unreadable_text(text: str) -> None:
    with pytest.raises(LimitSyntaxError, match="rate limit"):
        RateLimit.parse(text)


def test_rate_limit_violation_is_error_result() -> None:
    limiter = RateLimiter({"fs_write": "2/min"}, clock=FakeClock())
    assert limiter.acquire("fs_write") is None
    assert limiter.acquire("fs_write") is None
    refused = limiter.acquire("fs_write")
    assert isinstance(refused, RateLimited)
    assert refused.reason == "fs_write: 2 calls per 60 s"
    assert refused.retry_after == pytest.approx(60.0)
    result = ToolResult.failure(refused, call("fs_write"))
    assert result.is_error
    assert "fs_write: 2 calls per 60 s" in result.text()
    assert "again in 60.0 s" in result.text()


def test_rate_limit_window_slides() -> None:
    clock = FakeClock()
    limiter = RateLimiter({"fs_write": "2/10s"}, clock=clock)
    assert limiter.acquire("fs_write") is None          # t=0
    clock.now += 6
    assert limiter.acquire("fs_write") is None          # t=6
    clock.now += 3
    refused = limiter.acquire("fs_write")               # t=9: both still in the window
    assert refused is not None and refused.retry_after == pytest.approx(1.0)
    clock.now += 1.5                                    # t=10.5: the first has left
    assert limiter.acquire("fs_write") is None
    refused = limiter.acquire("fs_write")               # the one at t=6 holds until t=16
    assert refused is not None and refused.retry_after == pytest.approx(5.5)


def test_refused_call_is_not_counted() -> None:
    clock = FakeClock()
    limiter = RateLimiter({"a": "1/10s"}, clock=clock)
    assert limiter.acquire("a") is None
    for _ in range(5):
        clock.now += 1
        assert limiter.acquire("a") is not None
    clock.now += 5.5
    assert limiter.acquire("a") is None


def test_other_tools_are_not_limited_by_a_tool_limit() -> None:
    limiter = RateLimiter({"fs_write": "1/min"}, clock=FakeClock())
    assert limiter.acquire("fs_write") is None
    assert limiter.acquire("fs_read") is None
    assert limiter.acquire("fs_read") is None


def test_glob_key_is_one_window_for_the_tools_it_matches() -> None:
    limiter = RateLimiter({"web_*": "2/min"}, clock=FakeClock())
    assert limiter.acquire("web_get") is None
    assert limiter.acquire("web_search") is None
    refused = limiter.acquire("web_get")
    assert refused is not None and refused.reason == "web_get (web_*): 2 calls per 60 s"


def test_session_limit_counts_every_tool() -> None:
    limiter = RateLimiter(session="3/h", clock=FakeClock())
    assert [limiter.acquire(name) for name in ("a", "b", "c")] == [None, None, None]
    refused = limiter.acquire("d")
    assert refused is not None
    assert refused.reason == "all tools in this session: 3 calls per 3600 s"


def test_tool_limit_refusal_does_not_use_up_the_session_limit() -> None:
    limiter = RateLimiter({"a": "1/h"}, session="2/h", clock=FakeClock())
    assert limiter.acquire("a") is None
    assert limiter.acquire("a") is not None
    assert limiter.acquire("b") is None


def test_shared_limit_spans_sessions() -> None:
    clock = FakeClock()
    shared = SharedLimit("3/min", clock=clock)
    first, second = RateLimiter(shared=shared), RateLimiter(shared=shared)
    assert first.acquire("a") is None
    assert second.acquire("b") is None
    assert first.acquire("c") is None
    refused = second.acquire("a")
    assert refused is not None and refused.reason == "all sessions together: 3 calls per 60 s"
    clock.now += 60
    assert first.acquire("a") is None


def test_shared_limit_is_thread_safe() -> None:
    shared = SharedLimit("50/h", clock=FakeClock())
    limiters = [RateLimiter(shared=shared) for _ in range(8)]
    allowed: list[bool] = []
    start = threading.Barrier(8)

    def spend(limiter: RateLimiter) -> None:
        start.wait()
        for _ in range(20):
            allowed.append(limiter.acquire("x") is None)

    threads = [threading.Thread(target=spend, args=(limiter,)) for limiter in limiters]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert allowed.count(True) == 50


def test_loop_guard_stops_same_failing_call() -> None:
    guard = LoopGuard(repeats=3)
    for _ in range(3):
        assert guard.check(call(path="x")) is None
        guard.record(call(path="x"), failure())
    refused = guard.check(call(path="x"))
    assert isinstance(refused, RateLimited)
    text = ToolResult.failure(refused, call(path="x")).text()
    assert "stop repeating this call: it failed 3 times" in text
    assert "no such file" in text
    assert "change the arguments or do something else" in text


def test_loop_guard_lets_other_arguments_through() -> None:
    guard = LoopGuard(repeats=2)
    for _ in range(2):
        guard.record(call(path="x"), failure())
    assert guard.check(call(path="x")) is not None
    assert guard.check(call(path="y")) is None
    assert guard.check(call("other", path="x")) is None


def test_loop_guard_resets_after_success() -> None:
    guard = LoopGuard(repeats=2)
    guard.record(call(path="x"), failure())
    guard.record(call(path="x"), ToolResult.of("ok"))
    guard.record(call(path="x"), failure())
    assert guard.check(call(path="x")) is None
    guard.record(call(path="x"), failure())
    assert guard.check(call(path="x")) is not None
    guard.record(call(path="x"), ToolResult.of("ok"))
    assert guard.check(call(path="x")) is None


def test_loop_guard_resets_after_different_arguments_or_error() -> None:
    guard = LoopGuard(repeats=2)
    guard.record(call(path="x"), failure())
    guard.record(call(path="y"), failure())
    guard.record(call(path="x"), failure())
    assert guard.check(call(path="x")) is None
    guard.record(call(path="x"), failure("permission denied"))
    assert guard.check(call(path="x")) is None


def test_loop_guard_refusal_does_not_reset_its_count() -> None:
    guard = LoopGuard(repeats=2)
    for _ in range(2):
        guard.record(call(path="x"), failure())
    refused = guard.check(call(path="x"))
    assert refused is not None
    guard.record(call(path="x"), ToolResult.failure(refused))
    assert guard.check(call(path="x")) is not None


def test_loop_guard_arguments_compare_by_value_not_key_order() -> None:
    guard = LoopGuard(repeats=1)
    guard.record(call(a=1, b=2), failure())
    assert guard.check(call(b=2, a=1)) is not None
