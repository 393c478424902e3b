"""The upstream: one OpenAI-compatible server, reached with one `aiohttp.ClientSession` per app.

aiohttp, not httpx: relaying a stream costs a third of the CPU per chunk (a bare pass-through
proxy, `bench/serve_stacks.py`: 97 against 223 us per chunk, 2026-11-28, bench/README.md).
Every way the upstream can fail becomes an `UpstreamError` with the status the proxy answers
(502: down, refused, broke the connection, answered 5xx or not JSON; 504: too slow) and a
message that says what to check; a 4xx answer is the client's to see, with the upstream's own
message and status (a model the upstream does not serve, a context too long...).
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import AsyncIterator, Mapping
from typing import Any

import aiohttp

from ._config import ServeConfig
from ._errors import ProxyError

__all__ = ["UPSTREAM_ERRORS", "Upstream", "UpstreamError", "UpstreamStream", "env_proxy",
           "failure"]

UPSTREAM_ERRORS = (aiohttp.ClientError, TimeoutError)
"""What talking to the upstream can raise: `failure` says each in words."""


class UpstreamError(ProxyError):
    """The upstream could not give an answer; `status` is what the proxy answers with,
    `message` what the client is told."""

    def __init__(self, status: int, message: str, *, kind: str = "api_error") -> None:
        super().__init__(status, message, kind=kind)
        self.message = message
        self.kind = kind
        """invalid_request_error for the upstream's own 4xx, api_error or timeout_error else."""


class UpstreamStream:
    """A streamed answer, its status checked: `chunks()` its bytes as they come; `aclose()`
    closes it (an unfinished one with its connection, which cancels the upstream request)."""

    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self._response = response

    def chunks(self) -> AsyncIterator[bytes]:
        return self._response.content.iter_any()

    async def aclose(self) -> None:
        if self._response.content.at_eof():
            self._response.release()  # read to the end: its connection serves the next one
        else:
            self._response.close()


class Upstream:
    """Requests to the upstream; `config.upstream` is its base URL (with its ``/v1``). Made
    in the app's event loop (its lifespan), as the session must be."""

    def __init__(self, config: ServeConfig) -> None:
        self.url = config.upstream.rstrip("/")
        self.timeout = config.timeout
        self._api_key = config.api_key
        self._forward = config.forward_credentials
        self.root = _root(self.url)
        """The upstream's server root (its base URL without ``/v1``), where vLLM and llama.cpp
        serve ``/tokenize``."""
        self.tokenizer = "unknown"
        """How the upstream counts tokens, once `_count_tokens` learnt it: "vllm" (``/tokenize``
        takes a chat), "llamacpp" (``/apply-template``, then ``/tokenize`` of its text), or
        "none" (an estimate is made instead)."""
        self.proxy = env_proxy(self.url)
        """The HTTP proxy to the upstream that the environment names (HTTP_PROXY, HTTPS_PROXY,
        NO_PROXY), read once: aiohttp's ``trust_env`` would read it, and ``~/.netrc`` for
        credentials, in a thread on every request."""
        # One session serves every client of the proxy: a cookie the upstream sets for one
        # must never go out with another's requests (the dummy jar keeps none). No limit on
        # connections: each is a client's request, which the server already bounds.
        self.session = aiohttp.ClientSession(
            cookie_jar=aiohttp.DummyCookieJar(), proxy=self.proxy,
            connector=aiohttp.TCPConnector(limit=0),
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=min(config.timeout, 10.0),
                                          sock_read=config.timeout))

    async def aclose(self) -> None:
        await self.session.close()

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
        return await self._json_of("POST", f"{self.url}/chat/completions", body, headers)

    async def open_stream(
        self, body: Mapping[str, Any], headers: Mapping[str, str]
    ) -> UpstreamStream:
        """A streamed chat completion, its status checked, its body not read yet: the caller
        reads ``chunks()`` and must ``aclose()`` it."""
        try:
            response = await self.session.post(f"{self.url}/chat/completions",
                                               data=_json_body(body), headers=_sent(headers))
        except UPSTREAM_ERRORS as error:
            raise self._failure(error) from None
        try:
            await self._check(response, await _error_body(response))
        except BaseException:
            response.close()
            raise
        return UpstreamStream(response)

    async def post_root(self, path: str, body: Mapping[str, Any],
                        headers: Mapping[str, str]) -> Any | None:
        """POST `body` to `path` at the upstream's root (not under ``/v1``: vLLM's and
        llama.cpp's ``/tokenize``); its JSON answer, or None for a 4xx (no such route, or a
        request it does not take)."""
        return await self._json_of("POST", f"{self.root}{path}", body, headers,
                                   none_for_4xx=True)

    async def get_json(self, path: str, headers: Mapping[str, str]) -> Any:
        return await self._json_of("GET", f"{self.url}{path}", None, headers)

    async def _json_of(self, method: str, url: str, body: Mapping[str, Any] | None,
                       headers: Mapping[str, str], *, none_for_4xx: bool = False) -> Any:
        """One request read whole: its JSON answer, the status checked."""
        try:
            async with self.session.request(
                method, url, data=None if body is None else _json_body(body),
                headers=_sent(headers) if body is not None else dict(headers)) as response:
                data = await response.read()
        except UPSTREAM_ERRORS as error:
            raise self._failure(error) from None
        if none_for_4xx and 400 <= response.status < 500:
            return None
        await self._check(response, data)
        try:
            return json.loads(data)
        except ValueError:
            raise UpstreamError(502, f"the upstream at {self.url} answered with something "
                                "that is not JSON: is --upstream its OpenAI-compatible "
                                "base URL (ending in /v1)?") from None

    def _failure(self, error: BaseException) -> UpstreamError:
        return failure(error, self.url, self.timeout)

    async def _check(self, response: aiohttp.ClientResponse, body: bytes) -> None:
        if response.status < 400:
            return
        said = _error_message(body, response.reason or "")
        if response.status >= 500:
            raise UpstreamError(502, f"the upstream at {self.url} answered "
                                f"{response.status}: {said} (check the upstream's logs)")
        kind = {401: "authentication_error", 403: "permission_error", 404: "not_found_error",
                429: "rate_limit_error"}.get(response.status, "invalid_request_error")
        raise UpstreamError(response.status, f"the upstream answered "
                            f"{response.status}: {said}", kind=kind)


