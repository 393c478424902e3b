"""Faults: the upstream down, failing, too slow or cut off mid-stream; the client sending a
bad body, too big a body, or going away mid-stream."""

from __future__ import annotations

import json
import socket
from typing import Any

import httpx
import openai
import pytest
from clients import TIMEOUT, expected, openai_client
from upstream import FakeUpstream, corpus_rows

from toolcalls.serve import ServeConfig, create_app

ROW = corpus_rows("qwen3_coder", calls=2)[0]
REQUEST = {"model": "qwen3_coder", "tools": ROW["tools"],
           "messages": [{"role": "user", "content": "go"}]}


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _post(url: str, body: object, path: str = "/v1/chat/completions") -> httpx.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx.post(f"{url}{path}", content=content, timeout=TIMEOUT,
                      headers={"content-type": "application/json"})


@pytest.mark.parametrize("stream", [False, True])
def test_upstream_down_is_502_saying_what_to_check(start_proxy, stream) -> None:
    url = start_proxy(upstream=f"http://127.0.0.1:{_closed_port()}/v1")
    with pytest.raises(openai.APIStatusError) as raised:
        openai_client(url).chat.completions.create(stream=stream, **REQUEST)
    assert raised.value.status_code == 502
    assert "cannot connect to the upstream" in raised.value.message
    assert "is it running" in raised.value.message


@pytest.mark.parametrize("stream", [False, True])
def test_upstream_5xx_is_502_with_its_message(start_proxy, upstream: FakeUpstream,
                                              stream) -> None:
    upstream.script(fault="status_500")
    response = _post(start_proxy(), {**REQUEST, "stream": stream})
    assert response.status_code == 502
    error = response.json()["error"]
    assert error["type"] == "api_error" and "answered 500: model crashed" in error["message"]


@pytest.mark.parametrize("stream", [False, True])
def test_upstream_too_slow_is_504(start_proxy, upstream: FakeUpstream, stream) -> None:
    upstream.script(fault="hang")
    with pytest.raises(openai.APIStatusError) as raised:
        openai_client(start_proxy(timeout=0.3)).chat.completions.create(stream=stream, **REQUEST)
    assert raised.value.status_code == 504
    assert "did not answer within 0.3 s" in raised.value.message


def test_upstream_cut_mid_stream_ends_with_an_error_and_no_half_call(
        start_proxy, upstream: FakeUpstream) -> None:
    upstream.script(ROW["text"], fault="disconnect")
    response = _post(start_proxy(), {**REQUEST, "stream": True})
    assert response.status_code == 200  # the stream had begun: the error is its last event
    chunks = [json.loads(line.removeprefix("data: ")) for line in response.text.splitlines()
              if line.startswith("data: ")]
    assert "error" in chunks[-1] and "data: [DONE]" not in response.text
    assert "upstream" in chunks[-1]["error"]["message"]
    complete = expected(ROW["text"], "qwen3_coder", ROW["tools"])[1]
    parts: dict[int, list[str]] = {}  # a call's name and arguments, by its index
    for chunk in chunks[:-1]:
        for call in chunk["choices"][0]["delta"].get("tool_calls", []):
            part = parts.setdefault(call["index"], ["", ""])
            part[0] += call["function"].get("name") or ""
            part[1] += call["function"].get("arguments") or ""
    written = [(name, json.loads(arguments)) for name, arguments in parts.values()]
    assert all(call in complete for call in written)
    assert len(written) < len(complete)  # the second call was cut off: never written
    assert not any(chunk["choices"][0]["finish_reason"] for chunk in chunks[:-1])


def test_upstream_cut_mid_stream_raises_in_the_sdk(start_proxy, upstream: FakeUpstream) -> None:
    upstream.script(ROW["text"], fault="disconnect")
    with pytest.raises(openai.APIError, match="upstream"):
        for _ in openai_client(start_proxy()).chat.completions.create(stream=True, **REQUEST):
            pass


def test_client_going_away_cancels_the_upstream_request(start_proxy,
                                                        upstream: FakeUpstream) -> None:
    upstream.script(fault="slow")
    with httpx.stream("POST", f"{start_proxy()}/v1/chat/completions", timeout=TIMEOUT,
                      json={**REQUEST, "stream": True}) as response:
        assert response.status_code == 200
        next(response.iter_bytes())
    assert upstream.stream_closed.wait(5), "the upstream stream was not closed"


def test_invalid_json_is_400(start_proxy) -> None:
    response = _post(start_proxy(), b'{"model": "m", "messages": [')
    assert response.status_code == 400
    assert response.json()["error"]["message"].startswith("the request body is not valid JSON")


def test_wrong_field_is_400_naming_it(start_proxy, upstream: FakeUpstream) -> None:
    response = _post(start_proxy(), {"model": "m", "messages": "hello"})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert error["param"] == "messages" and error["message"].startswith("messages: ")
    assert upstream.requests == []


