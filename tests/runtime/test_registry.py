"""The registry: names every API takes, where each tool comes from, lookups, derived sets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import toolcalls
from toolcalls import Tool
from toolcalls.budget import Session
from toolcalls.providers import render_native
from toolcalls.runtime import NotFound, RuntimeTool, ToolContext, ToolNameError, ToolRegistry, tool
from toolcalls.runtime._registry import NAME_PATTERN, sanitize_name

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "runtime"


class Echo:
    """A body that hands its arguments back (stands in for an MCP server's)."""

    def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> Any:
        return arguments


def server_tools(fixture: str) -> list[RuntimeTool]:
    listing = json.loads((FIXTURES / fixture).read_text())["tools"]
    return [RuntimeTool(Tool.model_validate(item), Echo()) for item in listing]


def named(name: str, **fields: Any) -> RuntimeTool:
    return RuntimeTool(Tool(name=name, **fields), Echo())


@tool
def search(query: str) -> str:
    """Search the web."""
    return query


def test_plain_function_is_wrapped() -> None:
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    registry = ToolRegistry([add])
    found = registry.find("add")
    assert found is not None and found.origin == "builtin"
    assert found.definition.parameters["required"] == ["a", "b"]


def test_server_tools_are_namespaced_with_their_source() -> None:
    registry = ToolRegistry()
    added = registry.add_all(server_tools("mcp-git.json"), server="git")
    assert added[0].name == "git__git_status"
    assert (added[0].origin, added[0].server, added[0].definition.source) == ("mcp", "git", "git")
    assert registry.names()[:2] == ["git__git_status", "git__git_diff_unstaged"]


def test_names_collide_across_servers_are_namespaced() -> None:
    registry = ToolRegistry([search])
    one = registry.add(named("search"), server="github")
    other = registry.add(named("search"), server="gitlab")
    assert (one.name, other.name) == ("github__search", "gitlab__search")
    assert registry.names() == ["search", "github__search", "gitlab__search"]


def test_dynamic_tool_with_a_taken_name_is_namespaced_by_origin() -> None:
    registry = ToolRegistry([search])
    assert registry.add(named("search"), origin="dynamic").name == "dynamic__search"


def test_prefix_servers_false_namespaces_only_on_collision() -> None:
    registry = ToolRegistry(prefix_servers=False)
    assert registry.add(named("search"), server="github").name == "search"
    assert registry.add(named("search"), server="gitlab").name == "gitlab__search"


def test_separator_is_configurable() -> None:
    registry = ToolRegistry(separator="-")
    assert registry.add(named("read_file"), server="fs").name == "fs-read_file"


def test_names_are_sanitized() -> None:
    registry = ToolRegistry()
    assert registry.add(named("get.weather")).name == "get_weather"
    assert registry.add(named("x"), server="my server").name == "my_server__x"
    assert len(registry.add(named("a" * 80)).name) == 64
    assert all(NAME_PATTERN.fullmatch(name) for name in registry.names())


def test_sanitize_name() -> None:
    assert sanitize_name("1st-tool") == "st-tool"
    assert sanitize_name("café au lait") == "caf__au_lait"
    assert sanitize_name("123") is None


def test_unsanitizable_name_is_refused() -> None:
    with pytest.raises(ToolNameError, match="name='...'"):
        ToolRegistry().add(named("日本語"))
    with pytest.raises(ToolNameError, match="not a valid tool name"):
        ToolRegistry().add(search, name="bad name")


def test_name_that_cannot_be_made_unique_is_refused() -> None:
    registry = ToolRegistry([search])
    with pytest.raises(ToolNameError, match="taken") as caught:
        registry.add(named("search"))  # builtin: no namespace to tell the two apart
    assert isinstance(caught.value, ValueError)
    registry.add(named("search"), server="github")
    with pytest.raises(ToolNameError, match="taken"):
        registry.add(named("search"), server="github")
    with pytest.raises(ToolNameError, match="taken"):
        registry.add(named("get_weather"), name="search")


def test_sanitized_names_that_collide_are_refused() -> None:
    registry = ToolRegistry([named("a_b")])
    with pytest.raises(ToolNameError):
        registry.add(named("a.b"))


def test_lookup_by_alias() -> None:
    registry = ToolRegistry([named("fs_read", aliases=("read", "cat"))])
    found = registry.find("cat")
    assert found is not None and found.name == "fs_read"
    assert registry.resolve("read") is found


def test_name_wins_over_another_tools_alias() -> None:
    registry = ToolRegistry([named("fs_read", aliases=("shell",)), named("shell")])
    found = registry.find("shell")
    assert found is not None and found.name == "shell"


def test_lookup_by_unnamespaced_name_when_unambiguous() -> None:
    registry = ToolRegistry()
    registry.add_all(server_tools("mcp-git.json"), server="git")
    found = registry.find("git_status")
    assert found is not None and found.name == "git__git_status"


def test_ambiguous_unnamespaced_name_is_not_found_and_lists_both() -> None:
    registry = ToolRegistry()
    registry.add(named("search"), server="github")
    registry.add(named("search"), server="gitlab")
    assert registry.find("search") is None
    missing = registry.resolve("search")
    assert isinstance(missing, NotFound)
    assert missing.closest == ("github__search", "gitlab__search")


def test_not_found_suggests_closest() -> None:
    registry = ToolRegistry()
    registry.add_all(server_tools("mcp-filesystem.json"), server="fs")
    missing = registry.resolve("fs__read_fiel")
    assert isinstance(missing, NotFound)
    assert missing.closest[0] == "fs__read_file"
    assert "Did you mean 'fs__read_file'" in missing.for_model("fs__read_fiel")
    by_plain = registry.resolve("list_directroy")
    assert isinstance(by_plain, NotFound) and by_plain.closest[0] == "fs__list_directory"


def test_not_found_without_close_names_lists_available() -> None:
    missing = ToolRegistry([search]).resolve("zzz")
    assert isinstance(missing, NotFound)
    assert missing.available == ("search",) and "search" in missing.message


def test_without_source_mcp() -> None:
    registry = ToolRegistry([search])
    registry.add_all(server_tools("mcp-git.json"), server="git")
    registry.add(named("pets"), origin="openapi", server="petstore")
    kept = registry.without_source("mcp")
    assert kept.names() == ["search", "petstore__pets"]
    assert len(registry) == 1 + len(server_tools("mcp-git.json")) + 1  # the original is unchanged


def test_without_source_server() -> None:
    registry = ToolRegistry([search])
    registry.add(named("a"), server="one")
    registry.add(named("b"), server="two")
    assert registry.without_source("one").names() == ["search", "two__b"]


def test_without_and_only() -> None:
    registry = ToolRegistry([search, named("shell", is_dangerous=True), named("ls")])
    assert registry.without(["shell", "nope"]).names() == ["search", "ls"]
    assert registry.only(lambda t: t.definition.is_dangerous).names() == ["shell"]


def test_derived_registry_keeps_unnamespaced_lookup() -> None:
    registry = ToolRegistry()
    registry.add(named("search"), server="github")
    registry.add(named("search"), server="gitlab")
    narrowed = registry.without_source("gitlab")
    found = narrowed.find("search")
    assert found is not None and found.name == "github__search"


def test_replace_keeps_source() -> None:
    registry = ToolRegistry([search])
    registry.add(named("search"), server="github")

    def mocked(query: str) -> str:
        """A stand-in."""
        return "canned"

    swapped = registry.replace("github__search", mocked)
    new = swapped.find("github__search")
    assert new is not None
    assert (new.origin, new.server, new.definition.source) == ("mcp", "github", "github")
    assert new.definition.description == "A stand-in."
    assert swapped.names() == registry.names()
    old = registry.find("github__search")
    assert old is not None and old.definition.description == ""


def test_replace_unknown_name_raises_typed_error() -> None:
    with pytest.raises(toolcalls.ToolNotFoundError, match="search"):
        ToolRegistry([search]).replace("serch", search)


def test_list_schemas_carry_source_and_server() -> None:
    registry = ToolRegistry([search])
    registry.add(named("pets"), origin="openapi", server="petstore")
    schemas = registry.list_schemas()
    assert [(s["name"], s["origin"], s["server"]) for s in schemas] == [
        ("search", "builtin", None), ("petstore__pets", "openapi", "petstore")]
    assert schemas[0]["parameters"]["properties"]["query"]["type"] == "string"


def test_container_protocol() -> None:
    registry = ToolRegistry([search, named("fs_read", aliases=("cat",))])
    assert len(registry) == 2 and "search" in registry and "cat" not in registry
    assert [t.name for t in registry] == ["search", "fs_read"]
    assert [d.name for d in registry.definitions()] == ["search", "fs_read"]


def test_definitions_follow_additions() -> None:
    registry = ToolRegistry([search])
    assert [d.name for d in registry.definitions()] == ["search"]
    registry.add(named("ls"))
    assert [d.name for d in registry.definitions()] == ["search", "ls"]
    assert toolcalls.to_tools(registry)[-1].name == "ls"


def test_registry_renders_into_every_path() -> None:
    registry = ToolRegistry([search])
    registry.add_all(server_tools("mcp-git.json"), server="git")
    rendered = toolcalls.budget.render(registry, "hermes")
    assert isinstance(rendered.content, str) and "git__git_status" in rendered.content
    native = render_native(registry, "anthropic")
    assert [item["name"] for item in native["tools"]] == registry.names()
    session = Session(registry, pinned=["search"])
    assert set(session.catalog) == set(registry.names())
    grammar = toolcalls.decoding.grammar("hermes", registry, tool_choice="required")
    assert "git__git_status" in grammar
    parsed = toolcalls.parse(
        '<tool_call>{"name": "git__git_status", "arguments": {"repo_path": "."}}</tool_call>',
        "hermes", tools=registry)
    assert [call.name for call in parsed.calls] == ["git__git_status"]


def test_dynamic_tool_cannot_take_a_builtin_name_or_capture_it_by_alias() -> None:
    registry = ToolRegistry([named("shell", is_dangerous=True)])
    impostor = registry.add(named("shell", aliases=("shell", "sh")), origin="dynamic")
    assert impostor.name == "dynamic__shell"
    found = registry.find("shell")
    assert found is not None and found.name == "shell" and found.origin == "builtin"
    second = registry.add(named("dynamic__shell"), origin="dynamic")
    assert second.name == "dynamic__dynamic__shell"
    assert registry.find("dynamic__shell") is impostor


def test_sanitizing_cannot_land_on_a_taken_name() -> None:
    registry = ToolRegistry([named("shell")])
    with pytest.raises(ToolNameError, match="taken"):
        registry.add(named("1shell"))


def test_removed_builtin_name_does_not_reach_a_dynamic_tool() -> None:
    def shell(command: str) -> str:
        """Run."""
        return command

    registry = ToolRegistry([shell])
    registry.add(shell, origin="dynamic")
    assert registry.names() == ["shell", "dynamic__shell"]
    registry.remove("shell")
    assert registry.find("shell") is None
    assert registry.find("dynamic__shell") is not None
