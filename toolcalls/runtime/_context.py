"""What a running tool sees of its call: the `ToolContext`, and the `CancelToken` that stops it.

Cancelling a token cancels every token made from it (`CancelToken.child`): a whole turn, one
call of it, or a sub-agent started by a call. A tool checks `CancelToken.cancelled` between
steps or awaits `CancelToken.wait`; the executor also stops an async tool that does not look,
by cancelling its task. Tokens are thread-safe: a sync tool runs on a worker thread.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._results import Cancelled

__all__ = ["CancelToken", "ProgressCallback", "ToolContext", "UpdateCallback"]

_log = logging.getLogger("toolcalls.runtime")

UpdateCallback = Callable[[Any], None]
"""Receives a partial result while the tool runs (shown to the user, not the model)."""
ProgressCallback = Callable[[float, "float | None", "str | None"], None]
"""Receives (done, total or None, message or None) while the tool runs."""


class CancelToken:
    """A flag that says stop, set once, seen by this token and every child made from it."""

    def __init__(self, parent: CancelToken | None = None) -> None:
        self._lock = threading.Lock()
        self._reason: str | None = None
        self._children: list[CancelToken] = []
        self._callbacks: list[Callable[[str], None]] = []
        if parent is not None:
            parent._adopt(self)

    @property
    def cancelled(self) -> bool:
        """Whether this token (or one of its parents) was cancelled."""
        return self._reason is not None

    @property
    def reason(self) -> str | None:
        """Why, once cancelled."""
        return self._reason

    def child(self) -> CancelToken:
        """A token cancelled with this one, which can also be cancelled alone."""
        return CancelToken(self)

    def cancel(self, reason: str = "cancelled by the user") -> None:
        """Cancel this token and all its children; a second call changes nothing."""
        with self._lock:
            if self._reason is not None:
                return
            self._reason = reason
            children, callbacks = self._children, self._callbacks
            self._children, self._callbacks = [], []
        for callback in callbacks:
            try:
                callback(reason)
            except Exception:  # noqa: BLE001 - one failing listener must not stop the others
                _log.exception("a cancel callback failed")
        for child in children:
            child.cancel(reason)

    def on_cancel(self, callback: Callable[[str], None]) -> Callable[[], None]:
        """Call `callback(reason)` when cancelled (now, if already); returns a function that
        takes the callback back."""
        with self._lock:
            if self._reason is None:
                self._callbacks.append(callback)
                return lambda: self._forget(callback)
        callback(self._reason)
        return lambda: None

    def raise_if_cancelled(self) -> None:
        """Raise `Cancelled` when cancelled: a tool's check between two steps."""
        if self._reason is not None:
            raise Cancelled(self._reason)

    async def wait(self) -> str:
        """Wait until cancelled; returns the reason."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[str] = loop.create_future()

        def settle(reason: str) -> None:
            if not done.done():
                done.set_result(reason)

        def wake(reason: str) -> None:
            loop.call_soon_threadsafe(settle, reason)

        forget = self.on_cancel(wake)
        try:
            return await done
        finally:
            forget()

    def _adopt(self, child: CancelToken) -> None:
        with self._lock:
            if self._reason is None:
                self._children.append(child)
                return
        child.cancel(self._reason)

    def _forget(self, callback: Callable[[str], None]) -> None:
        with self._lock:
            if callback in self._callbacks:
                self._callbacks.remove(callback)


def _ignore(*_: Any) -> None:
    return None


@dataclass
class ToolContext:
    """What one call's tool body is given besides its arguments."""

    call_id: str
    """The call's id (as the model's response gave it, or one made up for it)."""
    tool_name: str
    """The tool's registered name."""
    cancel: CancelToken = field(default_factory=CancelToken)
    """Set when the call should stop."""
    state: dict[str, Any] = field(default_factory=dict)
    """The session's state, shared by the calls of one session."""
    working_dir: Path = field(default_factory=Path.cwd)
    """Where relative paths in the arguments are taken from."""
    on_update: UpdateCallback = _ignore
    """Send a partial result while running."""
    on_progress: ProgressCallback = _ignore
    """Report progress while running: (done, total or None, message or None)."""
