"""The call region of the `KeyTagCalls` shape (MiniMax-M3): arguments as elements named after
their keys, every tag behind the namespace token ``NS`` (``]<]minimax[>[``).

    NS<tool_call>
    NS<invoke name="NAME">
    NS<city>ParisNS</city>
    NS<stops>NS<item>LyonNS</item>NS</stops>
    NS</invoke>
    NS</tool_call>

Each value is written as `toolcalls.parsing.formats._minimax_m3_values` reads it, by the schema
that reader types it with (local refs followed, as it follows them):

* a string (a schema of strings only, or of no type) raw up to its own close tag, which is
  the only tag that ends it; an ``enum``/``const`` as its values, each kept only if the reader
  reads it back as itself;
* a string beside other types (``[string, null]``) as text holding no namespace token, which
  the reader reads as one of the types (the XML-parameter grammars' rule, `string_or_more`);
* a number, integer, boolean or null as JSON writes it;
* an array (``type: array``) as its ``<item>`` elements (none: the empty list);
* an object (``type: object``) with properties as the elements of its properties in the
  schema's order, the required ones always (none: the empty object).

A key must be a tag name, so an object whose keys are not known (free-form,
``additionalProperties``), an object of no declared type, a union of other types
(``anyOf``, ``oneOf``, a type list) and a value nested more than `MAX_REF_DEPTH` refs deep are
written as one JSON value between the key's tags, which the reader decodes by the schema (as
llama.cpp's M3 parser reads every non-string value): a union's ``<item>`` elements would be read
without their branch's schema (``3`` a number even in a list of strings), and a free-form key's
close tag must repeat its open tag, which no context-free grammar writes for any name. Such JSON
holds no namespace token (`within_tags`). Enforced as in the other grammars: types, ``enum``,
``const``, properties, items, numeric bounds; string and array keywords (``pattern``,
``minItems``) are not, nor are the keywords of a union's string branch.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from ..parsing._coerce import coerce, streams_as_string
from ..parsing.formats._minimax_m3_values import TAG, followed
from ..parsing.formats._regions import KeyTagCalls
from ..tools._tool import Tool
from ._ir import Json, Lit, Node, Opt, Rep, Shared, Until, Ws, alt, seq
from ._region import CallRegion, bare_number, string_or_more
from ._tagged_json import within_tags

__all__ = ["BUILDERS", "MAX_REF_DEPTH", "key_tag_region"]

MAX_REF_DEPTH = 8
"""How many local refs a value's elements follow down (a recursive schema) before the value
below is written as JSON, which ``%json`` checks against the whole schema."""

_ITEM = "item"


def key_tag_region(shape: KeyTagCalls) -> CallRegion:
    """One section of invokes, a blank (the template's line break) allowed between tags at the
    top, as `MinimaxM3.render_calls` lays them out."""

    def call(tool: Tool) -> Node:
        values = _Values(shape.namespace, tool.parameters)
        parts: list[Node] = [Ws(), Lit(f"{shape.invoke_open}{tool.name}{shape.head_end}")]
        for name, schema, required in _members(tool.parameters):
            element = seq(Ws(), values.element(name, schema, 0))
            parts.append(element if required else Opt(element))
        parts += [Ws(), Lit(shape.invoke_close)]
        return seq(*parts)

    return CallRegion(Lit(shape.section_open), call, Ws(),
                      close=seq(Ws(), Lit(shape.section_close)), reopen=False)


def _members(schema: Mapping[str, Any]) -> list[tuple[str, Any, bool]]:
    """An object schema's properties whose names are tag names, in order: (name, its schema
    as the reader finds it, unresolved; required). A parameter named otherwise cannot be
    written (`check_tools` refuses the tool; a nested one leaves its object to JSON)."""
    properties = schema.get("properties")
    required = schema.get("required")
    needed = set(required) if isinstance(required, list) else set()
    return [
        (name, sub if isinstance(sub, dict) else None, name in needed)
        for name, sub in (properties.items() if isinstance(properties, Mapping) else ())
        if isinstance(name, str) and TAG.fullmatch(f"<{name}>")
    ]


class _Values:
    """The value nodes of one tool: ``root`` is its parameters, where local refs point."""

    def __init__(self, namespace: str, root: Mapping[str, Any]) -> None:
        self.ns = namespace
        self.root = dict(root)
        # JSON between tags holds no namespace token: barred from its "<" on (a tag's start).
        self.stops = (namespace[namespace.index("<"):],)

    def element(self, key: str, schema: dict[str, Any] | None, refs: int) -> Node:
        """``NS<key>``, the value, ``NS</key>``: ``schema`` as the property or items holds it."""
        if schema is not None and "$ref" in schema:
            refs += 1
        read = followed(schema, self.root)
        close = f"{self.ns}</{key}>"
        if read is not None and refs > MAX_REF_DEPTH:
            inner = seq(self._json(read), Lit(close))
        else:
            inner = self.value(read, key, refs)
        return seq(Lit(f"{self.ns}<{key}>"), inner)

    def value(self, schema: dict[str, Any] | None, key: str, refs: int) -> Node:
        """What stands between ``<key>`` and its close tag, the close tag included."""
        close = f"{self.ns}</{key}>"
        if schema is None:  # no schema: the reader keeps the text (a JSON scalar if nested)
            return seq(Until(self.ns), Lit(close[len(self.ns):]))
        choices = schema.get("enum", [schema["const"]] if "const" in schema else None)
        if isinstance(choices, list) and choices:
            written = [text for text in dict.fromkeys(map(_written, choices))
                       if self._reads_back(text, schema, close)]
            if written:
                return seq(alt(*(Lit(text) for text in written)), Lit(close))
        elif streams_as_string(schema):
            return Until(close)
        if string_or_more(schema):
            return seq(Until(self.ns), Lit(close[len(self.ns):]))
        kind = schema.get("type")
        if kind in ("integer", "number", "boolean", "null"):
            return seq(_scalar(schema, kind), Lit(close))
        if kind == "array":
            item = Shared(self.element(_ITEM, _dict(schema.get("items")), refs))
            return seq(Rep(item), Lit(close))
        if kind == "object":
            members = self._object(schema, refs)
            if members is not None:
                return seq(members, Lit(close))
        return seq(self._json(schema), Lit(close))

    def _object(self, schema: Mapping[str, Any], refs: int) -> Node | None:
        """The elements of the object's properties; None when it has none, or a required one
        whose name is no tag name."""
        listed = _members(schema)
        properties = schema.get("properties")
        required = schema.get("required")
        written = {name for name, _, _ in listed}
        unwritten = [name for name in (required if isinstance(required, list) else ())
                     if isinstance(properties, Mapping) and name in properties
                     and name not in written]
        if not listed or unwritten:
            return None
        return Shared(seq(*(
            self.element(name, sub, refs) if needed else Opt(self.element(name, sub, refs))
            for name, sub, needed in listed
        )))

    def _json(self, schema: Mapping[str, Any]) -> Node:
        return Json(within_tags(schema, self.stops, self.root))

    def _reads_back(self, text: str, schema: dict[str, Any], close: str) -> bool:
        """Whether the reader reads ``text`` between the tags as the constant it writes."""
        if close in text or (self.ns in text and not streams_as_string(schema)):
            return False
        value, problem = coerce(text, schema)
        return problem is None and _same(value, text, schema)


def _written(choice: Any) -> str:
    """A constant as `render_arguments` writes it: a string raw, anything else as JSON."""
    return choice if isinstance(choice, str) else json.dumps(choice, ensure_ascii=False)


def _same(value: Any, text: str, schema: Mapping[str, Any]) -> bool:
    """Whether ``value`` (read from ``text``) is one of the schema's constants, type and all."""
    choices = schema.get("enum", [schema.get("const")])
    return any(_written(choice) == text and type(choice) is type(value) and choice == value
               for choice in choices)


def _scalar(schema: Mapping[str, Any], kind: str) -> Node:
    if kind == "boolean":
        return alt(Lit("true"), Lit("false"))
    if kind == "null":
        return Lit("null")
    return bare_number(schema) or Json(dict(schema))


def _dict(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


BUILDERS: dict[type[Any], Callable[[Any], CallRegion]] = {KeyTagCalls: key_tag_region}
"""The region builder of the shape this module writes."""
