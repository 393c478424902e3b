"""JSON values between XML-parameter tags: only the tags the reader stops at are kept out.

The XML-parameter readers (Qwen3-Coder, Seed-OSS, GLM, MiniMax-M2, DeepSeek DSML) end a JSON
value at its close tag, or at a structural tag where the close tag went missing, even inside
one of its strings: they cannot tell. So a JSON value there holds none of those tags, and
nothing else is barred: ``{"name": "Ada <L>"}`` is a value like any other. The tags are kept
out of every string and object key through a JSON-schema ``pattern`` (llguidance applies it to
the decoded string; an escaped ``\\u003c`` decodes to ``<`` too, so the bar is on the text
either way), and a value of no declared type becomes `ANY`, any JSON under that bar.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ._escape import regex_escape

__all__ = ["avoiding", "avoiding_except", "within_tags"]

_ANY_NAME = "toolcalls_value_without_tags"
_ANY_REF = {"$ref": f"#/$defs/{_ANY_NAME}"}
_STRUCTURE = ("properties", "items", "prefixItems", "enum", "const", "anyOf", "oneOf", "allOf",
              "$ref", "patternProperties", "additionalProperties")


def _class(chars: str) -> str:
    """A class of any character but ``<`` and ``chars``."""
    inside = "".join("\\" + c if c in "]\\^-[" else c for c in sorted(set(chars)))
    return f"[^<{inside}]"


def _not_starting(words: Sequence[str]) -> str:
    """Text without ``<`` that starts with none of ``words`` (none holds ``<``), as a regex:
    the trie of the words, each branch left at its first differing character or at the end."""
    firsts = sorted({word[0] for word in words})
    options = [f"{_class(''.join(firsts))}[^<]*"]
    for first in firsts:
        rests = [word[1:] for word in words if word[0] == first]
        if "" in rests:
            continue  # a whole word: no way on
        options.append(regex_escape(first) + _not_starting(rests))
    return f"(?:{'|'.join(options)})?"


def avoiding(words: Sequence[str]) -> str:
    """A regex of the strings holding none of ``words``, each a ``<`` then no other ``<``.

    Such a word can only stand from a ``<`` to before the next one, so the text is pieces
    that each start with ``<``, none of which starts with a word."""
    rests = sorted({word[1:] for word in words})
    if any(not word.startswith("<") or "<" in word[1:] for word in words) or "" in rests:
        raise ValueError(f"not tags: {list(words)!r}")
    return f"^{_TagText(words).tail(None)}$"


class _TagText:
    """Text holding none of the tags ``stops`` as the states of its reader: ``None`` in free
    text, or ``t`` just after ``"<" + t``, ``t`` a proper start of a tag's rest."""

    def __init__(self, stops: Sequence[str]) -> None:
        self.rests = sorted({word[1:] for word in stops})
        self.loop = f"(?:<{_not_starting(self.rests)})*"

    def step(self, state: str | None, char: str) -> tuple[bool, str | None]:
        """Whether the text is still clear after ``char``, and its state then."""
        if char == "<":
            return True, ""
        if state is None:
            return True, None
        grown = state + char
        if grown in self.rests:
            return False, None
        return True, grown if any(rest.startswith(grown) for rest in self.rests) else None

    def onward(self, state: str | None) -> list[str]:
        """The characters but ``<`` that go on in a tag from ``state``."""
        if state is None:
            return []
        return sorted({rest[len(state)] for rest in self.rests
                       if rest.startswith(state) and len(rest) > len(state)})

    def tail(self, state: str | None) -> str:
        """A regex of the clear text that may follow from ``state``."""
        if state is None:
            return f"[^<]*{self.loop}"
        ends = [rest[len(state):] for rest in self.rests if rest.startswith(state)]
        return _not_starting(ends) + self.loop


