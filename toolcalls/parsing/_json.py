"""Incremental JSON: read one JSON value from text that arrives in pieces.

`JsonReader` consumes a JSON value across any number of `feed` calls, never re-reading what it
has consumed, and emits the *arguments* part of it as canonical JSON fragments
(``json.dumps(..., ensure_ascii=False)`` spelling: ``", "`` and ``": "`` separators) while it
arrives. String contents stream character by character; numbers, literals and keys are emitted
only once final, so no emitted fragment ever needs rewriting. The fragments concatenate to text
that `json.loads` turns into exactly the value read.

When the whole value is already in the buffer, `json.JSONDecoder.raw_decode` (C) reads it in one
step: that is the batch fast path, and it accepts exactly what the incremental path accepts.

Arguments are strict JSON, values every JSON encoder and UTF-8 can write back: ``NaN``,
``Infinity``, ``-Infinity``, numbers that overflow a double (``1e400``), an escaped lone
surrogate (``"\\ud800"``, ``"\\udc00"``), a ``\\u`` not followed by four hex digits and
nesting deeper than `MAX_DEPTH` are syntax errors: the reader stops there with an `error`, and
the formats make the call incomplete with an ``invalid_arguments`` issue, as for any other
malformed JSON. `loads` applies the same rules to JSON found elsewhere (arguments sent as a
JSON string, typed XML values).
"""

from __future__ import annotations

import json
import math
import re
import threading
from collections.abc import Callable, Iterable
from json.encoder import encode_basestring  # C; what dumps uses for a str (ensure_ascii=False)
from typing import Any, Final

from ._text import TextBuilder, skip_blanks

__all__ = [
    "JsonReader", "FirstWins", "canonical", "string_body", "loads", "DECODER", "MAX_DEPTH",
    "SURROGATE", "deeper_than",
]


def finite_float(literal: str) -> float:
    """A JSON number as a float; ValueError when it overflows a double (``1e400``)."""
    value = float(literal)
    if not math.isfinite(value):
        raise ValueError(f"{literal} overflows a double")
    return value


def _no_constant(literal: str) -> Any:
    raise ValueError(f"{literal} is not JSON")


DECODER = json.JSONDecoder(strict=False, parse_float=finite_float, parse_constant=_no_constant)
"""Lenient about raw control characters inside strings, as models emit them; strict about
numbers (no NaN, no Infinity, no overflow)."""
_STRICT_DECODER: Final = json.JSONDecoder(parse_float=finite_float, parse_constant=_no_constant)
"""`loads`: strict about raw control characters as well, as `json.loads` is."""
_SCAN: Final[Callable[[str, int], tuple[Any, int]]] = DECODER.scan_once  # type: ignore[attr-defined]
"""`DECODER.raw_decode` without its Python frame around the C scanner (-0.1 µs a value; it
raises StopIteration where raw_decode raises a ValueError)."""

_PLAIN: Final = re.compile(r'[^"\\]+')
_HEX4: Final = re.compile(r"[0-9a-fA-F]{4}")
"""What follows ``\\u``: exactly four hex digits (``int(..., 16)`` also takes ``-12``, `` 12a``
and ``1_23``, which JSON does not)."""
SURROGATE: Final = re.compile(r"[\ud800-\udfff]")
"""A surrogate code point: no UTF-8 encoder writes one on its own (a raw string: mypyc takes
no surrogate in a literal)."""
_LOW_SURROGATE: Final = re.compile(r"\\u[dD][c-fC-F][0-9a-fA-F]{2}")
_LOW_SURROGATE_START: Final = re.compile(r"(\\(u([dD]([c-fC-F][0-9a-fA-F]{0,2})?)?)?)?")
"""What may still become a low surrogate escape when more text comes."""
_SCALAR = re.compile(r"[-+0-9.eE]+|true|false|null|NaN|-?Infinity")
_SCALAR_CHARS = re.compile(r"[-+0-9.eEtruefalsnNIiy]*")
_ESCAPES: Final = {
    '"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
}
MAX_DEPTH: Final = 200
"""Deeper JSON is refused: such arguments are hostile, and would break serializers later."""


_ENCODER: Final = json.JSONEncoder(ensure_ascii=False)
"""What ``json.dumps(value, ensure_ascii=False)`` builds on every call, built once (saves ~1 µs
a call, a tenth of a short batch parse)."""


