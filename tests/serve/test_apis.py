"""The inbound APIs (`toolcalls.serve.apis`): one row each, from which the app builds its routes
and answers its errors."""

from __future__ import annotations

import pytest

from toolcalls.serve import ServeConfig, create_app
from toolcalls.serve._errors import ProxyError
from toolcalls.serve._requests import RequestError
from toolcalls.serve.apis import APIS, InboundApi, api_for

CHAT, MESSAGES, RESPONSES = APIS["chat"], APIS["messages"], APIS["responses"]


def test_each_api_is_a_row_with_its_route_provider_and_id_prefix() -> None:
    rows = {(api.name, api.path, api.provider, api.id_prefix) for api in APIS.values()}
    assert rows == {("chat", "/v1/chat/completions", "openai", "call_"),
                    ("messages", "/v1/messages", "anthropic", "toolu_"),
                    ("responses", "/v1/responses", "openai_responses", "call_")}
    assert all(isinstance(api, InboundApi) and name == api.name for name, api in APIS.items())


def test_the_app_serves_each_api_at_its_route() -> None:
    app = create_app(ServeConfig(upstream="http://127.0.0.1:9/v1"))
    routes = {getattr(route, "path", ""): getattr(route, "methods", set()) for route in app.routes}
    for api in APIS.values():
        assert "POST" in routes[api.path]


@pytest.mark.parametrize(("path", "api"), [
    ("/v1/chat/completions", CHAT), ("/v1/messages", MESSAGES),
    ("/v1/messages/count_tokens", MESSAGES), ("/v1/responses", RESPONSES),
    ("/v1/responses/resp_1/cancel", RESPONSES), ("/v1/models", CHAT), ("/nope", CHAT)])
def test_an_answer_takes_the_shape_of_the_api_at_or_above_its_path(path: str,
                                                                    api: InboundApi) -> None:
    assert api_for(path) is api


def test_an_error_body_is_in_the_apis_own_shape() -> None:
    error = ProxyError(413, "too big", kind="request_too_large")
    assert CHAT.error_body(error) == {"error": {"message": "too big", "type": "request_too_large",
                                                "param": None, "code": None}}
    assert MESSAGES.error_body(error) == {"type": "error", "error": {
        "type": "request_too_large", "message": "too big"}}
    assert RESPONSES.error_body(error) == CHAT.error_body(error)  # OpenAI's shape
    assert ProxyError(502, "down").kind == "api_error"
    assert ProxyError(400, "bad").kind == "invalid_request_error"


def test_a_request_error_names_its_field_as_the_param() -> None:
    named, whole = RequestError("messages[0].role", "expected one of ..."), RequestError("", "x")
    assert CHAT.error_body(named)["error"] == {
        "message": "messages[0].role: expected one of ...", "type": "invalid_request_error",
        "param": "messages[0].role", "code": None}
    assert (whole.said, whole.param, str(whole)) == ("the request body: x", None, "x")


def test_each_api_frames_its_stream_in_strict_json() -> None:
    message = {"type": "message_stop", "text": "é"}
    assert CHAT.event(message) == 'data: {"type":"message_stop","text":"é"}\n\n'
    assert MESSAGES.event(message).startswith("event: message_stop\ndata: {")
    assert RESPONSES.event(message) == MESSAGES.event(message)  # named events too
    with pytest.raises(ValueError):
        CHAT.event({"usage": float("nan")})


def test_a_fresh_call_id_has_the_apis_prefix() -> None:
    first, second = MESSAGES.fresh_id(), MESSAGES.fresh_id()
    assert first.startswith("toolu_") and len(first) == len("toolu_") + 24 and first != second
