"""The proxy's OpenAI Responses API (``POST /v1/responses``), with the openai SDK as its client:
whole and streamed answers, a tool loop, and errors in OpenAI's shape."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import openai
import pytest
from clients import TIMEOUT, expected, openai_client
from upstream import FakeUpstream, corpus_rows

CALL_ID = re.compile(r"call_[0-9a-f]{24}")
ROWS = [corpus_rows("hermes", calls=1)[0], corpus_rows("qwen3_coder", calls=2)[0]]


def _tools(row: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"type": "function", **tool["function"]} for tool in row["tools"]]


def _request(row: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"model": row["format"], "instructions": "Be brief.", "input": "go",
            "tools": _tools(row), "store": False, **extra}


def _read(response: Any) -> tuple[str, list[tuple[str, dict[str, Any]]], str]:
    """A response's text, its calls as (name, arguments), and its status."""
    calls = [(item.name, json.loads(item.arguments)) for item in response.output
             if item.type == "function_call"]
    return response.output_text, calls, response.status


@pytest.mark.parametrize("mode", ["repair", "prompt"])
@pytest.mark.parametrize("row", ROWS, ids=lambda row: row["id"])
def test_responses_whole_and_streamed(start_proxy, upstream: FakeUpstream, row, mode) -> None:
    client = openai_client(start_proxy(mode=mode))
    upstream.script(row["text"])
    whole = client.responses.create(**_request(row))
    content, calls = expected(row["text"], row["format"], row["tools"])
    assert _read(whole) == (content, calls, "completed")
    function_calls = [item for item in whole.output if item.type == "function_call"]
    assert all(CALL_ID.fullmatch(item.call_id) for item in function_calls)
    assert all(item.id.startswith("fc_") for item in function_calls)
    assert (whole.usage.input_tokens, whole.usage.output_tokens) == (11, 7)
    sent = upstream.requests[0]
    assert sent["messages"][0]["role"] == "system"
    assert sent["messages"][0]["content"].startswith("Be brief.")
    assert ("tools" in sent) == (mode == "repair")

    upstream.script(row["text"], seed=3)
    events = list(client.responses.create(stream=True, **_request(row)))
    assert [events[0].type, events[1].type, events[-1].type] == [
        "response.created", "response.in_progress", "response.completed"]
    assert [event.sequence_number for event in events] == list(range(len(events)))
    assert _read(events[-1].response) == _read(whole)

    upstream.script(row["text"], seed=5)
    with client.responses.stream(**_request(row)) as stream:
        final = stream.get_final_response()
    assert _read(final) == _read(whole)


def test_two_turn_tool_loop(start_proxy, upstream: FakeUpstream) -> None:
    """The client runs the call and sends the history back whole, with the call's output."""
    row = ROWS[0]
    client = openai_client(start_proxy(mode="repair"))
    upstream.script(row["text"], then=("The answer is 42.",))
    first = client.responses.create(**_request(row))
    (call,) = [item for item in first.output if item.type == "function_call"]
    history = [{"role": "user", "content": "go"},
               *[item.model_dump(exclude_none=True) for item in first.output],
               {"type": "function_call_output", "call_id": call.call_id, "output": "42"}]
    second = client.responses.create(**_request(row, input=history))
    assert _read(second) == ("The answer is 42.", [], "completed")
    sent = upstream.requests[1]["messages"]
    assistant = next(m for m in sent if m["role"] == "assistant")
    assert assistant["tool_calls"][0]["id"] == call.call_id
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"arg1": 1}
    assert sent[-1] == {"role": "tool", "tool_call_id": call.call_id, "content": "42"}


def test_tool_loop_in_prompt_mode(start_proxy, upstream: FakeUpstream) -> None:
    """In prompt mode the history's call and output are written into the upstream's text."""
    row = ROWS[0]
    history = [{"role": "user", "content": [{"type": "input_text", "text": "go"}]},
               {"type": "function_call", "call_id": "call_1", "name": "special_function",
                "arguments": '{"arg1": 1}'},
               {"type": "function_call_output", "call_id": "call_1", "output": "forty-two"}]
    upstream.script("Done.")
    answer = openai_client(start_proxy(mode="prompt")).responses.create(
        **_request(row, input=history))
    assert _read(answer) == ("Done.", [], "completed")
    sent = json.dumps(upstream.requests[0]["messages"])
    assert "forty-two" in sent and "special_function" in sent
    assert "tools" not in upstream.requests[0]


