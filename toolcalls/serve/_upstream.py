"""The upstream: one OpenAI-compatible server, reached with one `httpx.AsyncClient` per app.

Every way the upstream can fail becomes an `UpstreamError` with the status the proxy answers
(502: down, refused, broke the connection, answered 5xx or not JSON; 504: too slow) and a
message that says what to check; a 4xx answer is the client's to see, with the upstream's own
message and status (a model the upstream does not serve, a context too long...).
"""

from __future__ import annotations

import http.cookiejar
import json
from collections.abc import Mapping
from typing import Any

import httpx

from ._config import ServeConfig
from ._errors import ProxyError

__all__ = ["Upstream", "UpstreamError"]


class UpstreamError(ProxyError):
    """The upstream could not give an answer; `status` is what the proxy answers with,
    `message` what the client is told."""

    def __init__(self, status: int, message: str, *, kind: str = "api_error") -> None:
        super().__init__(status, message, kind=kind)
        self.message = message
        self.kind = kind
        """invalid_request_error for the upstream's own 4xx, api_error or timeout_error else."""


class Upstream:
    """Requests to the upstream; `config.upstream` is its base URL (with its ``/v1``)."""

    def __init__(self, config: ServeConfig, transport: httpx.AsyncBaseTransport | None) -> None:
        self.url = config.upstream.rstrip("/")
        self._api_key = config.api_key
        self._forward = config.forward_credentials
        self._timeout = config.timeout
        self.root = _root(self.url)
        """The upstream's server root (its base URL without ``/v1``), where vLLM and llama.cpp
        serve ``/tokenize``."""
        self.tokenizer = "unknown"
        """How the upstream counts tokens, once `_count_tokens` learnt it: "vllm" (``/tokenize``
        takes a chat), "llamacpp" (``/apply-template``, then ``/tokenize`` of its text), or
        "none" (an estimate is made instead)."""
        # one client serves every client of the proxy: a cookie the upstream sets for one
        # must never go out with another's requests
        self.client = httpx.AsyncClient(
            base_url=self.url, transport=transport, cookies=http.cookiejar.CookieJar(_Refused()),
            timeout=httpx.Timeout(config.timeout, connect=min(config.timeout, 10.0)))

    async def aclose(self) -> None:
        await self.client.aclose()

    def headers(self, client_headers: Mapping[str, str]) -> dict[str, str]:
        """The configured key; else, with `ServeConfig.forward_credentials` only, the client's
        own Authorization header (or x-api-key, as Anthropic clients send it); else none."""
        if self._api_key:
            return {"authorization": f"Bearer {self._api_key}"}
        if not self._forward:
            return {}
        if auth := client_headers.get("authorization"):
            return {"authorization": auth}
        if key := client_headers.get("x-api-key"):
            return {"authorization": f"Bearer {key}"}
        return {}

    async def post_json(self, body: Mapping[str, Any], headers: Mapping[str, str]) -> Any:
        """A whole chat completion: the upstream's JSON answer."""
        try:
            response = await self.client.post("/chat/completions", json=body, headers=headers)
        except httpx.HTTPError as error:
            raise self._failure(error) from None
        await self._check(response)
        return self._json(response)

    async def open_stream(
        self, body: Mapping[str, Any], headers: Mapping[str, str]
    ) -> httpx.Response:
        """A streamed chat completion, its status checked, its body not read yet: the caller
        reads ``aiter_bytes()`` and must ``aclose()`` it (which cancels the upstream request)."""
        request = self.client.build_request("POST", "/chat/completions", json=body,
                                            headers=headers)
        try:
            response = await self.client.send(request, stream=True)
        except httpx.HTTPError as error:
            raise self._failure(error) from None
        try:
            await self._check(response)
        except BaseException:
            await response.aclose()
            raise
        return response

    async def post_root(self, path: str, body: Mapping[str, Any],
                        headers: Mapping[str, str]) -> Any | None:
        """POST `body` to `path` at the upstream's root (not under ``/v1``: vLLM's and
        llama.cpp's ``/tokenize``); its JSON answer, or None for a 4xx (no such route, or a
        request it does not take)."""
        try:
            response = await self.client.post(f"{self.root}{path}", json=body, headers=headers)
        except httpx.HTTPError as error:
            raise self._failure(error) from None
        if 400 <= response.status_code < 500:
            return None
        await self._check(response)
        return self._json(response)

    async def get_json(self, path: str, headers: Mapping[str, str]) -> Any:
        try:
            response = await self.client.get(path, headers=headers)
        except httpx.HTTPError as error:
            raise self._failure(error) from None
        await self._check(response)
        return self._json(response)

    def _failure(self, error: httpx.HTTPError) -> UpstreamError:
        return failure(error, self.url, self._timeout)

    async def _check(self, response: httpx.Response) -> None:
        if response.status_code < 400:
            return
        try:
            await response.aread()
        except httpx.HTTPError as error:
            raise self._failure(error) from None
        said = _error_message(response)
        if response.status_code >= 500:
            raise UpstreamError(502, f"the upstream at {self.url} answered "
                                f"{response.status_code}: {said} (check the upstream's logs)")
        kind = {401: "authentication_error", 403: "permission_error", 404: "not_found_error",
                429: "rate_limit_error"}.get(response.status_code, "invalid_request_error")
        raise UpstreamError(response.status_code, f"the upstream answered "
                            f"{response.status_code}: {said}", kind=kind)

    def _json(self, response: httpx.Response) -> Any:
        try:
            return response.json()
        except ValueError:
            raise UpstreamError(502, f"the upstream at {self.url} answered with something "
                                "that is not JSON: is --upstream its OpenAI-compatible "
                                "base URL (ending in /v1)?") from None


