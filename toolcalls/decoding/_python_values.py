"""Pythonic call arguments as grammar nodes: Python literals built from the JSON schema's types.

Written as the pythonic reader reads them (`format_pythonic_value` writes the same): strings in
single or double quotes with the escapes ``\\\\ \\' \\" \\n \\t`` (no raw line break),
numbers as JSON writes them (valid Python), ``True``/``False``/``None`` (or JSON's
``true``/``false``/``null``, which Olmo 3 writes), lists ``[...]`` and
dicts ``{'key': value}``. Keyword arguments follow the schema's declared order, the required
ones always (as the renderer writes them; the reader takes any order). Enforced: ``type``,
``enum``/``const``, ``anyOf``/``oneOf``, array ``items``, object ``properties`` and numeric
bounds (``%json``); a number without bounds is a finite double (`_ir.Number`: the reader
refuses ``1e400``); string keywords (``pattern``, lengths) are not. A value of no declared type
is any literal, nested at most `MAX_DEPTH` deep.

With ``json_containers`` (LFM2.5, whose template writes lists and dicts with ``tojson``), a
list, a dict or a ``$ref`` value is JSON valid against its schema (``true``, ``null`` inside,
which the reader takes too), the tool's ``$defs`` copied beside it; scalars stay Python's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..parsing.formats._pythonic_body import format_pythonic_value
from ..tools._tool import Tool
from ._ir import Free, Json, Lit, Node, Number, Opt, Rep, Shared, Ws, alt, seq
from ._region import properties_of

__all__ = ["MAX_DEPTH", "python_arguments", "python_value"]

MAX_DEPTH = 2
"""How deep a value of no declared type nests lists and dicts."""

_COMMA = seq(Lit(","), Ws())
_NUMBER_KEYWORDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")


def _quoted(quote: str) -> Node:
    # No NUL: Python refuses it in source, so the reader would refuse the call.
    plain = Free((quote, "\\", "\n", "\r", "\0"))
    escape = alt(*(Lit("\\" + char) for char in ("\\", "'", '"', "n", "r", "t")))
    return seq(Lit(quote), Rep(alt(plain, escape)), Lit(quote))


STRING = alt(_quoted("'"), _quoted('"'))
# Python's spelling and JSON's, which the reader takes too and Olmo 3's template writes.
TRUE = (Lit("True"), Lit("true"))
FALSE = (Lit("False"), Lit("false"))
NONE = (Lit("None"), Lit("null"))
_SCALARS = (STRING, Number(), *TRUE, *FALSE, *NONE)


def python_arguments(tool: Tool, *, json_containers: bool = False) -> Node:
    """``a=1, b='x'``: the tool's keyword arguments (nothing for a tool with none)."""
    listed, required = properties_of(tool)
    root = _json_root(tool.parameters) if json_containers else None
    return _members([
        (seq(Lit(f"{name}="), python_value(sub, json_root=root)), name in required)
        for name, sub in listed if name.isidentifier()
    ])


def _json_root(parameters: Mapping[str, Any]) -> dict[str, Any]:
    """The tool's shared definitions, which a value written as JSON carries beside it."""
    return {key: parameters[key] for key in ("$defs", "definitions")
            if isinstance(parameters.get(key), Mapping)}


def _json(schema: Mapping[str, Any], root: Mapping[str, Any]) -> Node:
    return Json({**root, **schema})


_SPELLED_OUT = 8
"""Up to this many optional members before the first required one, each choice of the first
member written is spelled out with every member after it; past it, `_chained`."""


def _members(items: Sequence[tuple[Node, bool]]) -> Node:
    """Items in order, separated by commas, each required one present. The first written is
    any item up to the first required one: n choices of at most n items (`_chained` when that
    would be many)."""
    first_required = next((i for i, (_, needed) in enumerate(items) if needed), len(items))
    if first_required > _SPELLED_OUT:
        return _chained(items, first_required)
    options: list[Node] = []
    for index, (item, required) in enumerate(items):
        rest = [seq(_COMMA, later) if needed else Opt(seq(_COMMA, later))
                for later, needed in items[index + 1 :]]
        options.append(seq(item, *rest))
        if required:
            return alt(*options)
    return Opt(alt(*options)) if options else Lit("")


