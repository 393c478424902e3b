"""An HTTP service described by OpenAPI as tools: one `RuntimeTool` per operation, run with httpx.

Install the extra: ``pip install 'toolcalls[openapi]'``. Build from a document (a JSON file, a
dict, or a URL on loopback fetched once), then add the tools to a registry::

    service = OpenApiTools("http://127.0.0.1:8000/openapi.json", server="pets",
                           credentials={"HTTPBearer": token}, timeout=10)
    service.install(registry)          # pets__listPets, pets__createPet, ...
    service.skipped                    # operations that became no tool, and why

What the model writes becomes a request: path parameters percent-encoded inside their segment
(``../x`` cannot leave it), query, header and cookie parameters where the document puts them,
``body`` as the JSON body. Credentials come from configuration only: ``auth`` (`BearerAuth`,
`BasicAuth`, `ApiKeyAuth`, sent with every call) and ``credentials`` (secrets by the name of the
document's ``securitySchemes``, sent to the operations that name the scheme); the model has no
argument that reaches them. Every request must fall under ``allowed_urls`` (the base URL by
default), and redirects are not followed, so no call leaves the service.

The answer: 2xx JSON is a `Json` item, anything else text, both cut to ``result_limit``
characters. An error status is a typed error the model can act on: 401/403 `Denied`, 400/422
`InvalidArgs` (with the service's validation detail), 429 `RateLimited` (with Retry-After),
404 and other statuses `Failed`; no connection is `Failed`, a timeout `TimedOut`. The call's
cancel token stops the request (the executor cancels the task).
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from ._context import ToolContext
from ._dynamic import url_allowed
from ._openapi_auth import ApiKeyAuth, Auth, BasicAuth, BearerAuth, RequestParts, scheme_auth
from ._openapi_load import OpenApiError, fetch_document, is_url, load_document
from ._openapi_schema import OpenApiSpec, Operation, SkippedOperation, read_document
from ._registry import ToolRegistry
from ._results import (
    Denied,
    Failed,
    InvalidArgs,
    Json,
    RateLimited,
    Text,
    TimedOut,
    ToolError,
    ToolResult,
)
from ._tool import RuntimeTool
from ._truncate import truncate_result

__all__ = ["OpenApiTools", "OperationBody"]

_MAX_BYTES = 10_000_000
"""Bytes of a response body read at most: the rest is never downloaded."""
_ERROR_BODY = 2_000
"""Characters of an error response's body the model reads."""


class OpenApiTools:
    """The operations of one OpenAPI document as tools of the service named ``server``."""

    def __init__(self, document: str | Path | Mapping[str, Any], *, server: str,
                 base_url: str | None = None, allowed_urls: Sequence[str] | None = None,
                 auth: Auth | Sequence[Auth] = (), credentials: Mapping[str, Any] | None = None,
                 timeout: float = 30.0, result_limit: int | None = 10_000,
                 include: Collection[str] = (), exclude: Collection[str] = (),
                 include_deprecated: bool = False) -> None:
        """``document``: a JSON file, a dict, or an ``http(s)`` URL on loopback (or under
        ``allowed_urls``). ``base_url`` defaults to the document's first server, resolved
        against the URL it came from. ``credentials`` maps securitySchemes names to secrets
        (basic: ``"user:password"``). ``include``/``exclude`` name operationIds or tags."""
        self.server = server
        explicit = (auth,) if isinstance(auth, BearerAuth | BasicAuth | ApiKeyAuth) else auth
        self.auth: tuple[Auth, ...] = tuple(explicit)
        source_url = str(document) if is_url(document) else None
        loaded = (fetch_document(str(document), allowed_urls or (), timeout) if source_url
                  else load_document(document))
        hidden = [(each.location, each.name) for each in self.auth
                  if isinstance(each, ApiKeyAuth)]
        self.spec: OpenApiSpec = read_document(
            loaded, include=include, exclude=exclude, include_deprecated=include_deprecated,
            hidden=hidden)
        self.base_url = _base_url(base_url, self.spec, source_url)
        self.allowed_urls = tuple(allowed_urls) if allowed_urls else (self.base_url,)
        self.credentials = scheme_auth(self.spec.security_schemes, credentials or {})
        self.timeout, self.result_limit = timeout, result_limit
        self.tools: list[RuntimeTool] = [
            RuntimeTool(operation.definition, self._body(operation), origin="openapi",
                        server=server) for operation in self.spec.operations]
        """One tool per operation, origin ``openapi``, server `server`."""

    @property
    def skipped(self) -> tuple[SkippedOperation, ...]:
        """Operations that became no tool, and why."""
        return self.spec.skipped

    def install(self, registry: ToolRegistry) -> list[RuntimeTool]:
        """Add the tools to ``registry`` (namespaced by the server); returns them as added."""
        return registry.add_all(self.tools, origin="openapi", server=self.server)

    def _body(self, operation: Operation) -> OperationBody:
        schemes = tuple(auth for name, auth in self.credentials.items()
                        if name in operation.security)
        return OperationBody(operation, self.base_url, self.allowed_urls,
                             (*self.auth, *schemes), self.timeout, self.result_limit)


