"""The proxy in several processes (``workers`` > 1): uvicorn's supervisor and its workers.

The supervisor binds the socket once and starts `ServeConfig.workers` processes that accept on
it (spawned: fresh interpreters), replaces one that dies, and on SIGINT or SIGTERM stops
taking connections, sends SIGTERM to every worker (each gives open streams a few seconds to
finish, as one process does) and waits for them. uvicorn starts a worker from an import
string, so the settings go to the workers in an environment variable (`CONFIG_VARIABLE`, JSON
of the `ServeConfig`; the environment is readable by the same user only, as
``TOOLCALLS_SERVE_API_KEY`` is) and `worker_app` builds each worker's app from it. Every worker
writes its own access log lines to stderr, with its process id.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import threading
from typing import Any

import uvicorn
from starlette.applications import Starlette
from uvicorn.supervisors.multiprocess import SIGNALS

from ._app import create_app
from ._config import ServeConfig
from ._process import announce, configure_logging, uvicorn_settings

__all__ = ["CONFIG_VARIABLE", "serve_workers", "worker_app"]

CONFIG_VARIABLE = "_TOOLCALLS_SERVE_WORKER_CONFIG"  # not TOOLCALLS_SERVE_*: no setting
_FACTORY = f"{__name__}:worker_app"


def serve_workers(config: ServeConfig) -> None:
    """Run `config.workers` processes until SIGINT or SIGTERM, then return once all ended."""
    configure_logging(worker_ids=True)
    announce(config)
    os.environ[CONFIG_VARIABLE] = json.dumps(dataclasses.asdict(config))
    # uvicorn's supervisor takes the signals (SIGHUP restarts the workers, SIGTTIN/SIGTTOU
    # add or remove one) and leaves its handlers behind: put the earlier ones back
    main = threading.current_thread() is threading.main_thread()
    previous = {sig: signal.getsignal(sig) for sig in SIGNALS} if main else {}
    try:
        uvicorn.run(_FACTORY, factory=True, workers=config.workers, **uvicorn_settings(config))
    finally:
        os.environ.pop(CONFIG_VARIABLE, None)
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def worker_app() -> Starlette:
    """One worker's app (uvicorn calls this in each worker process)."""
    configure_logging(worker_ids=True)
    return create_app(_config_from_environment())


def _config_from_environment() -> ServeConfig:
    try:
        text = os.environ[CONFIG_VARIABLE]
    except KeyError:
        raise RuntimeError(f"{CONFIG_VARIABLE} is not set: worker_app runs in the worker "
                           "processes of serve_workers only") from None
    values: dict[str, Any] = json.loads(text)
    return ServeConfig(**values)
