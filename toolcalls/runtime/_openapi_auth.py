"""Credentials for an OpenAPI service, from configuration only: what each puts in a request.

Three kinds, each applied to every request of the service it is given to (`OpenApiTools`'s
``auth``), after the model's arguments, so a model can never replace them::

    BearerAuth(token)                        Authorization: Bearer <token>
    BasicAuth(username, password)            Authorization: Basic <base64>
    ApiKeyAuth(name, value, "header")        a header, a query parameter or a cookie

`scheme_auth` builds them from secrets named by the document's ``securitySchemes``
(``credentials={"HTTPBearer": token}``): ``http`` bearer, ``oauth2`` and ``openIdConnect``
take a token got elsewhere (no OAuth flow is run), ``http`` basic takes ``"user:password"``,
``apiKey`` its value. Secrets never appear in a repr.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ._openapi_load import OpenApiError

__all__ = ["ApiKeyAuth", "Auth", "BasicAuth", "BearerAuth", "RequestParts", "scheme_auth"]


@dataclass
class RequestParts:
    """The parts of a request that arguments and credentials fill."""

    headers: dict[str, str] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    cookies: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class BearerAuth:
    """``Authorization: Bearer <token>`` on every request."""

    token: str = field(repr=False)

    def apply(self, request: RequestParts) -> None:
        request.headers["Authorization"] = f"Bearer {self.token}"


@dataclass(frozen=True)
class BasicAuth:
    """HTTP basic authentication on every request."""

    username: str
    password: str = field(repr=False)

    def apply(self, request: RequestParts) -> None:
        pair = f"{self.username}:{self.password}".encode()
        request.headers["Authorization"] = "Basic " + base64.b64encode(pair).decode()


@dataclass(frozen=True)
class ApiKeyAuth:
    """An API key in a header, the query or a cookie, on every request."""

    name: str
    value: str = field(repr=False)
    location: Literal["header", "query", "cookie"] = "header"

    def apply(self, request: RequestParts) -> None:
        where = {"header": request.headers, "query": request.params, "cookie": request.cookies}
        where[self.location][self.name] = self.value


Auth = BearerAuth | BasicAuth | ApiKeyAuth
"""Credentials from configuration."""


def scheme_auth(schemes: Mapping[str, Mapping[str, Any]],
                secrets: Mapping[str, Any]) -> dict[str, Auth]:
    """``credentials`` as `Auth`\\ s, by the document's securitySchemes."""
    built: dict[str, Auth] = {}
    for name, secret in secrets.items():
        scheme = schemes.get(name)
        if scheme is None:
            known = ", ".join(schemes) or "none"
            raise OpenApiError(f"credentials for {name!r}: the document's securitySchemes "
                               f"are: {known}")
        built[name] = _auth_for(name, scheme, str(secret))
    return built


def _auth_for(name: str, scheme: Mapping[str, Any], secret: str) -> Auth:
    kind = scheme.get("type")
    if kind == "apiKey" and scheme.get("in") in ("header", "query", "cookie"):
        return ApiKeyAuth(str(scheme.get("name")), secret, scheme["in"])
    if kind == "http" and str(scheme.get("scheme", "")).lower() == "basic":
        username, _, password = secret.partition(":")
        return BasicAuth(username, password)
    if kind in ("http", "oauth2", "openIdConnect"):
        return BearerAuth(secret)  # a token got elsewhere: no OAuth flow is run here
    raise OpenApiError(f"the security scheme {name!r} ({kind}) is not supported: use auth=")
