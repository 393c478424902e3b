"""What the proxy refuses before reading a request (`toolcalls.serve._guard`): a Host it does
not answer to (421: DNS rebinding), a body not declared JSON (415: a CORS simple request)."""

from __future__ import annotations

import json

import httpx
import pytest
from clients import TIMEOUT
from upstream import FakeUpstream

from toolcalls.serve import ServeConfig
from toolcalls.serve._config import ConfigError, load_config
from toolcalls.serve._guard import allowed_hosts, host_name, is_json, is_loopback

CHAT = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
MESSAGES = {**CHAT, "max_tokens": 5}


def _port(url: str) -> str:
    return url.rsplit(":", 1)[1]


def _send(url: str, path: str, *, host: str | None = None,
          content_type: str | None = "application/json") -> httpx.Response:
    headers = {} if content_type is None else {"content-type": content_type}
    if host is not None:
        headers["host"] = host
    body = MESSAGES if path == "/v1/messages" else CHAT
    return httpx.post(f"{url}{path}", content=json.dumps(body).encode(), headers=headers,
                      timeout=TIMEOUT)


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "localhost.evil.example",
                                  "127.0.0.1.nip.io:{port}", "", "[::2]:{port}"])
def test_a_host_not_allowed_is_421_and_never_reaches_the_upstream(
        start_proxy, upstream: FakeUpstream, host: str) -> None:
    url = start_proxy()
    host = host.format(port=_port(url))
    chat = _send(url, "/v1/chat/completions", host=host)
    assert chat.status_code == 421
    assert chat.json()["error"]["type"] == "invalid_request_error"
    assert "allowed_hosts" in chat.json()["error"]["message"]
    messages = _send(url, "/v1/messages", host=host)
    assert messages.status_code == 421 and messages.json()["type"] == "error"
    assert "allowed_hosts" in messages.json()["error"]["message"]
    for path in ("/v1/models", "/healthz"):
        assert httpx.get(f"{url}{path}", headers={"host": host},
                         timeout=TIMEOUT).status_code == 421
    assert upstream.requests == [] and upstream.headers == []


@pytest.mark.parametrize("host", ["localhost:{port}", "127.0.0.1:{port}", "[::1]:{port}",
                                  "LocalHost", "127.0.0.1"])
def test_loopback_names_are_answered(start_proxy, upstream: FakeUpstream, host: str) -> None:
    url = start_proxy()
    response = _send(url, "/v1/chat/completions", host=host.format(port=_port(url)))
    assert response.status_code == 200, response.text


def test_configured_names_are_answered_too(start_proxy, upstream: FakeUpstream) -> None:
    url = start_proxy(allowed_hosts=("proxy.lan",))
    assert _send(url, "/v1/chat/completions", host="proxy.lan:8000").status_code == 200
    assert _send(url, "/v1/chat/completions", host="localhost").status_code == 200
    assert _send(url, "/v1/chat/completions", host="other.lan").status_code == 421
    anything = start_proxy(allowed_hosts=("*",))
    assert _send(anything, "/v1/chat/completions", host="other.lan").status_code == 200


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded",
                                          "multipart/form-data; boundary=x", None,
                                          "application/jsonp", "text/json"])
def test_a_body_not_declared_json_is_415(start_proxy, upstream: FakeUpstream,
                                         content_type: str | None) -> None:
    url = start_proxy()
    chat = _send(url, "/v1/chat/completions", content_type=content_type)
    assert chat.status_code == 415
    assert chat.json()["error"]["message"].startswith("the request body must be JSON")
    messages = _send(url, "/v1/messages", content_type=content_type)
    assert messages.status_code == 415 and messages.json()["type"] == "error"
    assert upstream.requests == []


@pytest.mark.parametrize("content_type", ["application/json; charset=utf-8",
                                          "Application/JSON", "application/json ;charset=UTF-8"])
def test_json_with_parameters_is_taken(start_proxy, upstream: FakeUpstream,
                                       content_type: str) -> None:
    assert _send(start_proxy(), "/v1/chat/completions",
                 content_type=content_type).status_code == 200


def test_which_hosts_a_bind_answers_to() -> None:
    loopback = {"localhost", "127.0.0.1", "::1"}
    assert allowed_hosts(ServeConfig(upstream="http://u/v1")) == loopback
    assert allowed_hosts(ServeConfig(upstream="http://u/v1", host="::1")) == loopback
    assert allowed_hosts(ServeConfig(upstream="http://u/v1", host="0.0.0.0")) is None
    assert allowed_hosts(ServeConfig(upstream="http://u/v1", host="0.0.0.0",
                                     allowed_hosts=("Proxy.LAN", "[fd00::1]"))) == (
        loopback | {"proxy.lan", "fd00::1"})
    assert allowed_hosts(ServeConfig(upstream="http://u/v1", allowed_hosts=("*",))) is None
    assert [is_loopback(host) for host in ("127.0.0.2", "localhost", "[::1]", "10.0.0.1",
                                           "example.com")] == [True, True, True, False, False]


def test_host_names_and_content_types_are_read_as_http_writes_them() -> None:
    assert [host_name(header) for header in ("LOCALHOST:8000", "[::1]:80", "[::1]", "a.b.",
                                             "h", "", "[::1")] == [
        "localhost", "::1", "::1", "a.b", "h", "", "::1"]
    assert is_json("application/json;charset=utf-8") and not is_json(None)


def test_allowed_hosts_come_from_flag_environment_and_toml(tmp_path) -> None:
    toml = tmp_path / "serve.toml"
    toml.write_text('upstream = "http://u/v1"\nallowed_hosts = ["a.lan", "b.lan"]\n')
    assert load_config({}, {}, toml).allowed_hosts == ("a.lan", "b.lan")
    environ = {"TOOLCALLS_SERVE_ALLOWED_HOSTS": "c.lan, d.lan"}
    assert load_config({}, environ, toml).allowed_hosts == ("c.lan", "d.lan")
    assert load_config({"allowed_hosts": ["e.lan"]}, environ, toml).allowed_hosts == ("e.lan",)
    with pytest.raises(ConfigError, match="^allowed_hosts: expected a host name"):
        load_config({"upstream": "http://u/v1", "allowed_hosts": ["http://a/"]}, {}, None)
    with pytest.raises(ConfigError, match="^allowed_hosts: expected a list"):
        load_config({"upstream": "http://u/v1", "allowed_hosts": 5}, {}, None)
