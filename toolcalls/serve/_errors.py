"""The proxy's error answers, in the shape of the API the client speaks: OpenAI ``{"error":
{"message", "type", "param", "code"}}``, Anthropic ``{"type": "error", "error": {"type",
"message"}}``."""

from __future__ import annotations

from typing import Literal

from starlette.responses import JSONResponse

__all__ = ["Api", "api_of", "error_response"]

Api = Literal["openai", "anthropic"]


def api_of(path: str) -> Api:
    """The API a request to `path` speaks (Anthropic's Messages, else OpenAI's)."""
    return "anthropic" if path.startswith("/v1/messages") else "openai"


def error_response(api: Api, status: int, message: str, kind: str | None = None,
                   param: str | None = None) -> JSONResponse:
    """An error answer; `kind` is the API's error type (by default ``invalid_request_error``
    under 500, ``api_error`` from it)."""
    kind = kind or ("invalid_request_error" if status < 500 else "api_error")
    if api == "anthropic":
        return JSONResponse({"type": "error", "error": {"type": kind, "message": message}},
                            status_code=status)
    return JSONResponse({"error": {"message": message, "type": kind, "param": param,
                                   "code": None}}, status_code=status)
