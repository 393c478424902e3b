"""CancelToken: cancel once, children follow, callbacks and waits wake up, across threads."""

from __future__ import annotations

import asyncio
import threading

import pytest

from toolcalls.runtime import Cancelled, CancelToken


def test_parent_token_cancels_children() -> None:
    parent = CancelToken()
    child = parent.child()
    grandchild = child.child()
    parent.cancel("stop")
    assert child.cancelled and grandchild.cancelled and grandchild.reason == "stop"


def test_child_cancel_leaves_parent_running() -> None:
    parent = CancelToken()
    child = parent.child()
    child.cancel()
    assert child.cancelled and not parent.cancelled


def test_child_of_cancelled_token_is_born_cancelled() -> None:
    parent = CancelToken()
    parent.cancel("late")
    assert parent.child().reason == "late"


def test_first_reason_wins() -> None:
    token = CancelToken()
    token.cancel("first")
    token.cancel("second")
    assert token.reason == "first"


def test_raise_if_cancelled() -> None:
    token = CancelToken()
    token.raise_if_cancelled()
    token.cancel("why")
    with pytest.raises(Cancelled, match="why"):
        token.raise_if_cancelled()


def test_on_cancel_callback_and_forget() -> None:
    token = CancelToken()
    heard: list[str] = []
    forget = token.on_cancel(heard.append)
    kept = token.on_cancel(lambda reason: heard.append("kept:" + reason))
    forget()
    token.cancel("r")
    assert heard == ["kept:r"]
    kept()


def test_wait_wakes_when_cancelled_from_another_thread() -> None:
    async def scenario() -> str:
        token = CancelToken()
        waiting = asyncio.ensure_future(token.wait())
        await asyncio.sleep(0)
        threading.Thread(target=token.cancel, args=("from a thread",)).start()
        return await asyncio.wait_for(waiting, 30)

    assert asyncio.run(scenario()) == "from a thread"


def test_a_failing_callback_does_not_stop_the_others(caplog: pytest.LogCaptureFixture) -> None:
    token = CancelToken()
    child = token.child()
    heard: list[str] = []

    def broken(reason: str) -> None:
        raise ProcessLookupError("already gone")

    token.on_cancel(broken)
    token.on_cancel(heard.append)
    token.cancel("stop")
    assert heard == ["stop"] and child.cancelled and "cancel callback failed" in caplog.text
