"""Tool results in history: written by a format's renderer, read back as data, never as calls.

Chat templates wrap each tool result between two markers and copy the result inside as it is:
a tag pair (``<tool_response>`` ... ``</tool_response>``) or special tokens (DeepSeek's
``<｜tool▁output▁begin｜>`` ... ``<｜tool▁output▁end｜>``, Mistral's ``[TOOL_RESULTS]`` ...
``[/TOOL_RESULTS]``). A result may hold anything, call markup included (a file about the
protocol, a web page, an injection attempt). One rule keeps it data:

* writing: `protect` writes each closing marker found inside a result with a backslash after its
  first character (``<\\/tool_response>``, ``[\\/TOOL_RESULTS]``), so a result can never end its
  block early; every other character is kept;
* reading: a block runs from its opener to the *first* closing marker. Markup inside it is data,
  never a call, and the text after it is read as usual, so a history of several calls and results
  gives every call back. An opener that is never closed is not a block after all: it stays
  content and the text after it is read as usual, so prose that mentions the tag loses no call.
* prose: a result block in a model's own answer is rare; the tag in a sentence is common
  (``Results arrive in <tool_response> blocks.``, a real call, ``Each block ends with
  </tool_response>.``). So a result *tag* opens a block only where templates write one: at the
  start of a line or right after a tag or token (`ReaderContext.starts_line`); elsewhere it is prose
  and the call after it is read. Call markup inside a block stays data (it may be a quoted
  call or an injection) but gets a ``call_in_tool_result`` issue, in case the model meant it.

Two readers apply the rule: `ResultBlock` for tag pairs (the tags are text the model may write
in prose; the whole block is content) and `RegionReader` for special-token markers (always
markup; a model that writes one in its answer slipped, which is an issue).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal

from .._text import skip_blanks
from ..issues import IssueKind
from ..reader import ReaderContext, ReaderFactory, Status

__all__ = [
    "RegionOpener",
    "RegionReader",
    "ResultBlock",
    "ResultOpener",
    "escape_close",
    "is_result_opener",
    "protect",
    "region_openers",
    "result_block",
    "wrap_result",
]

Unclosed = Literal["reject", "markup"]


def escape_close(close: str) -> str:
    """How `close` is written inside a result: a backslash after its first character."""
    return close[:1] + "\\" + close[1:]


def protect(result: str, *closers: str) -> str:
    """`result` with every one of `closers` in it escaped (`escape_close`)."""
    for close in closers:
        result = result.replace(close, escape_close(close))
    return result


def wrap_result(open_: str, close: str, result: str) -> str:
    """``open_ + result + close``, with `close` inside `result` escaped (`escape_close`).

    Framing blanks belong in `open_` and `close` (``"<tool_response>\\n"``); the close tag
    searched for and escaped is `close` without them.
    """
    return open_ + protect(result, close.strip()) + close


class ResultBlock:
    """From a result's open tag through the first close tag: content, read as data.

    The tag opens a block only where a template writes it, starting a line or right after a
    tag (`ReaderContext.starts_line`); in a sentence (``Results arrive in <tool_response> blocks.``)
    it is prose naming the tag, and the text after it is read as usual. Call markup inside a
    block is data, never run (a result may quote a call or carry an injection), but it is
    reported: a ``call_in_tool_result`` issue, in case the model meant a call.
    """

    def __init__(self, opener: str, close: str) -> None:
        self.opener = opener
        self.close = close
        self.scan_from = 0  # absolute offset where the search for the close tag resumes

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        if not self.scan_from:
            if not ctx.starts_line():
                return Status.REJECT
            self.scan_from = ctx.at() + len(self.opener)
        start = max(ctx.pos + len(self.opener), self.scan_from - ctx.off)
        found = ctx.find(self.close, start)  # remembered: many unclosed openers stay linear
        if found >= 0:
            self._notice_calls(ctx, found)
            block_start = ctx.at()
            ctx.consume("content", found + len(self.close))
            ctx.quoted.append((block_start, ctx.at()))
            return Status.DONE
        self.scan_from = ctx.off + max(start, len(ctx.buf) - len(self.close) + 1)
        # Until the close tag shows, the block may still be prose that mentions the tag.
        return Status.REJECT if eof else Status.MORE


    def _notice_calls(self, ctx: ReaderContext, stop: int) -> None:
        calls = ctx.format.quoted_calls()
        quoted = None if calls is None else calls.search(ctx.buf, ctx.pos + len(self.opener), stop)
        if quoted is not None:
            span = (ctx.at(quoted.start()), ctx.at(quoted.end()))
            ctx.issue("call_in_tool_result", "call markup inside a tool-result block is kept as "
                      "content: a result's text is data, never run", span)


class ResultOpener:
    """The factory of a result block's reader (a class, not a lambda, so that
    `is_result_opener` tells result openers from call openers)."""

    def __init__(self, close: str) -> None:
        self.close = close

    def __call__(self, ctx: ReaderContext, opener: str) -> ResultBlock:
        return ResultBlock(opener, self.close)


def result_block(close: str) -> ReaderFactory:
    """The reader factory of a result block that ends with `close`."""
    return ResultOpener(close)


def is_result_opener(factory: ReaderFactory) -> bool:
    """Whether `factory` reads tool results (data), not calls."""
    return isinstance(factory, (ResultOpener, RegionOpener))


class RegionReader:
    """From `opener` to its first closing marker; inside, every wrapper marker is markup.

    Args:
        opener: the marker that started the region.
        close: the marker that ends it.
        markers: all the wrapper markers (openers and closers) of the format.
        issue: the issue kind reported for the region (its message says what happened).
        unclosed: when `close` never follows the opener, ``"reject"`` makes the opener
            content, ``"markup"`` drops it as markup (with the issue) and reads on.
    """

    def __init__(self, opener: str, close: str, markers: re.Pattern[str], longest: int,
                 issue: IssueKind, unclosed: Unclosed) -> None:
        self.opener = opener
        self.close = close
        self.markers = markers
        self.longest = longest
        self.issue = issue
        self.unclosed = unclosed
        self.inner: list[tuple[int, int]] = []  # absolute spans of the markers found so far
        self.scan_from: int | None = None  # absolute offset where the marker search resumes
        self.start = 0

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        if self.scan_from is None:
            self.start = ctx.at()
            self.scan_from = ctx.at() + len(self.opener)
        begin = resume = self.scan_from - ctx.off
        if eof and ctx.find(self.close, begin) < 0:  # remembered: many unclosed openers
            return self._never_closed(ctx)  # stay linear (each scanned the rest of the text)
        for found in self.markers.finditer(ctx.buf, begin):
            self.inner.append((ctx.at(found.start()), ctx.at(found.end())))
            if found[0] == self.close:
                self._consume(ctx)
                return Status.DONE
            resume = found.end()
        if not eof:  # a marker cut by the end of the buffer is searched again with more text
            self.scan_from = ctx.at(max(resume, len(ctx.buf) - self.longest + 1, begin))
            return Status.MORE
        return self._never_closed(ctx)

    def _consume(self, ctx: ReaderContext) -> None:
        """The opener and the markers as markup, the text between them as content."""
        ctx.commit_blanks("content")  # whitespace before a result is text, as the result is
        ctx.consume("markup", ctx.pos + len(self.opener))
        ctx.consume("markup", skip_blanks(ctx.buf, ctx.pos))
        ctx.issue(self.issue, "a tool result written into the text: its text is kept as "
                  "content and never read as tool calls", (self.start, ctx.at()))
        for start, end in self.inner:
            ctx.consume("content", start - ctx.off)
            ctx.consume("markup", end - ctx.off)
        ctx.quoted.append((self.start, ctx.at()))

    def _never_closed(self, ctx: ReaderContext) -> Status:
        if self.unclosed == "reject":
            return Status.REJECT
        ctx.commit_blanks("content")
        ctx.consume("markup", ctx.pos + len(self.opener))
        ctx.issue(self.issue, f"the model wrote the tool-result marker {self.opener!r} into its "
                  "answer; the marker is dropped, the text kept", (self.start, ctx.at()))
        return Status.DONE


def region_openers(pairs: Mapping[str, str], issue: IssueKind, unclosed: Unclosed = "reject",
                   ) -> dict[str, ReaderFactory]:
    """The opener table entries of tool-result regions: `pairs` maps each opener to its close."""
    everything = {*pairs, *pairs.values()}
    markers = re.compile("|".join(map(re.escape, sorted(everything, key=len, reverse=True))))
    longest = max(map(len, everything))

    factory = RegionOpener(dict(pairs), markers, longest, issue, unclosed)
    return dict.fromkeys(pairs, factory)


class RegionOpener:
    """The factory of `RegionReader`s (a class: see `is_result_opener`)."""

    def __init__(self, pairs: dict[str, str], markers: re.Pattern[str], longest: int,
                 issue: IssueKind, unclosed: Unclosed) -> None:
        self.pairs = pairs
        self.markers = markers
        self.longest = longest
        self.issue = issue
        self.unclosed: Unclosed = unclosed

    def __call__(self, ctx: ReaderContext, opener: str) -> RegionReader:
        return RegionReader(opener, self.pairs[opener], self.markers, self.longest, self.issue,
                            self.unclosed)
