"""What the proxy refuses before reading a request: a ``Host`` it does not answer to (421),
a POST body that is not declared JSON (415).

Why: a web page the user visits can send requests to a proxy on localhost. A POST with
``Content-Type: text/plain`` is a CORS "simple request", sent without asking the proxy first;
requiring ``application/json`` makes the browser ask (a preflight), which the proxy never
allows. And a page on a name that its DNS then points at 127.0.0.1 (DNS rebinding) is the
same origin as the proxy for the browser: only the ``Host`` header, which still names the
page's own name, tells it apart. So on a loopback bind the proxy answers to localhost,
127.0.0.1 and [::1] only (any port), plus the configured `ServeConfig.allowed_hosts`.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from ._config import ServeConfig
from ._errors import ProxyError
from ._responses import error_response
from .apis import api_for

__all__ = ["HostGuard", "allowed_hosts", "host_name", "is_json"]

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def allowed_hosts(config: ServeConfig) -> frozenset[str] | None:
    """The host names the proxy answers to (lower case, IPv6 without brackets); None: any."""
    names = {_bare(name) for name in config.allowed_hosts}
    if "*" in names or (not names and not is_loopback(config.host)):
        return None
    return LOOPBACK_NAMES | names


def is_loopback(host: str) -> bool:
    """Whether a bind address reaches this machine only."""
    bare = _bare(host)
    if bare == "localhost":
        return True
    try:
        return ipaddress.ip_address(bare).is_loopback
    except ValueError:
        return False


def host_name(header: str) -> str:
    """The name in a ``Host`` header, without its port, lower case (``[::1]:8000`` → ``::1``)."""
    header = header.strip()
    if header.startswith("["):
        return _bare(header[1:header.find("]")] if "]" in header else header)
    return _bare(header.rpartition(":")[0] if ":" in header else header)


def _bare(name: str) -> str:
    return name.strip().strip("[]").rstrip(".").lower()


def is_json(content_type: str | None) -> bool:
    """Whether a ``Content-Type`` declares JSON (``application/json``, any parameters)."""
    return (content_type or "").split(";", 1)[0].strip().lower() == "application/json"


class HostGuard:
    """ASGI middleware: a request whose ``Host`` is not allowed is answered 421."""

    def __init__(self, app: App, allowed: frozenset[str] | None) -> None:
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.allowed is not None:
            header = next((value.decode("latin-1") for key, value in scope["headers"]
                           if key == b"host"), "")
            if host_name(header) not in self.allowed:
                # answered here: middleware is outside the app's exception handlers
                response = error_response(api_for(scope["path"]), ProxyError(
                    421, _refused(header, self.allowed)))
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _refused(header: str, allowed: frozenset[str]) -> str:
    names = ", ".join(sorted(f"[{name}]" if ":" in name else name for name in allowed))
    said = f"Host {header!r}" if header else "no Host header"
    return (f"the proxy answers to {names} only, and this request has {said} (a web page "
            "can reach a proxy on localhost through its own DNS name): if the name is yours, "
            "add it to the proxy's allowed_hosts")
