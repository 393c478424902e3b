"""Servers for the proxy tests: the fake upstream and proxies in front of it, each a real
uvicorn server on 127.0.0.1, port 0 (a free one), in a background thread, stopped at the end."""

from __future__ import annotations

import asyncio
import os
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

# Before any test module imports LiteLLM: else it fetches its model cost map from the network
# at import, and waits (several modules use it: test_litellm, test_failed_calls)
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from clients import close_clients
from servers import ServerThread
from upstream import FakeUpstream

from toolcalls.serve import ServeConfig, create_app


@pytest.fixture(scope="module")
def no_leftover_loop() -> Iterator[None]:
    """For modules that call LiteLLM: its sync calls leave an event loop set on the main thread
    and never close it. Whoever sets another one later (any `asyncio.run`) drops it, and its
    ResourceWarning then fails whatever test the garbage collector happens to run in. The
    module's end closes it, and starts the main thread's loops afresh."""
    yield
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            loop = asyncio.get_event_loop_policy().get_event_loop()
        except RuntimeError:  # none set (an asyncio.run since has set None): nothing left
            loop = None
    if loop is not None and not loop.is_running():
        loop.close()
    asyncio.set_event_loop_policy(None)


@pytest.fixture(scope="session")
def fake_upstream() -> Iterator[FakeUpstream]:
    fake = FakeUpstream()
    server = ServerThread(fake.app).start()
    fake.url = server.url  # type: ignore[attr-defined]
    yield fake
    server.stop()


@pytest.fixture(scope="session")
def start_proxy(fake_upstream: FakeUpstream) -> Iterator[Callable[..., str]]:
    """``start_proxy(mode=..., timeout=...)``: the URL of a proxy in front of the fake
    upstream (or the ``upstream=`` given) with those settings (one server per distinct
    setting, kept for the session)."""
    running: dict[tuple[tuple[str, Any], ...], ServerThread] = {}

    def start(**settings: Any) -> str:
        key = tuple(sorted((name, repr(value)) for name, value in settings.items()))
        if key not in running:
            settings.setdefault("upstream", f"{fake_upstream.url}/v1")  # type: ignore[attr-defined]
            config = ServeConfig(**settings)
            running[key] = ServerThread(create_app(config)).start()
        return running[key].url

    yield start
    for server in running.values():
        server.stop()


@pytest.fixture
def serve_app() -> Iterator[Callable[[Any], str]]:
    """``serve_app(app)``: the URL of `app` served for this test (stopped after it)."""
    running: list[ServerThread] = []

    def start(app: Any) -> str:
        running.append(ServerThread(app).start())
        return running[-1].url

    yield start
    for server in running:
        server.stop()


@pytest.fixture
def upstream(fake_upstream: FakeUpstream) -> FakeUpstream:
    """The fake upstream, its script reset for this test."""
    fake_upstream.script("Hello!")
    return fake_upstream


@pytest.fixture(autouse=True)
def _close_clients() -> Iterator[None]:
    yield
    close_clients()
