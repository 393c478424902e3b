"""The access log: one structured line per request (logger ``toolcalls.serve``), written by a
middleware (`AccessLog`) once the answer is sent, whatever answered it (a route, the Host
guard, the answer to a route not served); only health checks (``/healthz``) are left out.

Every answer carries an ``x-request-id``: the client's own when it sent a well-formed one (up
to 128 letters, digits and ``-_.:``), else a fresh one; the line logs it as ``request_id``, so
a client's report and the log meet.

A line is JSON: ``method``, ``path``, ``status``, ``request_id`` and ``duration_ms``, and for a
request the proxy planned (an inbound API's, `_proxy.Plan` put in the request's state as
``plan``) its ``model``, ``mode``, ``format``, ``stream`` and the ``calls`` answered. A stream
that did not reach its end (the client went away) is logged 499, nginx's word for it. A request
that raised before any answer (a fault of the proxy, logged with its traceback) has no line.
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from collections.abc import MutableMapping
from typing import TYPE_CHECKING, Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

if TYPE_CHECKING:
    from ._proxy import Plan

__all__ = ["REQUEST_ID", "AccessLog", "CLIENT_GONE", "request_id"]

log = logging.getLogger("toolcalls.serve")

CLIENT_GONE = 499
REQUEST_ID = "x-request-id"
_WELL_FORMED_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")


def request_id(headers: list[tuple[bytes, bytes]]) -> str:
    """The request's id: its own ``x-request-id`` when well-formed, else a fresh one (an id
    with spaces, quotes or control characters would be a way to forge log lines)."""
    given = next((value.decode("latin-1") for key, value in headers
                  if key == REQUEST_ID.encode()), "")
    return given if _WELL_FORMED_ID.fullmatch(given) else f"req_{uuid.uuid4().hex}"


class AccessLog:
    """ASGI middleware: the ``x-request-id`` of every HTTP answer, and the access line of each
    request but those to `quiet` paths."""

    def __init__(self, app: ASGIApp, quiet: frozenset[str]) -> None:
        self.app = app
        self.quiet = quiet

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        state = scope.setdefault("state", {})  # shared with the request: its plan lands here
        state["request_id"] = request_id(scope["headers"])
        sent = _Sent(send, state["request_id"])
        if scope["path"] in self.quiet:
            await self.app(scope, receive, sent)
            return
        try:
            await self.app(scope, receive, sent)
        except BaseException:
            if sent.status is None:  # nothing answered: the fault handler speaks for it
                raise
            _write(scope, sent.outcome(), started, state)
            raise
        _write(scope, sent.outcome(), started, state)


class _Sent:
    """`send`, noting the answer's status and whether its last piece went out."""

    def __init__(self, send: Send, ident: str) -> None:
        self.send = send
        self.ident = ident
        self.status: int | None = None
        self.done = False

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = int(message["status"])
            message["headers"] = [*message.get("headers", []),
                                  (REQUEST_ID.encode(), self.ident.encode())]
        elif message["type"] == "http.response.body" and not message.get("more_body", False):
            self.done = True
        await self.send(message)

    def outcome(self) -> int:
        """The status logged: the answer's, or 499 for one cut off before its end."""
        return self.status if self.done and self.status is not None else CLIENT_GONE


def _write(scope: Scope, status: int, started: float, state: MutableMapping[str, Any]) -> None:
    entry: dict[str, Any] = {"method": scope["method"], "path": scope["path"], "status": status,
                             "request_id": state["request_id"]}
    planned: Plan | None = state.get("plan")
    if planned is not None:
        entry.update(model=planned.model, mode=planned.mode, format=planned.format.name,
                     stream=planned.stream, calls=planned.calls)
    entry["duration_ms"] = round((time.perf_counter() - started) * 1000, 1)
    log.info(json.dumps(entry), extra={"access": entry})
