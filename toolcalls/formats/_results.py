"""Tool results in history: written by a format's renderer, read back as data, never as calls.

Chat templates wrap each tool result in a tag pair (``<tool_response>`` ... ``</tool_response>``)
and write the result inside as it is, unescaped. A result may hold anything, call markup
included (a file about the protocol, a web page, an injection attempt), so:

* `wrap_result` writes the result as the template does, except that the wrapper's own close
  tag inside the result is written with a backslash (``<\\/tool_response>``), so a result can
  never end its block early; every other character is kept;
* `ResultBlock` reads such a block as content: markup inside it is data, never a call. A model
  that writes a result block itself (imitating a tool) gets the same reading. An opener that is
  never closed is not a block after all: it stays content and the text after it is read as
  usual, so prose that mentions the tag loses no call.
"""

from __future__ import annotations

from .._engine import Engine, ReaderFactory, Status

__all__ = ["ResultBlock", "escape_close", "result_block", "wrap_result"]


def escape_close(close: str) -> str:
    """How `close` is written inside a result: a backslash after its first character."""
    return close[:1] + "\\" + close[1:]


def wrap_result(open_: str, close: str, result: str) -> str:
    """``open_ + result + close``, with `close` inside `result` escaped (`escape_close`).

    Framing blanks belong in `open_` and `close` (``"<tool_response>\\n"``); the close tag
    searched for and escaped is `close` without them.
    """
    tag = close.strip()
    return open_ + result.replace(tag, escape_close(tag)) + close


class ResultBlock:
    """From a result's open tag through the first close tag: content, read as data."""

    def __init__(self, opener: str, close: str) -> None:
        self.opener = opener
        self.close = close
        self.scan_from = 0  # absolute offset where the search for the close tag resumes

    def read(self, ctx: Engine, eof: bool) -> Status:
        start = max(ctx.pos + len(self.opener), self.scan_from - ctx.off)
        found = ctx.buf.find(self.close, start)
        if found >= 0:
            ctx.consume("content", found + len(self.close))
            return Status.DONE
        self.scan_from = ctx.off + max(start, len(ctx.buf) - len(self.close) + 1)
        # Until the close tag shows, the block may still be prose that mentions the tag.
        return Status.REJECT if eof else Status.MORE


def result_block(close: str) -> ReaderFactory:
    """The reader factory of a result block that ends with `close`."""
    return lambda ctx, opener: ResultBlock(opener, close)
