"""Readers shared by many formats: section wrappers around calls.

A *section* is markup that wraps one or more calls (``<｜tool▁calls▁begin｜>`` ...
``<｜tool▁calls▁end｜>``). Its opener counts as markup only when a call opener follows it, so
prose that mentions the tag stays content; its closer counts only inside an open section. A
section that opens while the last one is still open means the last one's closer is missing
(``missing_close_tag``).
"""

from __future__ import annotations

from .._text import skip_blanks
from ..reader import ReaderContext, Status

__all__ = ["SectionClose", "SectionOpen"]


class SectionOpen:
    """A section opener: markup if one of `next_markers` follows (after whitespace)."""

    def __init__(self, opener: str, closer: str, next_markers: tuple[str, ...]) -> None:
        self.opener = opener
        self.closer = closer
        self.next_markers = next_markers

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        buf = ctx.buf
        after = skip_blanks(buf, ctx.pos + len(self.opener))
        for marker in self.next_markers:
            if buf.startswith(marker, after):
                if ctx.section is not None:  # the last section was never closed
                    at = ctx.at()
                    missing = f"the calls end without {ctx.section!r}"
                    ctx.issue("missing_close_tag", missing, (at, at))
                ctx.consume("markup", ctx.pos + len(self.opener))
                ctx.section = self.closer
                return Status.DONE
        ahead = self.ahead(buf, after)
        if not eof and any(marker.startswith(ahead) for marker in self.next_markers):
            return Status.MORE
        return Status.REJECT

    def ahead(self, buf: str, after: int) -> str:
        """As much of the text at `after` as the longest next marker: a copy of the whole rest
        of a long response cost more than reading the call after it."""
        longest = 0
        for marker in self.next_markers:  # a loop: max(map(...)) per section was 5% of a parse
            longest = max(longest, len(marker))
        return buf[after : after + longest]


class SectionClose:
    """A section closer: markup inside an open section, content anywhere else."""

    def __init__(self, closer: str) -> None:
        self.closer = closer

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        if ctx.section != self.closer:
            return Status.REJECT
        ctx.section = None
        ctx.consume("markup", ctx.pos + len(self.closer))
        return Status.DONE
