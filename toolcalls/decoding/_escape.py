"""Quoting shared by the dialect writers: regexes (Python's and Rust's), Lark and GBNF strings."""

from __future__ import annotations

import json

__all__ = ["CONTROL_ESCAPES", "escape_chars", "gbnf_string", "lark_string", "regex_escape"]

_REGEX_META = set("\\.+*?()|[]{}^$#&-~/")


def regex_escape(text: str) -> str:
    """Escapes only what is special in both Python's and Rust's regex syntax (and ``/``, the
    Lark delimiter): Rust refuses some of the escapes `re.escape` writes."""
    return escape_chars(text, _REGEX_META)


CONTROL_ESCAPES = {
    **{chr(code): f"\\x{code:02x}" for code in range(0x20)},
    "\n": "\\n", "\r": "\\r", "\t": "\\t",
}
"""Control characters as escapes every dialect reads (a raw NUL in a grammar's text is lost)."""


def escape_chars(text: str, special: str | set[str]) -> str:
    """``text`` with a backslash before each ``special`` character and newline, carriage
    return and tab written as escapes: the quoting shared by regexes and GBNF strings."""
    return "".join("\\" + char if char in special else CONTROL_ESCAPES.get(char, char)
                   for char in text)


def lark_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)



def gbnf_string(text: str) -> str:
    return '"' + escape_chars(text, '"\\') + '"'
