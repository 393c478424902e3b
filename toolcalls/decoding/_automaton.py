"""GBNF has no negation or lookahead: text that avoids some strings is written as the states
of a string-matching automaton (Aho-Corasick), one rule per state."""

from __future__ import annotations

from ._escape import CONTROL_ESCAPES, gbnf_string

__all__ = ["text_rules"]

ANY_CHAR = "[^\\x00]"


def _char_class(chars: set[str], negate: bool) -> str:
    def esc(char: str) -> str:
        if char in "]\\^-[":
            return "\\" + char
        return CONTROL_ESCAPES.get(char, char)

    inside = "".join(esc(c) for c in sorted(chars))
    return f"[{'^' if negate else ''}{inside}]"


def text_rules(name: str, exclude: tuple[str, ...], end: str, nonempty: bool) -> list[str]:
    """Rules for text holding none of ``exclude`` then ``end`` (or, with ``end == ""``, to its
    own end: at least one character when ``nonempty``). State k is the longest suffix of the
    text so far that is a proper prefix of a watched string."""
    watched = sorted({*exclude, *([end] if end else [])})
    prefixes = sorted({w[:i] for w in watched for i in range(len(w))}, key=lambda p: (len(p), p))
    index = {p: i for i, p in enumerate(prefixes)}

    def step(state: str, char: str) -> str | None:
        text = state + char
        if any(text.endswith(w) for w in watched):
            return None  # a watched string completed (the end is handled by the caller)
        for cut in range(len(text) + 1):
            if text[cut:] in index:
                return text[cut:]
        return ""

    alphabet = {c for w in watched for c in w}
    lines = []
    for state in prefixes:
        options = []
        special = set()  # characters that do not lead back to the start state
        for char in sorted(alphabet):
            if end and (state + char).endswith(end):
                options.append(gbnf_string(char))
                special.add(char)
                continue
            target = step(state, char)
            if target is None:
                special.add(char)  # completes an excluded string: no way on
            elif target:
                options.append(f"{gbnf_string(char)} {name}-s{index[target]}")
                special.add(char)
        other = _char_class(special, True) if special else ANY_CHAR
        options.append(f"{other} {name}-s0")
        if not end:
            options.append('""')
        lines.append(f"{name}-s{index[state]} ::= " + " | ".join(options))
    entry = f"{name}-s0"
    if nonempty and not end:
        first = lines[0]
        lines.append(f"{name} ::= " + first.split(" ::= ", 1)[1].replace(' | ""', ""))
    else:
        lines.append(f"{name} ::= {entry}")
    return lines