def avoiding_except(words: Sequence[str], names: Sequence[str]) -> str:
    """A regex of the strings holding none of ``words`` (as `avoiding`) that are none of
    ``names``: the keys an object's ``patternProperties`` may add beside its ``properties``.

    Without lookahead, the strings that are not a name are walked down the trie of the names:
    a string ends on a node that ends no name, or leaves the trie there by a character no name
    goes on with, and from then on is any clear text from the state the reader has reached
    (free, or inside a tag). Each state's rest is written once, after all the ways to reach it,
    so the regex grows with the names' length times the few states, not with the tags' regex.
    """
    avoiding(words)  # the same check of the words
    text = _TagText(words)
    trie = _NameTrie(names, text)
    options: list[str] = []
    ends = trie.regex(lambda node: [""] if not trie.is_name[node] else [])
    if ends is not None:
        options.append(ends)
    for target in trie.leaving_states():
        leaving = trie.regex(functools.partial(trie.leaving, target=target))
        if leaving is not None:
            options.append(leaving + text.tail(target))
    return f"^(?:{'|'.join(options)})$"


class _NameTrie:
    """The trie of some names, each node with the reader's state after its text; nodes whose
    text already holds a tag are left out (no key can be such a name anyway)."""

    def __init__(self, names: Sequence[str], text: _TagText) -> None:
        self.text = text
        self.children: list[dict[str, int]] = [{}]
        self.state: list[str | None] = [None]
        self.is_name = [False]
        for name in names:
            node = 0
            for char in name:
                child = self.children[node].get(char)
                if child is None:
                    clear, state = text.step(self.state[node], char)
                    if not clear:
                        break
                    child = len(self.children)
                    self.children[node][char] = child
                    self.children.append({})
                    self.state.append(state)
                    self.is_name.append(False)
                node = child
            else:
                self.is_name[node] = True

    def leaving(self, node: int, target: str | None) -> list[str]:
        """The regexes of a character by which a string leaves the trie at ``node`` into
        state ``target`` of the reader."""
        kids = self.children[node]
        state = self.state[node]
        onward = self.text.onward(state)
        if target is None:
            return [_class("".join(kids) + "".join(onward))]
        if target == "":
            return [] if "<" in kids else ["<"]
        if state is None or not target.startswith(state) or len(target) != len(state) + 1:
            return []
        char = target[-1]
        return [] if char in kids else [regex_escape(char)]

    def leaving_states(self) -> list[str | None]:
        """The reader's states a string can be in right after leaving the trie."""
        states: set[str] = {""}
        for node, state in enumerate(self.state):
            if state is not None:
                states.update(state + char for char in self.text.onward(state)
                              if char not in self.children[node]
                              and state + char not in self.text.rests)
        return [None, *sorted(states)]

    def regex(self, here: Callable[[int], list[str]]) -> str | None:
        """The regex of the paths down the trie to a node then one of ``here(node)`` there, or
        None if there is none (iterative: a name may be long)."""
        own = [here(node) for node in range(len(self.children))]
        live = [bool(options) for options in own]
        for node in range(len(self.children) - 1, -1, -1):  # children come after parents
            live[node] = live[node] or any(live[kid] for kid in self.children[node].values())
        if not live[0]:
            return None
        pieces: list[str] = []
        stack: list[int | str] = [0]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                pieces.append(item)
                continue
            parts: list[tuple[str, int | None]] = [(option, None) for option in own[item]
                                                   if option]
            parts += [(regex_escape(char), kid) for char, kid in self.children[item].items()
                      if live[kid]]
            if not parts:  # only the end of a string here
                continue
            todo: list[int | str] = ["(?:"]
            for index, (start, kid) in enumerate(parts):
                todo += ["|", start] if index else [start]
                if kid is not None:
                    todo.append(kid)
            todo.append(")?" if "" in own[item] else ")")
            stack += reversed(todo)
        return "".join(pieces)


