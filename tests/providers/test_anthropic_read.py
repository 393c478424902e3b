"""Reading Anthropic Messages responses (`toolcalls.providers.anthropic._response`), built
as the real `anthropic` SDK's `Message`."""

from __future__ import annotations

from typing import Any

from anthropic.types import Message

import toolcalls

SIGNATURE = "EqQBCkgIBRABGAIiQL1ZnC2v0cM1vAs"


def message(content: list[dict[str, Any]], *, stop_reason: str = "tool_use") -> Message:
    return Message.model_validate({
        "id": "msg_01Aq9w938a90dw8q", "type": "message", "role": "assistant",
        "model": "claude-sonnet-4-5-20250929", "content": content,
        "stop_reason": stop_reason, "stop_sequence": None,
        "usage": {"input_tokens": 472, "output_tokens": 91, "cache_creation_input_tokens": 0,
                  "cache_read_input_tokens": 0},
    })


def test_tool_use_blocks_keep_their_ids_and_text_and_thinking_are_read() -> None:
    response = message([
        {"type": "thinking", "thinking": "I should check the weather.", "signature": SIGNATURE},
        {"type": "text", "text": "I'll look that up."},
        {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "get_weather",
         "input": {"location": "San Francisco, CA", "unit": "celsius"}},
    ])
    result = toolcalls.read_response(response)
    assert result.provider == "anthropic" and result.finish_reason == "tool_use"
    assert [(c.id, c.name, c.arguments, c.source) for c in result.calls] == [
        ("toolu_01A09q90qw90lq917835lq9", "get_weather",
         {"location": "San Francisco, CA", "unit": "celsius"}, "native")]
    assert result.content == "I'll look that up."
    assert result.reasoning == "I should check the weather."
    assert result.usage is not None and result.usage["input_tokens"] == 472
    assert result.issues == []


def test_thinking_blocks_with_their_signature_and_redacted_ones_are_kept_to_send_back() -> None:
    blocks = [{"type": "thinking", "thinking": "Step one.", "signature": SIGNATURE},
              {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a"}]
    result = toolcalls.read_response(message([*blocks, {"type": "text", "text": "Done."}],
                                             stop_reason="end_turn"))
    assert result.reasoning_blocks == blocks
    assert result.reasoning == "Step one." and result.content == "Done."


def test_server_tool_use_and_its_results_are_not_calls() -> None:
    response = message([
        {"type": "text", "text": "Let me search."},
        {"type": "server_tool_use", "id": "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
         "name": "web_search", "input": {"query": "claude shannon birth date"}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
         "content": [{"type": "web_search_result", "url": "https://en.wikipedia.org/wiki/C",
                      "title": "Claude Shannon", "encrypted_content": "EqgfCioIARgBIiQ3",
                      "page_age": "April 30, 2025"}]},
        {"type": "text", "text": " He was born on April 30, 1916."},
    ], stop_reason="end_turn")
    result = toolcalls.read_response(response)
    assert result.calls == [] and result.incomplete == []
    assert result.content == "Let me search. He was born on April 30, 1916."
    assert [(i.kind, i.span) for i in result.issues] == [("server_tool_call", None)]
    assert "web_search" in result.issues[0].message


def test_a_call_written_into_a_text_block_is_read_under_a_format() -> None:
    text = '<tool_call>{"name": "get_time", "arguments": {}}</tool_call>'
    response = message([{"type": "text", "text": text},
                        {"type": "tool_use", "id": "toolu_1", "name": "get_weather",
                         "input": {}}])
    result = toolcalls.read_response(response, format="auto")
    assert [(c.id, c.name, c.source) for c in result.calls] == [
        ("toolu_1", "get_weather", "native"), ("call_0", "get_time", "text")]


def test_a_block_of_an_unknown_type_is_noted() -> None:
    data = message([{"type": "text", "text": "hi"}]).to_dict()
    data["content"].append({"type": "container_upload", "file_id": "file_1"})
    result = toolcalls.read_response(data)
    assert result.content == "hi" and [i.kind for i in result.issues] == ["unread_part"]


def test_the_json_text_reads_as_the_sdk_object() -> None:
    response = message([{"type": "tool_use", "id": "toolu_2", "name": "f", "input": {"a": 1}}])
    assert toolcalls.read_response(response.to_json()) == toolcalls.read_response(response)