def test_body_over_the_limit_is_413(start_proxy, upstream: FakeUpstream) -> None:
    body = {**REQUEST, "messages": [{"role": "user", "content": "x" * 2000}]}
    response = _post(start_proxy(max_body_bytes=1000), body)
    assert response.status_code == 413
    assert "over 1000 bytes" in response.json()["error"]["message"]
    assert upstream.requests == []


def test_an_error_the_upstream_sends_with_200_is_502(start_proxy, upstream: FakeUpstream) -> None:
    upstream.script(ROW["text"], fault="error_body")
    response = _post(start_proxy(), REQUEST)
    assert response.status_code == 502
    message = response.json()["error"]["message"]
    assert message.startswith("upstream: ") and message.endswith("out of memory")


def test_an_error_mid_stream_ends_the_stream_with_it(start_proxy, upstream: FakeUpstream) -> None:
    upstream.script(ROW["text"], fault="error_body")
    response = _post(start_proxy(), {**REQUEST, "stream": True})
    last = json.loads(response.text.strip().splitlines()[-1].removeprefix("data: "))
    message = last["error"]["message"]
    assert message.startswith("upstream, mid-stream: ") and message.endswith("out of memory")
    assert "[DONE]" not in response.text


FINE = '{"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]%s}'
DEEP = "[" * 5000 + "]" * 5000
BAD_BODIES = [
    ("array", b'[{"model": "m"}]', "the request body: expected an object, got an array", None),
    ("null", b"null", "the request body: expected an object, got null", None),
    ("deep", FINE.replace("%s", f', "metadata": {DEEP}').encode(),
     "the request body: JSON nested more than 128 deep", None),
    ("deep_under_json_limit", FINE.replace("%s", ', "metadata": ' + "[" * 300 + "]" * 300)
     .encode(), "metadata" + "[0]" * 128 + ": JSON nested more than 128 deep",
     "metadata" + "[0]" * 128),
    ("nan", FINE.replace("%s", ', "temperature": NaN').encode(),
     "temperature: NaN is not a JSON number", "temperature"),
    ("infinity", FINE.replace("%s", ', "top_p": -Infinity').encode(),
     "top_p: -Infinity is not a JSON number", "top_p"),
    ("too_large", FINE.replace("%s", ', "temperature": 1e400').encode(),
     "temperature: Infinity is not a JSON number", "temperature"),
    ("lone_surrogate", FINE.replace('"hi"', '"hi \\ud800"').replace("%s", "").encode(),
     "messages[0].content: holds a lone surrogate", "messages[0].content"),
    ("lone_surrogate_in_model", FINE.replace('"m"', '"\\udfff"').replace("%s", "").encode(),
     "model: holds a lone surrogate", "model"),
    ("lone_surrogate_key", FINE.replace("%s", ', "\\ud800": 1').encode(),
     "the request body: the key '\\ud800' holds a lone surrogate", None),
    ("surrogate_bytes",
     FINE.replace('"hi"', '"hi \xed\xa0\x80"').replace("%s", "").encode("latin-1"),
     "messages[0].content: holds a lone surrogate", "messages[0].content"),
]


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/messages"])
@pytest.mark.parametrize(("raw", "said", "param"), [case[1:] for case in BAD_BODIES],
                         ids=[case[0] for case in BAD_BODIES])
def test_a_body_that_is_not_strict_json_is_400_naming_the_field(
        start_proxy, upstream: FakeUpstream, caplog, path: str, raw: bytes, said: str,
        param: str | None) -> None:
    response = _post(start_proxy(), raw, path)
    assert response.status_code == 400, response.text
    if path == "/v1/messages":
        error = response.json()["error"]
        assert response.json()["type"] == "error"
    else:
        error = response.json()["error"]
        assert error["param"] == param
    assert error["type"] == "invalid_request_error"
    assert error["message"].startswith(said), error["message"]
    assert upstream.requests == []
    assert not [record for record in caplog.records if record.levelno >= 40]


def _strict(text: str) -> object:
    """JSON as a strict reader reads it: no NaN or Infinity."""
    def refuse(constant: str) -> None:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