async def _error_body(response: aiohttp.ClientResponse) -> bytes:
    """A failed answer's body (read whole: it is the error), or nothing for a good one."""
    if response.status < 400:
        return b""
    try:
        return await response.read()
    except UPSTREAM_ERRORS:
        return b""


def _json_body(body: Mapping[str, Any]) -> bytes:
    # strict and compact, as the request was checked to be (no NaN reaches here)
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"),
                      allow_nan=False).encode()


def _sent(headers: Mapping[str, str]) -> dict[str, str]:
    return {**headers, "content-type": "application/json"}


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


def failure(error: BaseException, url: str, timeout: float) -> UpstreamError:
    """What went wrong talking to the upstream, in words that say what to check."""
    if isinstance(error, TimeoutError):
        return UpstreamError(504, f"the upstream at {url} did not answer within {timeout:g} s "
                             "(is it overloaded? raise --timeout for slow models)",
                             kind="timeout_error")
    if isinstance(error, aiohttp.ClientConnectorError):
        return UpstreamError(502, f"cannot connect to the upstream at {url}: {error} (is it "
                             "running, and is --upstream its address?)")
    return UpstreamError(502, f"the connection to the upstream at {url} failed: "
                         f"{type(error).__name__}: {error}")


def env_proxy(url: str) -> str | None:
    """The proxy the environment names for `url`, as any HTTP client of the machine takes it;
    None for none, or for a host NO_PROXY lists."""
    scheme, _, rest = url.partition("://")
    host = rest.split("/", 1)[0]
    proxies = urllib.request.getproxies()
    if scheme not in proxies or urllib.request.proxy_bypass(host):
        return None
    return proxies[scheme]


def _root(url: str) -> str:
    return url.removesuffix("/v1")


def _error_message(body: bytes, reason: str) -> str:
    """The upstream's error message (OpenAI's shape, or any JSON, or the start of the text)."""
    try:
        data = json.loads(body)
    except ValueError:
        return body[:300].decode("utf-8", "replace").strip() or reason
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
        if isinstance(error, str):
            return error
    return json.dumps(data)[:300]
