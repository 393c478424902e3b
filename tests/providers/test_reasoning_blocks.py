"""Reasoning kept verbatim from a provider (a result's ``reasoning_blocks``: signatures,
encrypted items) is written back as it came by that provider's writer (`anthropic`,
`openai_responses`, `openai_chat`, `gemini`), checked with the SDKs."""

from __future__ import annotations

from anthropic.lib.streaming._messages import accumulate_event
from anthropic.types import Message
from google.genai.types import GenerateContentResponse
from openai import omit
from openai.lib.streaming.responses import ResponseStreamState
from openai.types.responses import Response
from test_anthropic_write import EVENT as ANTHROPIC_EVENT
from test_openai_responses_write import EVENT as RESPONSES_EVENT
from written import FULL, OPTIONS, validators

from toolcalls.parsing._models import ParseResult
from toolcalls.providers import write_response, write_stream

THINKING = {"type": "thinking", "thinking": "Two cities: two calls.", "signature": "EqQBCkYI=="}
REDACTED = {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a"}


def _read(**blocks: object) -> ParseResult:
    return FULL.model_copy(update=blocks)


def test_anthropic_thinking_and_redacted_blocks_go_back_with_their_signatures() -> None:
    result = _read(reasoning_blocks=[THINKING, REDACTED, {"type": "reasoning", "id": "rs_x"}])
    message = Message.model_validate(write_response(result, "anthropic", **OPTIONS))
    assert [b.to_dict() for b in message.content[:2]] == [THINKING, REDACTED]
    assert [b.type for b in message.content[2:]] == ["text", "tool_use", "tool_use"]
    snapshot, buffers = None, {}
    for event in write_stream(result, "anthropic", **OPTIONS):
        snapshot = accumulate_event(event=ANTHROPIC_EVENT.validate_python(event),
                                    current_snapshot=snapshot, json_bufs=buffers)
    assert snapshot is not None
    assert [b.to_dict() for b in snapshot.content[:2]] == [THINKING, REDACTED]


def test_anthropic_reasoning_from_elsewhere_is_one_unsigned_thinking_block() -> None:
    message = Message.model_validate(write_response(FULL, "anthropic", **OPTIONS))
    assert message.content[0].to_dict() == {"type": "thinking", "signature": "",
                                            "thinking": FULL.reasoning}


RESPONSES_ITEM = {"id": "rs_68a1", "type": "reasoning", "encrypted_content": "gAAAAB...",
                  "summary": [{"type": "summary_text", "text": "**Two cities**"},
                              {"type": "summary_text", "text": "Two calls."}]}


def test_responses_reasoning_items_go_back_as_they_came_and_stream_their_summaries() -> None:
    result = _read(reasoning_blocks=[RESPONSES_ITEM, THINKING])
    response = Response.model_validate(write_response(result, "openai_responses", **OPTIONS))
    assert response.output[0].to_dict() == RESPONSES_ITEM
    assert [item.type for item in response.output[1:]] == ["message", "function_call",
                                                           "function_call"]
    state: ResponseStreamState[None] = ResponseStreamState(input_tools=[], text_format=omit)
    events = write_stream(result, "openai_responses", **OPTIONS)
    for event in events:
        state.handle_event(RESPONSES_EVENT.validate_python(event))
    deltas = [e["delta"] for e in events
              if e["type"] == "response.reasoning_summary_text.delta"]
    assert deltas == ["**Two cities**", "Two calls."]


def test_openrouter_reasoning_details_go_back_beside_reasoning_content() -> None:
    details = {"type": "reasoning.text", "text": FULL.reasoning, "signature": "sig",
               "format": "anthropic-claude-v1", "index": 0}
    result = _read(reasoning_blocks=[details, THINKING])
    message = write_response(result, "openai", **OPTIONS)["choices"][0]["message"]
    assert (message["reasoning_content"], message["reasoning_details"]) == (FULL.reasoning,
                                                                            [details])
    validators()["openai"][0](write_response(result, "openai", **OPTIONS))
    (delta,) = [c["choices"][0]["delta"] for c in write_stream(result, "openai", **OPTIONS)
                if "reasoning_details" in c["choices"][0]["delta"]]
    assert delta["reasoning_details"] == [details]


def test_gemini_signatures_go_back_on_the_part_they_came_on() -> None:
    second = FULL.calls[1]
    result = _read(reasoning_blocks=[
        {"function_call": {"name": second.name, "args": second.arguments},
         "thought_signature": b"sig-2"},  # as the SDK dumps a part
        {"text": "Two cities", "thought": True, "thoughtSignature": "c2lnLTE="},
    ])
    response = GenerateContentResponse.model_validate(
        write_response(result, "gemini", **OPTIONS))
    parts = response.candidates[0].content.parts  # type: ignore[index, union-attr]
    assert [p.thought_signature for p in parts] == [b"sig-1", None, None, b"sig-2"]  # type: ignore[union-attr]
    # Gemini gave the signed call no id: it goes back without the one the reader made up.
    assert [p.function_call.id for p in parts[2:]] == ["call_a", None]  # type: ignore[union-attr]
    for chunk in write_stream(result, "gemini", **OPTIONS):
        GenerateContentResponse.model_validate(chunk)
