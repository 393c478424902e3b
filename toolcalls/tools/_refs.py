"""Local ``$ref``s in tool schemas: a JSON pointer into the schema, and one argument's schema
with the refs that decide its type followed.

Used below the parse core (`toolcalls.parsing._coerce` types XML-style values by
`property_schema`) and by the schema checks and renderers of this package, so it imports
nothing of toolcalls. Remote refs (``https://...``) and anchors are never followed.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["MAX_SCHEMA_DEPTH", "property_schema", "resolve_ref"]

MAX_SCHEMA_DEPTH: Final = 32
"""How many `$ref`s and anyOf/oneOf/allOf levels are followed to find a value's types."""
_MAX_REFS_FOLLOWED: Final = 256
"""How many `$ref`s one schema's resolution follows: a few definitions referring to each other
twice over would otherwise double the work at each level."""
_COMBINATORS: Final = ("anyOf", "oneOf", "allOf")


def property_schema(parameters: dict[str, Any], argument: str) -> dict[str, Any] | None:
    """The JSON Schema of one argument in a tool's `parameters`, or None if not declared.

    Local `$ref`s are followed where they decide the value's type (the schema itself and its
    anyOf/oneOf/allOf branches, not inside its properties or items); remote ones are not.
    """
    properties = parameters.get("properties")
    if isinstance(properties, dict):
        schema = properties.get(argument)
        if isinstance(schema, dict):
            if "$ref" not in schema and not _has_combinator(schema):
                return schema  # the common case: no walk (this runs for every XML parameter)
            return _with_refs(schema, parameters, frozenset(), MAX_SCHEMA_DEPTH, [0])
    return None


def _has_combinator(schema: dict[str, Any]) -> bool:
    return "anyOf" in schema or "oneOf" in schema or "allOf" in schema


def resolve_ref(ref: str, root: Any) -> dict[str, Any] | None:
    """A local JSON pointer (``#/$defs/Name``, ``#`` itself) into `root`; None when it is remote,
    an anchor (``#name``) or goes nowhere."""
    if not ref.startswith("#") or not (len(ref) == 1 or ref[1] == "/"):
        return None
    node: Any = root
    for part in ref[2:].split("/") if len(ref) > 1 else ():
        key = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        elif isinstance(node, dict) and key in node:
            node = node[key]
        else:
            return None
    return node if isinstance(node, dict) else None


def _with_refs(schema: dict[str, Any], root: dict[str, Any], seen: frozenset[str], depth: int,
               followed: list[int]) -> dict[str, Any]:
    """`schema` with the local `$ref`s that decide its type replaced by what they point to
    (the schema's own keys win, as in 2020-12); the very same object when it has none."""
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref not in seen and depth > 0 and followed[0] < _MAX_REFS_FOLLOWED:
        target = resolve_ref(ref, root)
        if target is not None:
            followed[0] += 1
            merged = {**target, **{key: value for key, value in schema.items() if key != "$ref"}}
            return _with_refs(merged, root, seen | {ref}, depth - 1, followed)
    changed: dict[str, Any] = {}
    for keyword in _COMBINATORS:
        branches = schema.get(keyword)
        if isinstance(branches, list) and depth > 0:
            resolved = [_with_refs(branch, root, seen, depth - 1, followed)
                        if isinstance(branch, dict) else branch for branch in branches]
            if any(new is not old for new, old in zip(resolved, branches, strict=True)):
                changed[keyword] = resolved
    return {**schema, **changed} if changed else schema
