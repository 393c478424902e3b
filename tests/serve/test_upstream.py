"""What reaches the upstream besides the request (`toolcalls.serve._upstream`): which key,
and never a cookie it set for another client."""

from __future__ import annotations

import logging

import httpx
import openai
import pytest
from clients import TIMEOUT, anthropic_client, chat_stream_raw, chat_whole, openai_client
from upstream import FakeUpstream

from toolcalls.serve import ServeConfig, create_app
from toolcalls.serve._config import ConfigError, load_config
from toolcalls.serve._process import announce
from toolcalls.serve._upstream import credentials_in_force, env_proxy

HI = [{"role": "user", "content": "hi"}]


def _ask_both(url: str) -> None:
    """One request from an OpenAI client (Authorization: Bearer sk-test), one from an
    Anthropic client (x-api-key: sk-ant-test)."""
    chat_whole(openai_client(url), model="m", messages=HI)
    anthropic_client(url).messages.create(model="m", max_tokens=5, messages=HI)


def test_clients_keys_are_not_sent_upstream_by_default(start_proxy,
                                                       upstream: FakeUpstream) -> None:
    _ask_both(start_proxy())
    assert len(upstream.headers) == 2
    assert all("authorization" not in headers and "x-api-key" not in headers
               for headers in upstream.headers)


def test_clients_keys_are_sent_upstream_when_forwarding_is_on(start_proxy,
                                                              upstream: FakeUpstream) -> None:
    _ask_both(start_proxy(forward_credentials=True))
    assert [headers["authorization"] for headers in upstream.headers] == [
        "Bearer sk-test", "Bearer sk-ant-test"]


def test_the_configured_key_is_sent_instead_of_clients(start_proxy,
                                                       upstream: FakeUpstream) -> None:
    url = start_proxy(api_key="sk-proxy")
    _ask_both(url)
    httpx.get(f"{url}/v1/models", timeout=TIMEOUT, headers={"authorization": "Bearer mine"})
    assert [headers["authorization"] for headers in upstream.headers] == ["Bearer sk-proxy"] * 3


def test_models_sends_no_client_key_by_default(start_proxy, upstream: FakeUpstream) -> None:
    httpx.get(f"{start_proxy()}/v1/models", timeout=TIMEOUT,
              headers={"authorization": "Bearer mine", "x-api-key": "sk-ant-mine"})
    assert len(upstream.headers) == 1 and "authorization" not in upstream.headers[0]


def test_a_cookie_the_upstream_sets_is_never_sent_back(start_proxy,
                                                       upstream: FakeUpstream) -> None:
    """Client A's answer sets the upstream's session cookie: B's requests (whole, streamed,
    models) must not carry it."""
    url = start_proxy()
    first = chat_whole(openai_client(url), model="m", messages=HI)
    assert first["content"] == "Hello!"
    chat_whole(openai_client(url), model="m", messages=HI)
    chat_stream_raw(openai_client(url), model="m", messages=HI)
    httpx.get(f"{url}/v1/models", timeout=TIMEOUT)
    assert len(upstream.headers) == 4
    assert all("cookie" not in headers for headers in upstream.headers), upstream.headers


@pytest.mark.parametrize(("settings", "said"), [
    ({}, "not set: none is sent"),
    ({"forward_credentials": True}, "not set: each client's own"),
    ({"api_key": "sk-proxy"}, "set: the configured api_key"),
])
def test_the_key_in_force_is_said_at_start(settings, said: str, caplog) -> None:
    config = ServeConfig(upstream="http://u/v1", **settings)
    assert credentials_in_force(config).startswith(said)
    with caplog.at_level(logging.INFO, logger="toolcalls.serve"):
        announce(config)
    assert "upstream key:" in caplog.text and said in caplog.text
    assert "sk-proxy" not in caplog.text  # the key itself is never logged


def test_forwarding_comes_from_flag_environment_and_toml(tmp_path) -> None:
    toml = tmp_path / "serve.toml"
    toml.write_text('upstream = "http://u/v1"\nforward_credentials = true\n')
    assert load_config({}, {}, toml).forward_credentials is True
    environ = {"TOOLCALLS_SERVE_FORWARD_CREDENTIALS": "false"}
    assert load_config({}, environ, toml).forward_credentials is False
    assert load_config({"forward_credentials": True}, environ, toml).forward_credentials
    assert load_config({"upstream": "http://u/v1"}, {}, None).forward_credentials is False


def test_a_key_and_forwarding_together_are_refused() -> None:
    with pytest.raises(ConfigError, match="^api_key and forward_credentials: "):
        ServeConfig(upstream="http://u/v1", api_key="k", forward_credentials=True)


# --- the environment's HTTP proxy -----------------------------------------------------------

UNREACHABLE = "http://127.0.0.1:1/v1"
"""An upstream nothing listens at: reached only through the proxy the environment names."""


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_the_upstream_is_reached_through_the_environment_proxy(
        serve_app, upstream: FakeUpstream, monkeypatch: pytest.MonkeyPatch, stream: bool) -> None:
    # the fake upstream plays the forward proxy: it answers the absolute-form request it gets
    monkeypatch.setenv("HTTP_PROXY", upstream.url)  # type: ignore[attr-defined]
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    upstream.script("through the proxy")
    url = serve_app(create_app(ServeConfig(upstream=UNREACHABLE)))
    # the test's client goes to the proxy directly, not through the environment's proxy
    client = openai_client(url, http_client=httpx.Client(trust_env=False))
    answer = (chat_stream_raw if stream else chat_whole)(client, model="m", messages=HI)
    assert answer["content"] == "through the proxy"
    assert len(upstream.requests) == 1


def test_no_proxy_leaves_the_upstream_direct(serve_app, upstream: FakeUpstream,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", upstream.url)  # type: ignore[attr-defined]
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    url = serve_app(create_app(ServeConfig(upstream=UNREACHABLE)))
    with pytest.raises(openai.APIStatusError) as raised:
        chat_whole(openai_client(url, http_client=httpx.Client(trust_env=False)), model="m",
                   messages=HI)
    assert raised.value.status_code == 502
    assert "cannot connect to the upstream at http://127.0.0.1:1/v1" in str(raised.value)
    assert upstream.requests == []


@pytest.mark.parametrize(("environment", "url", "proxy"), [
    ({}, "http://10.0.0.5:8000/v1", None),
    ({"HTTP_PROXY": "http://proxy:3128"}, "http://10.0.0.5:8000/v1", "http://proxy:3128"),
    ({"HTTPS_PROXY": "http://proxy:3128"}, "http://10.0.0.5:8000/v1", None),
    ({"HTTPS_PROXY": "http://proxy:3128"}, "https://api.example.com/v1", "http://proxy:3128"),
    ({"HTTP_PROXY": "http://proxy:3128", "NO_PROXY": "10.0.0.5"}, "http://10.0.0.5:8000/v1",
     None),
    ({"HTTPS_PROXY": "http://proxy:3128", "NO_PROXY": ".example.com"},
     "https://api.example.com/v1", None),
])
def test_env_proxy_is_the_one_the_environment_names_for_the_upstream(
        monkeypatch: pytest.MonkeyPatch, environment: dict[str, str], url: str,
        proxy: str | None) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert env_proxy(url) == proxy
