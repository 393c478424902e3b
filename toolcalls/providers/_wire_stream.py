"""`WireDecoder`: a provider's raw stream, SSE or NDJSON text or bytes split anywhere, as the
JSON object of each event, for `toolcalls.read_stream` (`toolcalls.providers._stream`)."""

from __future__ import annotations

import codecs

from ._reading import Json, load_json

__all__ = ["WireDecoder"]


class WireDecoder:
    """Raw SSE or NDJSON, in pieces split anywhere (inside a line, a UTF-8 character, CRLF):
    the JSON object of each event.

    SSE: a ``data:`` line that is a whole JSON object is one event at once; data split over
    several ``data:`` lines is joined by newlines and read at the blank line that ends the
    event (or at `finish`); ``event:``, ``id:``, ``retry:`` lines, comments (``:``) and
    ``data: [DONE]`` carry no JSON. NDJSON: a line that starts with ``{`` is one object. A line
    that is neither is kept in `unread`.

    Lines without their newline (what ``iter_lines()`` gives, blank lines as ``""``) work too:
    a piece with no newline that starts a line and is a whole line already (a ``data:`` line or
    an object that decodes, ``[DONE]``, a line that carries no JSON, a blank) is read at once;
    any other is held as the start of a line.
    """

    __slots__ = ("_data", "_decoder", "_tail", "unread")

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._tail = ""
        self._data: list[str] = []
        self.unread: list[str] = []

    def feed(self, chunk: str | bytes | bytearray) -> list[Json]:
        text = chunk if isinstance(chunk, str) else self._decoder.decode(bytes(chunk))
        if "\n" not in text:
            found: list[Json] = []
            if self._tail or not self._whole_line(text.removesuffix("\r"), found):
                self._tail += text
            return found
        lines = (self._tail + text).split("\n")
        self._tail = lines.pop()
        found = []
        for line in lines:
            self._line(line.removesuffix("\r"), found)
        return found

    def finish(self) -> list[Json]:
        found: list[Json] = []
        tail = self._tail + self._decoder.decode(b"", final=True)
        self._tail = ""
        if tail:
            self._line(tail.removesuffix("\r"), found)
        self._dispatch(found)
        return found

    def _whole_line(self, text: str, found: list[Json]) -> bool:
        """Read `text` (no newline, at the start of a line) if it is a whole line already."""
        if not text or text.startswith((":", "event:", "id:", "retry:")):
            self._line(text, found)
            return True
        payload = _data(text) if text.startswith("data:") else text
        if payload.strip() == "[DONE]":
            return True
        if self._data or not payload.startswith("{"):
            return False
        try:
            value = load_json(payload)
        except ValueError:
            return False  # a line still arriving
        if isinstance(value, dict):
            found.append(value)
        return True

    def _line(self, line: str, found: list[Json]) -> None:
        if not line:
            self._dispatch(found)
        elif line.startswith("data:"):
            payload = _data(line)
            if not self._data and payload.startswith("{"):  # the common case: one whole object
                try:
                    value = load_json(payload)
                except ValueError:
                    pass
                else:
                    if isinstance(value, dict):
                        found.append(value)
                        return
            self._data.append(payload)
        elif line.startswith("{"):
            self._dispatch(found)
            self._decode(line, found)
        elif not line.startswith((":", "event:", "id:", "retry:")):
            self.unread.append(line)

    def _dispatch(self, found: list[Json]) -> None:
        if self._data:
            data = "\n".join(self._data)
            self._data = []
            if data.strip() != "[DONE]":
                self._decode(data, found)

    def _decode(self, text: str, found: list[Json]) -> None:
        try:
            value = load_json(text)
        except ValueError:
            self.unread.append(text)
            return
        if isinstance(value, dict):
            found.append(value)
        else:
            self.unread.append(text)


def _data(line: str) -> str:
    """The payload of a ``data:`` line (one space after the colon is not part of it)."""
    return line[6:] if line.startswith("data: ") else line[5:]