def canonical(value: Any) -> str:
    """The one serializer used for streamed and final arguments."""
    return _ENCODER.encode(value)


def string_body(text: str) -> str:
    """``canonical(text)`` without its quotes: a piece of a streamed string value."""
    return encode_basestring(text)[1:-1]


class FirstWins(dict[str, Any]):
    """Top-level members of an envelope where a repeated key keeps its first value: the one a
    stream has already committed to (a call's name, its arguments), so any chunking agrees."""

    def __setitem__(self, key: str, value: Any) -> None:
        if key not in self:
            super().__setitem__(key, value)


class _EnvelopeDecoder:
    """`DECODER` that also keeps the members of the last object it read, in text order.

    The outermost object closes last, so after `scan` of an object `pairs` are its
    members, a repeated key as often as it was written. The decoder's own object (where the
    last of a repeated key wins) is the value; `FirstWins` of the pairs is what a stream
    commits to. All in C but the hook: 1.3 µs for a short Hermes body, against 3.9 µs when
    each member was scanned on its own. One per thread: `pairs` is the hook's scratch space.
    """

    def __init__(self) -> None:
        self.pairs: list[tuple[str, Any]] = []
        decoder = json.JSONDecoder(strict=False, object_pairs_hook=self._keep,
                                   parse_float=finite_float, parse_constant=_no_constant)
        self.scan: Callable[[str, int], tuple[Any, int]] = decoder.scan_once  # type: ignore[attr-defined]

    def _keep(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        self.pairs = pairs
        return dict(pairs)


_PER_THREAD: Final = threading.local()


def _envelope_decoder() -> _EnvelopeDecoder:
    try:
        decoder: _EnvelopeDecoder = _PER_THREAD.envelope
    except AttributeError:
        decoder = _PER_THREAD.envelope = _EnvelopeDecoder()
    return decoder


class _Frame:
    __slots__ = ("container", "key", "count", "emitting", "expect")

    def __init__(self, container: Any, emitting: bool) -> None:
        self.container = container
        self.key: str | None = None
        self.count = 0
        self.emitting = emitting
        # object: "key" | "colon" | "value" | "comma"; array: "value" | "comma"
        self.expect = "key" if isinstance(container, dict) else "value"


class JsonReader:
    """Reads one JSON value incrementally.

    Args:
        emit_keys: None to emit the whole value as fragments; otherwise the value must be an
            object, and only the object held by the first of these top-level keys is emitted
            (an envelope such as ``{"name": ..., "arguments": {...}}``).
    """

    def __init__(self, emit_keys: frozenset[str] | None = None) -> None:
        self.emit_keys = emit_keys
        self.fragments: list[str] = []
        self.emits = True
        """False: make no fragments for a value read whole (nobody streams them: a batch parse)."""
        self.members: dict[str, Any] = FirstWins()
        """Top-level members read so far (envelope mode), to learn a name early; a repeated
        key keeps its first value."""
        self.emitted_key: str | None = None
        self.done = False
        self.value: Any = None
        self.error: tuple[int, str] | None = None
        """(index in the buffer, message) of the first syntax error."""
        self._stack: list[_Frame] = []
        self._started = False
        self._string: TextBuilder | None = None  # the decoded text of the string being read
        self._string_emits = False

    # -- public -------------------------------------------------------------------------

    def feed(self, buf: str, i: int, eof: bool) -> int:
        """Consume from ``buf[i:]``; return the index of the first unconsumed character."""
        if not self._started:
            i = skip_blanks(buf, i)
            if i >= len(buf):
                return i
            self._started = True
            fast = self._try_whole(buf, i)
            if fast is not None:
                return fast
            self._open_value_or_fail(buf, i)
        while not self.done and self.error is None and i < len(buf):
            i = self._step(buf, i, eof)
            if i < 0:
                return -i - 1
        return i

    def take_fragments(self) -> list[str]:
        out, self.fragments = self.fragments, []
        return out

    # -- fast path ------------------------------------------------------------------------

    def _try_whole(self, buf: str, i: int) -> int | None:
        members: dict[str, Any] | None = None
        try:
            if self.emit_keys is None:
                value, end = scan_value(_SCAN, buf, i)
            else:
                decoded = _decode_members(buf, i)
                if decoded is None:
                    return None
                value, members, end = decoded
        except (ValueError, RecursionError, StopIteration):
            return None
        # Too deep needs more than MAX_DEPTH characters. Walking the value costs per container
        # and is cheap for arguments that are mostly text; counting the brackets in the text
        # cost per character (7% of a long Kimi K2 parse).
        if end - i > MAX_DEPTH and deeper_than(value, MAX_DEPTH):
            return None  # the incremental path reports the error at its exact position
        if _escaped_surrogate(buf, i, end, value):
            return None  # likewise
        self._finish(value)
        if members is None:
            self._emit_whole(value)
            return end
        self.members = members
        for key, member in members.items():
            if key in self.emit_keys and isinstance(member, dict):  # type: ignore[operator]
                self.emitted_key = key
                self._emit_whole(member)
                break
        return end

    def _emit_whole(self, value: Any) -> None:
        if self.emits:
            self.fragments.append(canonical(value))

    # -- incremental path -----------------------------------------------------------------

    def _open_value_or_fail(self, buf: str, i: int) -> None:
        if self.emit_keys is not None and buf[i] != "{":
            self.error = (i, "expected a JSON object")

    def _finish(self, value: Any) -> None:
        self.done = True
        self.value = value

    def _emitting_child(self, opener: str) -> bool:
        """Whether the value about to start (with character `opener`) is emitted."""
        if not self._stack:
            return self.emit_keys is None
        top = self._stack[-1]
        if top.emitting:
            return True
        return (  # the arguments object of an envelope (a string there is decoded later)
            opener == "{"
            and len(self._stack) == 1
            and self.emit_keys is not None
            and self.emitted_key is None
            and top.key in self.emit_keys
            and top.key not in self.members  # a repeated key: its first value counts
        )

    def _step(self, buf: str, i: int, eof: bool) -> int:
        """One token. Returns the next index, or ``-(i + 1)`` when more text is needed."""
        if self._string is not None:
            return self._string_step(buf, i, eof)
        i = skip_blanks(buf, i)
        if i >= len(buf):
            return -(i + 1)
        top = self._stack[-1] if self._stack else None
        expect = top.expect if top else "value"
        ch = buf[i]
        if expect == "key":
            if ch == '"':
                self._string, self._string_emits = TextBuilder(), False
                return i + 1
            if ch == "}" and top is not None and top.count == 0:
                return self._close(i, "}")
            return self._fail(i, "expected a key")
        if expect == "colon":
            if ch != ":":
                return self._fail(i, "expected ':'")
            assert top is not None
            top.expect = "value"
            return i + 1
        if expect == "comma":
            assert top is not None
            closer = "}" if isinstance(top.container, dict) else "]"
            if ch == closer:
                return self._close(i, closer)
            if ch != ",":
                return self._fail(i, f"expected ',' or '{closer}'")
            top.expect = "key" if closer == "}" else "value"
            return i + 1
        return self._value_step(buf, i, eof, top)

    def _value_step(self, buf: str, i: int, eof: bool, top: _Frame | None) -> int:
        ch = buf[i]
        if ch == "]" and top is not None and not isinstance(top.container, dict):
            if top.count == 0:
                return self._close(i, "]")
        emitting = self._emitting_child(ch)
        if ch in "{[":
            if len(self._stack) == 1 and emitting and not self._stack[0].emitting:
                self.emitted_key = self._stack[0].key
            self._emit_separator(emitting)
            if emitting:
                self.fragments.append(ch)
            if len(self._stack) >= MAX_DEPTH:
                return self._fail(i, f"nesting deeper than {MAX_DEPTH}")
            self._stack.append(_Frame({} if ch == "{" else [], emitting))
            return i + 1
        if self.emit_keys is not None and not self._stack:
            return self._fail(i, "expected a JSON object")
        if ch == '"':
            self._emit_separator(emitting)
            if emitting:
                self.fragments.append('"')
            self._string, self._string_emits = TextBuilder(), emitting
            return i + 1
        match = _SCALAR_CHARS.match(buf, i)
        end = match.end() if match else i
        if end == len(buf) and not eof:
            return -(i + 1)  # the literal may continue in the next piece
        token = buf[i:end]
        if not token or not _SCALAR.fullmatch(token):
            return self._fail(i, "expected a JSON value")
        try:
            value = json.loads(token, parse_float=finite_float, parse_constant=_no_constant)
        except ValueError:
            return self._fail(i, f"invalid number {token!r}")
        self._emit_separator(emitting)
        if emitting:
            self.fragments.append(canonical(value))
        self._store(value)
        return end

    def _emit_separator(self, emitting: bool) -> None:
        """Write ``, "key": `` or ``, `` before a value inside an emitted container."""
        top = self._stack[-1] if self._stack else None
        if top is None or not top.emitting:
            return
        sep = ", " if top.count else ""
        if isinstance(top.container, dict):
            sep += canonical(top.key) + ": "
        self.fragments.append(sep)

    def _string_step(self, buf: str, i: int, eof: bool) -> int:
        assert self._string is not None
        plain = _PLAIN.match(buf, i)
        if plain:
            self._string_piece(plain.group())
            i = plain.end()
            if i >= len(buf):
                return -(i + 1)
        if buf[i] == '"':
            return self._end_string(i + 1)
        return self._escape(buf, i, eof)

    def _escape(self, buf: str, i: int, eof: bool) -> int:
        if i + 1 >= len(buf):
            return -(i + 1)
        code = buf[i + 1]
        if code in _ESCAPES:
            self._string_piece(_ESCAPES[code])
            return i + 2
        if code != "u":
            return self._fail(i, f"invalid escape \\{code}")
        if i + 6 > len(buf):
            return -(i + 1)
        if _HEX4.fullmatch(buf, i + 2, i + 6) is None:
            return self._fail(i, "invalid \\u escape")
        point = int(buf[i + 2 : i + 6], 16)
        if 0xD800 <= point < 0xE000:
            return self._surrogate(buf, i, point, eof)
        self._string_piece(chr(point))
        return i + 6

    def _surrogate(self, buf: str, i: int, high: int, eof: bool) -> int:
        """A high surrogate escape pairs with a low one that follows: both are read together
        so the text holds the one character that json.loads makes of them. Any other is a
        lone surrogate, which no UTF-8 encoder can write: an error, not a value."""
        after = buf[i + 6 : i + 12]
        if high < 0xDC00 and _LOW_SURROGATE.fullmatch(after):
            low = int(after[2:], 16)
            self._string_piece(chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)))
            return i + 12
        if high < 0xDC00 and len(after) < 6 and not eof and _LOW_SURROGATE_START.fullmatch(after):
            return -(i + 1)  # the low half may follow in the next piece
        return self._fail(i, f"lone surrogate {buf[i : i + 6]!r}")

    def _string_piece(self, text: str) -> None:
        assert self._string is not None
        self._string.append(text)  # held about once however long the string (`TextBuilder`)
        if self._string_emits:
            self.fragments.append(string_body(text))

    def _end_string(self, i: int) -> int:
        assert self._string is not None
        text, self._string = self._string.take(), None
        top = self._stack[-1] if self._stack else None
        if top is not None and isinstance(top.container, dict) and top.expect == "key":
            top.key = text
            top.expect = "colon"
            return i
        if self._string_emits:
            self.fragments.append('"')
        self._store(text)
        return i

    def _store(self, value: Any) -> None:
        top = self._stack[-1] if self._stack else None
        if top is None:
            self._finish(value)
            return
        if isinstance(top.container, dict):
            assert top.key is not None
            top.container[top.key] = value
            if len(self._stack) == 1:
                self.members[top.key] = value
        else:
            top.container.append(value)
        top.count += 1
        top.expect = "comma"

    def _close(self, i: int, closer: str) -> int:
        frame = self._stack.pop()
        if frame.emitting:
            self.fragments.append(closer)
        self._store(frame.container)
        return i + 1

    def _fail(self, i: int, message: str) -> int:
        self.error = (i, message)
        return i


