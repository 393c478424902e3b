"""Provider-native deferral (`toolcalls.budget._deferral`): Anthropic's tool search with
``defer_loading`` and ``tool_reference`` answers, OpenAI Responses' ``tool_search`` with
``defer_loading`` and ``tool_search_output`` answers, every shape checked against the installed
SDKs' own types, and a full round trip through `toolcalls.read_response`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, get_type_hints

import pytest
from anthropic.types import (
    Message,
    MessageParam,
    ToolParam,
    ToolReferenceBlockParam,
    ToolResultBlockParam,
    ToolSearchToolBm25_20251119Param,
    ToolSearchToolRegex20251119Param,
)
from openai.types.responses import (
    FunctionToolParam,
    NamespaceToolParam,
    Response,
    ResponseInputParam,
    ToolSearchToolParam,
)
from openai.types.responses.response_tool_search_output_item_param import (
    ResponseToolSearchOutputItemParam,
)
from pydantic import TypeAdapter

import toolcalls
from toolcalls import Tool, ToolCall, ToolNotFoundError, to_tools
from toolcalls.budget import NativeDeferral, native_deferral, search_calls
from toolcalls.budget._counts import provider_cost
from toolcalls.budget._deferral import NATIVE_SEARCH_LIMIT
from toolcalls.budget._tokens import anthropic_tool_system_prompt

TOOLSETS = Path(__file__).parents[2] / "fixtures" / "toolsets"
GITHUB = to_tools(json.loads((TOOLSETS / "github-mcp-server-all.json").read_text("utf-8")))
NO_HIT = "xylophone quantum"  # no word of any tool, and far from all in meaning


def assert_shape(value: dict[str, Any], typed_dict: Any) -> None:
    """``value`` validates as the SDK's TypedDict, and has no key the type does not declare
    (pydantic ignores extra keys of a TypedDict, the API does not)."""
    TypeAdapter(typed_dict).validate_python(value)
    assert set(value) <= set(get_type_hints(typed_dict)), set(value) - set(get_type_hints(
        typed_dict))


def search_call(call_id: str, **arguments: object) -> ToolCall:
    return ToolCall(id=call_id, name="tool_search", arguments=arguments, source="native")


def anthropic_message(content: list[dict[str, Any]]) -> Message:
    return Message.model_validate({
        "id": "msg_01Aq9w938a90dw8q", "type": "message", "role": "assistant",
        "model": "claude-sonnet-4-6", "content": content, "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 1060, "output_tokens": 40, "cache_creation_input_tokens": 0,
                  "cache_read_input_tokens": 0},
    })


def responses_response(output: list[dict[str, Any]]) -> Response:
    return Response.model_validate({
        "id": "resp_67ccd2bed1ec8190b14f964abc054267", "object": "response",
        "created_at": 1_741_476_542, "model": "gpt-5.4", "status": "completed",
        "incomplete_details": None, "output": output, "parallel_tool_calls": True,
        "tool_choice": "auto", "tools": [], "temperature": 1.0, "top_p": 1.0, "error": None,
        "instructions": None, "metadata": {},
        "usage": {"input_tokens": 3328,
                  "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                  "output_tokens": 30, "output_tokens_details": {"reasoning_tokens": 0},
                  "total_tokens": 3358},
    })


# -- Anthropic -------------------------------------------------------------------------------


def test_anthropic_client_search_defers_every_unpinned_tool() -> None:
    deferral = native_deferral(GITHUB, "anthropic", pinned=["get_me"])
    tools = deferral.content["tools"]
    for tool in tools:
        assert_shape(tool, ToolParam)
    assert [tool["name"] for tool in tools] == [
        "get_me", *(tool.name for tool in GITHUB if tool.name != "get_me"), "tool_search"]
    assert "defer_loading" not in tools[0]  # pinned: never deferred
    assert all(tool["defer_loading"] is True for tool in tools[1:-1])
    assert "defer_loading" not in tools[-1]  # the search tool itself must be loaded
    assert "list_issues" in tools[-1]["description"]  # the names the model can load


@pytest.mark.parametrize(("search", "shape", "type_"), [
    ("regex", ToolSearchToolRegex20251119Param, "tool_search_tool_regex_20251119"),
    ("bm25", ToolSearchToolBm25_20251119Param, "tool_search_tool_bm25_20251119"),
])
def test_anthropic_server_search_is_anthropics_own_tool(search: Any, shape: Any,
                                                        type_: str) -> None:
    deferral = native_deferral(GITHUB, "anthropic", search=search, pinned=["get_me"])
    server = deferral.content["tools"][-1]
    assert_shape(server, shape)
    assert server["type"] == type_
    assert all(tool["name"] != "tool_search" for tool in deferral.content["tools"])
    # What the model reads: the pinned tool and the tool-use system prompt, nothing deferred.
    assert deferral.tokens == provider_cost("anthropic")([_tool("get_me")])


def _tool(name: str) -> Tool:
    return next(tool for tool in GITHUB if tool.name == name)


def test_anthropic_round_trip_search_then_call() -> None:
    deferral = native_deferral(GITHUB, "anthropic", pinned=["get_me"])
    session = deferral.session()
    use = {"type": "tool_use", "id": "toolu_01search", "name": "tool_search",
           "input": {"query": "merge a pull request"}}
    result = toolcalls.read_response(anthropic_message([use]), "anthropic")
    assert [call.name for call in result.calls] == ["tool_search"]
    assert search_calls(anthropic_message([use])) == result.calls

    answer = deferral.answer(session, result.calls[0])
    assert_shape(answer, ToolResultBlockParam)
    for block in answer["content"]:
        assert_shape(block, ToolReferenceBlockParam)
    referenced = [block["tool_name"] for block in answer["content"]]
    assert "merge_pull_request" in referenced
    assert 0 < len(referenced) <= NATIVE_SEARCH_LIMIT
    deferred = {tool["name"] for tool in deferral.content["tools"] if tool.get("defer_loading")}
    assert set(referenced) <= deferred  # a reference must name a deferred tool of the request

    # The next request: the same tools, the search in the history, its tool_reference answer.
    messages = [{"role": "user", "content": "Merge PR 7 of octo/app"},
                {"role": "assistant", "content": [use]},
                {"role": "user", "content": [answer]}]
    for message in messages:
        TypeAdapter(MessageParam).validate_python(message)
    call = {"type": "tool_use", "id": "toolu_02merge", "name": "merge_pull_request",
            "input": {"owner": "octo", "repo": "app", "pullNumber": 7}}
    merged = toolcalls.read_response(anthropic_message([call]), "anthropic")
    assert session.check_calls(merged) == []  # loaded by the reference
    assert session.request_tools()[-1].name == "tool_search"  # the tools never change


def test_anthropic_server_search_is_read_and_sent_back_as_it_came() -> None:
    deferral = native_deferral(GITHUB, "anthropic", search="regex")
    use = {"type": "server_tool_use", "id": "srvtoolu_01", "name": "tool_search_tool_regex",
           "input": {"query": "merge_pull"}}
    assert deferral.content["tools"][-1]["name"] == use["name"]  # the tool Anthropic runs
    found = {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_01",
             "content": {"type": "tool_search_tool_search_result",
                         "tool_references": [{"type": "tool_reference",
                                              "tool_name": "merge_pull_request"}]}}
    call = {"type": "tool_use", "id": "toolu_02merge", "name": "merge_pull_request",
            "input": {"owner": "octo", "repo": "app", "pullNumber": 7}}
    result = toolcalls.read_response(anthropic_message([use, found, call]), "anthropic")
    assert [c.name for c in result.calls] == ["merge_pull_request"] and result.issues == []
    assert search_calls(anthropic_message([use, found, call])) == []  # Anthropic's to run
    assert result.reasoning_blocks == [use, found]
    # The assistant turn sent back: Anthropic's search blocks as they came, then the call.
    turn = {"role": "assistant", "content": [*result.reasoning_blocks, call]}
    TypeAdapter(MessageParam).validate_python(turn)


def test_anthropic_load_by_names_and_unknown_names() -> None:
    deferral = native_deferral(GITHUB, "anthropic", pinned=["get_me"])
    session = deferral.session()
    answer = deferral.answer(session, search_call("toolu_1", names=[
        "list_issues", "get_me", "no_such_tool"]))
    assert_shape(answer, ToolResultBlockParam)
    assert answer["content"][0] == {"type": "tool_reference", "tool_name": "list_issues"}
    assert answer["content"][1]["type"] == "text"  # the unknown name is said, not dropped
    assert "no_such_tool" in answer["content"][1]["text"]
    assert "is_error" not in answer  # list_issues loaded
    assert len(answer["content"]) == 2  # get_me is pinned: loaded already, never referenced


def test_anthropic_search_without_a_hit_answers_an_empty_list() -> None:
    deferral = native_deferral(GITHUB, "anthropic")
    answer = deferral.answer(deferral.session(), search_call("toolu_1", query=NO_HIT))
    assert answer == {"type": "tool_result", "tool_use_id": "toolu_1", "content": []}
    assert_shape(answer, ToolResultBlockParam)


def test_anthropic_bad_arguments_are_an_error_result() -> None:
    deferral = native_deferral(GITHUB, "anthropic")
    answer = deferral.answer(deferral.session(), search_call("toolu_1", query=7))
    assert answer["is_error"] is True and answer["content"][0]["type"] == "text"
    assert_shape(answer, ToolResultBlockParam)


def test_a_search_never_finds_a_pinned_tool() -> None:
    deferral = native_deferral(GITHUB, "anthropic", pinned=["merge_pull_request"])
    answer = deferral.answer(deferral.session(), search_call("t", query="merge pull request"))
    assert "merge_pull_request" not in [block["tool_name"] for block in answer["content"]]


# -- OpenAI Responses ------------------------------------------------------------------------


def test_responses_client_search_defers_functions() -> None:
    deferral = native_deferral(GITHUB, "openai_responses", pinned=["get_me"])
    *functions, searcher = deferral.content["tools"]
    for function in functions:
        assert_shape(function, FunctionToolParam)
    assert "defer_loading" not in functions[0] and functions[0]["name"] == "get_me"
    assert all(function["defer_loading"] is True for function in functions[1:])
    assert_shape(searcher, ToolSearchToolParam)
    assert searcher["execution"] == "client" and searcher["type"] == "tool_search"
    server = native_deferral(GITHUB, "responses", search="server").content["tools"][-1]
    assert server == {"type": "tool_search"}


def test_responses_namespaces_one_per_server() -> None:
    catalog = [
        Tool(name="create_issue", description="Open an issue.", source="github"),
        Tool(name="merge_pull_request", description="Merge a PR.", source="github"),
        Tool(name="post_message", description="Post to a channel.", source="slack"),
        Tool(name="read_file", description="Read a file."),
        Tool(name="now", description="The time."),
    ]
    deferral = native_deferral(catalog, "openai_responses", pinned=["now"])
    tools = deferral.content["tools"]
    assert [tool.get("name") for tool in tools] == [
        "now", "read_file", "github", "slack", None]
    for namespace in tools[2:4]:
        assert_shape(namespace, NamespaceToolParam)
        assert "defer_loading" not in namespace  # OpenAI: on the functions inside
        assert all(function["defer_loading"] is True for function in namespace["tools"])
    assert [f["name"] for f in tools[2]["tools"]] == ["create_issue", "merge_pull_request"]

    session = deferral.session()
    output = deferral.answer(session, search_call("call_1", names=["merge_pull_request",
                                                                   "read_file"]))
    ResponseToolSearchOutputItemParam.model_validate(output)
    assert [tool["name"] for tool in output["tools"]] == ["github", "read_file"]
    assert [f["name"] for f in output["tools"][0]["tools"]] == ["merge_pull_request"]


def test_defer_by_server_keeps_the_other_tools_in_full() -> None:
    catalog = [Tool(name="create_issue", source="github"), Tool(name="read_file")]
    deferral = native_deferral(catalog, "anthropic", defer=["github"])
    assert deferral.pinned == ("read_file",) and deferral.deferred == ("create_issue",)


def test_responses_round_trip_search_then_call() -> None:
    deferral = native_deferral(GITHUB, "openai_responses")
    session = deferral.session()
    search_item = {"type": "tool_search_call", "id": "tsc_1", "call_id": "call_search1",
                   "execution": "client", "status": "completed",
                   "arguments": {"query": "merge a pull request"}}
    response = responses_response([search_item])
    read = toolcalls.read_response(response)
    (call,) = read.calls  # the reader gives the client search as a call, no issue
    assert read.issues == [] and search_calls(response) == [call]
    assert call.id == "call_search1" and call.name == "tool_search"
    assert call.arguments == {"query": "merge a pull request"}

    output = deferral.answer(session, call)
    ResponseToolSearchOutputItemParam.model_validate(output)
    loaded = [tool["name"] for tool in output["tools"]]
    assert "merge_pull_request" in loaded and len(loaded) <= NATIVE_SEARCH_LIMIT
    merge = next(tool for tool in output["tools"] if tool["name"] == "merge_pull_request")
    assert merge["parameters"] == _tool("merge_pull_request").parameters  # the definition

    # The next request holds the search and its output, with the same tools.
    next_input = [{"role": "user", "content": "Merge PR 7 of octo/app"}, search_item, output]
    TypeAdapter(ResponseInputParam).validate_python(next_input)
    merged = toolcalls.read_response(responses_response([
        {"type": "function_call", "id": "fc_1", "call_id": "call_merge",
         "name": "merge_pull_request", "status": "completed",
         "arguments": '{"owner": "octo", "repo": "app", "pullNumber": 7}'}]))
    assert session.check_calls(merged) == []


def test_responses_search_without_a_hit_loads_nothing() -> None:
    deferral = native_deferral(GITHUB, "openai_responses")
    output = deferral.answer(deferral.session(), search_call("call_1", query=NO_HIT))
    assert output["tools"] == []
    ResponseToolSearchOutputItemParam.model_validate(output)


def test_search_calls_skip_server_searches_and_read_dicts() -> None:
    server = {"type": "tool_search_call", "id": "tsc_1", "execution": "server",
              "status": "completed", "arguments": {"query": "x"}}
    client = {**server, "id": "tsc_2", "call_id": "call_2", "execution": "client"}
    assert [call.id for call in search_calls({"output": [server, client]})] == ["call_2"]
    assert search_calls({"output": "junk"}) == [] and search_calls("junk") == []
    read = toolcalls.read_response({"output": [server, client]}, "openai_responses")
    assert read.issues == [] and read.reasoning_blocks == [server]


# -- cost, errors --------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", ["anthropic", "openai_responses"])
def test_deferral_costs_far_less_than_full_at_session_start(provider: str) -> None:
    deferral = native_deferral(GITHUB, provider)
    assert isinstance(deferral, NativeDeferral)
    assert deferral.full_tokens == provider_cost(provider)(GITHUB)
    assert deferral.tokens < deferral.full_tokens / 3
    assert deferral.saving > 0.6


def test_errors() -> None:
    with pytest.raises(ValueError, match="anthropic or openai_responses"):
        native_deferral(GITHUB, "gemini")
    with pytest.raises(ValueError, match="search is one of"):
        native_deferral(GITHUB, "anthropic", search="server")
    with pytest.raises(ToolNotFoundError, match="nope"):
        native_deferral(GITHUB, "anthropic", pinned=["nope"])


def test_only_the_server_search_tool_still_costs_the_tool_system_prompt() -> None:
    deferral = native_deferral(GITHUB, "anthropic", search="regex")
    assert deferral.tokens == anthropic_tool_system_prompt("claude-sonnet-4-6") > 0
    assert native_deferral(GITHUB, "anthropic", search="bm25", model="claude-3-5-haiku").tokens \
        == anthropic_tool_system_prompt("claude-3-5-haiku")


def test_the_documented_figures_for_github_all() -> None:
    """The table of `toolcalls.budget._deferral` and the README."""
    assert (native_deferral(GITHUB, "anthropic").tokens, native_deferral(GITHUB, "anthropic",
            pinned=["get_me"]).tokens) == (1_002, 1_060)
    assert native_deferral(GITHUB, "openai_responses").tokens == 3_328
    grouped = [tool.model_copy(update={"source": "github"}) for tool in GITHUB]
    assert native_deferral(grouped, "openai_responses").tokens == 482
    assert native_deferral(GITHUB, "anthropic").full_tokens == 23_174


def test_the_client_search_can_leave_the_names_out() -> None:
    listed = native_deferral(GITHUB, "anthropic")
    unlisted = native_deferral(GITHUB, "anthropic", list_names=False)
    assert "list_issues" not in unlisted.content["tools"][-1]["description"]
    assert unlisted.tokens < listed.tokens


def test_a_lazy_plan_defers_natively_with_its_pins() -> None:
    plan = toolcalls.budget.render(GITHUB, "anthropic", budget=3000, pinned=["get_me"]).plan
    assert plan.mode == "lazy"
    deferral = plan.native_deferral(GITHUB, "anthropic")
    assert deferral.pinned == ("get_me",) and deferral.tokens < plan.tokens
    assert deferral == native_deferral(GITHUB, "anthropic", pinned=["get_me"])
