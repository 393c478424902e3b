"""Limits on how often calls run: rate limits per tool, per session and global, and a loop guard.

A limit refused is never an exception: it is a `RateLimited` error the executor hands the
model as the call's result, saying which limit and when the call may run again::

    limiter = RateLimiter({"fs_write": "10/min", "web_*": "3/s"}, session="100/h",
                          shared=SharedLimit("1000/h"))   # one SharedLimit for many sessions
    refused = limiter.acquire("fs_write")                 # None: allowed, and counted
    if refused is not None:
        result = ToolResult.failure(refused, call)

    guard = LoopGuard(repeats=3)                          # one per session
    refused = guard.check(call)                           # before running the call
    guard.record(call, result)                            # after it

A rate limit counts calls in a sliding window: at most ``calls`` in any ``per_seconds``. Keys of
the per-tool table may be globs (``web_*``): the tools they match share that key's window.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from .._errors import ToolCallsError
from ..parsing._models import ToolCall
from ._results import RateLimited, ToolResult

__all__ = ["LimitSyntaxError", "LoopGuard", "RateLimit", "RateLimiter", "RepeatedFailure",
           "SharedLimit"]

Clock = Callable[[], float]

_UNIT_SECONDS = {"s": 1.0, "sec": 1.0, "second": 1.0, "m": 60.0, "min": 60.0, "minute": 60.0,
                 "h": 3600.0, "hr": 3600.0, "hour": 3600.0, "d": 86400.0, "day": 86400.0}
_LIMIT_TEXT = re.compile(r"\s*(\d+)\s*/\s*(\d+(?:\.\d+)?)?\s*([a-z]+)\s*", re.IGNORECASE)


class LimitSyntaxError(ToolCallsError, ValueError):
    """A rate limit written in a form that cannot be read."""


@dataclass(frozen=True)
class RateLimit:
    """At most `calls` calls in any sliding window of `per_seconds` seconds."""

    calls: int
    per_seconds: float

    def __post_init__(self) -> None:
        if self.calls < 1 or self.per_seconds <= 0:
            raise LimitSyntaxError(
                f"a rate limit needs at least 1 call per a positive time, not {self.calls} "
                f"per {self.per_seconds} s")

    @classmethod
    def parse(cls, text: str) -> RateLimit:
        """Read ``"10/min"``, ``"3/s"``, ``"100/h"``, ``"5/30s"``, ``"1000/day"``."""
        match = _LIMIT_TEXT.fullmatch(text)
        unit = _unit_seconds(match[3]) if match else None
        if match is None or unit is None:
            raise LimitSyntaxError(
                f"cannot read the rate limit {text!r}: write calls/period, such as '10/min', "
                "'3/s', '100/h' or '5/30s' (units: s, min, h, day)")
        return cls(int(match[1]), float(match[2] or 1) * unit)

    @classmethod
    def of(cls, limit: RateLimit | str) -> RateLimit:
        """`limit` itself, or read from its text."""
        return limit if isinstance(limit, RateLimit) else cls.parse(limit)

    def __str__(self) -> str:
        return f"{self.calls} calls per {self.per_seconds:g} s"


@dataclass
class _Window:
    """The times of the calls counted in the last `limit.per_seconds`."""

    limit: RateLimit
    times: deque[float] = field(default_factory=deque)

    def wait(self, now: float) -> float | None:
        """Seconds until one more call fits; None when it fits now."""
        while self.times and self.times[0] <= now - self.limit.per_seconds:
            self.times.popleft()
        if len(self.times) < self.limit.calls:
            return None
        return self.times[0] + self.limit.per_seconds - now

    def count(self, now: float) -> None:
        self.times.append(now)


class SharedLimit:
    """A rate limit over every session it is given to (thread-safe)."""

    def __init__(self, limit: RateLimit | str, clock: Clock = time.monotonic) -> None:
        self.limit = RateLimit.of(limit)
        self.clock = clock
        self.lock = threading.Lock()
        self.window = _Window(self.limit)


@dataclass
class _Check:
    """One window a call must fit, with the clock it is read by and what to call it."""

    window: _Window
    clock: Clock
    label: str


class RateLimiter:
    """The rate limits of one session: per tool, for the whole session, and a shared one."""

    def __init__(self, per_tool: Mapping[str, RateLimit | str] | None = None, *,
                 session: RateLimit | str | None = None, shared: SharedLimit | None = None,
                 clock: Clock = time.monotonic) -> None:
        self.clock = clock
        self.shared = shared
        self._per_tool = {key: _Window(RateLimit.of(limit))
                          for key, limit in (per_tool or {}).items()}
        self._session = _Window(RateLimit.of(session)) if session is not None else None
        self._lock = threading.Lock()

    def acquire(self, tool: str) -> RateLimited | None:
        """Count a call to `tool` if every limit has room (None); else the error, counting
        nothing."""
        with ExitStack() as held:
            held.enter_context(self._lock)
            if self.shared is not None:
                held.enter_context(self.shared.lock)
            checks = list(self._checks(tool))
            for check in checks:
                wait = check.window.wait(check.clock())
                if wait is not None:
                    return RateLimited(f"{check.label}: {check.window.limit}",
                                       retry_after=max(wait, 0.0))
            for check in checks:
                check.window.count(check.clock())
        return None

    def _checks(self, tool: str) -> Iterator[_Check]:
        for key, window in self._per_tool.items():
            if key == tool or fnmatchcase(tool, key):
                yield _Check(window, self.clock, tool if key == tool else f"{tool} ({key})")
        if self._session is not None:
            yield _Check(self._session, self.clock, "all tools in this session")
        if self.shared is not None:
            yield _Check(self.shared.window, self.shared.clock, "all sessions together")


class RepeatedFailure(RateLimited):
    """The loop guard's refusal: the same call already failed the same way, again and again."""


