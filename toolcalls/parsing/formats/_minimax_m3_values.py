"""MiniMax-M3 arguments: nested tags named after the keys, each behind the namespace token.

    ]<]minimax[>[<city>Paris]<]minimax[>[</city>
    ]<]minimax[>[<stops>]<]minimax[>[<item>Lyon]<]minimax[>[</item>]<]minimax[>[</stops>

An element with child elements is an object, or a list when every child is ``<item>`` (and
the schema does not ask for an object); a key repeated in one object is a list of its values
(vLLM's ``minimax_m3`` tests pin both). A leaf's text is typed by the JSON Schema that applies
to it (`toolcalls.parsing._coerce`): without a schema a parameter stays text, as in every XML
format, but a leaf nested in an object or list no schema describes is a JSON scalar when it
reads as one (``3``, ``true``, ``null``): the template writes nested numbers bare, and a JSON
object's values have types. An empty leaf is ``{}`` or ``[]`` when its schema asks for one.
A local ``$ref`` (``#/$defs/Node``) is followed wherever a value's schema is one, into the
tool's parameters, its own keys winning (as `toolcalls.tools._refs` follows them).
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from ...tools._refs import MAX_SCHEMA_DEPTH, resolve_ref
from .._coerce import coerce, decode_json_value, streams_as_string

__all__ = ["NS", "TAG", "followed", "parse_arguments", "render_arguments"]

NS: Final = "]<]minimax[>["
"""The namespace token the template writes before every tag of a call."""

_TAG: Final = re.compile(r"<(/?)([A-Za-z_][\w.\-]*)>", re.DOTALL)
TAG: Final = _TAG
"""A tag as the reader reads one: ``<KEY>`` or ``</KEY>``, KEY a name (`re.fullmatch` it)."""
_ITEM: Final = "item"


class _Node:
    """One element: its key, its schema, its text and its child elements in order."""

    def __init__(self, key: str, schema: dict[str, Any] | None, root: dict[str, Any]) -> None:
        self.key = key
        self.schema = schema
        self.root = root
        self.text = ""
        self.children: list[_Node] = []

    def raw(self) -> bool:
        """A string by its schema: only its own close tag ends it, other tags are its text
        (a value may quote the markup, as a tool result or a code sample does)."""
        return self.schema is not None and not self.children and streams_as_string(self.schema)

    def child_schema(self, key: str) -> dict[str, Any] | None:
        if key == _ITEM and _allows(self.schema, "array"):
            return _items(self.schema, self.root)
        return _property(self.schema, key, self.root)


def parse_arguments(body: str, schema: dict[str, Any] | None) -> tuple[dict[str, Any], str | None]:
    """Read an invoke's body into arguments; return (arguments, None) or ({}, problem)."""
    root, problem = _tree(body, schema)
    if problem is not None:
        return {}, problem
    if root.text.strip():
        return {}, f"text outside any parameter tag: {root.text.strip()[:40]!r}"
    return _object(root.children, schema, False, schema or {}), None


def _tree(body: str, schema: dict[str, Any] | None) -> tuple[_Node, str | None]:
    root = _Node("", schema, schema or {})
    stack = [root]
    pieces = body.split(NS)
    root.text += pieces[0]
    for piece in pieces[1:]:
        node = stack[-1]
        match = _TAG.match(piece)
        if node.raw() and (match is None or match.group(2) != node.key or not match.group(1)):
            node.text += NS + piece
            continue
        if match is None:
            return root, f"a namespace token not followed by a tag: {piece[:40]!r}"
        closing, key = match.group(1), match.group(2)
        if closing:
            if len(stack) == 1 or node.key != key:
                return root, f"</{key}> closes no open <{key}>"
            stack.pop()
        else:
            child = _Node(key, node.child_schema(key), root.root)
            node.children.append(child)
            stack.append(child)
        stack[-1].text += piece[match.end() :]
    if len(stack) > 1:
        return root, f"<{stack[-1].key}> is never closed"
    return root, None


