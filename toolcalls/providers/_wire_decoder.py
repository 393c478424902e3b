"""`WireDecoder`: a provider's raw stream, SSE or NDJSON text or bytes split anywhere, as the
JSON object of each event, for `toolcalls.read_stream` (`toolcalls.providers._stream_reader`)."""

from __future__ import annotations

import codecs
import json
import re

from ..parsing._models import ParseIssue
from ..parsing.issues import IssueKind
from ._fields import Json

__all__ = ["Decoded", "WireDecoder"]

Decoded = Json | ParseIssue
"""What the decoder gives, in the stream's order: each event's JSON object, and an issue for
each line or event it could not read."""

_BREAK = re.compile(r"\r\n|\r|\n")
"""A line ends at CRLF, LF or a lone CR (the SSE spec allows all three)."""
_NO_JSON_FIELDS = ("", "event", "id", "retry")
"""SSE fields that carry no JSON ("" is a comment line, one that starts with ``:``)."""
_LINE_STARTS = ("data:", "event:", "id:", "retry:")
"""How a line of ``iter_lines()`` starts, where a piece that goes on a line does not."""
_EXCERPT = 50
"""An issue quotes what it did not read by its first and last characters."""


class WireDecoder:
    """Raw SSE or NDJSON, in pieces split anywhere (inside a line, a UTF-8 character, CRLF):
    the JSON object of each event, and in its place an issue for whatever cannot be read.

    SSE, as the WHATWG spec reads it: lines end at CRLF, LF or CR; a U+FEFF (byte order mark)
    that starts a line is dropped; a ``data:`` line that is a whole JSON object is one event at
    once; data split over several ``data:`` lines is joined by newlines and read at the blank
    line that ends the event (or at `finish`: unlike a browser, a last event without its blank
    line is read); ``event:``, ``id:``, ``retry:`` lines, comments (``:``), ``data: [DONE]`` and
    empty data carry no JSON. NDJSON: a line that starts with ``{`` is one object. A line or
    event that is neither (not JSON, not an object, a field of another name) is an
    ``unread_stream_data`` issue; what the stream ends inside and cannot be read, a
    ``truncated_stream`` one; bytes that are not UTF-8 are read as U+FFFD, with an
    ``invalid_utf8`` issue naming the first (given at `finish`, so that where the pieces were
    split does not move it among the others).

    SSE ``event: error`` (Anthropic's, and any server's) is the provider's error whatever its
    data: an object that is not the error itself is given as ``{"error": object}``, text or
    nothing as ``{"error": {"message": text}}``, so the stream readers report it as they
    report an error object.

    Lines without their line break (what ``iter_lines()`` gives, blank lines as ``""``) work
    too, until a piece holds a line break (then pieces are split anywhere, and an empty one is
    nothing). A piece that starts a line and is whole already (a blank, a ``data:`` line or a
    line that is a JSON object that decodes, ``data: [DONE]``) is read at once; any other is
    held as the start of a line. While one is held, a piece shaped like a line of its own (a
    ``data:``, ``event:``, ``id:`` or ``retry:`` field, an object that decodes) ends it, so a
    line that cannot be read does not swallow the lines after it, and an empty piece is a blank
    line if such a piece follows it. (A stream split anywhere whose first line is longer than
    a piece, and cut right before such a shape, is read as two lines there: an issue says so.)

    Work is linear in the input however it is split: the pieces of a line still arriving are
    kept in a list and joined once, and line breaks are looked for in each piece as it comes
    (`scanned` counts the characters looked at, a few times the input).
    """

    __slots__ = ("_blank", "_bytes_in", "_data", "_decoder", "_event", "_event_read",
                 "_invalid", "_pending", "_raw", "_skip", "scanned")

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")("strict")
        self._bytes_in = 0
        """Bytes decoded so far: where the next piece starts (for the ``invalid_utf8`` issue)."""
        self._pending: list[str] = []
        """The pieces of the line still arriving (joined once it ends)."""
        self._data: list[str] = []
        """The ``data:`` values of the SSE event being read."""
        self._event = ""
        """The ``event:`` type of the SSE event being read."""
        self._event_read = False
        """Whether the SSE event being read gave its object already (a whole ``data:`` line)."""
        self._raw = False
        """Whether a piece held a line break: pieces are then split anywhere."""
        self._blank = False
        """Whether an empty piece came while a line was held (before any line break): a blank
        line if the next piece starts a line of its own, else nothing."""
        self._skip = ""
        """What, first in the next piece, ends a line already read: ``"\\n"`` after a CR (a
        CRLF split between pieces), ``"break"`` after a line read without its break."""
        self._invalid = ""
        """What the ``invalid_utf8`` issue says of the first invalid byte, if one came."""
        self.scanned = 0

    def feed(self, chunk: str | bytes | bytearray) -> list[Decoded]:
        found: list[Decoded] = []
        if isinstance(chunk, str):
            text = self._flush_bytes() + chunk if self._bytes_in else chunk
        else:
            text = self._decode(bytes(chunk), final=False)
        self.scanned += len(text)
        if "\n" in text or "\r" in text:
            self._raw = True
            self._blank = False  # an empty piece before this one was nothing
            self._lines(self._after_break(text) if self._skip else text, found)
        elif text:
            self._skip = ""
            if self._raw:
                self._pending.append(text)
            else:
                self._piece(text, found)
        elif not chunk and not self._raw:  # a blank line of iter_lines(); else nothing
            self._piece(text, found)
        return found

    def finish(self) -> list[Decoded]:
        """The end of the stream: read the line and the event it ended inside."""
        found: list[Decoded] = []
        tail = self._flush_bytes()
        if tail:
            self._pending.append(tail)
        if self._invalid:
            found.append(ParseIssue(kind="invalid_utf8", message=self._invalid, span=None))
        if self._pending:
            line = self._joined()
            if not self._read_last(line, found):
                found.append(ParseIssue(kind="truncated_stream", span=None, message=_unread(
                    "the stream ended inside a line (cut off?)", line)))
        self._end_event(found, cut_off=True)
        return found

    # -- bytes to text ------------------------------------------------------------------------

    def _decode(self, chunk: bytes, final: bool) -> str:
        try:
            text = self._decoder.decode(chunk, final)
        except UnicodeDecodeError as error:  # the decoder kept its state: decode again
            held = len(self._decoder.getstate()[0])  # an unfinished sequence from before
            offset = self._bytes_in - held + error.start
            self._invalid = (f"the stream is not valid UTF-8 (byte "
                             f"0x{error.object[error.start]:02x} at offset {offset}): each "
                             "invalid sequence is read as U+FFFD")
            self._decoder.errors = "replace"
            text = self._decoder.decode(chunk, final)
        self._bytes_in += len(chunk)
        return text

    def _flush_bytes(self) -> str:
        """An unfinished UTF-8 sequence the last bytes left, ended (as U+FFFD): text comes
        next, or the end."""
        return self._decode(b"", final=True) if self._decoder.getstate()[0] else ""

    # -- text to lines ------------------------------------------------------------------------

    def _after_break(self, text: str) -> str:
        """`text` without the line break, first in it, that ends a line already read."""
        skip, self._skip = self._skip, ""
        if skip == "\n":
            return text[1:] if text.startswith("\n") else text
        if skip and text.startswith("\r\n"):
            return text[2:]
        if skip and text[0] in "\r\n":
            if text == "\r":
                self._skip = "\n"
            return text[1:]
        return text

    def _lines(self, text: str, found: list[Decoded]) -> None:
        """A piece that holds line breaks: every line it ends read, the rest held."""
        parts = _BREAK.split(text) if "\r" in text else text.split("\n")
        if self._pending:
            self._pending.append(parts[0])
            parts[0] = self._joined()
        for line in parts[:-1]:
            self._line(line, found)
        if parts[-1]:
            self._pending.append(parts[-1])
        if text.endswith("\r"):
            self._skip = "\n"

    def _piece(self, text: str, found: list[Decoded]) -> None:
        """A piece without a line break, before any came: a whole line, or part of one."""
        if self._pending:
            if not text:  # a blank line of iter_lines(), or nothing: the next piece tells
                self._blank = True
                return
            if not self._starts_line(text):
                self._blank = False
                self._pending.append(text)
                return
            self._line(self._joined(), found)  # a line of its own that could not be read
            self._end_blank(found)
        if not self._whole_line(text.removeprefix("\ufeff"), found):
            self._pending.append(text)
        elif text:
            self._skip = "break"

    def _end_blank(self, found: list[Decoded]) -> None:
        """The empty piece that came after a held line was a blank line: the event ends."""
        if self._blank:
            self._blank = False
            self._end_event(found)

    def _joined(self) -> str:
        line = "".join(self._pending)
        self._pending = []
        self.scanned += len(line)
        return line

    def _starts_line(self, text: str) -> bool:
        """Whether `text`, while part of a line is held, is a line of its own (as
        ``iter_lines()`` gives them) rather than what follows."""
        text = text.removeprefix("\ufeff")
        if not text or text.startswith(_LINE_STARTS):
            return True
        return text.startswith("{") and self._loads(text) is not None

    def _whole_line(self, text: str, found: list[Decoded]) -> bool:
        """Read `text` (no line break, at the start of a line) if it is a whole line already:
        a blank, ``data: [DONE]``, an object that decodes. Other lines (a field that carries
        no JSON too) are held until the next piece says where they end."""
        if not text:
            self._end_event(found)
            return True
        field, value = _field(text)
        if field == "data" and value.strip() == "[DONE]":
            return True
        if field == "data":
            return not self._data and value.startswith("{") and self._data_object(value, found)
        return text.startswith("{") and self._object(text, found)

    def _read_last(self, line: str, found: list[Decoded]) -> bool:
        """The line the stream ended inside, read if it is whole; False if it cannot be."""
        line = line.removeprefix("\ufeff")
        field, value = _field(line)
        if line.startswith("{"):
            self._end_event(found)
            return self._object(line, found)
        if field == "data" and not self._data and value.startswith("{"):
            return self._data_object(value, found)
        if field == "data" or field in _NO_JSON_FIELDS:
            self._line(line, found)
            return True
        return False

    # -- lines to events ----------------------------------------------------------------------

    def _line(self, line: str, found: list[Decoded]) -> None:
        if line.startswith("data: {") and not self._data and self._event != "error" and (
                self._object(line[6:], found)):  # the common case, first: one whole object
            self._event_read = True
            return
        line = line.removeprefix("\ufeff")
        if not line:
            self._end_event(found)
        elif line.startswith("{"):  # NDJSON
            self._end_event(found)
            if not self._object(line, found):
                found.append(ParseIssue(kind="unread_stream_data", span=None, message=_unread(
                    "a line of the stream is not a JSON object", line)))
        else:
            field, value = _field(line)
            if field == "data":
                if self._data or not value.startswith("{") or not self._data_object(value,
                                                                                    found):
                    self._data.append(value)  # not a whole object: the event goes on
            elif field == "event":
                self._event = value
            elif field not in _NO_JSON_FIELDS:
                found.append(ParseIssue(kind="unread_stream_data", span=None, message=_unread(
                    "a line of the stream is neither an SSE field nor a JSON object", line)))

    def _end_event(self, found: list[Decoded], cut_off: bool = False) -> None:
        """A blank line, a new NDJSON object or the end: the SSE event being read is read.
        An ``event: error`` whose data is not an object is still the provider's error: its
        text (or its absence) as the ``error`` the stream readers know."""
        if not self._data and not self._event:  # the common case: nothing held
            self._event_read = False
            return
        data = "\n".join(self._data)
        self._data = []
        error = self._event == "error" and not self._event_read
        if data and not _blank(data) and self._data_object(data, found):
            error = False
        elif error:
            found.append({"error": {"message": data.strip() or "an SSE error event, empty"}})
        elif data and not _blank(data):
            kind: IssueKind = "truncated_stream" if cut_off else "unread_stream_data"
            what = ("the stream ended inside an SSE event (cut off?)" if cut_off
                    else "an SSE event's data is not a JSON object")
            found.append(ParseIssue(kind=kind, span=None, message=_unread(what, data)))
        self._event, self._event_read = "", False

    def _data_object(self, text: str, found: list[Decoded]) -> bool:
        """`_object` for the data of an SSE event: under ``event: error``, an object that is
        not the error itself is the error's body."""
        value = self._loads(text)
        if value is None:
            return False
        self._event_read = True
        found.append({"error": value} if self._event == "error" and "error" not in value
                     else value)
        return True

    def _object(self, text: str, found: list[Decoded]) -> bool:
        """Add the JSON object `text` holds to `found`; False if it holds none."""
        value = self._loads(text)
        if value is not None:
            found.append(value)
        return value is not None

    def _loads(self, text: str) -> Json | None:
        """The JSON object `text` holds, or None."""
        self.scanned += len(text)
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):  # RecursionError: nested too deep for json
            return None
        return value if isinstance(value, dict) else None


def _field(line: str) -> tuple[str, str]:
    """An SSE line's field name and value (one space after the colon is not part of it; a
    line without a colon is a field with an empty value)."""
    name, colon, value = line.partition(":")
    return name, value[1:] if value.startswith(" ") else value


def _unread(what: str, text: str) -> str:
    """An issue's message: what was not read, its length, its first and last characters."""
    excerpt = text if len(text) <= 2 * _EXCERPT else f"{text[:_EXCERPT]}…{text[-_EXCERPT:]}"
    return f"{what}: not read ({len(text)} characters: {excerpt!r})"


def _blank(data: str) -> bool:
    """Data that carries no JSON: none, blank, or the ``[DONE]`` that ends OpenAI streams."""
    stripped = data.strip()
    return not stripped or stripped == "[DONE]"