@dataclass
class _Streak:
    """The last call of one tool and how many times in a row it failed the same way."""

    arguments: str
    failure: str
    times: int


class LoopGuard:
    """Refuses a call that failed with the same error `repeats` times in a row."""

    def __init__(self, repeats: int = 3) -> None:
        if repeats < 1:
            raise ValueError(f"repeats must be at least 1, not {repeats}")
        self.repeats = repeats
        self._streaks: dict[str, _Streak] = {}

    def check(self, call: ToolCall) -> RateLimited | None:
        """None when `call` may run; the directive error when it would repeat a failure."""
        streak = self._streaks.get(call.name)
        if streak is None or streak.arguments != _arguments_key(call):
            return None
        if streak.times < self.repeats:
            return None
        return RepeatedFailure(
            f"stop repeating this call: it failed {streak.times} times in a row with the "
            f"same arguments and the same error ({_shortened(streak.failure)}); change the "
            "arguments or do something else")

    def record(self, call: ToolCall, result: ToolResult) -> None:
        """Note how `call` ended: a success, or other arguments, starts the count again."""
        if isinstance(result.error, RateLimited):
            return  # not run at all: says nothing about how the call itself ends
        if not result.is_error:
            self._streaks.pop(call.name, None)
            return
        arguments, failure = _arguments_key(call), _failure_key(result)
        streak = self._streaks.get(call.name)
        if streak is not None and (streak.arguments, streak.failure) == (arguments, failure):
            streak.times += 1
        else:
            self._streaks[call.name] = _Streak(arguments, failure, 1)


def _unit_seconds(word: str) -> float | None:
    """Seconds in a unit, written singular or plural ("mins", "hours"; "ms" is not minutes)."""
    word = word.lower()
    if word in _UNIT_SECONDS:
        return _UNIT_SECONDS[word]
    return _UNIT_SECONDS.get(word[:-1]) if len(word) > 3 and word.endswith("s") else None


def _arguments_key(call: ToolCall) -> str:
    return json.dumps(call.arguments, sort_keys=True, ensure_ascii=False, default=str)


def _failure_key(result: ToolResult) -> str:
    if result.error is not None:
        return f"{result.error.kind}: {result.error.message}"
    return result.text()


def _shortened(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