def deeper_than(value: Any, limit: int) -> bool:
    """Whether containers nest more than `limit` deep (iterative: no recursion limit)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children: Iterable[Any]
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


_SEARCH_FIRST: Final = 1024
"""Up to this many characters, looking for a ``\\u`` in the text costs less than walking."""


def _escaped_surrogate(buf: str, start: int, end: int, value: Any) -> bool:
    """Whether the value read from ``buf[start:end]`` may hold a surrogate from an escape (an
    escaped pair decodes to one character). A short text without a ``\\u`` holds none; else
    `_holds_surrogate` looks (a raw surrogate it finds too sends the text to the incremental
    path, which reads it as the fast path would: the result is the same)."""
    if end - start <= _SEARCH_FIRST and buf.find("\\u", start, end) < 0:
        return False
    return _holds_surrogate(value)


def _holds_surrogate(value: Any) -> bool:
    """Whether a string in `value` (a key or a value) holds a surrogate code point. Costs per
    container, and per character of non-ASCII strings only (an ASCII string holds none)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if not item.isascii() and not _encodable(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _encodable(text: str) -> bool:
    """Whether `text` holds no surrogate: UTF-32 refuses them, at 0.8 ns a character of CJK
    text, where UTF-8 takes 2, ``str.find`` of an escape in the text 1.4, a regex 4.6."""
    try:
        text.encode("utf-32-le")
    except UnicodeEncodeError:
        return False
    return True


def loads(text: str) -> Any:
    """`json.loads` by the reader's rules: ValueError for NaN, Infinity, a number that
    overflows a double, a lone surrogate and nesting deeper than `MAX_DEPTH` too."""
    try:
        value = _STRICT_DECODER.decode(text)
    except RecursionError:
        raise ValueError(f"nesting deeper than {MAX_DEPTH}") from None
    if deeper_than(value, MAX_DEPTH):
        raise ValueError(f"nesting deeper than {MAX_DEPTH}")
    if _holds_surrogate(value):
        raise ValueError("a lone surrogate")
    return value


_NEAR: Final = 32768
"""From this offset on, the C scanner reads a value from a copy of a window of the text. Before
it, a failed value's line count costs a few µs at most; windows (copies, and tries that cut
the value off) made a 20 KB Hermes response with 8 calls parse 25-35% slower."""
_FIRST_WINDOW: Final = 4096
"""The first window: most arguments fit, and copying 4 KB costs less than a failed try
(256, doubled: a 20 KB Hermes response with 8 calls of ~800 characters parsed 35% slower)."""
_GROWTH: Final = 8
"""How much a window grows after it cut the value off: few tries, each a C scan."""
_CUT_MARGIN: Final = 8
"""An error this close to a window's end may be the window's doing (a cut ``\\uXXXX``)."""


def scan_value(scan: Callable[[str, int], tuple[Any, int]], buf: str, i: int) -> tuple[Any, int]:
    """``scan(buf, i)`` (the C scanner), at a cost that does not grow with `i`.

    A value that fails makes a JSONDecodeError, which counts the lines of its document up to
    the error: given the whole text, that is the whole text before the value, and many values
    that fail (llama3_json's and Ollama's candidates, ``{"`` x n) were quadratic. Far into the
    text the scanner gets a copy of a window from `i` instead, which grows while it may cut
    the value off: an unterminated string, an error or a number at the window's end.
    """
    if i <= _NEAR:
        return scan(buf, i)
    size = _FIRST_WINDOW
    while True:
        piece = buf[i : i + size]
        whole = i + size >= len(buf)
        try:
            value, end = scan(piece, 0)
        except ValueError as error:  # JSONDecodeError
            if whole or not _maybe_cut(error, getattr(error, "pos", 0), len(piece)):
                raise
        except StopIteration as error:  # no value where one must start (at error.value)
            if whole or not _maybe_cut(error, error.value, len(piece)):
                raise
        else:
            if whole or end < len(piece):
                return value, i + end
        size *= _GROWTH


def _maybe_cut(error: Exception, pos: int, size: int) -> bool:
    """Whether the end of a window of `size` characters may have caused `error` (at `pos`)."""
    return pos >= size - _CUT_MARGIN or str(error).startswith("Unterminated string")


def _decode_members(buf: str, i: int) -> tuple[dict[str, Any], dict[str, Any], int] | None:
    """The object at ``buf[i]``: the object as the decoder makes it (a repeated key keeps its
    last value), its members as a stream commits to them (the first), and where it ends.
    None if it is not an object; decoding errors raise as the C scanner's do (ValueError,
    StopIteration)."""
    if not buf.startswith("{", i):
        return None
    envelope = _envelope_decoder()
    whole, end = scan_value(envelope.scan, buf, i)
    pairs, envelope.pairs = envelope.pairs, []
    if len(pairs) == len(whole):  # no key repeated: the first value of each is its only one
        return whole, whole, end  # one dict for both: neither changes once read whole
    members = FirstWins()
    for key, member in pairs:
        members[key] = member
    return whole, members, end
