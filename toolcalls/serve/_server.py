"""``toolcalls serve``'s server (`serve`): the app under uvicorn until a signal, in this
process, or in several (`_workers`) when ``workers`` > 1."""

from __future__ import annotations

import signal
import threading

import uvicorn

from ._app import create_app
from ._config import ServeConfig
from ._process import announce, configure_logging, uvicorn_settings
from ._workers import serve_workers

__all__ = ["serve"]


def serve(config: ServeConfig) -> None:
    """Run the proxy under uvicorn until SIGINT or SIGTERM, then return: uvicorn stops
    taking connections and gives open streams a few seconds to finish. With ``workers`` > 1,
    in that many processes (`_workers`)."""
    if config.workers > 1:
        serve_workers(config)
        return
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


_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class _Stopped(Exception):
    pass


def _stopped(sig: int, frame: object) -> None:
    raise _Stopped
