"""Read an OpenAPI 3.0/3.1 document into operations: one tool definition per operation, and
what a call must send where.

No HTTP here (`toolcalls.runtime._openapi_load` reads the document, `_openapi` makes the
calls): this module turns a document into `Operation`s, each with its `Tool` definition and
where each argument goes in the request, and says which operations it skipped and why::

    spec = read_document(load_document("petstore.json"))
    [op.definition.name for op in spec.operations]   # ['listPets', 'createPet', ...]
    spec.skipped                                     # (SkippedOperation('DELETE', ...),)

The argument object: path, query, header and cookie parameters by name, and the JSON request
body as one ``body`` property. The body is never flattened into the parameters: a body may be
an array or a union, its fields may share a parameter's name, and one ``body`` keeps the
schema the service wrote, so what the model writes there is sent as is.

``$ref``\\ s are resolved with `referencing` (jsonschema's own resolver), inside the document
only. A reference that leads back into itself (a tree of nodes) becomes a schema that accepts
any value, with only a description naming it; the result holds no ``$ref``. OpenAPI 3.0's
``nullable`` becomes a ``"null"`` type, and keywords JSON Schema has no use for (``xml``,
``discriminator``, ``example``, ``externalDocs``) are dropped.

Skipped: deprecated operations (unless asked for), request bodies with no JSON media type
(multipart, forms, files), and operations the include/exclude filters leave out.
Parameters that carry credentials (the ``Authorization`` header, and every API key the
document's ``securitySchemes`` name) are never shown to the model: configuration sets them.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from referencing import Registry
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

from .._errors import ToolDefinitionError
from ..tools._tool import Tool
from ._openapi_load import OpenApiError
from ._registry import sanitize_name

if TYPE_CHECKING:  # referencing exports its resolver type from a private module only
    from referencing._core import Resolver

__all__ = ["Argument", "OpenApiSpec", "Operation", "SkippedOperation", "read_document"]

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
"""Methods that change nothing (RFC 9110): the others are marked ``is_dangerous``, so the
default permissions ask before a call writes (an ``allow`` rule lets them through)."""

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
LOCATIONS = ("path", "query", "header", "cookie")
_MAX_DEPTH = 32
"""References followed inside one another before the rest is taken as any value."""
_DROPPED = frozenset({"xml", "discriminator", "example", "externalDocs", "nullable"})
_ARGUMENT_CHARACTERS = re.compile(r"[^A-Za-z0-9_.-]")
_DOCUMENT_URI = "urn:toolcalls:openapi"


@dataclass(frozen=True)
class Argument:
    """One parameter of an operation, as the model names it and as the request sends it."""

    name: str
    """The property in the tool's argument object."""
    location: str
    """``path``, ``query``, ``header`` or ``cookie``."""
    wire_name: str
    """The parameter's name in the request."""


@dataclass(frozen=True)
class Operation:
    """One operation: its tool definition and how a call becomes a request."""

    definition: Tool
    method: str
    """Upper case: ``GET``, ``POST``..."""
    path: str
    """The path template, ``/pets/{petId}``."""
    arguments: tuple[Argument, ...]
    body_argument: str | None
    """The property holding the JSON body, when the operation takes one."""
    security: frozenset[str]
    """The security schemes the operation names (its own, or the document's)."""


@dataclass(frozen=True)
class SkippedOperation:
    """An operation that became no tool, and why."""

    method: str
    path: str
    name: str
    reason: str


@dataclass(frozen=True)
class OpenApiSpec:
    """What a document becomes."""

    title: str
    servers: tuple[str, ...]
    """The document's server URLs, variables filled with their defaults."""
    security_schemes: Mapping[str, Mapping[str, Any]]
    operations: tuple[Operation, ...]
    skipped: tuple[SkippedOperation, ...]


def read_document(document: Mapping[str, Any], *, include: Collection[str] = (),
                  exclude: Collection[str] = (), include_deprecated: bool = False,
                  hidden: Collection[tuple[str, str]] = ()) -> OpenApiSpec:
    """The operations of `document` as tools.

    ``include``/``exclude`` name operationIds or tags (include empty: all). ``hidden`` adds
    (location, name) pairs of parameters configuration supplies, besides the credentials the
    document's securitySchemes name."""
    resolver = Registry().with_resource(_DOCUMENT_URI, DRAFT202012.create_resource(
        dict(document))).resolver(base_uri=_DOCUMENT_URI)
    schemes = _security_schemes(document, resolver)
    secret = {(where, name.lower()) for where, name in hidden} | _credential_parameters(schemes)
    reader = _Reader(resolver, document, secret)
    operations: list[Operation] = []
    skipped: list[SkippedOperation] = []
    names: set[str] = set()
    for path, method, raw in _each_operation(document, resolver):
        name = _unique(_operation_name(raw, method, path), names)
        why = _skip_reason(raw, name, include, exclude, include_deprecated)
        if why is None:
            try:
                operations.append(reader.operation(path, method, raw, name))
                names.add(name)
                continue
            except _Unsupported as error:
                why = str(error)
        skipped.append(SkippedOperation(method.upper(), path, name, why))
    return OpenApiSpec(str(document.get("info", {}).get("title", "")),
                       _servers(document), schemes, tuple(operations), tuple(skipped))