def _events(response: httpx.Response) -> list[object]:
    """The JSON of each ``data:`` line of a stream, read strictly, from its UTF-8 bytes."""
    text = response.content.decode("utf-8")  # strict: raises for bytes that are not UTF-8
    return [_strict(line.removeprefix("data: ")) for line in text.splitlines()
            if line.startswith("data: ") and line != "data: [DONE]"]


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/messages"])
@pytest.mark.parametrize("stream", [False, True])
def test_a_lone_surrogate_from_the_upstream_is_written_as_a_replacement_character(
        start_proxy, upstream: FakeUpstream, path: str, stream: bool) -> None:
    """The upstream's JSON may hold ``\\ud800``; UTF-8 cannot: the stream goes on to its end."""
    upstream.script("before \ud800 after \udfff.")
    response = _post(start_proxy(mode="repair"), {
        "model": "m", "max_tokens": 50, "stream": stream,
        "messages": [{"role": "user", "content": "go"}]}, path)
    assert response.status_code == 200, response.text
    if not stream:
        answer = _strict(response.content.decode("utf-8"))
        text = (answer["choices"][0]["message"]["content"] if path.endswith("completions")
                else answer["content"][0]["text"])
    elif path.endswith("completions"):
        assert response.text.endswith("data: [DONE]\n\n")
        text = "".join(event["choices"][0]["delta"].get("content") or ""
                       for event in _events(response) if event["choices"])
    else:
        events = _events(response)
        assert events[-1]["type"] == "message_stop"
        text = "".join(event["delta"].get("text", "") for event in events
                       if event["type"] == "content_block_delta")
    assert text == "before \ufffd after \ufffd."


@pytest.mark.parametrize("stream", [False, True])
def test_nan_from_the_upstream_is_never_written(start_proxy, upstream: FakeUpstream,
                                                stream: bool) -> None:
    """Usage written with NaN and Infinity is not JSON: the reader leaves it unread (an
    ``unread_part`` issue) and the answer goes out whole, in strict JSON, without it."""
    upstream.script("Hi.", usage={"prompt_tokens": float("nan"), "completion_tokens": 1,
                                  "total_tokens": float("inf")})
    response = _post(start_proxy(mode="repair"), {**REQUEST, "stream": stream})
    assert response.status_code == 200
    if not stream:
        answer = _strict(response.text)
        assert answer["choices"][0]["message"]["content"] == "Hi."
        assert "NaN" not in response.text and "Infinity" not in response.text
        return
    events = _events(response)
    text = "".join(choice["delta"].get("content") or "" for event in events
                   for choice in event.get("choices", []))
    assert text == "Hi." and response.text.rstrip().endswith("data: [DONE]")
    assert "NaN" not in response.text and "Infinity" not in response.text


@pytest.mark.parametrize("arguments", ['{"city": NaN}', '{"city": "\\ud800"}',
                                       '{"city": 1e400}'])
@pytest.mark.parametrize("stream_calls", ["live", "whole"])
@pytest.mark.parametrize("stream", [False, True])
def test_a_native_call_whose_arguments_are_not_json_is_never_written_complete(
        start_proxy, upstream: FakeUpstream, stream: bool, stream_calls: str,
        arguments: str) -> None:
    """Live, its fragments may have gone out before the end shows it: it is never completed,
    and the turn does not end as a tool-calls turn."""
    upstream.script("", native_calls=[{"id": "call_1", "type": "function", "function": {
        "name": "get_weather", "arguments": arguments}}])
    response = _post(start_proxy(mode="repair", stream_calls=stream_calls),
                     {**REQUEST, "stream": stream})
    if not stream:
        answer = _strict(response.text)
        assert not answer.get("choices") or not answer["choices"][0]["message"].get(
            "tool_calls"), answer
        return
    events = _events(response)
    finishes = [choice["finish_reason"] for event in events for choice in event.get(
        "choices", []) if choice["finish_reason"]]
    assert "tool_calls" not in finishes
    if stream_calls == "whole":
        assert not any(choice["delta"].get("tool_calls") for event in events
                       for choice in event.get("choices", []))


def _speaking_asgi(version: str, app: Any) -> Any:
    """`app` told that its server speaks ASGI `version` (uvicorn says 2.3 today)."""
    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            scope = {**scope, "asgi": {**scope.get("asgi", {}), "spec_version": version}}
        await app(scope, receive, send)

    return wrapped


@pytest.mark.parametrize("asgi", ["2.3", "2.4"])
@pytest.mark.parametrize(("model", "tools"), [
    ("qwen3_coder", ROW["tools"]),  # its text streams on
    ("m", ROW["tools"]),  # repair, a model naming no format: its text is held to the end
])
def test_a_client_going_away_stops_a_never_ending_upstream(
        serve_app, fake_upstream: FakeUpstream, asgi: str, model: str, tools: Any) -> None:
    fake_upstream.script(fault="slow")  # a chunk every 20 ms, until its client goes away
    config = ServeConfig(upstream=f"{fake_upstream.url}/v1", mode="repair")  # type: ignore[attr-defined]
    url = serve_app(_speaking_asgi(asgi, create_app(config)))
    request = {"model": model, "tools": tools, "stream": True,
               "messages": [{"role": "user", "content": "go"}]}
    with httpx.stream("POST", f"{url}/v1/chat/completions", json=request,
                      timeout=TIMEOUT) as response:
        assert response.status_code == 200
    # milliseconds when idle; the bound leaves room for a loaded CI machine
    assert fake_upstream.stream_closed.wait(30), "the upstream is still being read"
