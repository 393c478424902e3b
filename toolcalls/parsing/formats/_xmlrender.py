"""Writing XML-parameter calls (Qwen3-Coder, GLM, MiniMax-M2, DSML) as their templates do.

One writer for every format of the family, driven by the format's `XmlTags`, the very tags its
reader reads: the call and parameter open tags (``call_open``, ``param_open``), the closes, GLM's
``value_open`` and the section that wraps calls (the first of ``section_opens`` and
``section_closes``, the spelling the model itself writes). What templates do differently beyond
the tags is declared in `XmlCallStyle`: what follows each opener to close the tag, how a value
is written, what stands between tags, whether each call has its own section, and how the
content joins the calls.

    <tool_call>                 the section (once, or around each call; none in GLM)
    <function=get_weather>      tags.call_open + style.call_header
    <parameter=city>            tags.param_open + style.param_header, [gap, tags.value_open]
    Paris                       style.value(v), framed by style.value_framing
    </parameter>                tags.param_close, then the gap
    </function>                 tags.call_close
    </tool_call>

Chat templates write names and values raw, never escaped. Most text reads back exactly, since
the shared reader (`_xmlparams`) takes a value close tag as structural only when the next tag
follows it. A few values cannot be written unambiguously in these formats at all: a string
holding the value close tag followed by the next tag (``</parameter>\\n</function>``), a name
the tag grammar does not read, a value whose edge newlines the reader would take as framing
(the reader drops one newline at each end of every value).
The writer judges that with the reader's own rules (`XmlTags.parse_tag`, `look_ahead`,
`strip_value_newlines`) and raises ValueError rather than write text that parses differently.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .._coerce import strip_value_newlines
from .._models import ToolCall
from ._template_json import tojson
from ._xmlparams import OTHER, XmlTags, look_ahead

__all__ = [
    "XmlCallStyle", "checked_tag", "checked_value", "jinja_string", "json_unless_string",
    "render_xml_calls",
]  # fmt: skip


def jinja_string(value: Any) -> str:
    """Jinja's ``| string`` on a Python value: ``True``, ``None``, ``['a']`` (Python's str)."""
    return value if isinstance(value, str) else str(value)


def json_unless_string(value: Any) -> str:
    """``v | tojson if v is not string else v``: how GLM, MiniMax-M2 and DSML write a value."""
    return value if isinstance(value, str) else tojson(value)


@dataclass(frozen=True)
class XmlCallStyle:
    """How one chat template writes XML-parameter calls with the tags of its format."""

    tags: XmlTags
    """The format's tags, as its reader reads them."""
    call_header: str
    """What follows ``tags.call_open`` to finish the call's open tag; ``{name}`` is the name
    (``{name}>``, `` name="{name}">``; GLM: ``{name}``, the name runs up to the next tag)."""
    param_header: str
    """What follows ``tags.param_open`` to finish a parameter's tag; ``{name}`` is the key and
    ``{string}`` is ``true`` for a value written as it is, ``false`` for one written as JSON
    (DSML's ``string`` attribute)."""
    value: Callable[[Any], str]
    """A value as the template writes it (`json_unless_string`, or Qwen3-Coder's)."""
    gap: str = "\n"
    """What the template writes between tags (GLM-4.7: nothing), between calls, and after the
    section's open tag."""
    value_framing: str = ""
    """What the template writes on each side of every value (Qwen3-Coder: a newline)."""
    section_per_call: bool = False
    """Each call in a section of its own (Qwen3-Coder), or all the calls in one."""
    content_separator: str = "\n"
    """Between the content and the calls."""
    strip_content: bool = False
    """The template trims the content (Qwen3-Coder, GLM)."""
    slip_starts: tuple[str, ...] = ()
    """Starts of a call's header that its reader takes for another shape (GLM: ``{`` opens a
    Hermes JSON call): a name beginning so, after blanks, is refused."""

    def call_tag(self, name: str) -> str:
        """The call's open tag, provided the format's grammar reads `name` back from it."""
        if self.slip_starts and name.lstrip(" \t\r\n").startswith(self.slip_starts):
            raise ValueError(f"the call name {name!r} would be read as another shape of call")
        written = self.tags.call_open + self.call_header.format(name=name)
        # A header without its own end (GLM's) runs up to the next tag: the reader sees both.
        return checked_tag(self.tags, "call", name, written, self.gap + self.tags.call_close)

    def param_tag(self, key: str, string: str = "true") -> str:
        """A parameter's tag, provided the format's grammar reads `key` back from it."""
        written = self.tags.param_open + self.param_header.format(name=key, string=string)
        return checked_tag(self.tags, "param", key, written)

    def parameter(self, tag: str, written: str) -> str:
        """A parameter from its tag and its value as written, closed; unchecked (examples)."""
        value_open = self.gap + self.tags.value_open if self.tags.value_open else ""
        return f"{tag}{value_open}{written}{self.tags.param_close}"


def render_xml_calls(style: XmlCallStyle, calls: Sequence[ToolCall], content: str) -> str:
    """An assistant turn in an XML-family format: `content`, then `calls`, as written by the
    template `style` describes."""
    written = [_call(style, call) for call in calls]
    tags, gap = style.tags, style.gap
    if not tags.section_opens:
        blocks = written
    else:
        opened, closed = tags.section_opens[0] + gap, tags.section_closes[0]
        if style.section_per_call:
            blocks = [f"{opened}{call}{gap}{closed}" for call in written]
        else:
            blocks = [opened + "".join(call + gap for call in written) + closed]
    prose = content.strip() if style.strip_content else content
    if not prose:
        return gap.join(blocks)
    if not blocks and not tags.section_opens:  # no calls, no section (GLM): the content alone
        return prose
    return prose + style.content_separator + gap.join(blocks)


def _call(style: XmlCallStyle, call: ToolCall) -> str:
    parameters = "".join(
        _parameter(style, key, value) + style.gap for key, value in call.arguments.items()
    )
    return f"{style.call_tag(call.name)}{style.gap}{parameters}{style.tags.call_close}"


def _parameter(style: XmlCallStyle, key: str, value: Any) -> str:
    is_string = isinstance(value, str)
    tag = style.param_tag(key, "true" if is_string else "false")
    framing = style.value_framing
    return style.parameter(tag, checked_value(style.tags, key, style.value(value), framing=framing))


def checked_tag(tags: XmlTags, kind: str, name: str, written: str, following: str = "") -> str:
    """`written`, an open tag of `kind` ("call" or "param"), provided the reader reads `name`
    back from it where `following` comes next: the tag ends where the reader's header end
    pattern first matches, within its length and characters (`XmlCallReader._find_header`),
    and the format's grammar reads that text."""
    if kind == "call":
        opener, end, chars = tags.call_open, tags.call_header_end, tags.call_header_chars
    else:
        opener, end, chars = tags.param_open, tags.param_header_end, None
    text, start = written + following, len(opener)
    found = end.search(text, start) if text.startswith(opener) else None
    fits = found is not None and found.end() - start <= tags.max_header and (
        (chars or tags.header_chars).fullmatch(text, start, found.start()) is not None)
    tag = tags.parse_tag(text[: found.end()]) if fits and found is not None else None
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
