"""The ``toolcalls`` command: parse, render and count tokens from the shell (``--help``)."""

from __future__ import annotations

from ._main import main

__all__ = ["main"]
