"""The argument syntax of Gemma's tool calls: JSON-like values with a special-token string quote.

Gemma 4 and FunctionGemma write a call's arguments as an object whose keys are bare and whose
strings stand between two copies of one special token (``<|"|>`` in Gemma 4, ``<escape>`` in
FunctionGemma), with nothing escaped inside::

    {city:<|"|>Paris<|"|>,days:3,units:[<|"|>C<|"|>],opts:{verbose:false},note:null}

Numbers (and ``108.``), ``true``, ``false`` and ``null`` are JSON's. A key is the text up to
its ``:`` (no ``}``), or a quoted string (the chat templates quote the keys of nested objects in
tool declarations). Blanks are allowed around the punctuation, as llama.cpp's grammar allows them.

`parse_object` reads one complete object; `ObjectScanner` finds where one ends in text that
arrives in pieces, so a reader knows when to parse. Both read the same syntax: a brace or a
bracket counts outside strings only.
"""

from __future__ import annotations

import re
from typing import Any, Final

from .._json import finite_float
from .._text import BLANKS, skip_blanks

__all__ = ["ObjectScanner", "parse_object", "write_key", "write_value"]

# JSON's numbers, and a float cut after its point (``108.``), which vLLM's tests read as 108.0.
_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]*)?([eE][-+]?[0-9]+)?")
_CONSTANTS: Final[dict[str, Any]] = {"true": True, "false": False, "null": None}
MAX_DEPTH: Final = 200
"""Deeper arguments are refused, as in JSON (`toolcalls.parsing._json.MAX_DEPTH`)."""


