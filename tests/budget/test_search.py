"""tool_search ranking: identifier-aware BM25, exact names first, nothing for a weak query."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolcalls import Tool, to_tools
from toolcalls.budget._search import (
    DEFAULT_SEARCH_LIMIT,
    ToolIndex,
    identifier_tokens,
    search_terms,
)

TOOLSETS = Path(__file__).parents[2] / "fixtures" / "toolsets"


def toolset(name: str) -> list[Tool]:
    return to_tools(json.loads((TOOLSETS / f"{name}.json").read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def github() -> ToolIndex:
    return ToolIndex(toolset("github-mcp-server-all"))


@pytest.mark.parametrize(
    "identifier",
    ["get_issue_comments", "getIssueComments", "get-issue-comments", "github.get.issue.comments",
     "GetIssueComments"],
)
def test_every_identifier_style_splits_into_the_same_words(identifier: str) -> None:
    words = identifier_tokens(identifier)
    assert words[-3:] == ["get", "issue", "comment"]
    assert set(words) <= {"get", "issue", "comment", "github", "getissuecomment"}


def test_acronyms_plurals_and_function_words() -> None:
    assert identifier_tokens("parseHTTPResponses") == [
        "parsehttpresponse", "parse", "http", "response"]
    assert identifier_tokens("list the entries of a directory") == ["list", "entry", "directory"]
    assert identifier_tokens("status class access") == ["status", "class", "access"]


@pytest.mark.parametrize(
    ("toolset_name", "query", "expected"),
    [
        ("github-mcp-server-all", "create a pull request", "create_pull_request"),
        ("github-mcp-server-all", "list issues", "list_issues"),
        ("github-mcp-server-all", "add a comment to an issue", "add_issue_comment"),
        ("github-mcp-server-all", "delete a file", "delete_file"),
        ("github-mcp-server-all", "searchCode", "search_code"),
        ("playwright-mcp", "take a screenshot of the page", "browser_take_screenshot"),
        ("playwright-mcp", "navigate to a URL", "browser_navigate"),
        ("bfcl-multi-turn", "send a message", "send_message"),
        ("mcp-filesystem", "list the directory", "list_directory"),
    ],
)
def test_the_obvious_tool_ranks_first(toolset_name: str, query: str, expected: str) -> None:
    hits = ToolIndex(toolset(toolset_name)).search(query)
    assert hits[0].name == expected, [hit.name for hit in hits[:5]]


def test_a_tool_named_in_the_query_comes_first_whatever_its_score(github: ToolIndex) -> None:
    hits = github.search("pull requests get_me")
    assert hits[0].name == "get_me" and hits[0].exact
    assert all(not hit.exact for hit in hits[1:])
    assert github.search("GET_ME")[0].name == "get_me"


@pytest.mark.parametrize(
    "query", ["hello world", "can you do this for me", "xyzzy", "", "   ", "github"]
)
def test_a_weak_query_returns_nothing(github: ToolIndex, query: str) -> None:
    assert github.search(query) == []


def test_results_are_capped_and_sorted(github: ToolIndex) -> None:
    hits = github.search("repository issue pull request list get")
    assert len(hits) == DEFAULT_SEARCH_LIMIT
    scores = [hit.score for hit in hits]
    assert all(score >= 1.0 for score in scores)
    assert len(github.search("pull request", limit=3)) == 3


def test_excluded_tools_are_never_returned(github: ToolIndex) -> None:
    hits = github.search("create_pull_request pull request", exclude=["create_pull_request"])
    assert "create_pull_request" not in [hit.name for hit in hits]


def test_a_term_in_every_tool_weighs_nothing() -> None:
    index = ToolIndex([Tool(name=f"widget_{n}", description="widget") for n in range(50)])
    assert index.idf("widget") < 0.02
    assert index.search("widget") == []


@given(st.text(max_size=60))
def test_search_never_fails_and_respects_the_floor(query: str) -> None:
    index = ToolIndex(toolset("mcp-filesystem"))
    hits = index.search(query)
    assert len(hits) <= DEFAULT_SEARCH_LIMIT
    assert all(hit.exact or hit.score >= 1.0 for hit in hits)
    assert len({hit.name for hit in hits}) == len(hits)


def test_verb_forms_fold_together() -> None:
    assert search_terms("merge merged merging merges") == ["merg"] * 4
    assert search_terms("star starred starring") == ["star"] * 3
    assert search_terms("fill filled pass passed") == ["fill", "fill", "pass", "pass"]


def test_enum_values_are_indexed(github: ToolIndex) -> None:
    assert github.search("approve the pull request")[0].name == "pull_request_review_write"


def test_nested_property_names_descriptions_and_enums_are_indexed() -> None:
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "color": {"type": "string", "description": "Paint shade", "enum": ["VERMILION", "TEAL"]},
        "layers": {"type": "array", "items": {"anyOf": [{"properties": {"varnish": {}}}]}},
    }}}}
    index = ToolIndex([Tool(name="paint", description="Paint a wall", parameters=schema),
                       *(Tool(name=f"other_{n}", description="unrelated") for n in range(30))])
    for query in ("vermilion", "shade", "varnish", "layer color"):
        assert [hit.name for hit in index.search(query)] == ["paint"], query


def test_a_name_word_does_not_outweigh_the_description() -> None:
    tools = [
        Tool(name="project_board", description="Show a kanban board"),
        Tool(name="get_file", description="Read a file of the upstream project checkout"),
        *(Tool(name=f"other_{n}", description="unrelated words here") for n in range(8)),
    ]
    assert ToolIndex(tools).search("file from the upstream project")[0].name == "get_file"


def test_the_default_is_a_short_list() -> None:
    assert 5 <= DEFAULT_SEARCH_LIMIT <= 8
