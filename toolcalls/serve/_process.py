"""What every process of the proxy sets up the same way, one process or several (`_server`,
`_workers`): its log lines, what it says at start, uvicorn's settings."""

from __future__ import annotations

import logging
from typing import Any

from ._config import ServeConfig
from ._startup import configuration_block

__all__ = ["announce", "configure_logging", "uvicorn_settings"]

log = logging.getLogger("toolcalls.serve")


def configure_logging(*, worker_ids: bool = False) -> None:
    """Log lines to stderr; `worker_ids`: each with its process id (several workers)."""
    process = " [%(process)d]" if worker_ids else ""
    logging.basicConfig(level=logging.INFO,
                        format=f"%(asctime)s{process} %(name)s %(message)s")


def announce(config: ServeConfig) -> None:
    """Say at start, in one block, what the proxy will do (`configuration_block`)."""
    log.info("%s", configuration_block(config))


def uvicorn_settings(config: ServeConfig) -> dict[str, Any]:
    """uvicorn's settings for the proxy, the same for one process and several."""
    # loop and http "auto": uvloop and httptools where installed (the serve extra installs
    # them: about a sixth less CPU per streamed chunk than asyncio and h11), else asyncio, h11
    return {"host": config.host, "port": config.port, "log_level": "info", "loop": "auto",
            "http": "auto", "access_log": False, "timeout_graceful_shutdown": 5}
