"""`ServerThread`: an ASGI app served by uvicorn on 127.0.0.1 (a free port) in a thread, for the
tests that start their own servers (the proxy, fake upstreams and model servers, an OpenAPI
service). Generous waits: CI machines are loaded."""

from __future__ import annotations

import threading
import time
from typing import Any

import uvicorn

WAIT = 30.0
"""Seconds a server may take to start, or to stop."""


class ServerThread:
    """One uvicorn server in a thread: `start()` (or ``with``) serves, `url` once started;
    `stop()` ends it, open streams given a second."""

    def __init__(self, app: Any) -> None:
        config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning",
                                lifespan="on", timeout_graceful_shutdown=1)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.url = ""

    def start(self) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + WAIT
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.01)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=WAIT)
        assert not self.thread.is_alive(), "the test server did not stop"

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()