class _Parser:
    """A recursive descent over one object's text; raises ValueError where it does not read."""

    def __init__(self, text: str, quote: str) -> None:
        self.text = text
        self.quote = quote
        self.pos = 0

    def value(self, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise ValueError("arguments nested too deep")
        text, pos = self.text, self.pos
        if text.startswith(self.quote, pos):
            return self.string()
        char = text[pos : pos + 1]
        if char == "{":
            return self.members(depth + 1)
        if char == "[":
            return self.items(depth + 1)
        for word, constant in _CONSTANTS.items():
            if text.startswith(word, pos):
                self.pos = pos + len(word)
                return constant
        found = _NUMBER.match(text, pos)
        if found is None:
            raise ValueError(f"no value at {pos}: {text[pos : pos + 20]!r}")
        self.pos = found.end()
        literal = found.group()
        return int(literal) if found.group(1) is None and found.group(2) is None else (
            finite_float(literal))

    def string(self) -> str:
        start = self.pos + len(self.quote)
        end = self.text.find(self.quote, start)
        if end < 0:
            raise ValueError(f"a string without its closing {self.quote!r}")
        self.pos = end + len(self.quote)
        return self.text[start:end]

    def members(self, depth: int) -> dict[str, Any]:
        found: dict[str, Any] = {}
        self.pos = skip_blanks(self.text, self.pos + 1)
        if self.text.startswith("}", self.pos):
            self.pos += 1
            return found
        while True:
            key = self.key()
            self.pos = skip_blanks(self.text, self.pos)
            value = self.value(depth)
            found.setdefault(key, value)  # a repeated key keeps its first value, as elsewhere
            if self.punctuation("}"):
                return found

    def items(self, depth: int) -> list[Any]:
        found: list[Any] = []
        self.pos = skip_blanks(self.text, self.pos + 1)
        if self.text.startswith("]", self.pos):
            self.pos += 1
            return found
        while True:
            found.append(self.value(depth))
            if self.punctuation("]"):
                return found

    def key(self) -> str:
        if self.text.startswith(self.quote, self.pos):
            key = self.string()
        else:
            end = self.text.find(":", self.pos)
            if end < 0 or "}" in self.text[self.pos : end]:
                raise ValueError(f"a key without its ':' at {self.pos}")
            key, self.pos = self.text[self.pos : end].strip(BLANKS), end
        if not self.text.startswith(":", self.pos):
            raise ValueError(f"a key without its ':' at {self.pos}")
        self.pos += 1
        return key

    def punctuation(self, close: str) -> bool:
        """After a member or an item: True at `close`, False after a comma."""
        self.pos = skip_blanks(self.text, self.pos)
        char = self.text[self.pos : self.pos + 1]
        if char == close:
            self.pos += 1
            return True
        if char != ",":
            raise ValueError(f"expected ',' or {close!r} at {self.pos}")
        self.pos = skip_blanks(self.text, self.pos + 1)
        return False


def parse_object(text: str, quote: str) -> dict[str, Any]:
    """The arguments object `text` (``{...}``, nothing after it); ValueError if it is none."""
    parser = _Parser(text, quote)
    if not text.startswith("{"):
        raise ValueError("arguments do not start with '{'")
    found = parser.members(1)
    if parser.pos != len(text):
        raise ValueError(f"text after the arguments at {parser.pos}")
    return found


class ObjectScanner:
    """Finds where an object that starts at a given offset ends, in text arriving in pieces.

    Offsets are absolute (in the whole response), so the reader's buffer may move between
    calls. `scan` resumes where it stopped: each character is looked at once.
    """

    def __init__(self, quote: str, start: int, stops: tuple[str, ...]) -> None:
        self.quote = quote
        self.stops = stops
        """Markers that end the block whatever the nesting (the call's close tag): outside a
        string, meeting one means the object was cut off."""
        self.next = start
        self.depth = 0
        self.in_string = False

    def scan(self, buf: str, off: int) -> int:
        """Absolute end of the object (after its ``}``), ``-1`` when more text is needed, or
        ``-2 - at`` when a stop marker stands at absolute offset ``at`` first."""
        i, end, quote = self.next - off, len(buf), self.quote
        while i < end:
            if self.in_string:
                found = buf.find(quote, i)
                if found < 0:
                    i = max(i, end - len(quote) + 1)  # the tail may begin the closing quote
                    break
                i, self.in_string = found + len(quote), False
                continue
            char = buf[i]
            if char == "<":
                if buf.startswith(quote, i):
                    i, self.in_string = i + len(quote), True
                    continue
                stop = self._stop_at(buf, i)
                if stop is None:
                    break  # a marker may be cut at the end of the text: wait
                if stop:
                    self.next = off + i
                    return -2 - (off + i)
            elif char == "{" or char == "[":
                self.depth += 1
            elif char == "}" or char == "]":
                self.depth -= 1
                if self.depth <= 0:
                    self.next = off + i + 1
                    return off + i + 1
            i += 1
        self.next = off + i
        return -1

    def _stop_at(self, buf: str, i: int) -> bool | None:
        """Whether a stop marker starts at `i`; None while the text may yet become one."""
        tail = buf[i : i + len(self.quote)]
        if len(buf) - i < len(self.quote) and self.quote.startswith(tail):
            return None
        for stop in self.stops:
            if buf.startswith(stop, i):
                return True
            if len(buf) - i < len(stop) and stop.startswith(buf[i:]):
                return None
        return False


_NOT_BARE: Final = re.compile(r"[:,{}\[\]<]|\A[ \t\r\n]|[ \t\r\n]\Z|\A\Z")
"""What a key written bare would not read back with (punctuation, blanks at its ends, nothing):
such a key is written quoted."""


def write_value(value: Any, quote: str) -> str:
    """`value` as the chat templates write an argument: keys bare (quoted when a bare key would
    not read back) and ordered as ``dictsort`` orders them. ValueError for a string holding the
    quote token, which no quoting can write."""
    if isinstance(value, str):
        if quote in value:
            raise ValueError(f"a string holding {quote!r} cannot be written in this format")
        return quote + value + quote
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, dict):
        keys = sorted(value, key=str.lower)  # dictsort: case-insensitive, stable
        members = (f"{write_key(key, quote)}:{write_value(value[key], quote)}" for key in keys)
        return "{" + ",".join(members) + "}"
    if isinstance(value, list):
        return "[" + ",".join(write_value(item, quote) for item in value) + "]"
    return repr(value) if isinstance(value, float) else str(value)


def write_key(key: str, quote: str) -> str:
    """An object's key: bare where it reads back so, else quoted."""
    return write_value(key, quote) if _NOT_BARE.search(key) else key