@dataclass(frozen=True)
class OperationBody:
    """Runs calls to one operation: builds the request, sends it, reads the answer."""

    operation: Operation
    base_url: str
    allowed_urls: tuple[str, ...]
    auth: tuple[Auth, ...] = field(repr=False)
    timeout: float = 30.0
    result_limit: int | None = 10_000

    async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        request = self.request(arguments, ctx.tool_name)
        try:
            async with httpx.AsyncClient(timeout=self.timeout, follow_redirects=False) as client:
                response = await client.send(request, stream=True)
                try:
                    payload = await _read_capped(response)
                finally:
                    await response.aclose()
        except httpx.TimeoutException:
            raise TimedOut(self.timeout) from None
        except httpx.HTTPError as error:
            said = str(error) or type(error).__name__
            raise Failed(f"could not reach {_shown(request.url)}: {said}") from None
        return self._result(ctx.tool_name, response, payload)

    def request(self, arguments: Mapping[str, Any], tool: str) -> httpx.Request:
        """The request a call makes; `InvalidArgs` or `Denied` when it cannot be made."""
        parts = RequestParts()
        url = self.base_url.rstrip("/") + self._filled(arguments, tool, parts)
        if not url_allowed(url, self.allowed_urls):
            raise Denied(f"the URL {url} is outside the allowed base URLs "
                         f"({', '.join(self.allowed_urls)})")
        for auth in self.auth:  # after the arguments: credentials always win
            auth.apply(parts)
        body = self.operation.body_argument
        content = None
        if body is not None and body in arguments:
            content = json.dumps(arguments[body], ensure_ascii=False).encode()
            parts.headers["Content-Type"] = "application/json"
        if parts.cookies:
            parts.headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in parts.cookies.items())
        return httpx.Request(self.operation.method, url, params=parts.params,
                             headers=parts.headers, content=content)

    def _filled(self, arguments: Mapping[str, Any], tool: str, parts: RequestParts) -> str:
        """The path with its parameters filled; query, header and cookie arguments put in
        ``parts``."""
        path = self.operation.path
        for argument in self.operation.arguments:
            if argument.name not in arguments:
                continue
            value, where = arguments[argument.name], argument.location
            if where == "path":
                path = path.replace("{" + argument.wire_name + "}",
                                    _path_segment(tool, argument.name, value))
            elif where == "query":
                parts.params[argument.wire_name] = _query_value(value)
            else:
                place = parts.headers if where == "header" else parts.cookies
                place[argument.wire_name] = _field_value(tool, argument.name, value, where)
        missing = [a.name for a in self.operation.arguments
                   if a.location == "path" and "{" + a.wire_name + "}" in path]
        if missing:
            raise InvalidArgs(tool, [f"{name}: a path parameter is required" for name in missing])
        return path

    def _result(self, tool: str, response: httpx.Response, payload: bytes) -> ToolResult:
        text = payload.decode(response.encoding or "utf-8", "replace")
        details = {"status": response.status_code, "url": _shown(response.request.url)}
        if response.status_code >= 300:
            error = _status_error(tool, response, text)
            return ToolResult.failure(error, details={**details, "body": text})
        if not text:
            return ToolResult((Text(f"HTTP {response.status_code}: no content"),),
                              details=details)
        result = ToolResult((_content(response, text),), details=details)
        return truncate_result(result, self.result_limit) if self.result_limit else result


