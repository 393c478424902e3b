"""The proxy's JSON answers as Starlette responses: strict JSON (`StrictJSONResponse`), and a
`ProxyError` in the body shape of the API the client speaks (`error_response`)."""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse

from ._errors import ProxyError, strict_json, utf8
from .apis import InboundApi

__all__ = ["StrictJSONResponse", "error_response"]


class StrictJSONResponse(JSONResponse):
    """A JSON answer written by `strict_json` and `utf8`: rendering raises ValueError for a
    NaN or an infinity."""

    def render(self, content: Any) -> bytes:
        return utf8(strict_json(content))


def error_response(api: InboundApi, error: ProxyError) -> StrictJSONResponse:
    """`error` answered in `api`'s shape, with its status."""
    return StrictJSONResponse(api.error_body(error), status_code=error.status)