def _value(
    node: _Node, schema: dict[str, Any] | None, nested: bool, root: dict[str, Any]
) -> Any:
    if node.children:
        if all(child.key == _ITEM for child in node.children) and not _allows(schema, "object"):
            items = _items(schema, root)
            return [_value(child, items, True, root) for child in node.children]
        return _object(node.children, schema, True, root)
    if not node.text.strip():
        if _allows(schema, "object"):
            return {}
        if _allows(schema, "array"):
            return []
    if schema is None and nested:
        return _json_scalar(node.text)
    return coerce(node.text, schema)[0]


def _json_scalar(text: str) -> Any:
    value, problem = decode_json_value(text)
    return text if problem is not None or isinstance(value, (dict, list)) else value


def _object(
    children: list[_Node], schema: dict[str, Any] | None, nested: bool, root: dict[str, Any]
) -> dict[str, Any]:
    values: dict[str, Any] = {}
    repeated: set[str] = set()
    for child in children:
        value = _value(child, _property(schema, child.key, root), nested, root)
        if child.key not in values:
            values[child.key] = value
        elif child.key in repeated:
            values[child.key].append(value)
        else:
            values[child.key] = [values[child.key], value]
            repeated.add(child.key)
    return values


def _property(
    schema: dict[str, Any] | None, key: str, root: dict[str, Any]
) -> dict[str, Any] | None:
    properties = schema.get("properties") if isinstance(schema, dict) else None
    found = properties.get(key) if isinstance(properties, dict) else None
    return followed(_dict_or_none(found), root)


def _items(schema: dict[str, Any] | None, root: dict[str, Any]) -> dict[str, Any] | None:
    return followed(_dict_or_none(schema.get("items") if schema else None), root)


def followed(schema: dict[str, Any] | None, root: dict[str, Any]) -> dict[str, Any] | None:
    """``schema`` with its own chain of local ``$ref`` followed into ``root`` (the tool's
    parameters), its other keys winning; a ref that goes nowhere, or comes round again, is
    left (a schema naming no type: text)."""
    seen: set[str] = set()
    while schema is not None and len(seen) < MAX_SCHEMA_DEPTH:
        ref = schema.get("$ref")
        target = resolve_ref(ref, root) if isinstance(ref, str) and ref not in seen else None
        if target is None or not isinstance(ref, str):
            break
        seen.add(ref)
        schema = {**target, **{key: value for key, value in schema.items() if key != "$ref"}}
    return schema


def _dict_or_none(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def _allows(schema: dict[str, Any] | None, kind: str) -> bool:
    declared = schema.get("type") if isinstance(schema, dict) else None
    return declared == kind or (isinstance(declared, list) and kind in declared)


# -- rendering, as the peers' tests show the template writes values --------------------------


def render_arguments(arguments: dict[str, Any], nested: bool = False) -> str:
    """Write arguments as namespaced tags; ValueError for what cannot be read back."""
    return "".join(_element(key, value, nested) for key, value in arguments.items())


def _element(key: str, value: Any, nested: bool) -> str:
    if _TAG.fullmatch(f"<{key}>") is None:
        raise ValueError(f"{key!r} is not a tag name: MiniMax-M3 writes keys as tags")
    return f"{NS}<{key}>{_inner(key, value, nested)}{NS}</{key}>"


def _inner(key: str, value: Any, nested: bool) -> str:
    if isinstance(value, dict):
        if not value:
            raise ValueError(f"{key!r}: an empty object reads back as an empty string")
        return render_arguments(value, True)
    if isinstance(value, list):
        if not value:
            raise ValueError(f"{key!r}: an empty list reads back as an empty string")
        return "".join(_element(_ITEM, item, True) for item in value)
    if nested and isinstance(value, str) and _json_scalar(value) != value:
        raise ValueError(f"{key!r}: the nested string {value!r} reads back as a JSON value")
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if f"{NS}</{key}>" in text:
        raise ValueError(f"{key!r}: a value holding its own close tag would end early")
    return text
