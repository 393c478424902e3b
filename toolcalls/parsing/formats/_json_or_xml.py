"""A call block whose body is either XML-style parameters or one JSON call object.

GLM's ``<tool_call>`` and LongCat's ``<longcat_tool_call>`` hold key/value tags, but a
``{"name": ..., "arguments": {...}}`` object inside the same tags is read too (a slip mlx-lm
reads for GLM; LongCat-Flash-Chat's own layout). The first character after the opener (and
its blanks) says which reader takes the block.
"""

from __future__ import annotations

from .._text import skip_blanks
from ..reader import Reader, ReaderContext, ReaderFactory, Status
from ._jsoncall import JsonCall, JsonCallReader
from ._xmlparams import XmlCallReader, XmlTags

__all__ = ["JsonOrXmlCallReader", "json_or_xml_calls"]


class JsonOrXmlCallReader:
    """Reads one block with `tags`, or with `json_call` when a ``{`` begins its body; `slip`,
    when given, is the issue's message for a JSON body (the format's own layout is XML)."""

    def __init__(self, tags: XmlTags, json_call: JsonCall, slip: str | None,
                 opener: str) -> None:
        self.tags, self.json_call, self.slip = tags, json_call, slip
        self.opener = opener
        self.reader: Reader | None = None

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        if self.reader is None:
            first = skip_blanks(ctx.buf, ctx.pos + len(self.opener))
            if first == len(ctx.buf) and not eof:
                return Status.MORE
            if ctx.buf.startswith("{", first):
                if self.slip is not None:
                    ctx.issue("json_call", self.slip, (ctx.at(), ctx.at(first)))
                self.reader = JsonCallReader(self.json_call, self.opener)
            else:
                self.reader = XmlCallReader(self.tags, self.opener)
        return self.reader.read(ctx, eof)


def json_or_xml_calls(tags: XmlTags, json_call: JsonCall,
                      slip: str | None = None) -> ReaderFactory:
    """The factory of `JsonOrXmlCallReader`s for one format."""
    return lambda ctx, opener: JsonOrXmlCallReader(tags, json_call, slip, opener)
