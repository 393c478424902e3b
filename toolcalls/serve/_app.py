"""The ASGI app (`create_app`): its routes, built from the table of inbound APIs (`apis`), and
its edges.

Routes: each inbound API's ``POST`` route (``/v1/chat/completions``, OpenAI Chat Completions;
``/v1/messages``, Anthropic Messages; ``/v1/responses``, OpenAI Responses), ``GET /v1/models``
(the upstream's, passed through), ``GET /healthz``. An error is a `ProxyError` raised where it
is found and answered here, once, in the API's own shape (`apis.InboundApi.error_body`): 421 for
a ``Host`` the proxy does not answer to and 415 for a body not sent as JSON (`_guard`), 400 for
a body that is not JSON or a wrong field (named), 413 for a body over ``max_body_bytes``,
502/504 when the upstream fails (`_upstream`), 500 for a fault of the proxy itself. One
structured access-log line per request to an API or ``/v1/models`` (`_access`); bodies only with
``log_bodies``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from ._access import AccessLog
from ._config import ServeConfig
from ._errors import ProxyError, utf8
from ._guard import HostGuard, allowed_hosts, is_json
from ._proxy import Plan, answer_stream, answer_whole, plan
from ._requests import MAX_DEPTH
from ._responses import StrictJSONResponse, error_response
from ._upstream import Upstream, UpstreamError, failure
from .apis import APIS, InboundApi, api_for

__all__ = ["create_app"]

log = logging.getLogger("toolcalls.serve")

Endpoint = Callable[[Request], Awaitable[Response]]


def create_app(
    config: ServeConfig, *, transport: httpx.AsyncBaseTransport | None = None
) -> Starlette:
    """The proxy as an ASGI app; `transport` replaces the network to the upstream (tests)."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        app.state.upstream = Upstream(config, transport)
        try:
            yield
        finally:
            await app.state.upstream.aclose()

    routes = [*[Route(api.path, _endpoint(api, config), methods=["POST"])
                for api in APIS.values()],
              Route("/v1/models", _models, methods=["GET"]),
              Route("/healthz", _healthz, methods=["GET"])]
    logged = frozenset({*[api.path for api in APIS.values()], "/v1/models"})
    return Starlette(routes=routes, lifespan=lifespan,
                     middleware=[Middleware(HostGuard, allowed=allowed_hosts(config)),
                                 Middleware(AccessLog, paths=logged)],
                     exception_handlers={ProxyError: _refused, Exception: _failed})


def _endpoint(api: InboundApi, config: ServeConfig) -> Endpoint:
    """The route of one inbound API."""

    async def endpoint(request: Request) -> Response:
        return await _proxy(request, api, config)

    return endpoint


async def _models(request: Request) -> Response:
    upstream: Upstream = request.app.state.upstream
    return _answer(await upstream.get_json("/models", upstream.headers(request.headers)))


async def _healthz(request: Request) -> Response:
    return JSONResponse({"status": "ok"})


async def _refused(request: Request, error: Exception) -> Response:
    """A `ProxyError`, answered in the shape of the API of the request's path."""
    assert isinstance(error, ProxyError)
    return error_response(api_for(request.url.path), error)


async def _failed(request: Request, error: Exception) -> Response:
    """A fault of the proxy itself: logged with its traceback, answered in the API's shape."""
    log.error("request failed: %s %s", request.method, request.url.path, exc_info=error)
    return error_response(api_for(request.url.path), ProxyError(
        500, f"the proxy failed ({type(error).__name__}); its log says more"))


async def _proxy(request: Request, api: InboundApi, config: ServeConfig) -> Response:
    if not is_json(request.headers.get("content-type")):
        raise ProxyError(415, "the request body must be JSON, sent with Content-Type: "
                         f"application/json (got {request.headers.get('content-type', 'none')!r})")
    raw = await _body(request, config.max_body_bytes)
    body = _decoded(raw)
    if config.log_bodies:
        log.info("body %s %s", request.url.path, raw.decode("utf-8", "replace"))
    planned = plan(api, body, config)
    request.state.plan = planned  # for the access line
    upstream: Upstream = request.app.state.upstream
    headers = upstream.headers(request.headers)

    async def post(body: dict[str, Any]) -> Any:
        return await upstream.post_json(body, headers)

    if not planned.stream:
        return _answer(await answer_whole(planned, post))
    opened = await upstream.open_stream(planned.body, headers)
    return _Relay(_relay(planned, opened, upstream, headers),
                  media_type="text/event-stream",
                  headers={"cache-control": "no-cache",
                           "x-accel-buffering": "no"})  # nginx: pass it on now


def _decoded(raw: bytes) -> Any:
    """The request body's JSON."""
    try:
        return json.loads(raw)
    except RecursionError:  # C json's own limit (1000 deep); `plan` has a lower one
        raise ProxyError(400, f"the request body: JSON nested more than {MAX_DEPTH} deep"
                         ) from None
    except (ValueError, UnicodeDecodeError) as error:
        raise ProxyError(400, f"the request body is not valid JSON: {error}") from None


class _Relay(StreamingResponse):
    """A stream that ends when its client goes away, whatever ASGI version the server speaks.

    Starlette listens for the client's disconnect only under ASGI < 2.4: from 2.4 on it
    counts on the server's send raising OSError, and uvicorn's send drops the message
    instead. A relay that writes nothing for a while (text held back) or whose writes are
    dropped would then read a never-ending upstream forever. So this one always listens.
    """

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async with anyio.create_task_group() as group:

            async def stream() -> None:
                await self.stream_response(send)
                group.cancel_scope.cancel()

            group.start_soon(stream)
            await self.listen_for_disconnect(receive)
            group.cancel_scope.cancel()


async def _relay(planned: Plan, opened: httpx.Response, upstream: Upstream,
                 headers: dict[str, str]) -> AsyncIterator[bytes]:
    """The client's stream; the upstream's responses are closed however it ends (a client
    that goes away cancels this generator, and so the upstream request)."""
    responses = [opened]

    async def reopen(body: dict[str, Any]) -> AsyncIterator[bytes]:
        responses.append(await upstream.open_stream(body, headers))
        return responses[-1].aiter_bytes()

    async def failed(error: Exception) -> str:
        if isinstance(error, UpstreamError):
            return error.message
        if isinstance(error, httpx.HTTPError):
            return failure(error, upstream.url, upstream.client.timeout.read or 0).message
        log.exception("stream from the upstream failed")
        return f"the proxy failed reading the upstream's stream: {type(error).__name__}"

    try:
        async for piece in answer_stream(planned, opened.aiter_bytes(), reopen, failed):
            yield utf8(piece)
    finally:
        with anyio.CancelScope(shield=True):  # cancelled, each close would be cancelled too
            for response in responses:
                await response.aclose()


def _answer(data: Any) -> Response:
    """The upstream's answer, or what it became, as strict JSON; 502 where it cannot be."""
    try:
        return StrictJSONResponse(data)
    except ValueError:
        raise ProxyError(502, "the upstream's answer holds a number JSON cannot carry (NaN "
                         "or Infinity): check the upstream") from None


async def _body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _too_large(limit)
    received = bytearray()
    async for piece in request.stream():
        received += piece
        if len(received) > limit:
            raise _too_large(limit)
    return bytes(received)


def _too_large(limit: int) -> ProxyError:
    return ProxyError(413, f"the request body is over {limit} bytes (the proxy's "
                      "max_body_bytes)", kind="request_too_large")