def test_parallel_tool_calls_false_keeps_one(start_proxy, upstream: FakeUpstream) -> None:
    row = ROWS[1]
    upstream.script(row["text"])
    answer = openai_client(start_proxy(mode="repair")).responses.create(
        **_request(row, parallel_tool_calls=False, max_output_tokens=64, temperature=0.2))
    assert _read(answer)[1] == expected(row["text"], row["format"], row["tools"])[1][:1]
    sent = upstream.requests[0]
    assert (sent["parallel_tool_calls"], sent["max_tokens"], sent["temperature"]) == (
        False, 64, 0.2)


def _refused(url: str, **request: Any) -> dict[str, Any]:
    """The body of a 400, checked to be in OpenAI's error shape."""
    answer = httpx.post(f"{url}/v1/responses", json=request, timeout=TIMEOUT)
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["type"] == "invalid_request_error"
    return error


def test_previous_response_id_refused(start_proxy, upstream: FakeUpstream) -> None:
    with pytest.raises(openai.BadRequestError) as raised:
        openai_client(start_proxy()).responses.create(
            model="m", input="and then?", previous_response_id="resp_123")
    assert "keeps no state" in raised.value.message
    error = _refused(start_proxy(), model="m", input="hi", previous_response_id="resp_1")
    assert error["param"] == "previous_response_id"
    assert upstream.requests == []


def test_hosted_tools_refused_by_name(start_proxy, upstream: FakeUpstream) -> None:
    tools = [{"type": "web_search"}, {"type": "function", "name": "f", "parameters": {}},
             {"type": "code_interpreter", "container": {"type": "auto"}}]
    error = _refused(start_proxy(), model="m", input="hi", tools=tools)
    assert error["param"] == "tools"
    assert "code_interpreter, web_search" in error["message"]
    assert upstream.requests == []


@pytest.mark.parametrize(("request_", "param"), [
    ({"model": "m"}, "input"),
    ({"model": "m", "input": [{"type": "item_reference", "id": "msg_1"}]}, "input[0].id"),
    ({"model": "m", "input": [{"type": "function_call_output", "call_id": "c", "output": ""}]},
     "input[0].call_id"),
    ({"model": "m", "input": [{"role": "user", "content": [{"type": "input_file"}]}]},
     "input[0].content[0].type"),
    ({"model": "m", "input": "hi", "tool_choice": {"type": "function", "name": "nope"}},
     "tool_choice.name"),
])
def test_wrong_fields_named(start_proxy, upstream: FakeUpstream, request_, param) -> None:
    assert _refused(start_proxy(), **request_)["param"] == param


def test_upstream_500_in_openai_shape(start_proxy, upstream: FakeUpstream) -> None:
    upstream.script(fault="status_500")
    with pytest.raises(openai.APIStatusError) as raised:
        openai_client(start_proxy()).responses.create(model="m", input="hi")
    assert raised.value.status_code == 502
    assert "answered 500" in raised.value.message
    assert set(raised.value.body) == {"message", "type", "param", "code"}


def test_cut_stream_ends_with_an_error_event(start_proxy, upstream: FakeUpstream) -> None:
    row = ROWS[1]
    upstream.script(row["text"], fault="disconnect")
    client = openai_client(start_proxy())
    events = list(client.responses.create(stream=True, **_request(row)))
    assert events[-1].type == "error"
    assert "upstream" in events[-1].message
    assert not any(event.type == "response.completed" for event in events)
    upstream.script(row["text"], fault="disconnect")
    with pytest.raises(RuntimeError, match="response.completed"):  # noqa: SIM117
        with client.responses.stream(**_request(row)) as stream:
            stream.get_final_response()