def _chained(items: Sequence[tuple[Node, bool]], first_required: int) -> Node:
    """`_members` in linear size: the members after the k-th, each after a comma, are one
    rule (`Shared`) naming the rule of those after the next, rather than written out after
    each of the k choices (a tool of a thousand optional parameters: a thousand rules, not
    half a million items)."""
    def part(item: Node, needed: bool) -> Node:
        return seq(_COMMA, item) if needed else Opt(seq(_COMMA, item))

    after: Node = seq(*(part(item, needed) for item, needed in items[first_required + 1 :]))
    options: list[Node] = []
    for index in reversed(range(min(first_required + 1, len(items)))):
        item, needed = items[index]
        options.append(seq(item, after))
        after = Shared(seq(part(item, needed), after))
    choice = alt(*reversed(options))
    return choice if first_required < len(items) else Opt(choice)


def python_value(schema: Any, depth: int = 0, *, json_root: Mapping[str, Any] | None = None,
                 ) -> Node:
    """A Python literal valid against ``schema``; `json_root`: lists and dicts as JSON, with
    these shared definitions (see the module's docstring)."""
    if not isinstance(schema, Mapping):
        schema = {}
    if json_root is not None and "$ref" in schema:
        return _json(schema, json_root)
    choices = schema.get("enum", [schema["const"]] if "const" in schema else None)
    if isinstance(choices, list) and choices:
        written = dict.fromkeys(text for choice in choices for text in _literals(choice))
        return alt(*(Lit(text) for text in written if text is not None))
    for key in ("anyOf", "oneOf"):
        variants = schema.get(key)
        if isinstance(variants, list) and variants:
            return alt(*(python_value(variant, depth, json_root=json_root)
                         for variant in variants))
    kind = schema.get("type")
    if isinstance(kind, list) and kind:
        return alt(*(python_value({**schema, "type": one}, depth, json_root=json_root)
                     for one in kind))
    if kind == "string":
        return STRING
    if kind in ("integer", "number"):
        bounds = {k: schema[k] for k in _NUMBER_KEYWORDS if k in schema}
        # Bounded, llguidance writes no exponent (so no infinity); unbounded, it writes any.
        return Json({"type": kind, **bounds}) if bounds else Number(integer=kind == "integer")
    if kind == "boolean":
        return alt(*TRUE, *FALSE)
    if kind == "null":
        return alt(*NONE)
    if json_root is not None and kind in ("array", "object"):
        return _json(schema, json_root)
    # A list or dict is one rule: a list writes its item twice, and nested, the text doubled.
    if kind == "array":
        return Shared(_list(python_value(schema.get("items", {}), depth + 1)))
    if kind == "object":
        return Shared(_object(schema, depth))
    if json_root is not None:
        return alt(*_SCALARS, _json({"type": "array"}, {}), _json({"type": "object"}, {}))
    return _any(depth)


def _literals(value: Any) -> tuple[str | None, ...]:
    """How a constant is written: as a Python literal, and a JSON one for a bool or None."""
    try:
        python = format_pythonic_value(value)
    except (TypeError, ValueError):  # a value Python literals cannot write (NaN)
        return (None,)
    return (python, json.dumps(value)) if value is None or isinstance(value, bool) else (python,)


def _list(item: Node) -> Node:
    return seq(Lit("["), Opt(seq(item, Rep(seq(_COMMA, item)))), Lit("]"))


def _dict(entry: Node) -> Node:
    return seq(Lit("{"), Opt(seq(entry, Rep(seq(_COMMA, entry)))), Lit("}"))


def _entry(key: Node, value: Node) -> Node:
    return seq(key, Lit(":"), Ws(), value)


def _object(schema: Mapping[str, Any], depth: int) -> Node:
    properties = schema.get("properties")
    if not isinstance(properties, Mapping) or not properties:
        extra = schema.get("additionalProperties")
        return _dict(_entry(STRING, python_value(extra if isinstance(extra, Mapping) else {},
                                                 depth + 1)))
    required = schema.get("required")
    needed = set(required) if isinstance(required, list) else set()
    members = [
        (_entry(_key(name), python_value(sub, depth + 1)), name in needed)
        for name, sub in properties.items()
    ]
    return seq(Lit("{"), _members(members), Lit("}"))


def _key(name: str) -> Node:
    return alt(*(Lit(text) for text in dict.fromkeys((format_pythonic_value(name),
                                                       json.dumps(name, ensure_ascii=False)))))


def _any(depth: int) -> Node:
    if depth >= MAX_DEPTH:
        return alt(*_SCALARS)
    inner = _any(depth + 1)
    return alt(*_SCALARS, _list(inner), _dict(_entry(STRING, inner)))
