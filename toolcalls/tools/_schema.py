"""JSON Schema checks, with messages written for whoever has to fix the problem.

Two readers: a developer whose tool definition has a broken ``parameters`` schema
(`schema_problem`), and a model whose call does not fit the schema (`argument_problems`): the
second kind of message goes back to the model so it can correct its call, so it names the
argument, says what was expected in plain words and what was received.

Validation is done by the `jsonschema` library: every draft, ``$ref``, formats kept as
annotations (as providers do), and a stable error order.
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ._refs import resolve_ref

if TYPE_CHECKING:
    from jsonschema import exceptions
    from jsonschema.protocols import Validator

    from ..parsing.issues import IssueKind

__all__ = [
    "MAX_SCHEMA_NESTING", "argument_issues", "argument_problems", "nesting_problem",
    "python_type_names_fixed", "schema_problem",
]

_TYPE_WORDS = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "array": "an array",
    "object": "an object",
    "null": "null",
}


# Hand-written tools often spell types the Python way (mlx-lm's own test tools use "str"); the
# intent is unambiguous, and local servers accept them, so they are read as the JSON names.
_PYTHON_TYPE_NAMES = {
    "str": "string",
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "list": "array",
    "dict": "object",
}
_NOT_SCHEMAS = frozenset({"enum", "const", "default", "examples", "required"})


def _validator_for(schema: Mapping[str, Any]) -> type[Validator]:
    """The validator class of the draft `schema` declares (2020-12 when it declares none).

    jsonschema is imported here, on the first schema checked: importing it takes longer than
    all of ``import toolcalls`` without it, and parsing needs no schema.
    """
    from jsonschema import validators

    return validators.validator_for(schema, default=validators.Draft202012Validator)


def python_type_names_fixed(schema: Any) -> Any:
    """``schema`` with Python type names (``str``, ``int``...) replaced by JSON Schema ones.

    Returns the very same object when there is nothing to replace.
    """
    if isinstance(schema, list):
        fixed_items = [python_type_names_fixed(item) for item in schema]
        changed = any(new is not old for new, old in zip(fixed_items, schema, strict=True))
        return fixed_items if changed else schema
    if not isinstance(schema, dict):
        return schema
    fixed: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type":
            fixed[key] = _json_type_name(value)
        elif key in _NOT_SCHEMAS:
            fixed[key] = value
        elif key == "properties" and isinstance(value, dict):
            fixed[key] = _fixed_properties(value)
        else:
            fixed[key] = python_type_names_fixed(value)
    changed = any(fixed[key] is not schema[key] for key in schema)
    return fixed if changed else schema


def _fixed_properties(properties: dict[str, Any]) -> dict[str, Any]:
    """Property names are not schemas (a property may be called "type"): fix only the values."""
    fixed = {name: python_type_names_fixed(sub) for name, sub in properties.items()}
    changed = any(fixed[name] is not properties[name] for name in properties)
    return fixed if changed else properties


def _json_type_name(declared: Any) -> Any:
    if isinstance(declared, str) and declared in _PYTHON_TYPE_NAMES:
        return _PYTHON_TYPE_NAMES[declared]
    if isinstance(declared, list) and any(
            isinstance(name, str) and name in _PYTHON_TYPE_NAMES for name in declared):
        # A name that is no string ([[]]) stays as it is: `schema_problem` names it.
        return [_PYTHON_TYPE_NAMES.get(name, name) if isinstance(name, str) else name
                for name in declared]
    return declared


MAX_SCHEMA_NESTING = 100
"""How many objects and arrays deep a tool's schema may nest: far more than any real one, few
enough for the recursive readers of schemas (jsonschema's among them)."""


def nesting_problem(schema: Any, what: str = "parameters",
                    limit: int = MAX_SCHEMA_NESTING) -> str | None:
    """What is wrong when `schema` nests deeper than `limit` (checked with a loop: a schema
    nested thousands deep is data here, not a crash), else None."""
    stack: list[tuple[Any, int]] = [(schema, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return (f"{what} nests more than {limit} objects and arrays deep; "
                    "flatten it, or define the repeated part once under $defs and $ref it")
        children = node.values() if isinstance(node, dict) else node if isinstance(
            node, list) else ()
        stack.extend((child, depth + 1) for child in children
                     if isinstance(child, dict | list))
    return None


def schema_problem(schema: Mapping[str, Any]) -> str | None:
    """What is wrong with ``schema`` as the parameters of a tool, or None when it is fine."""
    return _cached_schema_problem(_canonical(schema))


@functools.lru_cache(maxsize=2048)
def _cached_schema_problem(schema_json: str) -> str | None:
    schema = json.loads(schema_json)
    uppercase = sorted(_uppercase_types(schema))
    if uppercase:
        return (
            f"parameters uses Gemini/OpenAPI uppercase types ({', '.join(uppercase)}); JSON "
            "Schema types are lowercase: import Gemini declarations with from_gemini(), which "
            "converts them"
        )
    from jsonschema.exceptions import SchemaError

    validator_class = _validator_for(schema)
    try:
        validator_class.check_schema(schema)
    except SchemaError as error:
        where = _pointer(error.path) or "the top level"
        message = error.message
        if error.path and error.path[-1] == "type":
            message = (
                f"{error.instance!r} is not a JSON Schema type; use one of "
                + ", ".join(_TYPE_WORDS)
            )
        return f"parameters is not a valid JSON Schema: {message} (at {where})"
    dangling = _dangling_ref(schema)
    if dangling is not None:
        return (f"parameters has a $ref that points nowhere: {dangling!r}; define it under "
                "$defs in the parameters schema (local refs are followed, remote ones are not)")
    declared = schema.get("type")
    if declared is not None and "object" not in _as_list(declared):
        return (
            f"parameters must describe a JSON object of named arguments (type 'object'), "
            f"not type {declared!r}: wrap the value in an object property"
        )
    return None


def _validator(schema: Mapping[str, Any]) -> Validator:
    """A validator of `schema` that follows its local ``$ref``s and no remote one: a remote
    ``$ref`` (``https://...``) accepts any value, as nothing is fetched while parsing.

    Kept per schema object (a tool's ``parameters``, checked at every call): building one took
    a third of the runtime executor's cost per call. The cache holds the schema itself, so its
    id cannot be reused by another object while the entry lives."""
    hit = _VALIDATORS.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    validator = _validator_for(schema)(schema, registry=_no_remote_refs())
    with _VALIDATORS_LOCK:  # parses on several threads may fill it at once
        if len(_VALIDATORS) >= _VALIDATORS_KEPT:
            _VALIDATORS.pop(next(iter(_VALIDATORS)), None)
        _VALIDATORS[id(schema)] = (schema, validator)
    return validator


_VALIDATORS: dict[int, tuple[Mapping[str, Any], Validator]] = {}
_VALIDATORS_KEPT = 1024
_VALIDATORS_LOCK = threading.Lock()


@functools.cache
def _no_remote_refs() -> Any:
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    def anything(uri: str) -> Resource[Any]:
        return Resource.from_contents({}, default_specification=DRAFT202012)

    return Registry(retrieve=anything)  # type: ignore[call-arg]


def _dangling_ref(schema: Any) -> str | None:
    """The first local ``$ref`` (``#/$defs/Name``, ``#name``) in `schema` that points nowhere:
    jsonschema would raise on it while checking a call. Remote refs are not followed."""
    refs: list[str] = []
    anchors: set[str] = set()
    stack = [schema]
    while stack:  # a loop, not recursion: a schema may be nested thousands deep
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, Mapping):
            if isinstance(node.get("$ref"), str) and node["$ref"].startswith("#"):
                refs.append(node["$ref"])
            if isinstance(node.get("$anchor"), str):
                anchors.add(node["$anchor"])
            stack.extend(value for key, value in node.items() if key not in _NOT_SCHEMAS)
    for ref in refs:
        fragment = ref[1:]
        found = (fragment in anchors if fragment and not fragment.startswith("/")
                 else resolve_ref(ref, schema) is not None)
        if not found:
            return ref
    return None


MAX_CHECKED_NESTING = 64
"""Arguments nested deeper are not checked against the schema (jsonschema checks by recursion:
a recursive schema over arguments 200 deep ran out of stack); an issue says so."""
_TOO_DEEP = (f"the arguments nest more than {MAX_CHECKED_NESTING} arrays and objects deep, too "
             "deep to be checked against the tool's schema; send a flatter value")


def _errors(schema: Mapping[str, Any], arguments: Any) -> list[exceptions.ValidationError] | None:
    """The validation errors, in a stable order; None when the arguments are too deep to check."""
    if nesting_problem(arguments, "arguments", MAX_CHECKED_NESTING) is not None:
        return None
    if _surely_valid(schema, arguments):
        return []
    try:
        found = list(_validator(schema).iter_errors(arguments))
    except RecursionError:  # interpreted code: a deep schema on a stack already deep
        return None
    return sorted(found, key=lambda e: (list(e.path), e.validator))


_FLAT_OBJECT_KEYS = frozenset({"type", "properties", "required", "additionalProperties",
                               "description", "title", "$schema"})
_FLAT_VALUE_KEYS = frozenset({"type", "description", "title", "default", "examples"})
_JSON_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda value: isinstance(value, str),
    "integer": lambda value: type(value) is int,
    "number": lambda value: type(value) in (int, float),
    "boolean": lambda value: isinstance(value, bool),
    "null": lambda value: value is None,
    "array": lambda value: isinstance(value, list),
    "object": lambda value: isinstance(value, dict),
}


def _surely_valid(schema: Mapping[str, Any], arguments: Any) -> bool:
    """True only when `arguments` certainly fit a flat `schema` (an object of typed values,
    ``required``, no other keyword): the common tool, checked in about 1 µs where jsonschema
    takes 14. Anything else, or any doubt (``1.0`` for an integer), is False: ask jsonschema."""
    if not isinstance(arguments, dict) or not _FLAT_OBJECT_KEYS.issuperset(schema):
        return False
    if schema.get("type", "object") != "object" or schema.get("additionalProperties",
                                                              True) is not True:
        return False
    required = schema.get("required", ())
    if not isinstance(required, list) or any(name not in arguments for name in required):
        return False
    properties = schema.get("properties", {})
    if not isinstance(properties, dict):
        return False
    for name, value in arguments.items():
        declared = properties.get(name)
        if declared is not None and not _surely_typed(declared, value):
            return False
    return True


def _surely_typed(schema: Any, value: Any) -> bool:
    if not isinstance(schema, dict) or not _FLAT_VALUE_KEYS.issuperset(schema):
        return False
    types = schema.get("type")
    if types is None:
        return True
    if isinstance(types, str):
        types = [types]
    if not isinstance(types, list):
        return False
    return any(_JSON_TYPES.get(kind, _never)(value) for kind in types if isinstance(kind, str))


def _never(value: Any) -> bool:
    return False


def argument_problems(schema: Mapping[str, Any], arguments: Any) -> list[str]:
    """Every way ``arguments`` fails ``schema``, as sentences a model can act on; [] if valid."""
    errors = _errors(schema, arguments)
    return [_TOO_DEEP] if errors is None else [_explain(error) for error in errors]


def argument_issues(schema: Mapping[str, Any], arguments: Any) -> list[tuple[IssueKind, str]]:
    """`argument_problems` with the issue kind of each (``parse(..., validate=True)``).

    Kinds: ``missing_argument`` (``required``), ``unknown_argument`` (``additionalProperties``,
    and an argument the top-level ``properties`` do not list when the schema says nothing of
    other arguments: a tool's parameters list what it takes), ``wrong_argument_type``
    (``type``), ``invalid_argument_value`` (anything else: enum, range, pattern...).
    """
    errors = _errors(schema, arguments)
    if errors is None:
        return [_as_issue("invalid_argument_value", _TOO_DEEP)]
    found = [_classified(error) for error in errors]
    unlisted = _unlisted(schema, arguments)
    if unlisted:
        listed = ", ".join(repr(name) for name in unlisted)
        allowed = ", ".join(sorted(schema["properties"])) or "none"
        found.append(_as_issue("unknown_argument",
                               f"unknown argument {listed}; the allowed arguments are: {allowed}"))
    return found


def _classified(error: exceptions.ValidationError) -> tuple[IssueKind, str]:
    keyword, message = str(error.validator), _explain(error)
    if keyword == "required":
        return _as_issue("missing_argument", message)
    if keyword == "additionalProperties":
        return _as_issue("unknown_argument", message)
    if keyword == "type":
        return _as_issue("wrong_argument_type", message)
    return _as_issue("invalid_argument_value", message)


def _as_issue(kind: IssueKind, message: str) -> tuple[IssueKind, str]:
    """An issue of `kind` (tests/parsing/test_issues.py finds the kinds passed here)."""
    return kind, message


def _unlisted(schema: Mapping[str, Any], arguments: Any) -> list[str]:
    """Top-level arguments the schema's ``properties`` do not name, when it says nothing of
    others (no ``additionalProperties``, ``patternProperties`` or combinators)."""
    properties = schema.get("properties")
    open_keys = ("additionalProperties", "patternProperties", "unevaluatedProperties",
                 "anyOf", "oneOf", "allOf", "$ref")
    if not isinstance(properties, Mapping) or not isinstance(arguments, Mapping):
        return []
    if any(key in schema for key in open_keys):
        return []
    return sorted(str(name) for name in arguments if name not in properties)


def _explain(error: exceptions.ValidationError) -> str:
    keyword = str(error.validator)
    where = _argument_name(error.path)
    value = error.validator_value
    if keyword == "required":
        return f"missing required argument {_missing_property(error)!r}{_in(where)}"
    if keyword == "additionalProperties" and isinstance(error.instance, Mapping):
        owner = error.schema if isinstance(error.schema, Mapping) else {}
        known = sorted((owner.get("properties") or {}).keys())
        extra = sorted(set(error.instance) - set(known))
        listed = ", ".join(repr(name) for name in extra)
        allowed = ", ".join(known) or "none"
        return f"unknown argument {listed}{_in(where)}; the allowed arguments are: {allowed}"
    subject = f"argument {where!r}" if where else "the arguments"
    got = _describe(error.instance)
    if keyword == "type":
        wanted = " or ".join(_TYPE_WORDS.get(t, t) for t in _as_list(value))
        return f"{subject} must be {wanted}, got {got}"
    if keyword == "enum":
        options = ", ".join(json.dumps(v, ensure_ascii=False) for v in _as_list(value))
        return f"{subject} must be one of {options}; got {got}"
    if keyword == "const":
        return f"{subject} must be exactly {json.dumps(value, ensure_ascii=False)}; got {got}"
    if keyword in ("anyOf", "oneOf"):
        from jsonschema.exceptions import best_match

        best = best_match(error.context or [])
        detail = f" ({best.message})" if best is not None else ""
        return f"{subject} does not match any of the accepted forms{detail}; got {got}"
    return f"{subject}: {error.message}"


def _missing_property(error: exceptions.ValidationError) -> str:
    instance = error.instance if isinstance(error.instance, Mapping) else {}
    for name in _as_list(error.validator_value):
        if name not in instance:
            return str(name)
    return str(error.message)


def _argument_name(path: Iterable[Any]) -> str:
    """``items[2].name``-style address of a value inside the arguments object."""
    name = ""
    for part in path:
        name += f"[{part}]" if isinstance(part, int) else (f".{part}" if name else str(part))
    return name


def _pointer(path: Iterable[Any]) -> str:
    return "/".join(str(part) for part in path)


def _in(where: str) -> str:
    return f" in {where!r}" if where else ""


def _describe(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    shown = text if len(text) <= 60 else text[:57] + "..."
    kind = next((word for name, word in _TYPE_WORDS.items() if _is_type(value, name)), "a value")
    return f"{shown} ({kind})"


def _is_type(value: Any, name: str) -> bool:
    from jsonschema.validators import Draft202012Validator

    return bool(Draft202012Validator.TYPE_CHECKER.is_type(value, name))


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else [value]


def _uppercase_types(schema: Any) -> set[str]:
    """Type names like ``OBJECT`` anywhere in the schema (the Gemini/OpenAPI spelling)."""
    found: set[str] = set()
    if isinstance(schema, Mapping):
        declared = schema.get("type")
        for name in _as_list(declared):
            if isinstance(name, str) and name.isupper() and name.lower() in _TYPE_WORDS:
                found.add(name)
        for key, child in schema.items():
            if key not in ("enum", "const", "default", "examples"):
                found |= _uppercase_types(child)
    elif isinstance(schema, list):
        for child in schema:
            found |= _uppercase_types(child)
    return found


def _canonical(schema: Mapping[str, Any]) -> str:
    return json.dumps(schema, sort_keys=True, ensure_ascii=False, default=repr)
