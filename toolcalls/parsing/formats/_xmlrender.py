"""Writing XML-parameter calls (Qwen3-Coder, GLM, MiniMax-M2, DSML) as their templates do.

Chat templates write names and values raw, never escaped. Most text reads back exactly, since
the shared reader (`_xmlparams`) takes a value close tag as structural only when the next tag
follows it. A few values cannot be written unambiguously in these formats at all: a string
holding the value close tag followed by the next tag (``</parameter>\\n</function>``), a name
the tag grammar does not read, a value whose edge newlines the reader would take as framing
(the reader drops one newline at each end of every value).
The helpers here judge that with the reader's own rules (`XmlTags.parse_tag`, `look_ahead`,
`strip_value_newlines`) and raise ValueError rather than write text that parses differently.
"""

from __future__ import annotations

from typing import Any

from .._coerce import strip_value_newlines
from ._template_json import tojson
from ._xmlparams import OTHER, XmlTags, look_ahead

__all__ = ["checked_tag", "checked_value", "jinja_string", "json_unless_string"]


def jinja_string(value: Any) -> str:
    """Jinja's ``| string`` on a Python value: ``True``, ``None``, ``['a']`` (Python's str)."""
    return value if isinstance(value, str) else str(value)


def json_unless_string(value: Any) -> str:
    """``v | tojson if v is not string else v``: how GLM and MiniMax-M2 write a value."""
    return value if isinstance(value, str) else tojson(value)


def checked_tag(tags: XmlTags, kind: str, name: str, written: str) -> str:
    """`written`, an open tag, provided the format's grammar reads `name` back from it."""
    tag = tags.parse_tag(written)
    if tag is None or tag.kind != kind or tag.name != name:
        raise ValueError(f"the {kind} name {name!r} cannot be written as a tag: {written!r}")
    return written


def checked_value(tags: XmlTags, key: str, value: str, *, framing: str = "") -> str:
    """`value` as written between its tags, provided the reader reads it back.

    `framing` is the newline a template writes on each side of every value (Qwen3-Coder).
    Without it the value is written flush against its tags, as the other templates do, with
    one newline added on a side only where the value begins or ends with a newline (the reader
    drops one there).
    """
    lead = framing or ("\n" if value.startswith(("\n", "\r\n")) else "")
    trail = framing or ("\n" if value.endswith("\n") else "")
    written = lead + value + trail
    if strip_value_newlines(written) != value:  # framed, a value ending in "\r"
        raise ValueError(f"the value of {key!r} has edge newlines the format reads as framing")
    followed = written + tags.param_close
    close = tags.param_close
    found = followed.find(close)
    while 0 <= found < len(written):
        marker, _ = look_ahead(followed, found + len(close), tags, tags.body_markers, True)
        if marker != OTHER:
            raise ValueError(
                f"the value of {key!r} holds {close!r} followed by {marker!r}: this format "
                "cannot write it unambiguously"
            )
        found = followed.find(close, found + 1)
    return written
