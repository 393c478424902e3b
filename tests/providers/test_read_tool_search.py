"""Tool search items read whole and streamed: a client ``tool_search_call`` (OpenAI Responses) is
a ``tool_search`` call; the provider's own searches (a hosted ``tool_search_call`` and its
``tool_search_output``; Anthropic's ``server_tool_use`` of its search tool and the
``tool_search_tool_result``) are neither calls nor issues, kept in ``reasoning_blocks``.
Every event and response is validated by the installed SDKs' types."""

from __future__ import annotations

from typing import Any

from anthropic.types import Message, RawMessageStreamEvent
from openai.types.responses import Response, ResponseStreamEvent
from pydantic import TypeAdapter
from stream_checks import check_event_promises, read_all

import toolcalls
from toolcalls import ToolCallEnd, ToolCallStart

RESPONSES_EVENT = TypeAdapter(ResponseStreamEvent)
ANTHROPIC_EVENT = TypeAdapter(RawMessageStreamEvent)

CLIENT_SEARCH = {"type": "tool_search_call", "id": "tsc_2", "call_id": "call_search1",
                 "execution": "client", "status": "completed",
                 "arguments": {"query": "merge a pull request"}}
HOSTED_SEARCH = {"type": "tool_search_call", "id": "tsc_1", "call_id": None,
                 "execution": "server", "status": "completed",
                 "arguments": {"paths": ["github"]}}
HOSTED_OUTPUT = {"type": "tool_search_output", "id": "tso_1", "call_id": None,
                 "execution": "server", "status": "completed",
                 "tools": [{"type": "function", "name": "merge_pull_request",
                            "parameters": {"type": "object", "properties": {}},
                            "strict": False, "defer_loading": True}]}
FUNCTION_CALL = {"type": "function_call", "id": "fc_1", "call_id": "call_merge",
                 "name": "merge_pull_request", "status": "completed",
                 "arguments": '{"pullNumber": 7}'}


def responses(output: list[dict[str, Any]]) -> Response:
    return Response.model_validate({
        "id": "resp_1", "object": "response", "created_at": 1741476542, "status": "completed",
        "model": "gpt-5.4", "output": output, "parallel_tool_calls": True, "tool_choice": "auto",
        "tools": [], "usage": None})


