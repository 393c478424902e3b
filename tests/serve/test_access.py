"""The access log (`toolcalls.serve._access`): one JSON line per request to an inbound API or
``/v1/models``, written once the answer is sent, whichever part of the proxy answered."""

from __future__ import annotations

import logging

import httpx
import pytest
from clients import access_lines
from upstream import FakeUpstream, corpus_rows

HI = [{"role": "user", "content": "hi"}]


def test_a_planned_request_is_logged_with_its_plan(start_proxy, upstream: FakeUpstream,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    row = corpus_rows("hermes", calls=1)[0]
    upstream.script(row["text"])
    url = start_proxy(mode="prompt")
    with caplog.at_level(logging.INFO, logger="toolcalls.serve"):
        for stream in (False, True):
            response = httpx.post(f"{url}/v1/chat/completions", timeout=10, json={
                "model": "hermes", "tools": row["tools"], "messages": HI, "stream": stream})
            assert response.status_code == 200
        lines = access_lines(caplog, 2)
    assert [(line["method"], line["path"], line["status"], line["stream"], line["calls"])
            for line in lines] == [("POST", "/v1/chat/completions", 200, stream, 1)
                                   for stream in (False, True)]
    assert all(line["mode"] == "prompt" and line["format"] == "hermes" and line["model"] ==
               "hermes" and line["duration_ms"] >= 0 for line in lines)


def test_a_refused_request_is_logged_with_its_status_alone(start_proxy, upstream: FakeUpstream,
                                                           caplog) -> None:
    url = start_proxy()
    with caplog.at_level(logging.INFO, logger="toolcalls.serve"):
        assert httpx.post(f"{url}/v1/messages", timeout=10, json={
            "model": "m", "messages": HI}).status_code == 400  # no max_tokens
        assert httpx.post(f"{url}/v1/messages", timeout=10, content=b"{",
                          headers={"content-type": "text/plain"}).status_code == 415
        assert httpx.get(f"{url}/v1/models", timeout=10).status_code == 200
        assert httpx.get(f"{url}/healthz", timeout=10).status_code == 200  # never logged
        lines = access_lines(caplog, 3)
    assert [sorted(line) for line in lines] == [
        ["duration_ms", "method", "path", "request_id", "status"]] * 3
    assert [(line["path"], line["status"]) for line in lines] == [
        ("/v1/messages", 400), ("/v1/messages", 415), ("/v1/models", 200)]
