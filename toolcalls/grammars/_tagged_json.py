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

from collections.abc import Mapping, Sequence
from typing import Any

from ._ir import regex_escape

__all__ = ["avoiding", "within_tags"]

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
    return f"^[^<]*(?:<{_not_starting(rests)})*$"


def within_tags(schema: Any, stops: Sequence[str]) -> dict[str, Any]:
    """``schema`` with every string and object key holding none of ``stops``."""
    pattern = avoiding(stops)
    fixed = _fix(schema, pattern)
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
    defs = dict(fixed.get("$defs", {}))
    defs[_ANY_NAME] = any_value
    return {**fixed, "$defs": defs}


def _fix(schema: Any, pattern: str) -> Any:
    if schema is False:
        return False
    if schema is True or not isinstance(schema, Mapping):
        return dict(_ANY_REF)
    if not any(key in schema for key in (*_STRUCTURE, "type")):
        return {**schema, **_ANY_REF}  # any value (its description kept)
    fixed = dict(schema)
    for key in ("properties", "patternProperties", "$defs", "definitions"):
        if isinstance(schema.get(key), Mapping):
            fixed[key] = {name: _fix(sub, pattern) for name, sub in schema[key].items()}
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        if isinstance(schema.get(key), list):
            fixed[key] = [_fix(sub, pattern) for sub in schema[key]]
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "array" in kinds or "items" in schema:
        fixed["items"] = _fix(schema.get("items", True), pattern)
    if "object" in kinds or "properties" in schema:
        extra = schema.get("additionalProperties", True)
        if extra is not False:  # other keys: barred from the tags too
            fixed["patternProperties"] = {
                **fixed.get("patternProperties", {}), pattern: _fix(extra, pattern)
            }
            fixed["additionalProperties"] = False
    if "string" in kinds and "pattern" not in schema:
        fixed["pattern"] = pattern
    return fixed
