"""Mistral's history shapes, written responses and streams, checked with the `mistralai` SDK's
own models: what a user sends Mistral and what a Mistral client reads back."""

from __future__ import annotations

import json

import pytest
from mistralai.client.models import (
    AssistantMessage,
    ChatCompletionResponse,
    CompletionChunk,
    Tool,
    ToolMessage,
)

import toolcalls
from toolcalls import ToolCall
from toolcalls.providers import (
    ToolImage,
    native_call_message,
    native_result_messages,
    render_native,
    stream_text,
    tools_from_native,
    write_response,
    write_stream,
)
from toolcalls.providers.mistral import mistral_id

TOOLS = [toolcalls.Tool(name="get_weather", description="Weather in a city.",
                        parameters={"type": "object", "properties": {"city": {"type": "string"}},
                                    "required": ["city"]})]
CALLS = [ToolCall(id="KikbB849t", name="get_weather", arguments={"city": "Paris"}, source="native"),
         ToolCall(id="call_1", name="get_weather", arguments={"city": "Lyon"}, source="native")]


def test_tools_validate_as_the_sdks_tool_and_read_back() -> None:
    rendered = render_native(TOOLS, "mistral")
    assert [Tool.model_validate(tool).function.name for tool in rendered["tools"]] == [
        "get_weather"]
    assert tools_from_native(rendered["tools"], "mistral") == TOOLS


def test_calls_and_results_validate_and_pair_under_mistrals_ids() -> None:
    [assistant] = native_call_message(CALLS, "mistral", content="Checking.")
    message = AssistantMessage.model_validate(assistant)
    ids = [call.id for call in message.tool_calls or []]
    assert ids[0] == "KikbB849t"  # Mistral's own id, as it is
    assert ids[1] == mistral_id("call_1") and len(ids[1]) == 9 and ids[1].isalnum()
    results = native_result_messages([(call, "18 C") for call in CALLS], "mistral")
    tool_messages = [ToolMessage.model_validate(result) for result in results]
    assert [m.tool_call_id for m in tool_messages] == ids
    assert [m.name for m in tool_messages] == ["get_weather", "get_weather"]


def test_mistral_id_is_stable_and_keeps_valid_ids() -> None:
    assert mistral_id("D681PevKs") == "D681PevKs"
    assert mistral_id("toolu_01A") == mistral_id("toolu_01A") != mistral_id("toolu_01B")
    assert len(mistral_id("\ud800")) == 9


def test_a_result_with_images_is_refused() -> None:
    image = ToolImage(data="AAAA", media_type="image/png")
    with pytest.raises(ValueError, match="user message"):
        native_result_messages([(CALLS[0], [image])], "mistral")


RESULT = toolcalls.ParseResult(format="none", content="Here.", reasoning="Think first.",
                               calls=CALLS, provider="mistral")


@pytest.mark.parametrize("result", [RESULT, RESULT.model_copy(update={"reasoning": None}),
                                    RESULT.model_copy(update={"calls": [], "content": ""})])
def test_a_written_response_validates_and_reads_back(result: toolcalls.ParseResult) -> None:
    written = write_response(result, "mistral", model="mistral-large-latest")
    sdk = ChatCompletionResponse.model_validate(written)
    assert sdk.usage is not None  # required: 0 where unknown
    read = toolcalls.read_response(sdk, "mistral")
    assert read.calls == result.calls and read.content == result.content
    assert read.reasoning == result.reasoning


def test_a_written_stream_validates_and_reads_back() -> None:
    chunks = write_stream(RESULT, "mistral", model="mistral-large-latest")
    for chunk in chunks:
        CompletionChunk.model_validate(chunk)
    calls = [chunk for chunk in chunks if chunk["choices"][0]["delta"].get("tool_calls")]
    assert len(calls) == 2  # each call whole, in a chunk of its own
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls" and "usage" in chunks[-1]
    wire = stream_text(chunks, "mistral")
    assert wire.endswith("data: [DONE]\n\n")
    reader = toolcalls.read_stream("mistral")
    reader.feed(wire)
    reader.close()
    streamed = reader.result()
    assert (streamed.calls, streamed.content, streamed.reasoning) == (
        RESULT.calls, RESULT.content, RESULT.reasoning)


def test_an_error_chunk_is_mistrals_error_body_and_reads_as_one() -> None:
    writer = toolcalls.providers.stream_writer("mistral", model="m")
    [error] = writer.fail("overloaded")
    assert error["object"] == "error"
    read = toolcalls.read_response(json.loads(json.dumps(error)), "mistral")
    assert [issue.kind for issue in read.issues] == ["provider_error"]
