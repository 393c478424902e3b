"""Availability: an agent's tools list resolved to registered names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolcalls import Tool
from toolcalls.runtime import (
    AvailabilityError,
    RuntimeTool,
    ToolContext,
    ToolRegistry,
    UnmatchedToolPattern,
    check_availability,
    resolve_availability,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "runtime"


class Echo:
    def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> Any:
        return arguments


def named(name: str) -> RuntimeTool:
    return RuntimeTool(Tool(name=name), Echo())


def server_tools(fixture: str) -> list[RuntimeTool]:
    listing = json.loads((FIXTURES / fixture).read_text())["tools"]
    return [RuntimeTool(Tool.model_validate(item), Echo()) for item in listing]


@pytest.fixture
def registry() -> ToolRegistry:
    """Builtins, the real git and filesystem MCP servers, and an agent-spawning tool."""
    built = ToolRegistry([named("fs_read"), named("fs_write"), named("shell"),
                          named("summary"), named("spawn_agent")])
    built.add_all(server_tools("mcp-git.json"), server="git")
    built.add_all(server_tools("mcp-filesystem.json"), server="fs")
    return built


def test_star_is_every_tool_in_registry_order(registry: ToolRegistry) -> None:
    assert resolve_availability(["*"], registry) == registry.names()


def test_availability_star_server_glob_exclusion(registry: ToolRegistry) -> None:
    git = [name for name in registry.names() if name.startswith("git__")]
    assert resolve_availability(["@git"], registry) == git
    assert resolve_availability(["@git/git_status", "@fs/fs__read_file"], registry) == [
        "git__git_status", "fs__read_file"]
    assert resolve_availability(["fs_*", "!fs__*"], registry) == ["fs_read", "fs_write"]
    assert len(resolve_availability(["fs_*"], registry)) == 2 + 14  # fs__ too: a glob is literal
    assert resolve_availability(["@git/git_diff*"], registry) == [
        "git__git_diff_unstaged", "git__git_diff_staged", "git__git_diff"]
    everything_but = resolve_availability(["*", "!shell", "!@fs"], registry)
    assert "shell" not in everything_but and not any(n.startswith("fs__") for n in everything_but)
    assert "git__git_status" in everything_but and "fs_read" in everything_but


def test_exclusions_apply_after_inclusions_whatever_the_order(registry: ToolRegistry) -> None:
    assert resolve_availability(["!shell", "*"], registry) == resolve_availability(
        ["*", "!shell"], registry)
    assert "shell" not in resolve_availability(["!shell", "*"], registry)


def test_plain_name_and_unnamespaced_name(registry: ToolRegistry) -> None:
    assert resolve_availability(["shell", "git_log"], registry) == ["shell", "git__git_log"]


def test_always_included_even_when_excluded(registry: ToolRegistry) -> None:
    assert resolve_availability(["fs_read"], registry, always=["summary"]) == [
        "fs_read", "summary"]
    assert "summary" in resolve_availability(["*", "!summary"], registry, always=["summary"])


def test_never_included_beats_star(registry: ToolRegistry) -> None:
    names = resolve_availability(["*"], registry, never=["spawn_agent"])
    assert "spawn_agent" not in names and len(names) == len(registry) - 1
    assert resolve_availability(["spawn_agent"], registry, never=["spawn_agent"],
                                always=["spawn_agent"]) == []


def test_explicit_only_left_out_of_wildcards(registry: ToolRegistry) -> None:
    for wildcard in ("*", "spawn_*"):
        assert "spawn_agent" not in resolve_availability(
            [wildcard, "shell"], registry, explicit_only=["spawn_agent"])
    assert "spawn_agent" in resolve_availability(["*", "spawn_agent"], registry,
                                                 explicit_only=["spawn_agent"])


def test_explicit_only_server_tool_needs_its_name(registry: ToolRegistry) -> None:
    assert resolve_availability(["@git"], registry, explicit_only=["git__git_reset"]).count(
        "git__git_reset") == 0
    assert resolve_availability(["@git/git_reset"], registry,
                                explicit_only=["@git/git_reset"]) == ["git__git_reset"]


def test_exclusion_reaches_explicit_only_tools(registry: ToolRegistry) -> None:
    assert resolve_availability(["spawn_agent", "!spawn_*"], registry,
                                explicit_only=["spawn_agent"]) == []


def test_unmatched_pattern_is_reported(registry: ToolRegistry) -> None:
    found = check_availability(["*", "!shel", "@gti", "nope_*"], registry, always=["sumary"])
    assert found.unmatched == ("!shel", "@gti", "nope_*", "sumary")
    assert "shell" in found.names
    with pytest.warns(UnmatchedToolPattern, match="'!shel'"):
        assert "shell" in resolve_availability(["*", "!shel"], registry)


def test_unmatched_pattern_raises_in_strict_mode(registry: ToolRegistry) -> None:
    with pytest.raises(AvailabilityError, match="'@gti'") as caught:
        resolve_availability(["@gti"], registry, strict=True)
    assert isinstance(caught.value, LookupError)


def test_empty_list_gives_no_tools(registry: ToolRegistry) -> None:
    assert resolve_availability([], registry) == []
