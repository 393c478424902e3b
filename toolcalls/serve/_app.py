"""The ASGI app (`create_app`): its routes, built from the table of inbound APIs (`apis`), and
its edges.

Routes: each inbound API's ``POST`` route (``/v1/chat/completions``, OpenAI Chat Completions;
``/v1/messages``, Anthropic Messages; ``/v1/responses``, OpenAI Responses), ``POST
/v1/messages/count_tokens`` (`_count_tokens`), ``GET /v1/models`` (the upstream's, passed
through), ``GET /healthz``. Any other path is
answered 404, and a route asked with another method 405, in the shape of the API at or above
the path, naming the routes served (`not_served`). An error is a `ProxyError` raised where it
is found and answered here, once, in the API's own shape (`apis.InboundApi.error_body`): 421
for a ``Host`` the proxy does not answer to and 415 for a body not sent as JSON (`_guard`), 400
for a body that is not JSON or a wrong field (named), 413 for a body over ``max_body_bytes``,
502/504 when the upstream fails (`_upstream`), 500 for a fault of the proxy itself. Every
answer has an ``x-request-id``, and every request but a health check one structured access-log
line (`_access`); bodies only with ``log_bodies``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from ._access import REQUEST_ID, AccessLog, request_id
from ._config import ServeConfig
from ._count_tokens import COUNT_TOKENS_PATH, count_tokens
from ._errors import ProxyError, utf8
from ._guard import HostGuard, allowed_hosts, is_json
from ._proxy import Plan, answer_stream, answer_whole, plan
from ._requests import MAX_DEPTH
from ._responses import StrictJSONResponse, error_response
from ._upstream import UPSTREAM_ERRORS, Upstream, UpstreamError, UpstreamStream, failure
from .apis import APIS, InboundApi, api_for

__all__ = ["create_app"]

log = logging.getLogger("toolcalls.serve")

Endpoint = Callable[[Request], Awaitable[Response]]


def create_app(config: ServeConfig) -> Starlette:
    """The proxy as an ASGI app."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        app.state.upstream = Upstream(config)
        try:
            yield
        finally:
            await app.state.upstream.aclose()

    routes = [*[Route(api.path, _endpoint(api, config), methods=["POST"])
                for api in APIS.values()],
              Route(COUNT_TOKENS_PATH, _counted(config), methods=["POST"]),
              Route("/v1/models", _models, methods=["GET"]),
              Route("/healthz", _healthz, methods=["GET"])]
    # the access log outside the Host guard: a refused Host is logged, with its request id
    return Starlette(routes=routes, lifespan=lifespan,
                     middleware=[Middleware(AccessLog, quiet=frozenset({"/healthz"})),
                                 Middleware(HostGuard, allowed=allowed_hosts(config))],
                     exception_handlers={HTTPException: _not_served(served(routes)),
                                         ProxyError: _refused, Exception: _failed})


def served(routes: list[Route]) -> str:
    """The routes in words: ``POST /v1/chat/completions, ..., GET /healthz``."""
    return ", ".join(f"{method} {route.path}" for route in routes
                     for method in sorted((route.methods or set()) - {"HEAD"}))


def _not_served(routes: str) -> Callable[[Request, Exception], Awaitable[Response]]:
    """The answer to a path the proxy does not serve (404) or a method its route does not
    take (405, with its ``Allow``), in the shape of the API at or above the path."""

    async def not_served(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        asked = f"{request.method} {request.url.path}"
        if error.status_code == 405:
            allow = (error.headers or {}).get("Allow", "")
            said = f"{asked}: this route takes {allow} only"
        else:
            said = f"{asked} is not served by this proxy"
        answer = error_response(api_for(request.url.path), ProxyError(
            error.status_code, f"{said}; it serves {routes}",
            kind="not_found_error" if error.status_code == 404 else None))
        answer.headers.update(error.headers or {})
        return answer

    return not_served


def _endpoint(api: InboundApi, config: ServeConfig) -> Endpoint:
    """The route of one inbound API."""

    async def endpoint(request: Request) -> Response:
        return await _proxy(request, api, config)

    return endpoint


def _counted(config: ServeConfig) -> Endpoint:
    async def endpoint(request: Request) -> Response:
        if not is_json(request.headers.get("content-type")):
            raise _not_json(request)
        body = _decoded(await _body(request, config.max_body_bytes))
        upstream: Upstream = request.app.state.upstream
        return await count_tokens(body, config, upstream, upstream.headers(request.headers))

    return endpoint


def _not_json(request: Request) -> ProxyError:
    return ProxyError(415, "the request body must be JSON, sent with Content-Type: "
                      f"application/json (got {request.headers.get('content-type', 'none')!r})")


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
    """A fault of the proxy itself: logged with its traceback and request id, answered in the
    API's shape. Starlette answers it outside the middleware, so the id is set here."""
    ident = getattr(request.state, "request_id", None) or request_id([])
    log.error("request failed: %s %s (request id %s)", request.method, request.url.path, ident,
              exc_info=error)
    answer = error_response(api_for(request.url.path), ProxyError(
        500, f"the proxy failed ({type(error).__name__}); its log says more (request id "
        f"{ident})"))
    answer.headers[REQUEST_ID] = ident
    return answer


async def _proxy(request: Request, api: InboundApi, config: ServeConfig) -> Response:
    if not is_json(request.headers.get("content-type")):
        raise _not_json(request)
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
        return _answer(await answer_whole(planned, post), planned.headers)
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


async def _relay(planned: Plan, opened: UpstreamStream, upstream: Upstream,
                 headers: dict[str, str]) -> AsyncIterator[bytes]:
    """The client's stream; the upstream's responses are closed however it ends (a client
    that goes away cancels this generator, and so the upstream request)."""
    responses = [opened]

    async def reopen(body: dict[str, Any]) -> AsyncIterator[bytes]:
        responses.append(await upstream.open_stream(body, headers))
        return responses[-1].chunks()

    async def failed(error: Exception) -> str:
        if isinstance(error, UpstreamError):
            return error.message
        if isinstance(error, UPSTREAM_ERRORS):
            return failure(error, upstream.url, upstream.timeout).message
        log.exception("stream from the upstream failed")
        return f"the proxy failed reading the upstream's stream: {type(error).__name__}"

    try:
        async for piece in answer_stream(planned, opened.chunks(), reopen, failed):
            yield utf8(piece)
    finally:
        with anyio.CancelScope(shield=True):  # cancelled, each close would be cancelled too
            for response in responses:
                await response.aclose()


def _answer(data: Any, headers: dict[str, str] | None = None) -> Response:
    """The upstream's answer, or what it became, as strict JSON; 502 where it cannot be."""
    try:
        return StrictJSONResponse(data, headers=headers)
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