class _Refused(http.cookiejar.CookiePolicy):
    """A cookie policy that neither keeps nor sends any cookie."""

    netscape = True
    rfc2965 = False
    hide_cookie2 = True

    def set_ok(self, cookie: http.cookiejar.Cookie, request: Any) -> bool:
        return False

    def return_ok(self, cookie: http.cookiejar.Cookie, request: Any) -> bool:
        return False

    def domain_return_ok(self, domain: str, request: Any) -> bool:
        return False

    def path_return_ok(self, path: str, request: Any) -> bool:
        return False



def credentials_in_force(config: ServeConfig) -> str:
    """Which key the upstream gets, in words (said at start; never the key itself)."""
    if config.api_key:
        return ("set: the configured api_key goes with every request; clients' own keys are "
                "never sent")
    if config.forward_credentials:
        return ("not set: each client's own (its Authorization header, or x-api-key as a "
                "bearer token) is sent upstream (forward_credentials is on)")
    return ("not set: none is sent, nor clients' own keys (for an upstream that checks keys: "
            "--api-key-env NAME, TOOLCALLS_SERVE_API_KEY or api_key in the config file; or "
            "--forward-credentials)")


def failure(error: httpx.HTTPError, url: str, timeout: float) -> UpstreamError:
    """What went wrong talking to the upstream, in words that say what to check."""
    if isinstance(error, httpx.TimeoutException):
        return UpstreamError(504, f"the upstream at {url} did not answer within {timeout:g} s "
                             "(is it overloaded? raise --timeout for slow models)",
                             kind="timeout_error")
    if isinstance(error, httpx.ConnectError):
        return UpstreamError(502, f"cannot connect to the upstream at {url}: {error} (is it "
                             "running, and is --upstream its address?)")
    return UpstreamError(502, f"the connection to the upstream at {url} failed: "
                         f"{type(error).__name__}: {error}")


def _root(url: str) -> str:
    return url.removesuffix("/v1")


def _error_message(response: httpx.Response) -> str:
    """The upstream's error message (OpenAI's shape, or any JSON, or the start of the text)."""
    try:
        data = response.json()
    except ValueError:
        return response.text[:300].strip() or response.reason_phrase
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
        if isinstance(error, str):
            return error
    return json.dumps(data)[:300]
