"""The ASGI app (`create_app`) and the server that runs it (`serve`).

Routes: ``POST /v1/chat/completions`` (OpenAI Chat Completions), ``POST /v1/messages``
(Anthropic Messages), ``GET /v1/models`` (the upstream's, passed through), ``GET /healthz``.
Errors are answered in the API's own shape: OpenAI ``{"error": {"message", "type", "param",
"code"}}``, Anthropic ``{"type": "error", "error": {"type", "message"}}`` (`_errors`); 421 for a
``Host`` the proxy does not answer to and 415 for a body not sent as JSON (`_guard`), 400 for a
body that is not JSON or a wrong field (named), 413 for a body over ``max_body_bytes``, 502/504
when the upstream fails (`_upstream`). One structured access-log line per request (logger
``toolcalls.serve``); bodies only with ``log_bodies``.
"""

from __future__ import annotations

import json
import logging
import signal
import threading
import time
from collections.abc import AsyncIterator
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

from ._config import ServeConfig
from ._errors import Api, StrictJSONResponse, api_of, utf8
from ._errors import error_response as _error
from ._guard import HostGuard, allowed_hosts, is_json
from ._proxy import Plan, answer_stream, answer_whole, plan
from ._requests import MAX_DEPTH, RequestError
from ._upstream import Upstream, UpstreamError, credentials_in_force, failure

__all__ = ["create_app", "serve"]

log = logging.getLogger("toolcalls.serve")


class _TooLarge(Exception):
    pass


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

    async def chat(request: Request) -> Response:
        return await _proxy(request, "openai", config)

    async def messages(request: Request) -> Response:
        return await _proxy(request, "anthropic", config)

    async def models(request: Request) -> Response:
        started = time.perf_counter()
        upstream: Upstream = request.app.state.upstream
        response: Response
        try:
            data = await upstream.get_json("/models", upstream.headers(request.headers))
        except UpstreamError as error:
            response = _error("openai", error.status, error.message, error.kind)
        else:
            response = _answer("openai", data)
        _access(request, response.status_code, started)
        return response

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    routes = [
        Route("/v1/chat/completions", chat, methods=["POST"]),
        Route("/v1/messages", messages, methods=["POST"]),
        Route("/v1/models", models, methods=["GET"]),
        Route("/healthz", healthz, methods=["GET"]),
    ]
    return Starlette(routes=routes, lifespan=lifespan,
                     middleware=[Middleware(HostGuard, allowed=allowed_hosts(config))],
                     exception_handlers={Exception: _failed})


async def _failed(request: Request, error: Exception) -> Response:
    """A fault of the proxy itself: logged with its traceback, answered in the API's shape."""
    log.error("request failed: %s %s", request.method, request.url.path, exc_info=error)
    return _error(api_of(request.url.path), 500,
                  f"the proxy failed ({type(error).__name__}); its log says more")


async def _proxy(request: Request, api: Api, config: ServeConfig) -> Response:
    started = time.perf_counter()
    if not is_json(request.headers.get("content-type")):
        _access(request, 415, started)
        return _error(api, 415, "the request body must be JSON, sent with Content-Type: "
                      f"application/json (got {request.headers.get('content-type', 'none')!r})")
    try:
        raw = await _body(request, config.max_body_bytes)
    except _TooLarge:
        response = _error(api, 413, f"the request body is over {config.max_body_bytes} bytes "
                          "(the proxy's max_body_bytes)", "request_too_large")
        _access(request, 413, started)
        return response
    try:
        body = json.loads(raw)
    except RecursionError:  # C json's own limit (1000 deep); `plan` has a lower one
        _access(request, 400, started)
        return _error(api, 400, f"the request body: JSON nested more than {MAX_DEPTH} deep")
    except (ValueError, UnicodeDecodeError) as error:
        _access(request, 400, started)
        return _error(api, 400, f"the request body is not valid JSON: {error}")
    if config.log_bodies:
        log.info("body %s %s", request.url.path, raw.decode("utf-8", "replace"))
    try:
        planned = plan(api, body, config)
    except RequestError as error:
        _access(request, 400, started)
        said = str(error) if error.field else f"the request body: {error}"
        return _error(api, 400, said, param=error.field or None)
    upstream: Upstream = request.app.state.upstream
    headers = upstream.headers(request.headers)

    async def post(body: dict[str, Any]) -> Any:
        return await upstream.post_json(body, headers)

    try:
        if planned.stream:
            opened = await upstream.open_stream(planned.body, headers)
        else:
            answer = await answer_whole(planned, post)
    except UpstreamError as error:
        _access(request, error.status, started, planned)
        return _error(api, error.status, error.message, error.kind)
    if not planned.stream:
        answered = _answer(api, answer)
        _access(request, answered.status_code, started, planned)
        return answered
    return _Relay(_relay(request, planned, opened, upstream, headers, started),
                  media_type="text/event-stream",
                  headers={"cache-control": "no-cache",
                           "x-accel-buffering": "no"})  # nginx: pass it on now


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


