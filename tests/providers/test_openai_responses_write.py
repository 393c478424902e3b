"""OpenAI Responses written back (`toolcalls.providers.openai_responses._write`), checked with
the openai SDK: its types, its stream state machine and its SSE decoder."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest
from openai import omit
from openai._streaming import SSEDecoder
from openai.lib.streaming.responses import ResponseStreamState
from openai.types.responses import Response, ResponseStreamEvent
from pydantic import TypeAdapter
from written import FULL, OPTIONS, RESULTS, arguments

from toolcalls.parsing._models import ParseResult
from toolcalls.providers import stream_text, write_response, write_stream

EVENT: TypeAdapter[ResponseStreamEvent] = TypeAdapter(ResponseStreamEvent)


def _read(response: Response) -> tuple[str, str | None, list[tuple[str, str, object]]]:
    reasoning = ["".join(c.text for c in item.content or [])
                 for item in response.output if item.type == "reasoning"]
    calls = [(item.call_id, item.name, json.loads(item.arguments))
             for item in response.output if item.type == "function_call"]
    return response.output_text, (reasoning[0] if reasoning else None), calls


@pytest.mark.parametrize("name", RESULTS)
def test_the_response_is_a_response_with_the_result(name: str) -> None:
    result: ParseResult = RESULTS[name]
    response = Response.model_validate(write_response(result, "openai_responses", **OPTIONS))
    assert (response.id, response.model, response.status) == ("resp_1", "m-1", "completed")
    assert _read(response) == (result.content, result.reasoning, arguments(result.calls))


@pytest.mark.parametrize("name", RESULTS)
def test_every_event_goes_through_the_sdk_stream_state(name: str) -> None:
    state: ResponseStreamState[None] = ResponseStreamState(input_tools=[], text_format=omit)
    events = write_stream(RESULTS[name], "openai_responses", **OPTIONS)
    for event in events:
        state.handle_event(EVENT.validate_python(event))
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    completed = Response.model_validate(events[-1]["response"])
    assert completed == Response.model_validate(
        write_response(RESULTS[name], "openai_responses", **OPTIONS))


def test_the_deltas_of_each_item_add_up_to_the_item_done() -> None:
    events = write_stream(FULL, "openai_responses", **OPTIONS)
    pieces: dict[str, str] = defaultdict(str)
    for event in events:
        if event["type"].endswith(".delta"):
            pieces[event["item_id"]] += event["delta"]
    done = [e["item"] for e in events if e["type"] == "response.output_item.done"]
    assert [i["type"] for i in done] == ["reasoning", "message", "function_call",
                                        "function_call"]
    assert pieces[done[0]["id"]] == FULL.reasoning
    assert pieces[done[1]["id"]] == FULL.content
    assert [pieces[i["id"]] for i in done[2:]] == [i["arguments"] for i in done[2:]]
    added = [e["item"] for e in events if e["type"] == "response.output_item.added"]
    assert [(i["status"], i.get("arguments")) for i in added[2:]] == [("in_progress", "")] * 2


def test_the_wire_is_named_sse_events() -> None:
    events = write_stream(FULL, "openai_responses", **OPTIONS)
    text = stream_text(events, "openai_responses")
    decoded = list(SSEDecoder().iter_bytes(iter([text.encode()])))
    assert [(e.event, e.json()) for e in decoded] == [(e["type"], e) for e in events]
