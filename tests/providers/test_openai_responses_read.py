"""Reading OpenAI Responses API responses (`toolcalls.providers.openai_responses._response`),
built as the real `openai` SDK's `Response`."""

from __future__ import annotations

from typing import Any

from openai.types.responses import Response

import toolcalls

USAGE = {"input_tokens": 291,
         "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
         "output_tokens": 23, "output_tokens_details": {"reasoning_tokens": 0},
         "total_tokens": 314}


def response(output: list[dict[str, Any]], *, status: str = "completed",
             incomplete: str | None = None) -> Response:
    return Response.model_validate({
        "id": "resp_67ccd2bed1ec8190b14f964abc054267", "object": "response",
        "created_at": 1_741_476_542, "model": "gpt-4.1-2025-04-14", "status": status,
        "incomplete_details": {"reason": incomplete} if incomplete else None,
        "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "temperature": 1.0, "top_p": 1.0, "usage": USAGE, "error": None,
        "instructions": None, "metadata": {},
    })


def message(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"type": "message", "id": "msg_67ccd2bf17f0", "status": "completed",
            "role": "assistant", "content": list(parts)}


def text(value: str) -> dict[str, Any]:
    return {"type": "output_text", "text": value, "annotations": []}


def test_function_calls_keep_their_call_id_and_text_is_content() -> None:
    result = toolcalls.read_response(response([
        message(text("Checking.")),
        {"type": "function_call", "id": "fc_12345xyz", "call_id": "call_12345xyz",
         "name": "get_weather", "arguments": '{"location":"Paris, France"}',
         "status": "completed"},
    ]))
    assert result.provider == "openai_responses" and result.finish_reason == "completed"
    assert [(c.id, c.name, c.arguments, c.source) for c in result.calls] == [
        ("call_12345xyz", "get_weather", {"location": "Paris, France"}, "native")]
    assert result.content == "Checking." and result.usage == USAGE


def test_reasoning_items_give_their_summary_and_are_kept_to_send_back() -> None:
    item = {"type": "reasoning", "id": "rs_6820f383d7c08191846711c5df8233bc",
            "summary": [{"type": "summary_text", "text": "**Planning**"},
                        {"type": "summary_text", "text": "Look it up."}],
            "encrypted_content": "gAAAAABoISQ24OyVRYbkYfukiz"}
    result = toolcalls.read_response(response([item, message(text("Sunny."))]))
    assert result.reasoning == "**Planning**\n\nLook it up."
    assert result.reasoning_blocks is not None
    assert result.reasoning_blocks[0]["encrypted_content"] == "gAAAAABoISQ24OyVRYbkYfukiz"
    assert result.content == "Sunny."


def test_web_search_calls_are_not_calls_and_refusals_are_content() -> None:
    result = toolcalls.read_response(response([
        {"type": "web_search_call", "id": "ws_67ccf18f64008190a39b619f4c8455ef",
         "status": "completed",
         "action": {"type": "search", "query": "positive news today"}},
        message({"type": "refusal", "refusal": "I can't help with that."}),
    ]))
    assert result.calls == [] and result.content == "I can't help with that."
    assert [(i.kind, i.span) for i in result.issues] == [("server_tool_call", None)]


def test_a_response_cut_short_gives_the_reason_and_an_invalid_call_is_incomplete() -> None:
    result = toolcalls.read_response(response([
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather",
         "arguments": '{"location": "Par', "status": "incomplete"},
    ], status="incomplete", incomplete="max_output_tokens"))
    assert result.finish_reason == "max_output_tokens" and result.calls == []
    assert result.incomplete[0].raw == '{"location": "Par'
    assert result.issues[0].kind == "invalid_arguments"


def test_a_call_in_output_text_is_read_under_a_format() -> None:
    call = '<tool_call>{"name": "get_time", "arguments": {}}</tool_call>'
    result = toolcalls.read_response(response([message(text(call))]), format="hermes")
    assert [(c.name, c.source) for c in result.calls] == [("get_time", "text")]


def test_an_item_of_an_unknown_type_is_noted_and_the_dict_reads_alike() -> None:
    data = response([message(text("ok"))]).to_dict()
    data["output"].append({"type": "computer_call", "id": "cu_1", "call_id": "call_c",
                           "action": {"type": "screenshot"}})
    result = toolcalls.read_response(data)
    assert result.content == "ok" and [i.kind for i in result.issues] == ["unread_part"]
    sdk = response([message(text("ok"))])
    assert toolcalls.read_response(sdk.to_json()) == toolcalls.read_response(sdk)


COMPUTER_CALL = {"type": "computer_call", "id": "cu_67cc", "call_id": "call_zw3",
                 "action": {"type": "click", "button": "left", "x": 156, "y": 50},
                 "pending_safety_checks": [], "status": "completed"}
SHELL_CALL = {"type": "local_shell_call", "id": "lsh_1", "call_id": "call_sh1",
              "action": {"type": "exec", "command": ["ls", "-la"], "env": {}},
              "status": "completed"}


def test_built_in_tool_actions_are_noted_with_their_call_id_and_action() -> None:
    result = toolcalls.read_response(response([COMPUTER_CALL, SHELL_CALL, message(text("ok"))]))
    assert result.content == "ok" and result.calls == [] and result.incomplete == []
    assert [(i.kind, i.message) for i in result.issues] == [
        ("unread_part", "output item computer_call call_zw3 not read (a computer-use action "
                        'for the caller to perform): {"button": "left", "type": "click", '
                        '"x": 156, "y": 50}'),
        ("unread_part", "output item local_shell_call call_sh1 not read (a shell command for "
                        'the caller to run): {"command": ["ls", "-la"], "env": {}, '
                        '"type": "exec"}')]
    raw = response([]).to_dict()
    raw["output"] = [COMPUTER_CALL, SHELL_CALL, message(text("ok"))]
    assert toolcalls.read_response(raw) == result  # the action's keys in any order


def test_an_unknown_item_says_its_type_and_fields_and_streams_alike() -> None:
    item = {"type": "hologram_call", "id": "hg_1", "beam": 3, "color": "blue"}
    data = response([message(text("ok"))]).to_dict()
    data["output"].append(item)
    result = toolcalls.read_response(data)
    assert [i.message for i in result.issues] == [
        "output item hologram_call hg_1 not read (a type this reader does not know): "
        "fields beam, color"]
    parser = toolcalls.read_stream("openai_responses")
    for event in ({"type": "response.output_item.added", "output_index": 0, "item": item},
                  {"type": "response.output_item.done", "output_index": 0, "item": item}):
        parser.feed(event)
    parser.close()
    assert parser.result().issues == result.issues


def test_output_text_annotations_are_not_kept_the_text_is() -> None:
    cited = {"type": "output_text", "text": "Paris is sunny [1].", "annotations": [
        {"type": "url_citation", "start_index": 15, "end_index": 18,
         "url": "https://example.com/paris", "title": "Paris weather"}]}
    result = toolcalls.read_response(response([message(cited)]))
    assert result.content == "Paris is sunny [1]." and result.issues == []
    assert "example.com" not in result.model_dump_json()