class _Unsupported(Exception):
    """An operation this reader cannot turn into a tool (the message says why)."""


def _each_operation(document: Mapping[str, Any],
                    resolver: Resolver) -> list[tuple[str, str, dict[str, Any]]]:
    found = []
    for path, item in document.get("paths", {}).items():
        item = _follow(item, resolver)
        shared = item.get("parameters", [])
        for method in METHODS:
            if isinstance(item.get(method), dict):
                raw = dict(item[method])
                raw["parameters"] = _merged_parameters(shared, raw.get("parameters", []),
                                                       resolver)
                found.append((path, method, raw))
    return found


def _merged_parameters(shared: list[Any], own: list[Any], resolver: Resolver) -> list[Any]:
    """The path item's parameters, overridden by the operation's of the same name and place."""
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    for parameter in [*shared, *own]:
        resolved = _follow(parameter, resolver)
        merged[(str(resolved.get("in")), str(resolved.get("name")))] = resolved
    return list(merged.values())


def _follow(value: Any, resolver: Resolver) -> Any:
    """`value`, or what its ``$ref`` points at (a reference to a reference is followed too)."""
    for _ in range(_MAX_DEPTH):
        if not (isinstance(value, dict) and isinstance(value.get("$ref"), str)):
            return value
        value = _lookup(resolver, value["$ref"]).contents
    raise OpenApiError("a chain of $ref that never ends")


def _lookup(resolver: Resolver, reference: str) -> Any:
    try:
        return resolver.lookup(reference)
    except Unresolvable:
        raise OpenApiError(f"cannot resolve $ref {reference!r}: only references inside the "
                           "document are followed") from None


def _operation_name(raw: Mapping[str, Any], method: str, path: str) -> str:
    given = raw.get("operationId")
    if not (isinstance(given, str) and given):
        segments = [part.strip("{}") for part in path.split("/") if part]
        given = "_".join([method, *segments])
    return sanitize_name(given) or f"{method}_operation"


def _unique(name: str, taken: set[str]) -> str:
    candidate, number = name, 2
    while candidate in taken:
        suffix = f"_{number}"
        candidate, number = name[:64 - len(suffix)] + suffix, number + 1
    return candidate


def _skip_reason(raw: Mapping[str, Any], name: str, include: Collection[str],
                 exclude: Collection[str], include_deprecated: bool) -> str | None:
    keys = {name, str(raw.get("operationId", "")), *map(str, raw.get("tags", []))}
    if include and not keys & set(include):
        return "not included by the filter"
    if keys & set(exclude):
        return "excluded by the filter"
    if raw.get("deprecated") and not include_deprecated:
        return "deprecated"
    return None


def _security_schemes(document: Mapping[str, Any],
                      resolver: Resolver) -> dict[str, Mapping[str, Any]]:
    schemes = document.get("components", {}).get("securitySchemes", {})
    return {name: _follow(scheme, resolver) for name, scheme in schemes.items()}


def _credential_parameters(schemes: Mapping[str, Mapping[str, Any]]) -> set[tuple[str, str]]:
    secret = {("header", "authorization")}
    for scheme in schemes.values():
        if scheme.get("type") == "apiKey":
            secret.add((str(scheme.get("in")), str(scheme.get("name")).lower()))
    return secret


def _servers(document: Mapping[str, Any]) -> tuple[str, ...]:
    urls = []
    for server in document.get("servers", []):
        url = str(server.get("url", ""))
        for variable, spec in server.get("variables", {}).items():
            url = url.replace("{" + variable + "}", str(spec.get("default", "")))
        urls.append(url)
    return tuple(urls)