def within_tags(schema: Any, stops: Sequence[str],
                root: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``schema`` with every string and object key holding none of ``stops``; ``root`` is the
    tool's parameters, whose ``$defs`` and ``definitions`` the value's local refs point into
    (the value's schema is the root of its own JSON, so they are copied there)."""
    pattern = avoiding(stops)
    fixed = _fix(schema, stops, pattern)
    if not isinstance(fixed, dict):  # a schema of no value (``false``): nothing to bar
        return {"not": {}}
    any_value = {
        "anyOf": [
            {"type": "null"}, {"type": "boolean"}, {"type": "number"},
            {"type": "string", "pattern": pattern},
            {"type": "array", "items": _ANY_REF},
            {"type": "object", "patternProperties": {pattern: _ANY_REF},
             "additionalProperties": False},
        ]
    }
    for key in ("$defs", "definitions"):
        shared = (root or {}).get(key)
        if isinstance(shared, Mapping) and shared:
            fixed[key] = {**{name: _fix(sub, stops, pattern) for name, sub in shared.items()},
                          **_mapping(fixed.get(key))}
    return {**fixed, "$defs": {**_mapping(fixed.get("$defs")), _ANY_NAME: any_value}}


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _extra_keys(schema: Mapping[str, Any], stops: Sequence[str], value: Any) -> dict[str, Any]:
    """The keywords for an object's keys beyond its ``properties``, their values ``value``.

    llguidance checks a declared key against every pattern that matches it and intersects the
    schemas, and the "any value" one is recursive: a pattern matching a nested object's own
    key made it intersect that schema with itself without end ("Schema intersection stack
    level exceeded"). So the pattern of other keys leaves the declared names out; an object
    with patterns of its own is left as it is (see `_intersected`).
    """
    names = schema.get("properties", {})
    names = [name for name in names if isinstance(name, str)] if isinstance(names, Mapping) else []
    return {"patternProperties": {avoiding_except(stops, names): value},
            "additionalProperties": False}


_IN_PLACE = ("anyOf", "oneOf", "$ref")
_OBJECT_WORDS = ("type", "properties", "additionalProperties", "required")


def _intersected(schema: Mapping[str, Any]) -> bool:
    """Whether llguidance intersects this schema's parts with one another: ``allOf``, a
    declared key that a ``patternProperties`` pattern matches too, an ``anyOf``, ``oneOf`` or
    ``$ref`` beside an object's own keywords. Two parts each holding a pattern of other keys
    overlap (refused), and two holding the recursive "any value" never finish intersecting, so
    there keys and untyped values keep the schema's own rule (as before the tags were barred
    in them); strings still hold no tag."""
    return "allOf" in schema or "patternProperties" in schema or (
        any(key in schema for key in _IN_PLACE) and any(key in schema for key in _OBJECT_WORDS)
    )


def _fix(schema: Any, stops: Sequence[str], pattern: str, bar: bool = True) -> Any:
    """``schema`` with its strings barred from ``stops``, and, where ``bar``, its object keys
    and untyped values too."""
    if schema is False:
        return False
    if schema is True or not isinstance(schema, Mapping):
        return dict(_ANY_REF) if bar else {}
    if not any(key in schema for key in (*_STRUCTURE, "type")):
        return {**schema, **_ANY_REF} if bar else dict(schema)  # any value (description kept)
    bar = bar and not _intersected(schema)
    fixed = dict(schema)
    for key in ("properties", "patternProperties", "$defs", "definitions"):
        if isinstance(schema.get(key), Mapping):
            fixed[key] = {name: _fix(sub, stops, pattern, bar or key in ("$defs", "definitions"))
                          for name, sub in schema[key].items()}
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        if isinstance(schema.get(key), list):
            fixed[key] = [_fix(sub, stops, pattern, bar) for sub in schema[key]]
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "array" in kinds or "items" in schema:
        fixed["items"] = _fix(schema.get("items", True), stops, pattern, bar)
    if "object" in kinds or "properties" in schema:
        extra = schema.get("additionalProperties", True)
        if bar and extra is not False:
            fixed.update(_extra_keys(schema, stops, _fix(extra, stops, pattern)))
        elif "additionalProperties" in schema:
            fixed["additionalProperties"] = _fix(extra, stops, pattern, bar)
    if "string" in kinds and "pattern" not in schema:
        fixed["pattern"] = pattern
    return fixed
