"""The lazy session: activation set with a stable order, an LRU ceiling, pins, call checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolcalls
from toolcalls import Tool, ToolCall, ToolNotFoundError, to_tools
from toolcalls.budget._search import ToolIndex
from toolcalls.budget._session import (
    DEFAULT_MAX_ACTIVE,
    INDEX_LINE_CHARS,
    SEARCH_LINE_CHARS,
    SUGGESTED_NAMES,
    TOOL_SEARCH,
    Session,
    index_text,
    load_mode_for,
    summary_line,
)

TOOLSETS = Path(__file__).parents[2] / "fixtures" / "toolsets"
GITHUB = to_tools(json.loads((TOOLSETS / "github-mcp-server-all.json").read_text("utf-8")))
NAMES = [tool.name for tool in GITHUB]


def call(tool: str, **arguments: object) -> ToolCall:
    return ToolCall(id=f"call_{tool}", name=tool, arguments=arguments, span=(0, 1))


def test_summary_line_is_the_first_sentence_cut_at_a_word() -> None:
    assert summary_line("Get a file. Then more.") == "Get a file"
    assert summary_line("Line one\nLine two") == "Line one"
    assert summary_line("Use e.g. this one. Not that.") == "Use e.g. this one"
    long = summary_line("word " * 40)
    assert len(long) <= INDEX_LINE_CHARS and long.endswith("word…")


def test_the_index_lists_every_deferred_tool_on_one_line() -> None:
    session = Session(GITHUB, pinned=["get_me"])
    index = session.search_tool.description.split("\n\n", 1)[1]
    assert index == index_text([tool for tool in GITHUB if tool.name != "get_me"])
    assert [line.split(":")[0] for line in index.splitlines()] == [
        name for name in NAMES if name != "get_me"
    ]


def test_request_tools_keep_a_stable_order() -> None:
    session = Session(GITHUB, pinned=["get_me"], max_active=3)
    first = session.request_tools()
    assert [tool.name for tool in first] == ["get_me", TOOL_SEARCH]
    for name in ["list_issues", "issue_write", "get_file_contents"]:
        session.activate(name)
    session.activate("list_issues")  # used again: not moved
    names = [tool.name for tool in session.request_tools()]
    assert names == ["get_me", TOOL_SEARCH, "list_issues", "issue_write", "get_file_contents"]
    assert session.request_tools()[1] == first[1]  # the index never changes: cache-friendly


def test_the_least_recently_used_tool_is_evicted_and_reported() -> None:
    session = Session(GITHUB, pinned=["get_me"], max_active=2)
    session.activate("list_issues")
    session.activate("issue_write")
    session.check_calls([call("list_issues")])  # a call counts as use
    activation = session.activate("merge_pull_request")
    assert activation.evicted == ("issue_write",)
    assert session.active == ("list_issues", "merge_pull_request")
    again = session.activate("get_me")
    assert not again.newly_active and again.evicted == ()
    assert "get_me" in [tool.name for tool in session.request_tools()]


def test_tool_search_by_query_returns_names_and_one_line_each() -> None:
    session = Session(GITHUB)
    found = session.tool_search(query="merge a pull request")["tools"]
    assert found[0] == {"name": "merge_pull_request",
                        "description": "Merge a pull request in a GitHub repository"}
    assert 5 <= len(found) <= 8 and session.active == ()
    assert all("\n" not in hit["description"] and len(hit["description"]) <= SEARCH_LINE_CHARS
               for hit in found)
    assert session.tool_search(query="xyzzy")["tools"] == []


def test_tool_search_by_name_returns_the_schema_and_activates() -> None:
    session = Session(GITHUB, max_active=1)
    result = session.run(call(TOOL_SEARCH, name="issue_write"))
    tool = GITHUB[NAMES.index("issue_write")]
    assert result["loaded"]["parameters"] == tool.parameters
    assert session.active == ("issue_write",)
    assert session.run(call(TOOL_SEARCH, name="list_issues"))["evicted"] == ["issue_write"]
    assert "issue_write" in [hit["name"] for hit in session.search("write issue")]
    assert "list_issues" not in [hit["name"] for hit in session.search("list issues")]


def test_tool_search_answers_bad_calls_without_raising() -> None:
    session = Session(GITHUB)
    missing = session.tool_search(name="isue_write")
    assert "no tool" in missing["error"] and "issue_write" in missing["did_you_mean"]
    assert "error" in session.run(call(TOOL_SEARCH, name=["x"]))
    assert "error" in session.run(call(TOOL_SEARCH))


def test_calls_to_tools_that_are_not_loaded_are_flagged() -> None:
    session = Session(GITHUB, pinned=["get_me"], max_active=1)
    session.activate("list_issues")
    session.activate("issue_write")  # evicts list_issues
    result = toolcalls.parse(
        '<tool_call>{"name": "get_me", "arguments": {}}</tool_call>'
        '<tool_call>{"name": "issue_write", "arguments": {}}</tool_call>'
        '<tool_call>{"name": "list_issues", "arguments": {}}</tool_call>'
        '<tool_call>{"name": "merge_pull_request", "arguments": {}}</tool_call>'
        '<tool_call>{"name": "no_such_tool", "arguments": {}}</tool_call>'
        '<tool_call>{"name": "tool_search", "arguments": {"query": "x"}}</tool_call>',
        "hermes",
    )
    issues = session.check_calls(result)
    assert [issue.kind for issue in issues] == ["evicted_tool", "inactive_tool", "unknown_tool"]
    assert "tool_search(name='merge_pull_request')" in issues[1].message
    assert issues[0].span == result.calls[2].span


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(LookupError, match="no_such"):
        Session(GITHUB, pinned=["no_such"])
    with pytest.raises(ValueError, match="max_active"):
        Session(GITHUB, max_active=0)
    with pytest.raises(ToolNotFoundError, match="did you mean 'merge_pull_request'"):
        Session(GITHUB).activate("merge_pull_requests")
    assert Session(GITHUB).max_active == DEFAULT_MAX_ACTIVE


@given(
    st.lists(st.sampled_from(NAMES[:30]), max_size=60),
    st.integers(min_value=1, max_value=6),
    st.lists(st.sampled_from(NAMES[:30]), max_size=3, unique=True),
)
def test_any_activation_sequence_keeps_the_invariants(
    names: list[str], ceiling: int, pinned: list[str]
) -> None:
    session = Session(GITHUB, pinned=pinned, max_active=ceiling)
    ever_evicted: list[str] = []
    for name in names:
        before = session.active
        activation = session.activate(name)
        after = session.active
        assert len(after) <= ceiling
        assert not set(activation.evicted) & set(pinned)
        assert set(before) - set(after) == set(activation.evicted)
        survivors = [n for n in before if n in after]
        assert list(after[: len(survivors)]) == survivors  # relative order never changes
        assert session.is_loaded(name)
        ever_evicted += activation.evicted
    loaded = [tool.name for tool in session.request_tools()]
    assert loaded[: len(pinned) + 1] == [*pinned, TOOL_SEARCH]
    assert len(loaded) == len(set(loaded))
    assert all(isinstance(tool, Tool) for tool in session.request_tools())


def test_aliases_load_and_call_the_tool_they_name() -> None:
    tools = [
        Tool(name="read_file", description="Read a file.", aliases=("cat",),
             help="Paths are relative to the workspace root."),
        Tool(name="write_file", description="Write a file."),
    ]
    session = Session(tools, max_active=1)
    loaded = session.tool_search(name="cat")["loaded"]
    assert loaded["name"] == "read_file" and loaded["help"].startswith("Paths")
    assert session.active == ("read_file",) and session.is_loaded("cat")
    assert session.check_calls([call("cat")]) == []
    assert session.tool_search(query="cat")["tools"] == []  # already loaded


def test_several_tools_load_by_name_in_one_call() -> None:
    session = Session(GITHUB, max_active=3)
    result = session.run(call(TOOL_SEARCH, names=["list_issues", "issue_write", "nope"]))
    assert [tool["name"] for tool in result["loaded"]] == ["list_issues", "issue_write"]
    assert result["errors"][0]["error"] == "no tool is named 'nope'"
    assert session.active == ("list_issues", "issue_write")
    assert "error" in session.run(call(TOOL_SEARCH, names="list_issues"))
    assert "error" in session.run(call(TOOL_SEARCH, names=[NAMES[0], NAMES[1], NAMES[2],
                                                             NAMES[3]]))
    assert session.active == ("list_issues", "issue_write")  # refused whole: nothing evicted


def test_loading_in_messages_never_changes_the_tools_block() -> None:
    session = Session(GITHUB, pinned=["get_me"], load="messages")
    before = session.request_tools()
    loaded = session.run(call(TOOL_SEARCH, names=["list_issues", "issue_write"]))["loaded"]
    assert session.request_tools() == before  # the cached prefix survives the load
    assert loaded[0]["parameters"] == GITHUB[NAMES.index("list_issues")].parameters
    assert session.check_calls([call("list_issues")]) == []  # loaded: callable
    assert [issue.kind for issue in session.check_calls([call("merge_pull_request")])] == [
        "inactive_tool"]
    with pytest.raises(ValueError, match="load"):
        Session(GITHUB, load="prompt")  # type: ignore[arg-type]


def test_load_mode_follows_what_the_provider_accepts() -> None:
    assert load_mode_for("anthropic") == load_mode_for("openai_responses") == "messages"
    assert load_mode_for("hermes") == load_mode_for("qwen3_coder") == "messages"
    assert load_mode_for("openai") == load_mode_for("gemini") == "tools"
    assert load_mode_for("ollama") == "tools"


def test_deferral_per_server_sends_the_other_servers_in_full() -> None:
    files = Tool(name="read_file", description="Read a file.", source="filesystem")
    tools = [*(tool.model_copy(update={"source": "github"}) for tool in GITHUB[:5]), files]
    session = Session(tools, defer=["github"], pinned=[GITHUB[0].name])
    assert session.pinned == (GITHUB[0].name, "read_file")
    assert [tool.name for tool in session.deferred] == NAMES[1:5]
    assert "read_file" not in session.search_tool.description
    assert Session(tools, defer=[]).deferred == []  # nothing named: nothing deferred


@given(st.lists(st.lists(st.sampled_from(NAMES[:12]), min_size=1, max_size=4), max_size=8))
def test_loading_in_messages_keeps_the_tools_block_for_any_loads(loads: list[list[str]]) -> None:
    keeping = Session(GITHUB, pinned=["get_me"], max_active=4, load="messages")
    rewriting = Session(GITHUB, pinned=["get_me"], max_active=4)
    first = keeping.request_tools()
    for names in loads:
        answers = [session.run(call(TOOL_SEARCH, names=names)) for session in (keeping, rewriting)]
        assert answers[0] == answers[1]  # the same answer to the model, wherever the tools go
        assert keeping.request_tools() == first
        assert keeping.active == rewriting.active
        assert [tool.name for tool in rewriting.request_tools()][2:] == list(rewriting.active)


def test_thousands_of_unknown_names_cost_a_few_searches_not_one_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session = Session([Tool(name=f"get_item_{i}", description=f"Get item {i}.")
                       for i in range(50)])
    searches = []
    original = ToolIndex.search
    monkeypatch.setattr(ToolIndex, "search", lambda self, *args, **kwargs: (
        searches.append(args) or original(self, *args, **kwargs)))
    names = ["get_item_1", *(f"get_thing_{i}" for i in range(5000))]
    answer = session.tool_search(names=names)
    assert [tool["name"] for tool in answer["loaded"]] == ["get_item_1"]
    assert len(answer["errors"]) == 5000  # every unknown name is said to be unknown
    assert len(searches) == SUGGESTED_NAMES  # on main: one search (of the catalog) per name
    assert [("did_you_mean" in error) for error in answer["errors"][:4]] == [
        True] * SUGGESTED_NAMES + [False]
