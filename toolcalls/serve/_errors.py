"""The proxy's errors, and the strict JSON it writes.

Every error the proxy answers a client with is a `ProxyError` (a request check's
`RequestError`, the upstream's `UpstreamError`, or one raised where it is found): raised once,
where it is found, and answered once, by the app's exception handler, in the shape of the API
the client speaks (`apis`). A pure module: no HTTP package, so the request checks can use it.

Everything the proxy writes is strict JSON in UTF-8 (`strict_json`, `utf8`): a NaN or Infinity
the upstream sent cannot be written (the answer is an error instead), and a lone surrogate
(which Python's json reads from an escape such as ``\\ud800``, but UTF-8 cannot carry) is
written as U+FFFD, the replacement character, with a warning in the log.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any, Final

__all__ = ["ProxyError", "strict_json", "utf8"]

log = logging.getLogger("toolcalls.serve")


class ProxyError(Exception):
    """A request the proxy answers with an error: `status`, what the client is told (`said`),
    the API's error type (`kind`: by default ``invalid_request_error`` under 500, ``api_error``
    from it) and the request field at fault (`param`, where one is)."""

    details: dict[str, Any] | None = None
    """Machine-readable detail an API's error body carries where it has a place for it
    (Anthropic's ``error.details``), for a client that acts on it."""

    def __init__(self, status: int, message: str, *, kind: str | None = None,
                 param: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind or ("invalid_request_error" if status < 500 else "api_error")
        self.param = param

    @property
    def said(self) -> str:
        """What the client is told."""
        return str(self)


# one encoder made once (json.dumps with options builds one per call); compact, non-ASCII kept
strict_json: Final = json.JSONEncoder(ensure_ascii=False, allow_nan=False,
                                      separators=(",", ":")).encode
"""JSON text of a value; ValueError for a NaN or an infinity in it."""
_SURROGATE = re.compile("[\ud800-\udfff]")


def utf8(text: str) -> bytes:
    """`text` in UTF-8, each lone surrogate (no pair: Python keeps a pair as one character)
    written as U+FFFD."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        log.warning("a lone surrogate from the upstream (not UTF-8) is written as U+FFFD")
        return _SURROGATE.sub("\ufffd", text).encode("utf-8")
