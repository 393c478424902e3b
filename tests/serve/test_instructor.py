"""instructor as a client of the proxy, on its default path: ``instructor.from_openai`` over the
openai SDK, in its default mode (``TOOLS``: the response model is one function tool, and the
request forces a call of it), in front of a model server with no tool calling (prompt mode,
Hermes). The model writes the call; instructor returns the pydantic object, whole and as
``create_partial``'s stream. When the first call fails validation, instructor sends the error
back as the call's result and the second call is taken.

Skipped unless instructor is installed: it is not in the dev list, as each release requires
``openai<3`` or (1.15 to 1.17.0, the latest) ``jiter<0.15``, and the openai SDK the other
clients need (>= 3.31) requires ``jiter>=0.16``; pip cannot install both. The file runs after
``pip install --no-deps instructor`` (all it imports is there: only its CLI needs typer), and
passes with openai 3.57 and jiter 0.19.
"""

from __future__ import annotations

import json

import pytest
from clients import openai_client
from pydantic import BaseModel, field_validator
from upstream import FakeUpstream

instructor = pytest.importorskip("instructor")
errors = pytest.importorskip("instructor.core")


class Weather(BaseModel):
    """The weather in a city."""

    city: str
    celsius: int

    @field_validator("city")
    @classmethod
    def _capitalised(cls, city: str) -> str:
        if not city[:1].isupper():
            raise ValueError("a city's name starts with a capital letter")
        return city


def _call(city: str) -> str:
    arguments = json.dumps({"city": city, "celsius": 21})
    return f'<tool_call>\n{{"name": "Weather", "arguments": {arguments}}}\n</tool_call>'


CALL = _call("Paris")
PARIS = {"city": "Paris", "celsius": 21}
MESSAGES = [{"role": "user", "content": "Weather in Paris?"}]
BROKEN = '<tool_call>\n{"name": "Weather", "arguments": {"city": "Par</tool_call>'
"""A call whose JSON is broken (the string and the arguments' object never closed)."""


@pytest.fixture
def client(start_proxy) -> object:
    """instructor on the openai SDK, pointed at a prompt-mode proxy (closed after the test)."""
    return instructor.from_openai(openai_client(start_proxy(mode="prompt")))


def test_create_returns_the_model_s_call_as_the_response_model(client, upstream) -> None:
    upstream.script(CALL)
    weather = client.chat.completions.create(model="hermes", response_model=Weather,
                                             messages=MESSAGES)
    assert isinstance(weather, Weather) and weather.model_dump() == PARIS
    assert len(upstream.requests) == 1
    assert "tools" not in upstream.requests[0]  # prompt mode: the tool is in the prompt
    assert "Weather" in upstream.requests[0]["messages"][0]["content"]


def test_create_partial_streams_the_call_into_the_response_model(client, upstream) -> None:
    upstream.script(CALL)
    partials = list(client.chat.completions.create_partial(
        model="hermes", response_model=Weather, messages=MESSAGES))
    assert partials and partials[-1].model_dump() == PARIS
    assert upstream.requests[0]["stream"] is True


def test_a_call_that_fails_validation_is_retried_with_the_error(client,
                                                                upstream: FakeUpstream) -> None:
    upstream.script(_call("paris"), then=(CALL,))
    weather = client.chat.completions.create(model="hermes", response_model=Weather,
                                             messages=MESSAGES, max_retries=2)
    assert isinstance(weather, Weather) and weather.model_dump() == PARIS
    assert len(upstream.requests) == 2
    # the error went back as the call's result, in the model's own format
    result = upstream.requests[1]["messages"][-1]
    assert result["role"] == "user" and "<tool_response>" in result["content"]
    assert "starts with a capital letter" in result["content"]


def test_a_broken_call_is_never_the_response_model(client, upstream: FakeUpstream) -> None:
    upstream.script(BROKEN, then=(CALL,))
    weather = client.chat.completions.create(model="hermes", response_model=Weather,
                                             messages=MESSAGES, max_retries=2)
    assert weather.model_dump() == PARIS  # the second call's
    assert len(upstream.requests) == 2
    # the broken call came back as the model's text, not as a call: instructor asked again
    assert upstream.requests[1]["messages"][-2] == {"role": "assistant", "content": BROKEN}


def test_a_broken_call_every_time_is_an_error(client, upstream: FakeUpstream) -> None:
    upstream.script(BROKEN)
    with pytest.raises(errors.InstructorRetryException):
        client.chat.completions.create(model="hermes", response_model=Weather,
                                       messages=MESSAGES, max_retries=1)
    assert len(upstream.requests) == 2  # the first attempt, and one retry
