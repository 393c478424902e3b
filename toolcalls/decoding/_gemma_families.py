"""Call regions of Gemma 4 and FunctionGemma: the region builder of the `GemmaCalls` shape.

Each call is ``OPEN call:NAME{key:value,...} CLOSE`` (both markers special tokens), its
arguments in the syntax `toolcalls.parsing.formats._gemma_values` reads and writes: strings
between two quote tokens holding anything but the quote, keys bare (quoted where a bare key
would not read back, as `write_key` writes them), numbers and constants as JSON writes them.
Written as the chat template writes them: no blanks, members ordered by ``dictsort`` (by key,
ignoring case), the required ones always. Enforced: ``type``, ``enum``/``const``,
``anyOf``/``oneOf``, local ``$ref`` (followed down to `MAX_REF_DEPTH` levels of nesting, any value
below), array ``items``, object ``properties``, numeric bounds; string keywords are not. A value
of no declared type is any value, nested at most `MAX_DEPTH` deep.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..parsing.formats._gemma_values import write_key, write_value
from ..parsing.formats._regions import GemmaCalls
from ..tools._tool import Tool
from ._ir import Free, Json, Lit, Node, Number, Opt, Rep, Shared, Until, alt, seq
from ._region import CallRegion, properties_of

__all__ = ["BUILDERS", "gemma_region"]

MAX_DEPTH = 2
"""How deep a value of no declared type nests lists and objects."""

MAX_REF_DEPTH = 8
"""How deep a value may nest while its ``$ref`` are still followed (a recursive schema)."""

_NUMBER_KEYWORDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
_COMMA = Lit(",")


def gemma_region(shape: GemmaCalls) -> CallRegion:
    def call(tool: Tool) -> Node:
        values = _Values(shape.quote, tool.parameters)
        listed, required = properties_of(tool)
        members = [(values.member(name, sub), name in required) for name, sub in _dictsort(listed)]
        return seq(Lit(f"call:{tool.name}{{"), _members(members), Lit("}"), Lit(shape.close))

    # Written as text: llguidance names special tokens only as <|...|>, and Gemma's are
    # spelled <|tool_call> and <start_function_call> (see `_ir.Lit.token`).
    return CallRegion(Lit(shape.open), call, Lit(""))


def _members(items: Sequence[tuple[Node, bool]]) -> Node:
    """Items in order, a comma between two, each required one present: the first written is
    any item up to the first required one, the items after it each a rule naming the next
    (`Shared`), so the size stays linear in the number of items."""
    first_required = next((i for i, (_, needed) in enumerate(items) if needed), len(items))
    after: Node = Lit("")
    options: list[Node] = []
    for index in reversed(range(len(items))):
        item, needed = items[index]
        if index <= first_required:
            options.append(seq(item, after))
        part = seq(_COMMA, item) if needed else Opt(seq(_COMMA, item))
        after = Shared(seq(part, after))
    choice = alt(*reversed(options)) if options else Lit("")
    return choice if first_required < len(items) or not options else Opt(choice)


class _Values:
    """The value nodes of one quote token, for one tool's schema (`root`: where refs point)."""

    def __init__(self, quote: str, root: Mapping[str, Any]) -> None:
        self.quote = quote
        self.root = root
        self.string = seq(Lit(quote), Until(quote))
        # A key of a free-form object: bare, as the template writes it, or quoted.
        self.key = alt(Free((":", ",", "{", "}", "[", "]", "<"), first_not=" \t\r\n"),
                       self.string)
        self.scalars: tuple[Node, ...] = (
            self.string, Number(), Lit("true"), Lit("false"), Lit("null"))

    def member(self, name: str, schema: Any, depth: int = 0) -> Node:
        return seq(Lit(write_key(name, self.quote) + ":"), self.value(schema, depth))

    def value(self, schema: Any, depth: int = 0) -> Node:
        """A value valid against ``schema``."""
        if not isinstance(schema, Mapping):
            schema = {}
        if "$ref" in schema:
            target = self._resolve(schema["$ref"])
            if target is None or depth >= MAX_REF_DEPTH:
                return self._any(0)
            return self.value(target, depth)
        choices = schema.get("enum", [schema["const"]] if "const" in schema else None)
        if isinstance(choices, list) and choices:
            return alt(*(Lit(text) for text in dict.fromkeys(self._literals(choices))))
        for key in ("anyOf", "oneOf"):
            variants = schema.get(key)
            if isinstance(variants, list) and variants:
                return alt(*(self.value(variant, depth) for variant in variants))
        kind = schema.get("type")
        if isinstance(kind, list) and kind:
            return alt(*(self.value({**schema, "type": one}, depth) for one in kind))
        return self._typed(schema, kind, depth)

    def _typed(self, schema: Mapping[str, Any], kind: Any, depth: int) -> Node:
        if kind == "string":
            return self.string
        if kind in ("integer", "number"):
            bounds = {k: schema[k] for k in _NUMBER_KEYWORDS if k in schema}
            return Json({"type": kind, **bounds}) if bounds else Number(integer=kind == "integer")
        if kind == "boolean":
            return alt(Lit("true"), Lit("false"))
        if kind == "null":
            return Lit("null")
        if kind == "array":
            return Shared(_list(self.value(schema.get("items", {}), depth + 1)))
        if kind == "object":
            return Shared(self._object(schema, depth))
        return self._any(depth)

    def _object(self, schema: Mapping[str, Any], depth: int) -> Node:
        properties = schema.get("properties")
        if not isinstance(properties, Mapping) or not properties:
            extra = schema.get("additionalProperties")
            value = self.value(extra if isinstance(extra, Mapping) else {}, depth + 1)
            return _dict(seq(self.key, Lit(":"), value))
        required = schema.get("required")
        needed = set(required) if isinstance(required, list) else set()
        members = [(self.member(name, sub, depth + 1), name in needed)
                   for name, sub in _dictsort(list(properties.items()))]
        return seq(Lit("{"), _members(members), Lit("}"))

    def _any(self, depth: int) -> Node:
        if depth >= MAX_DEPTH:
            return alt(*self.scalars)
        inner = self._any(depth + 1)
        return alt(*self.scalars, _list(inner), _dict(seq(self.key, Lit(":"), inner)))

    def _resolve(self, ref: Any) -> Any:
        """The schema a local ref (``#/$defs/node``) points at in the tool's; None if none."""
        if not isinstance(ref, str) or not ref.startswith("#"):
            return None
        found: Any = self.root
        for part in filter(None, ref[1:].split("/")):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(found, Mapping) or part not in found:
                return None
            found = found[part]
        return found

    def _literals(self, choices: list[Any]) -> list[str]:
        written: list[str] = []
        for choice in choices:
            try:
                written.append(write_value(choice, self.quote))
            except ValueError:  # a string holding the quote token: no way to write it
                continue
        return written


def _dictsort(items: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """Members in the order the template writes them (``dictsort``: ignoring case)."""
    return sorted(items, key=lambda item: item[0].lower())


def _list(item: Node) -> Node:
    return seq(Lit("["), Opt(seq(item, Rep(seq(_COMMA, item)))), Lit("]"))


def _dict(entry: Node) -> Node:
    return seq(Lit("{"), Opt(seq(entry, Rep(seq(_COMMA, entry)))), Lit("}"))


BUILDERS: dict[type[Any], Callable[[Any], CallRegion]] = {GemmaCalls: gemma_region}
"""The region builder of each shape this module writes."""
