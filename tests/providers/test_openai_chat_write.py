"""OpenAI Chat Completions written back (`toolcalls.providers.openai_chat`), checked with
the openai SDK: its types, its stream accumulator and its SSE decoder."""

from __future__ import annotations

import json

import pytest
from openai._streaming import SSEDecoder
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletion, ChatCompletionChunk
from written import FULL, OPTIONS, RESULTS, arguments

from toolcalls.parsing._models import ParseResult
from toolcalls.providers import stream_text, write_response, write_stream


def _calls(message: object) -> list[tuple[str, str, dict[str, object]]]:
    return [(c.id, c.function.name, json.loads(c.function.arguments))
            for c in getattr(message, "tool_calls", None) or []]


@pytest.mark.parametrize("name", RESULTS)
def test_the_response_is_a_chat_completion_with_the_result(name: str) -> None:
    result: ParseResult = RESULTS[name]
    completion = ChatCompletion.model_validate(write_response(result, "openai", **OPTIONS))
    (choice,) = completion.choices
    assert (completion.id, completion.model, completion.created) == ("resp_1", "m-1",
                                                                     1_700_000_000)
    assert choice.message.content == (result.content or None)
    assert getattr(choice.message, "reasoning_content", None) == result.reasoning
    assert _calls(choice.message) == arguments(result.calls)
    assert choice.finish_reason == ("tool_calls" if result.calls else "stop")


@pytest.mark.parametrize("name", RESULTS)
def test_the_stream_assembles_in_the_sdk_to_the_response(name: str) -> None:
    chunks = write_stream(RESULTS[name], "openai", **OPTIONS)
    state: ChatCompletionStreamState[None] = ChatCompletionStreamState()
    for chunk in chunks:
        state.handle_chunk(ChatCompletionChunk.model_validate(chunk))
    assembled = state.get_final_completion().choices[0]
    whole = ChatCompletion.model_validate(write_response(RESULTS[name], "openai", **OPTIONS))
    assert assembled.message.content == whole.choices[0].message.content
    assert _calls(assembled.message) == _calls(whole.choices[0].message)
    assert assembled.finish_reason == whole.choices[0].finish_reason


def test_a_call_streams_its_id_and_name_once_then_its_arguments() -> None:
    deltas = [c["choices"][0]["delta"] for c in write_stream(FULL, "openai", **OPTIONS)]
    fragments = [d["tool_calls"][0] for d in deltas if "tool_calls" in d]
    assert [sorted(f) for f in fragments] == [["function", "id", "index", "type"],
                                              ["function", "index"]] * 2
    assert [f["index"] for f in fragments] == [0, 0, 1, 1]
    assert "".join(d.get("reasoning_content", "") for d in deltas) == FULL.reasoning
    assert json.loads(fragments[3]["function"]["arguments"]) == FULL.calls[1].arguments


def test_the_wire_is_sse_data_lines_ending_in_done() -> None:
    chunks = write_stream(FULL, "openai", **OPTIONS)
    text = stream_text(chunks, "openai")
    events = list(SSEDecoder().iter_bytes(iter([text.encode()])))
    assert [event.data for event in events][-1] == "[DONE]"
    assert [event.json() for event in events[:-1]] == chunks
    assert "Zürich" in text  # non-ASCII is sent as it is
