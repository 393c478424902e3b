"""``item_reference`` input items to what the proxy wrote (`toolcalls.serve._written_items`).

The Vercel AI SDK on its default (``createOpenAI()(model)``, ``store`` true) sends the text a
model wrote before its calls back as ``{"type": "item_reference", "id": <the message item's
id>}``, then the ``function_call`` item whole and its ``function_call_output``. The proxy
remembers the message and reasoning items it wrote, whole and streamed, so such a request
reads as the history it stands for; an id it does not remember is refused, naming the fix.
"""

from __future__ import annotations

from typing import Any

import openai
import pytest
from clients import openai_client
from upstream import FakeUpstream

from toolcalls.serve._requests import RequestError
from toolcalls.serve._responses_request import chat_request_from_responses
from toolcalls.serve._written_items import WrittenItems

BEFORE = "Let me check."
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
WEATHER = {"type": "function", "name": "get_weather", "description": "The weather in a city.",
           "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}


def _first_turn(client: openai.OpenAI, stream: bool) -> list[Any]:
    """The output items of an answer with text, then a call, whole or streamed."""
    request = {"model": "hermes", "input": "Weather in Paris?", "tools": [WEATHER]}
    if not stream:
        return list(client.responses.create(**request).output)
    events = list(client.responses.create(stream=True, **request))
    assert events[-1].type == "response.completed"
    return list(events[-1].response.output)


def _as_the_ai_sdk_sends(output: list[Any]) -> list[dict[str, Any]]:
    """The second turn's input as the AI SDK writes it with ``store`` true: the text by
    reference, the call whole, its output."""
    message, call = output
    return [{"role": "user", "content": [{"type": "input_text", "text": "Weather in Paris?"}]},
            {"type": "item_reference", "id": message.id},
            {"type": "function_call", "call_id": call.call_id, "name": call.name,
             "arguments": call.arguments},
            {"type": "function_call_output", "call_id": call.call_id, "output": "21 °C"}]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("mode", ["prompt", "repair"])
def test_a_reference_to_a_written_message_is_its_text(start_proxy, upstream: FakeUpstream,
                                                     mode: str, stream: bool) -> None:
    client = openai_client(start_proxy(mode=mode))
    upstream.script(f"{BEFORE}\n{CALL}", then=("It is 21 °C.",))
    output = _first_turn(client, stream)
    assert [item.type for item in output] == ["message", "function_call"]
    answer = client.responses.create(model="hermes", tools=[WEATHER],
                                     input=_as_the_ai_sdk_sends(output))  # type: ignore[arg-type]
    assert answer.output_text == "It is 21 °C."
    assistant = upstream.requests[1]["messages"][-2]
    assert assistant["role"] == "assistant"
    assert assistant["content"].startswith(BEFORE)  # the text the reference stood for
    if mode == "repair":
        assert [call["function"]["name"] for call in assistant["tool_calls"]] == ["get_weather"]


def test_an_unknown_reference_is_refused_with_the_fix(start_proxy,
                                                      upstream: FakeUpstream) -> None:
    client = openai_client(start_proxy(mode="prompt"))
    with pytest.raises(openai.BadRequestError) as raised:
        client.responses.create(model="hermes", input=[
            {"role": "user", "content": "hi"}, {"type": "item_reference", "id": "msg_gone"}])
    error = raised.value.body
    assert isinstance(error, dict) and error["param"] == "input[1].id"
    assert "'msg_gone'" in error["message"] and "store false" in error["message"]
    assert upstream.requests == []


def test_a_reference_reads_as_the_item_it_names() -> None:
    """A message joins the calls after it, as the message itself would; a reasoning item is
    dropped, as one sent whole is."""
    written = WrittenItems()
    written.remember([
        {"id": "rs_1", "type": "reasoning", "summary": [], "content": []},
        {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": BEFORE, "annotations": []}]},
        {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "f",
         "arguments": "{}"}])
    assert written.get("fc_1") is None  # calls are always sent whole: not kept
    chat = chat_request_from_responses({"model": "m", "input": [
        {"role": "user", "content": "hi"}, {"type": "item_reference", "id": "rs_1"},
        {"type": "item_reference", "id": "msg_1"},
        {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_1", "output": "done"}]}, written.get)
    assert chat["messages"] == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": BEFORE, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "done"}]


def test_a_reference_needs_an_id() -> None:
    with pytest.raises(RequestError) as raised:
        chat_request_from_responses({"model": "m", "input": [{"type": "item_reference"}]},
                                    WrittenItems().get)
    assert raised.value.field == "input[0].id" and "is required" in raised.value.message


def _message(ident: str, text: str) -> dict[str, Any]:
    return {"id": ident, "type": "message", "content": [{"type": "output_text", "text": text}]}


def test_the_oldest_items_go_first_past_the_count() -> None:
    written = WrittenItems(max_items=2)
    written.remember([_message(f"msg_{n}", "x") for n in range(3)])
    assert written.get("msg_0") is None
    assert written.get("msg_1") is not None and written.get("msg_2") is not None
    assert len(written) == 2


def test_the_oldest_items_go_first_past_the_characters() -> None:
    written = WrittenItems(max_chars=300)
    written.remember([_message("msg_a", "a" * 100), _message("msg_b", "b" * 100)])
    assert written.get("msg_a") is None and written.get("msg_b") is not None
    written.remember([_message("msg_c", "c" * 1000)])  # larger than all: kept by none
    assert len(written) == 0