async def _relay(request: Request, planned: Plan, opened: httpx.Response, upstream: Upstream,
                 headers: dict[str, str], started: float) -> AsyncIterator[bytes]:
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

    status = 200
    try:
        async for piece in answer_stream(planned, opened.aiter_bytes(), reopen, failed):
            yield utf8(piece)
    except BaseException:
        status = 499  # the client went away (nginx's word for it)
        raise
    finally:
        with anyio.CancelScope(shield=True):  # cancelled, each close would be cancelled too
            for response in responses:
                await response.aclose()
        _access(request, status, started, planned)


def _answer(api: Api, data: Any) -> Response:
    """The upstream's answer, or what it became, as strict JSON; 502 where it cannot be."""
    try:
        return StrictJSONResponse(data)
    except ValueError:
        return _error(api, 502, "the upstream's answer holds a number JSON cannot carry (NaN "
                      "or Infinity): check the upstream")


async def _body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _TooLarge
    received = bytearray()
    async for piece in request.stream():
        received += piece
        if len(received) > limit:
            raise _TooLarge
    return bytes(received)


def _access(request: Request, status: int, started: float, planned: Plan | None = None) -> None:
    entry: dict[str, Any] = {"method": request.method, "path": request.url.path,
                             "status": status}
    if planned is not None:
        entry.update(model=planned.model, mode=planned.mode, format=planned.format.name,
                     stream=planned.stream, calls=planned.calls)
    entry["duration_ms"] = round((time.perf_counter() - started) * 1000, 1)
    log.info(json.dumps(entry), extra={"access": entry})


def serve(config: ServeConfig) -> None:
    """Run the proxy under uvicorn until SIGINT or SIGTERM, then return: uvicorn stops
    taking connections and gives open streams a few seconds to finish. With ``workers`` > 1,
    in that many processes (`_workers`)."""
    if config.workers > 1:
        from ._workers import serve_workers

        serve_workers(config)
        return
    import uvicorn

    configure_logging()
    announce(config)
    server = uvicorn.Server(uvicorn.Config(create_app(config), **uvicorn_settings(config)))
    # uvicorn shuts down gracefully on the signal, then raises it again for the handler that
    # was there before: this one, so that the signal ends `serve` and not the process.
    main = threading.current_thread() is threading.main_thread()
    previous = {sig: signal.signal(sig, _stopped) for sig in _SIGNALS} if main else {}
    try:
        server.run()
    except _Stopped:
        pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def configure_logging(*, worker_ids: bool = False) -> None:
    """Log lines to stderr; `worker_ids`: each with its process id (several workers)."""
    process = " [%(process)d]" if worker_ids else ""
    logging.basicConfig(level=logging.INFO,
                        format=f"%(asctime)s{process} %(name)s %(message)s")
    # httpx logs every upstream request at INFO: our access log says it once per request
    logging.getLogger("httpx").setLevel(logging.WARNING)


def announce(config: ServeConfig) -> None:
    """Say at start which key goes upstream and which Host names are answered."""
    log.info("upstream key: %s", credentials_in_force(config))
    allowed = allowed_hosts(config)
    if allowed is None:
        log.info("any Host is answered (host %s is not loopback, or allowed_hosts has *)",
                 config.host)
    else:
        log.info("Host names answered: %s", ", ".join(sorted(allowed)))


def uvicorn_settings(config: ServeConfig) -> dict[str, Any]:
    """uvicorn's settings for the proxy, the same for one process and several."""
    # loop and http "auto": uvloop and httptools where installed (the serve extra installs
    # them: about a sixth less CPU per streamed chunk than asyncio and h11), else asyncio, h11
    return {"host": config.host, "port": config.port, "log_level": "info", "loop": "auto",
            "http": "auto", "access_log": False, "timeout_graceful_shutdown": 5}


_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class _Stopped(Exception):
    pass


def _stopped(sig: int, frame: object) -> None:
    raise _Stopped
