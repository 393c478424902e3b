"""No format: how ``parse(text, "auto")`` reads a text in which `detect` sees none.

Reasoning (``<think>…</think>``) is kept apart, as every format keeps it; everything else is
content, and nothing is a call. The result's ``format`` is ``"none"``, which names no format
(`list_formats` does not list it), so the result says honestly that none was seen.
"""

from __future__ import annotations

from ..reader import ReaderFactory
from ._base import Format

__all__ = ["NoFormat"]


class NoFormat(Format):
    name = "none"

    def call_openers(self) -> dict[str, ReaderFactory]:
        return {}
