"""The proxy's error answers, in the shape of the API the client speaks: OpenAI ``{"error":
{"message", "type", "param", "code"}}``, Anthropic ``{"type": "error", "error": {"type",
"message"}}``.

Everything the proxy writes is strict JSON in UTF-8 (`StrictJSONResponse`, `utf8`): a NaN or
Infinity the upstream sent cannot be written (the answer is an error instead), and a lone
surrogate (which Python's json reads from an escape such as ``\\ud800``, but UTF-8 cannot carry)
is written as U+FFFD, the replacement character, with a warning in the log.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any, Final, Literal

from starlette.responses import JSONResponse

__all__ = ["Api", "StrictJSONResponse", "api_of", "error_response", "strict_json", "utf8"]

log = logging.getLogger("toolcalls.serve")

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


class StrictJSONResponse(JSONResponse):
    """A JSON answer written by `strict_json` and `utf8`: rendering raises ValueError for a
    NaN or an infinity."""

    def render(self, content: Any) -> bytes:
        return utf8(strict_json(content))


Api = Literal["openai", "anthropic"]


def api_of(path: str) -> Api:
    """The API a request to `path` speaks (Anthropic's Messages, else OpenAI's)."""
    return "anthropic" if path.startswith("/v1/messages") else "openai"


def error_response(api: Api, status: int, message: str, kind: str | None = None,
                   param: str | None = None) -> StrictJSONResponse:
    """An error answer; `kind` is the API's error type (by default ``invalid_request_error``
    under 500, ``api_error`` from it)."""
    kind = kind or ("invalid_request_error" if status < 500 else "api_error")
    if api == "anthropic":
        return StrictJSONResponse({"type": "error", "error": {"type": kind,
                                                              "message": message}},
                                  status_code=status)
    return StrictJSONResponse({"error": {"message": message, "type": kind, "param": param,
                                         "code": None}}, status_code=status)
