"""JSON values as Lark or GBNF rules, from a JSON schema (the dialects without ``%json``).

Enforced: ``const``, ``enum``, ``type`` (one or a list), ``anyOf``/``oneOf``, array ``items``,
and objects whose properties are all required with no others (written in declared order, as
the tool-call renderers write them). Any other schema keyword is not enforced: the value is any
JSON of the type (llguidance's ``%json`` enforces the whole schema).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ._escape import gbnf_string

__all__ = ["JsonRules"]

_LARK_BASE = [
    'json_value: json_object | json_array | JSON_STRING | JSON_NUMBER | "true" | "false" | "null"',
    'json_object: "{" JWS? (JSON_STRING JWS? ":" JWS? json_value JWS? ("," JWS? JSON_STRING JWS? '
    '":" JWS? json_value JWS?)*)? "}"',
    'json_array: "[" JWS? (json_value JWS? ("," JWS? json_value JWS?)*)? "]"',
    r'JSON_STRING: /"(?:[^"\\\x00-\x1f]|\\["\\\/bfnrt]|\\u[0-9a-fA-F]{4})*"/',
    r"JSON_NUMBER: /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/",
    r"JSON_INTEGER: /-?(?:0|[1-9][0-9]*)/",
]
_GBNF_BASE = [
    "json-value ::= json-object | json-array | json-string | json-number | "
    '"true" | "false" | "null"',
    'json-object ::= "{" jws (json-string jws ":" jws json-value jws '
    '("," jws json-string jws ":" jws json-value jws)*)? "}"',
    'json-array ::= "[" jws (json-value jws ("," jws json-value jws)*)? "]"',
    'json-string ::= "\\"" ([^"\\\\\\x00-\\x1f] | "\\\\" (["\\\\/bfnrt] | '
    '"u" [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F]))* "\\""',
    'json-number ::= "-"? ("0" | [1-9] [0-9]*) ("." [0-9]+)? ([eE] [-+]? [0-9]+)?',
    'json-integer ::= "-"? ("0" | [1-9] [0-9]*)',
]


# Blanks between JSON tokens: bounded, `_dialects.JSON_BLANKS` (a space, or a line break and an
# indent); unbounded, any run of blanks (which a model can write for ever).
_JSON_BLANKS = {
    ("lark", True): "JWS: / |\\r?\\n[ \\t]{0,32}/", ("lark", False): "JWS: /[ \\t\\r\\n]+/",
    ("gbnf", True): 'jws ::= (" " | "\\r"? "\\n" [ \\t]{0,32})?',
    ("gbnf", False): "jws ::= [ \\t\\r\\n]*",
}


class _Numbers:
    """A number for each distinct JSON value, equal values one number. A value's key is made
    from its children's numbers, once per value: its whole text as key, made again at each
    level of nesting above it, cost the schema's size times its depth."""

    def __init__(self) -> None:
        self.numbers: dict[str, int] = {}
        self.made: dict[int, tuple[Any, int]] = {}  # id -> (the value, kept alive; its number)

    def of(self, value: Any) -> int:
        made = self.made.get(id(value))
        if made is not None:
            return made[1]
        children = value.values() if isinstance(value, Mapping) else value if isinstance(
            value, list) else ()
        if not any(isinstance(child, Mapping | list) for child in children):
            key = json.dumps(value, sort_keys=True)  # a leaf: its text, at C speed
        elif isinstance(value, Mapping):  # "*": never the text of a leaf
            key = "*{" + ",".join(f"{json.dumps(str(name))}:{self.of(sub)}"
                                  for name, sub in sorted(value.items(), key=_name)) + "}"
        else:
            key = "*[" + ",".join(str(self.of(item)) for item in value) + "]"
        number = self.numbers.setdefault(key, len(self.numbers))
        if isinstance(value, Mapping | list):
            self.made[id(value)] = (value, number)
        return number


def _name(item: tuple[Any, Any]) -> str:
    return str(item[0])


class JsonRules:
    """Writes one rule per distinct schema; `lines` holds them and the generic JSON rules."""

    def __init__(self, dialect: str, bounded_whitespace: bool = True) -> None:
        self.dialect = dialect
        self.gbnf = dialect == "gbnf"
        self.lines: list[str] = [
            *(_GBNF_BASE if self.gbnf else _LARK_BASE), _JSON_BLANKS[dialect, bounded_whitespace]
        ]
        self.seen: dict[int, str] = {}
        self.numbers = _Numbers()

    def _name(self, base: str) -> str:
        return base.replace("_", "-") if self.gbnf else base

    def _lit(self, text: str) -> str:
        return gbnf_string(text) if self.gbnf else json.dumps(text, ensure_ascii=False)

    def _ws(self) -> str:
        return "jws" if self.gbnf else "JWS?"

    def rule(self, schema: Mapping[str, Any]) -> str:
        key = self.numbers.of(schema)
        if key not in self.seen:
            name = self._name(f"json_schema_{len(self.seen) + 1}")
            self.seen[key] = name
            body = self._body(schema)
            self.lines.append(f"{name} ::= {body}" if self.gbnf else f"{name}: {body}")
        return self.seen[key]

    def _body(self, schema: Mapping[str, Any]) -> str:
        if "const" in schema:
            return self._lit(json.dumps(schema["const"], ensure_ascii=False))
        if isinstance(schema.get("enum"), list):
            return " | ".join(self._lit(json.dumps(v, ensure_ascii=False)) for v in schema["enum"])
        for key in ("anyOf", "oneOf"):
            if isinstance(schema.get(key), list):
                return " | ".join(self.rule(s) for s in schema[key] if isinstance(s, Mapping))
        kind = schema.get("type")
        if isinstance(kind, list):
            return " | ".join(self.rule({**schema, "type": k}) for k in kind)
        return self._typed(kind, schema)

    def _typed(self, kind: Any, schema: Mapping[str, Any]) -> str:
        ws = self._ws()
        generic = {
            "string": "json-string" if self.gbnf else "JSON_STRING",
            "number": "json-number" if self.gbnf else "JSON_NUMBER",
            "integer": "json-integer" if self.gbnf else "JSON_INTEGER",
            "boolean": '"true" | "false"',
            "null": '"null"',
        }
        if kind in generic:
            return generic[kind]
        if kind == "array" and isinstance(schema.get("items"), Mapping):
            item = self.rule(schema["items"])
            return f'"[" {ws} ({item} {ws} ("," {ws} {item} {ws})*)? "]"'
        if kind == "object" and _fixed_object(schema):
            properties: Mapping[str, Any] = schema["properties"]
            members = [
                f"{self._lit(json.dumps(name, ensure_ascii=False))} {ws} \":\" {ws} "
                f"{self.rule(sub if isinstance(sub, Mapping) else {})}"
                for name, sub in properties.items()
            ]
            inside = f' {ws} "," {ws} '.join(members)
            return f'"{{" {ws} {inside} {ws} "}}"' if members else f'"{{" {ws} "}}"'
        if kind == "object":
            return self._name("json_object")
        if kind == "array":
            return self._name("json_array")
        return self._name("json_value")


def _fixed_object(schema: Mapping[str, Any]) -> bool:
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return False
    required = schema.get("required", [])
    return schema.get("additionalProperties") is False and set(required) == set(properties)