async def _read_capped(response: httpx.Response) -> bytes:
    chunks, size = [], 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size >= _MAX_BYTES:
            break
    return b"".join(chunks)[:_MAX_BYTES]


def _content(response: httpx.Response, text: str) -> Json | Text:
    kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind == "application/json" or kind.endswith("+json"):
        try:
            return Json(json.loads(text))
        except ValueError:
            pass  # cut at _MAX_BYTES, or not JSON after all: the model reads it as text
    return Text(text)


def _status_error(tool: str, response: httpx.Response, text: str) -> ToolError:
    status, reason = response.status_code, response.reason_phrase
    said = f"HTTP {status} {reason}: {_cut(text)}"
    if status in (401, 403):
        return Denied(f"{said} (the service wants other credentials: they come from the "
                      "configuration, never from the arguments; ask the user)")
    if status in (400, 422):
        return InvalidArgs(tool, _validation_problems(text) or [said])
    if status == 429:
        return RateLimited(f"the service answered {said}",
                           retry_after=_seconds(response.headers.get("retry-after")))
    if status == 404:
        return Failed(f"{said} (not found: check the path parameters, or list what exists)")
    if 300 <= status < 400:
        where = response.headers.get("location", "elsewhere")
        return Failed(f"HTTP {status}: the service redirects to {where}, which is not followed")
    return Failed(said)


def _validation_problems(text: str) -> list[str]:
    """A FastAPI-style ``{"detail": [{"loc": [...], "msg": ...}]}`` as one line per problem."""
    try:
        detail = json.loads(text).get("detail")
    except (ValueError, AttributeError):
        return []
    if isinstance(detail, str):
        return [detail]
    if not isinstance(detail, list):
        return []
    return [".".join(str(part) for part in item.get("loc", [])) + ": " + str(item.get("msg"))
            for item in detail if isinstance(item, dict)]


def _seconds(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None  # an HTTP date: not worth parsing for a hint


def _cut(text: str) -> str:
    text = text.strip() or "(empty body)"
    return text if len(text) <= _ERROR_BODY else text[:_ERROR_BODY] + " [… cut]"


def _path_segment(tool: str, name: str, value: Any) -> str:
    text = _as_text(value)
    if text in ("", ".", ".."):
        raise InvalidArgs(tool, [f"{name}: {text!r} is not a value for a path segment"])
    return urllib.parse.quote(text, safe="")


def _field_value(tool: str, name: str, value: Any, where: str) -> str:
    """A header or cookie value; one that would end it early (a line break, or ``;`` in a
    cookie) could add headers or cookies of the model's choosing, so it is refused."""
    text = _as_text(value)
    forbidden = "\r\n\0" + (";," if where == "cookie" else "")
    if any(character in text for character in forbidden):
        raise InvalidArgs(tool, [f"{name}: a {where} value cannot hold line breaks"
                                 + (", ';' or ','" if where == "cookie" else "")])
    return text


def _shown(url: httpx.URL) -> str:
    """``url`` without its query, which may hold an API key."""
    return str(url.copy_with(query=None))


def _query_value(value: Any) -> Any:
    if isinstance(value, list):
        return [_as_text(item) for item in value]  # repeated: ?tag=a&tag=b
    return _as_text(value)


def _as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else json.dumps(value)


def _base_url(given: str | None, spec: OpenApiSpec, source_url: str | None) -> str:
    if given:
        return given
    server = spec.servers[0] if spec.servers else "/"
    if source_url:
        return urllib.parse.urljoin(source_url, server)
    if urllib.parse.urlsplit(server).scheme:
        return server
    raise OpenApiError(f"the document's server {server!r} is not a full URL: give base_url")


