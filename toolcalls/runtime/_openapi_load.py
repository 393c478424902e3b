"""Read an OpenAPI document: a dict, a JSON file, or a URL on loopback (with httpx).

    document = load_document("petstore.json")       # or a dict
    document = fetch_document("http://127.0.0.1:8000/openapi.json")

Each checks that what it read is an OpenAPI 3.x document and raises `OpenApiError` saying what
is wrong when not. Documents are JSON: YAML would need a YAML parser, which is not among the
package's dependencies (convert a YAML document with any tool first). A URL must be on loopback
or under an allow-list: a document from elsewhere is saved and read as a file, a choice the
user makes, not a fetch a configuration makes quietly.
"""

from __future__ import annotations

import ipaddress
import json
import urllib.parse
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .._errors import ToolCallsError
from ._dynamic import url_allowed

__all__ = ["OpenApiError", "fetch_document", "is_url", "load_document", "parse_document"]


class OpenApiError(ToolCallsError, ValueError):
    """The document cannot be read as OpenAPI 3.x (the message says what is wrong)."""


def is_url(source: object) -> bool:
    """Whether a document source is an ``http(s)`` URL (else a path or a dict)."""
    return isinstance(source, str) and source.startswith(("http://", "https://"))


def load_document(source: str | Path | Mapping[str, Any]) -> dict[str, Any]:
    """A document from a dict or a JSON file, checked to be OpenAPI 3.x."""
    if isinstance(source, Mapping):
        return _checked(dict(source), "the document")
    path = Path(source)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise OpenApiError(f"cannot read {str(path)!r}: {error.strerror or error}") from None
    return parse_document(text, str(path))


def fetch_document(url: str, allowed: Iterable[str] = (), timeout: float = 30.0) -> dict[str, Any]:
    """The document at ``url`` (with httpx, the ``openapi`` extra), which must be on loopback
    or under one of the ``allowed`` URL prefixes: a service elsewhere is read from a file."""
    if not (_on_loopback(url) or url_allowed(url, allowed)):
        raise OpenApiError(f"{url} is not on this machine (loopback) nor under allowed_urls: "
                           "save the document and pass the file, or a dict")
    try:
        import httpx  # the openapi extra: reading a file or a dict does not need it
    except ImportError:
        raise OpenApiError("fetching a document needs httpx: pip install "
                           "'toolcalls[openapi]'") from None
    try:
        response = httpx.get(url, timeout=timeout, follow_redirects=False)
    except httpx.HTTPError as error:
        raise OpenApiError(f"cannot fetch {url}: {error or type(error).__name__}") from None
    if response.status_code != 200:
        raise OpenApiError(f"cannot fetch {url}: HTTP {response.status_code}")
    return parse_document(response.text, url)


def _on_loopback(url: str) -> bool:
    host = urllib.parse.urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def parse_document(text: str, where: str) -> dict[str, Any]:
    """A document from JSON text (read from `where`, named in errors)."""
    try:
        document = json.loads(text)
    except ValueError as error:
        raise OpenApiError(f"{where} is not JSON ({error}); OpenAPI documents are read as JSON "
                           "(convert a YAML one first)") from None
    return _checked(document, where)


def _checked(document: Any, where: str) -> dict[str, Any]:
    if not isinstance(document, dict):
        raise OpenApiError(f"{where} is not an OpenAPI 3.x document (not a JSON object)")
    version = document.get("openapi")
    if not isinstance(version, str) or not version.startswith("3."):
        found = f"version {version!r}" if version else "no 'openapi' field"
        raise OpenApiError(f"{where} is not an OpenAPI 3.x document ({found}); Swagger 2.0 "
                           "documents must be converted to OpenAPI 3 first")
    if not isinstance(document.get("paths", {}), dict):
        raise OpenApiError(f"{where}: 'paths' must be an object")
    return document
