"""Routes the proxy does not serve, and the request id (`toolcalls.serve._app`, `_access`):
a path not served is answered 404 and a wrong method 405, in the shape of the API at or above
the path, naming the routes served, with an access-log line; every answer has an
``x-request-id``, the client's own when well-formed."""

from __future__ import annotations

import logging

import anthropic
import httpx
import openai
import pytest
from clients import access_lines, anthropic_client, openai_client
from upstream import FakeUpstream

SERVED = "POST /v1/chat/completions"


@pytest.mark.parametrize("method,path", [
    ("POST", "/v1/completions"), ("POST", "/v1/embeddings"), ("GET", "/anything"),
    ("POST", "/v1/chat/completions/extra")])
def test_a_path_not_served_is_a_404_in_openai_shape_naming_the_routes(
        start_proxy, upstream: FakeUpstream, method: str, path: str) -> None:
    response = httpx.request(method, f"{start_proxy()}{path}", json={}, timeout=10)
    assert response.status_code == 404
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert f"{method} {path} is not served" in error["message"]
    for route in (SERVED, "POST /v1/messages", "POST /v1/messages/count_tokens",
                  "GET /v1/models", "GET /healthz"):
        assert route in error["message"]
    assert upstream.requests == []  # never passed on


def test_a_path_under_messages_is_answered_in_anthropic_shape(start_proxy, upstream) -> None:
    client = anthropic_client(start_proxy())
    with pytest.raises(anthropic.NotFoundError) as raised:
        client.messages.batches.list()
    body = raised.value.body
    assert isinstance(body, dict) and body["type"] == "error"
    assert body["error"]["type"] == "not_found_error"
    assert "GET /v1/messages/batches is not served" in body["error"]["message"]
    assert SERVED in body["error"]["message"]


def test_the_openai_sdk_on_a_route_not_served_is_told_the_routes(start_proxy, upstream) -> None:
    client = openai_client(start_proxy())
    with pytest.raises(openai.NotFoundError) as raised:
        client.completions.create(model="m", prompt="hi")
    assert "POST /v1/completions is not served" in str(raised.value)
    assert SERVED in str(raised.value)


@pytest.mark.parametrize("method,path,allow,shape", [
    ("GET", "/v1/chat/completions", "POST", "error"),
    ("GET", "/v1/messages", "POST", "type"),
    ("POST", "/v1/models", "GET", "error")])
def test_a_wrong_method_is_a_405_with_allow(start_proxy, upstream, method: str, path: str,
                                            allow: str, shape: str) -> None:
    response = httpx.request(method, f"{start_proxy()}{path}", timeout=10)
    assert response.status_code == 405
    allowed = response.headers["allow"]
    assert allow in allowed.split(", ") and method not in allowed
    assert shape in response.json()
    assert f"{method} {path}: this route takes {allowed} only" in response.text
    assert SERVED in response.text


def test_routes_not_served_are_logged_with_their_request_id(
        start_proxy, upstream, caplog: pytest.LogCaptureFixture) -> None:
    url = start_proxy()
    with caplog.at_level(logging.INFO, logger="toolcalls.serve"):
        missing = httpx.post(f"{url}/v1/responses-not-here", json={}, timeout=10)
        wrong = httpx.get(f"{url}/v1/chat/completions", timeout=10)
        lines = access_lines(caplog, 2)
    assert [(line["method"], line["path"], line["status"], line["request_id"])
            for line in lines] == [
        ("POST", "/v1/responses-not-here", 404, missing.headers["x-request-id"]),
        ("GET", "/v1/chat/completions", 405, wrong.headers["x-request-id"])]


@pytest.mark.parametrize("given,kept", [
    ("trace-4f1c.b:2_X", True), ("bad id with spaces", False), ("x" * 129, False),
    ('quote"d', False)])
def test_a_well_formed_request_id_is_kept_else_a_fresh_one(start_proxy, upstream, given: str,
                                                           kept: bool) -> None:
    response = httpx.get(f"{start_proxy()}/v1/models", headers={"x-request-id": given},
                         timeout=10)
    ident = response.headers["x-request-id"]
    assert (ident == given) is kept
    if not kept:
        assert ident.startswith("req_") and len(ident) == 36


def test_every_answer_has_a_request_id(start_proxy, upstream: FakeUpstream) -> None:
    url = start_proxy()
    answers = [
        httpx.get(f"{url}/healthz", timeout=10),
        httpx.post(f"{url}/v1/chat/completions", timeout=10, json={
            "model": "m", "messages": [{"role": "user", "content": "hi"}]}),
        httpx.post(f"{url}/v1/chat/completions", timeout=10, json={"model": "m"}),  # 400
        httpx.post(f"{url}/nowhere", timeout=10),
        httpx.get(f"{url}/v1/models", timeout=10, headers={"host": "evil.example"}),  # 421
    ]
    assert [answer.status_code for answer in answers] == [200, 200, 400, 404, 421]
    ids = [answer.headers["x-request-id"] for answer in answers]
    assert len(set(ids)) == len(ids)


def test_the_sdks_read_the_request_id_whole_and_streamed(start_proxy, upstream) -> None:
    client = openai_client(start_proxy())
    raw = client.chat.completions.with_raw_response.create(
        model="m", messages=[{"role": "user", "content": "hi"}],
        extra_headers={"x-request-id": "mine-1"})
    assert raw.headers["x-request-id"] == "mine-1"
    assert raw.parse()._request_id == "mine-1"
    with anthropic_client(start_proxy()).messages.stream(
            model="m", max_tokens=10, messages=[{"role": "user", "content": "hi"}]) as stream:
        stream.get_final_message()
        ident = stream.response.headers["x-request-id"]
    assert ident.startswith("req_")