class _Reader:
    """Builds operations from one document: its resolver and the parameters kept hidden."""

    def __init__(self, resolver: Resolver, document: Mapping[str, Any],
                 secret: set[tuple[str, str]]) -> None:
        self.resolver = resolver
        self.secret = secret
        self.default_security = _security_names(document.get("security", []))

    def operation(self, path: str, method: str, raw: dict[str, Any], name: str) -> Operation:
        properties: dict[str, Any] = {}
        required: list[str] = []
        arguments = []
        for parameter in raw["parameters"]:
            argument = self._argument(parameter, properties)
            if argument is None:
                continue
            properties[argument.name] = self._parameter_schema(parameter)
            if parameter.get("required") or argument.location == "path":
                required.append(argument.name)
            arguments.append(argument)
        body = self._body(raw.get("requestBody"), properties, required)
        schema: dict[str, Any] = {"type": "object", "properties": properties,
                                  "additionalProperties": False}
        if required:
            schema["required"] = required
        security = raw.get("security")
        names = (self.default_security if security is None else _security_names(security))
        try:
            definition = Tool(name=name, description=_description(raw, method, path),
                              parameters=schema, source="openapi",
                              is_dangerous=method.upper() not in SAFE_METHODS)
        except ToolDefinitionError as error:
            raise _Unsupported(f"its argument schema is not valid JSON Schema: {error}") from None
        return Operation(definition, method.upper(), path, tuple(arguments), body, names)

    def _argument(self, parameter: Mapping[str, Any],
                  taken: Mapping[str, Any]) -> Argument | None:
        location, wire = str(parameter.get("in")), str(parameter.get("name"))
        if location not in LOCATIONS:
            raise _Unsupported(f"parameter {wire!r} is in {location!r}, not one of {LOCATIONS}")
        if (location, wire.lower()) in self.secret:
            return None  # a credential: configuration sets it, the model never does
        name = _ARGUMENT_CHARACTERS.sub("_", wire)[:64] or location
        if name in taken or name == "body":
            name = f"{location}_{name}"[:64]
        return Argument(name, location, wire)

    def _parameter_schema(self, parameter: Mapping[str, Any]) -> dict[str, Any]:
        raw = parameter.get("schema")
        if raw is None:  # the `content` form: one media type and its schema
            media: dict[str, Any] = next(iter(parameter.get("content", {}).values()), {})
            raw = media.get("schema", {})
        schema = self._schema(raw)
        if parameter.get("description") and "description" not in schema:
            schema["description"] = str(parameter["description"])
        return schema

    def _body(self, raw: Any, properties: dict[str, Any], required: list[str]) -> str | None:
        if raw is None:
            return None
        body = _follow(raw, self.resolver)
        content = body.get("content", {})
        media = next((kind for kind in content if _is_json(kind)), None)
        if media is None:
            kinds = ", ".join(content) or "no media type"
            raise _Unsupported(f"its request body is not JSON ({kinds})")
        name = "body" if "body" not in properties else "request_body"
        schema = self._schema(content[media].get("schema", {}))
        if body.get("description") and "description" not in schema:
            schema["description"] = str(body["description"])
        properties[name] = schema
        if body.get("required"):
            required.append(name)
        return name

    def _schema(self, raw: Any) -> dict[str, Any]:
        resolved = _Inliner().inline(raw, self.resolver, ())
        return resolved if isinstance(resolved, dict) else {}


def _security_names(requirements: Any) -> frozenset[str]:
    return frozenset(name for requirement in requirements or [] for name in requirement)


def _is_json(media_type: str) -> bool:
    kind = media_type.split(";")[0].strip().lower()
    return kind == "application/json" or kind.endswith("+json")


def _description(raw: Mapping[str, Any], method: str, path: str) -> str:
    parts = [str(raw[key]).strip() for key in ("summary", "description") if raw.get(key)]
    return "\n\n".join(dict.fromkeys(parts)) or f"{method.upper()} {path}"


class _Inliner:
    """Copies a schema with every ``$ref`` replaced by what it points at."""

    def inline(self, value: Any, resolver: Resolver, seen: tuple[str, ...]) -> Any:
        if isinstance(value, list):
            return [self.inline(item, resolver, seen) for item in value]
        if not isinstance(value, dict):
            return value
        if isinstance(value.get("$ref"), str):
            return self._reference(value, resolver, seen)
        copied = {key: self.inline(item, resolver, seen)
                  for key, item in value.items() if key not in _DROPPED}
        if value.get("nullable") is True:
            _allow_null(copied)
        return copied

    def _reference(self, value: dict[str, Any], resolver: Resolver,
                   seen: tuple[str, ...]) -> Any:
        reference = value["$ref"]
        resolved = _lookup(resolver, reference)
        key = reference  # every reference followed is inside the one document
        siblings = {k: v for k, v in value.items() if k != "$ref"}  # 3.1 allows them
        if key in seen or len(seen) >= _MAX_DEPTH:  # a cycle: stop at any value
            named = reference.rsplit("/", 1)[-1]
            return {**siblings, "description": siblings.get(
                "description", f"a {named} (recursive: any value accepted here)")}
        target = self.inline(resolved.contents, resolved.resolver, (*seen, key))
        if isinstance(target, dict) and siblings:
            return {**target, **self.inline(siblings, resolver, seen)}
        return target


def _allow_null(schema: dict[str, Any]) -> None:
    kind = schema.get("type")
    if isinstance(kind, str):
        schema["type"] = [kind, "null"]
    elif isinstance(kind, list) and "null" not in kind:
        schema["type"] = [*kind, "null"]
