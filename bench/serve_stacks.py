"""The servers `serve.py` measures beside `toolcalls serve`: a bare pass-through proxy (the
floor: what any proxy on a stack costs, with no parsing and no rendering) on each stack tried,
and toolcalls' own app under another server.

    python bench/serve_stacks.py uvicorn passthrough_httpx --upstream URL --port P
    python bench/serve_stacks.py granian toolcalls_app --upstream URL --port P

A stack is a server (uvicorn with uvloop and httptools, as the ``serve`` extra installs it; or
granian, Rust's hyper under an ASGI interface) and an upstream client (aiohttp, as toolcalls
uses since this comparison; or httpx, as it used before). The pass-through apps are
Starlette apps, as toolcalls' is: one route that sends the client's body to the upstream as
it came and relays the upstream's bytes as they come, with the same streaming response
class; ``GET /v1/models`` for `serve.py`'s readiness check. The apps are factories that
read the upstream's base URL from `UPSTREAM_VARIABLE`, so a server can import them by name,
in worker processes too.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

UPSTREAM_VARIABLE = "BENCH_SERVE_UPSTREAM"
MODEL = "bench"


def _upstream() -> str:
    return os.environ[UPSTREAM_VARIABLE].rstrip("/")


def passthrough_httpx() -> Any:
    """The floor with httpx as the upstream client (toolcalls' until 2026-11-28)."""
    import httpx
    from starlette.applications import Starlette
    from starlette.background import BackgroundTask
    from starlette.requests import Request
    from starlette.responses import Response, StreamingResponse
    from starlette.routing import Route

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with httpx.AsyncClient(base_url=_upstream(), timeout=600) as client:
            app.state.client = client
            yield

    async def chat(request: Request) -> Response:
        client: httpx.AsyncClient = request.app.state.client
        upstream = await client.send(client.build_request(
            "POST", "/chat/completions", content=await request.body(),
            headers={"content-type": "application/json"}), stream=True)
        return StreamingResponse(upstream.aiter_raw(), status_code=upstream.status_code,
                                 media_type=upstream.headers.get("content-type"),
                                 background=BackgroundTask(upstream.aclose))

    return Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"]),
                             Route("/v1/models", _models, methods=["GET"])],
                     lifespan=lifespan)


def passthrough_aiohttp() -> Any:
    """The floor on toolcalls' own stack: Starlette, aiohttp to the upstream."""
    import aiohttp
    from starlette.applications import Starlette
    from starlette.background import BackgroundTask
    from starlette.requests import Request
    from starlette.responses import Response, StreamingResponse
    from starlette.routing import Route

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=600)) as session:
            app.state.session = session
            yield

    async def chat(request: Request) -> Response:
        session: aiohttp.ClientSession = request.app.state.session
        upstream = await session.post(f"{_upstream()}/chat/completions",
                                      data=await request.body(),
                                      headers={"content-type": "application/json"})

        async def relay() -> AsyncIterator[bytes]:
            async for data in upstream.content.iter_any():
                yield data

        return StreamingResponse(relay(), status_code=upstream.status,
                                 media_type=upstream.headers.get("content-type"),
                                 background=BackgroundTask(upstream.release))

    return Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"]),
                             Route("/v1/models", _models, methods=["GET"])],
                     lifespan=lifespan)


def toolcalls_app() -> Any:
    """`toolcalls serve`'s own app, as `serve.py` runs it: prompt mode, hermes for the model."""
    from toolcalls.serve import ServeConfig, create_app
    from toolcalls.serve._process import configure_logging

    configure_logging(worker_ids=False)
    return create_app(ServeConfig(upstream=_upstream(), mode="prompt",
                                  model_formats={MODEL: "hermes"}))


async def _models(request: Any) -> Any:
    from starlette.responses import JSONResponse

    return JSONResponse({"object": "list", "data": [
        {"id": MODEL, "object": "model", "created": 0, "owned_by": "bench"}]})


APPS = {"passthrough_httpx": passthrough_httpx, "passthrough_aiohttp": passthrough_aiohttp,
        "toolcalls_app": toolcalls_app}


def run(server: str, app: str, port: int) -> None:
    """`app` under `server` on 127.0.0.1:`port`, one process serving, until a signal."""
    target = f"{os.path.splitext(os.path.basename(__file__))[0]}:{app}"
    if server == "uvicorn":
        import uvicorn

        # as toolcalls serve runs: uvloop and httptools (the serve extra), no access log
        uvicorn.run(target, factory=True, host="127.0.0.1", port=port, loop="auto",
                    http="auto", log_level="warning", access_log=False)
        return
    from granian.constants import Interfaces, Loops
    from granian.server import Server

    Server(target, address="127.0.0.1", port=port, interface=Interfaces.ASGI, factory=True,
           workers=1, loop=Loops.uvloop, log_access=False).serve()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("server", choices=["uvicorn", "granian"])
    parser.add_argument("app", choices=sorted(APPS))
    parser.add_argument("--upstream", required=True, help="the upstream's base URL, with /v1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    os.environ[UPSTREAM_VARIABLE] = args.upstream
    run(args.server, args.app, args.port)


if __name__ == "__main__":
    main()