def responses_events(output: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The stream OpenAI sends for ``output``: each item added (in progress) then done."""
    whole = responses(output).to_dict()
    events: list[dict[str, Any]] = [{"type": "response.created", "sequence_number": 0,
                                     "response": {**whole, "output": [],
                                                  "status": "in_progress"}}]
    for index, item in enumerate(whole["output"]):
        for kind in ("response.output_item.added", "response.output_item.done"):
            shown = item if kind.endswith("done") else {**item, "status": "in_progress"}
            events.append({"type": kind, "output_index": index, "item": shown,
                           "sequence_number": len(events)})
    events.append({"type": "response.completed", "response": whole,
                   "sequence_number": len(events)})
    for event in events:
        RESPONSES_EVENT.validate_python(event)
    return events


def test_a_client_search_is_a_tool_search_call() -> None:
    result = toolcalls.read_response(responses([CLIENT_SEARCH, FUNCTION_CALL]))
    assert [(c.id, c.name, c.arguments, c.source) for c in result.calls] == [
        ("call_search1", "tool_search", {"query": "merge a pull request"}, "native"),
        ("call_merge", "merge_pull_request", {"pullNumber": 7}, "native")]
    assert result.issues == [] and result.reasoning_blocks is None


def test_a_hosted_search_and_its_output_are_kept_not_calls_nor_issues() -> None:
    result = toolcalls.read_response(responses([HOSTED_SEARCH, HOSTED_OUTPUT, FUNCTION_CALL]))
    assert [c.name for c in result.calls] == ["merge_pull_request"]
    assert result.issues == []
    blocks = result.reasoning_blocks or []
    assert [(b["type"], b["execution"]) for b in blocks] == [
        ("tool_search_call", "server"), ("tool_search_output", "server")]
    assert blocks[1]["tools"][0]["name"] == "merge_pull_request"


def test_responses_search_items_stream_as_they_read_whole() -> None:
    for output in ([CLIENT_SEARCH], [HOSTED_SEARCH, HOSTED_OUTPUT, FUNCTION_CALL],
                   [FUNCTION_CALL, CLIENT_SEARCH]):
        events = responses_events(output)
        streamed, result = read_all("openai_responses", events)
        check_event_promises(streamed, result)
        assert result == toolcalls.read_response(responses(output))
        sdk = [RESPONSES_EVENT.validate_python(event) for event in events]
        assert read_all("openai_responses", sdk) == (streamed, result)


def test_a_streamed_client_search_starts_and_ends_at_its_done_item() -> None:
    events = responses_events([CLIENT_SEARCH])
    parser = toolcalls.read_stream("openai_responses")
    assert [out for event in events[:2] for out in parser.feed(event)] == []
    done = parser.feed(events[2])
    assert [type(e) for e in done if not type(e).__name__ == "ArgumentsDelta"] == [
        ToolCallStart, ToolCallEnd]
    assert isinstance(done[0], ToolCallStart) and done[0].id == "call_search1"
    assert done[0].name == "tool_search"


# -- Anthropic -----------------------------------------------------------------------------------

SERVER_USE = {"type": "server_tool_use", "id": "srvtoolu_01ABC",
              "name": "tool_search_tool_regex", "input": {"query": "pull_request"}}
SEARCH_RESULT = {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_01ABC",
                 "content": {"type": "tool_search_tool_search_result",
                             "tool_references": [{"type": "tool_reference",
                                                  "tool_name": "merge_pull_request"}]}}
TOOL_USE = {"type": "tool_use", "id": "toolu_01XYZ", "name": "merge_pull_request",
            "input": {"pullNumber": 7}}
TEXT = {"type": "text", "text": "Merging it."}


def message(content: list[dict[str, Any]]) -> Message:
    return Message.model_validate({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
        "content": content, "stop_reason": "tool_use", "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5}})


def anthropic_events(content: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The stream Anthropic sends: a tool use's input in ``input_json_delta`` pieces."""
    whole = message(content).to_dict()
    events: list[dict[str, Any]] = [{"type": "message_start", "message": {
        **whole, "content": [], "stop_reason": None}}]
    for index, block in enumerate(whole["content"]):
        if block["type"] in ("server_tool_use", "tool_use"):
            text = TypeAdapter(dict[str, Any]).dump_json(block["input"]).decode()
            events.append({"type": "content_block_start", "index": index,
                           "content_block": {**block, "input": {}}})
            events += [{"type": "content_block_delta", "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": text[i:i + 7]}}
                       for i in range(0, len(text), 7)]
        else:
            events.append({"type": "content_block_start", "index": index,
                           "content_block": block})
        events.append({"type": "content_block_stop", "index": index})
    events += [{"type": "message_delta", "delta": {"stop_reason": "tool_use",
                                                   "stop_sequence": None},
                "usage": {"output_tokens": 5}},
               {"type": "message_stop"}]
    for event in events:
        ANTHROPIC_EVENT.validate_python(event)
    return events


def test_anthropics_own_search_is_kept_not_a_call_nor_an_issue() -> None:
    result = toolcalls.read_response(message([SERVER_USE, SEARCH_RESULT, TEXT, TOOL_USE]))
    assert [(c.id, c.name) for c in result.calls] == [("toolu_01XYZ", "merge_pull_request")]
    assert result.issues == [] and result.content == "Merging it."
    assert result.reasoning_blocks == [SERVER_USE, SEARCH_RESULT]


def test_another_server_tool_is_still_an_issue() -> None:
    web = {**SERVER_USE, "name": "web_search", "input": {"query": "news"}}
    result = toolcalls.read_response(message([web, TEXT]))
    assert [i.kind for i in result.issues] == ["server_tool_call"]
    assert result.reasoning_blocks is None


def test_anthropic_search_blocks_stream_as_they_read_whole() -> None:
    content = [SERVER_USE, SEARCH_RESULT, TEXT, TOOL_USE]
    events = anthropic_events(content)
    streamed, result = read_all("anthropic", events)
    check_event_promises(streamed, result)
    assert result == toolcalls.read_response(message(content))
    assert result.reasoning_blocks == [SERVER_USE, SEARCH_RESULT]  # the input joined again


def test_a_search_cut_off_mid_input_keeps_the_block_as_it_started() -> None:
    events = anthropic_events([SERVER_USE])
    cut = [e for e in events if e["type"] != "content_block_stop"][:3]
    _, result = read_all("anthropic", cut)
    assert result.reasoning_blocks == [{**SERVER_USE, "input": {}}] and result.issues == []
