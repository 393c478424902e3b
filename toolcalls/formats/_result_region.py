"""Tool results written into the text: a region whose content is data, never calls.

A chat template writes a tool result back into the history between two markers (DeepSeek's
``<｜tool▁output▁begin｜>``/``<｜tool▁output▁end｜>``, Mistral's ``[TOOL_RESULTS]``/
``[/TOOL_RESULTS]``, ...) and copies the result text verbatim, without escaping. The text may hold
anything, the closing marker and the markup of a whole call included, so the first closing
marker cannot be trusted: a result holding ``<end>`` then a call would end early and run the
call. Here the region runs from an opening marker to the *last* closing marker of the text.
Inside it the wrapper markers are markup and everything else is content, and nothing is read as
a call. Text after the last closing marker is read as usual.

Streaming: while the region is open, the text after its latest closing marker is held until
another closing marker arrives (it belongs to the region) or the text ends (it does not), so
any chunking gives the batch result. A model that writes a tool result into its reply (a slip)
gets an issue; a region that never closes is the format's choice (`RegionReader.unclosed`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from .._engine import WS, Engine, ReaderFactory, Status

__all__ = ["RegionReader", "region_openers"]

Unclosed = Literal["reject", "markup"]


class RegionReader:
    """From one of `openers` to the last of `closers` in the text (see the module notes).

    Args:
        opener: the marker that started the region.
        openers, closers: the wrapper markers; inside the region all of them are markup.
        issue: the issue kind reported for the region (its message says what happened).
        unclosed: when no closer follows the opener at all, ``"reject"`` makes the opener
            content, ``"markup"`` drops it as markup (with the issue) and reads on.
    """

    def __init__(self, opener: str, openers: Sequence[str], closers: Sequence[str],
                 issue: str, unclosed: Unclosed = "reject") -> None:
        self.opener = opener
        self.closers = frozenset(closers)
        self.markers = re.compile("|".join(map(re.escape, sorted({*openers, *closers},
                                                                  key=len, reverse=True))))
        self.longest = max(map(len, (*openers, *closers)))
        self.issue = issue
        self.unclosed = unclosed
        self.pending: list[tuple[int, int]] = []  # absolute spans of markers not yet consumed
        self.scan_from: int | None = None  # absolute offset where the marker search resumes
        self.start = 0
        self.opened = False

    def read(self, ctx: Engine, eof: bool) -> Status:
        if self.scan_from is None:
            self.start = ctx.at()
            self.scan_from = ctx.at() + len(self.opener)
        self._collect(ctx, eof)
        last = max((i for i, (s, e) in enumerate(self.pending) if self._is_closer(ctx, s, e)),
                   default=None)
        if last is not None:
            self._open(ctx)
            self._consume_through(ctx, last)
        if not eof:
            return Status.MORE
        if self.opened:
            return Status.DONE
        return self._never_closed(ctx)

    def _collect(self, ctx: Engine, eof: bool) -> None:
        """Find the markers that arrived since the last step; hold back a partial one."""
        assert self.scan_from is not None
        begin = resume = self.scan_from - ctx.off
        for found in self.markers.finditer(ctx.buf, begin):
            self.pending.append((ctx.at(found.start()), ctx.at(found.end())))
            resume = found.end()
        if not eof:  # a marker cut by the end of the buffer is searched again with more text
            resume = max(resume, len(ctx.buf) - self.longest + 1)
        self.scan_from = ctx.at(max(resume, begin))

    def _is_closer(self, ctx: Engine, start: int, end: int) -> bool:
        return ctx.buf[start - ctx.off : end - ctx.off] in self.closers

    def _open(self, ctx: Engine) -> None:
        if self.opened:
            return
        self.opened = True
        ctx._commit_pending("content")  # whitespace before a result is text, as the result is
        ctx.consume("markup", ctx.pos + len(self.opener))
        ctx.consume("markup", WS.match(ctx.buf, ctx.pos).end())  # type: ignore[union-attr]
        ctx.issue(self.issue, "a tool result written into the text: its text is kept as "
                  "content and never read as tool calls", (self.start, ctx.at()))

    def _consume_through(self, ctx: Engine, last: int) -> None:
        """Content up to each marker, the marker as markup, through marker `last`."""
        for start, end in self.pending[: last + 1]:
            ctx.consume("content", start - ctx.off)
            ctx.consume("markup", end - ctx.off)
        del self.pending[: last + 1]

    def _never_closed(self, ctx: Engine) -> Status:
        if self.unclosed == "reject":
            return Status.REJECT
        ctx._commit_pending("content")
        ctx.consume("markup", ctx.pos + len(self.opener))
        ctx.issue(self.issue, f"the model wrote the tool-result marker {self.opener!r} into its "
                  "answer; the marker is dropped, the text kept", (self.start, ctx.at()))
        return Status.DONE


def region_openers(openers: Sequence[str], closers: Sequence[str], issue: str,
                   unclosed: Unclosed = "reject") -> dict[str, ReaderFactory]:
    """The opener table entries of a tool-result region."""

    def factory(ctx: Engine, opener: str) -> RegionReader:
        return RegionReader(opener, openers, closers, issue, unclosed)

    return dict.fromkeys(openers, factory)
