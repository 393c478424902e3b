"""Permissions: the order rules apply in, session trust, approvals, and bypass attempts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolcalls import ToolCall
from toolcalls.runtime import (
    PendingApproval,
    PermissionRuleError,
    Permissions,
    RuntimeTool,
    Trust,
    tool,
)


@tool(path_arguments=("path",))
def fs_read(path: str) -> str:
    """Read a file."""
    return path


@tool(path_arguments=("path",), is_dangerous=True)
def fs_write(path: str, content: str = "") -> str:
    """Write a file."""
    return path


@tool(command_argument="command", is_dangerous=True, aliases=("bash", "run"))
def shell(command: str) -> str:
    """Run a command."""
    return command


@tool
def weather(city: str) -> str:
    """The weather."""
    return city


def call(name: str, /, **arguments: Any) -> ToolCall:
    return ToolCall(id="c1", name=name, arguments=arguments, source="native")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "home" / "project" / "src").mkdir(parents=True)
    (tmp_path / "home" / ".ssh").mkdir()
    return tmp_path / "home"


def rules(home: Path, **lists: list[str]) -> Permissions:
    return Permissions(**lists, working_dir=home / "project", home=home)


def decide(permissions: Permissions, runtime_tool: RuntimeTool, trust: Trust | None = None,
           **arguments: Any) -> str:
    return permissions.evaluate(call(runtime_tool.name, **arguments), runtime_tool,
                                trust).decision


def test_safe_tool_defaults_to_allow(home: Path) -> None:
    assert decide(rules(home), weather, city="Oslo") == "allow"


def test_dangerous_tool_defaults_to_ask(home: Path) -> None:
    verdict = rules(home).evaluate(call("fs_write", path="a"), fs_write)
    assert verdict.decision == "ask" and "dangerous" in verdict.reason


def test_deny_rule_beats_allow_rule(home: Path) -> None:
    permissions = rules(home, allow=["fs_read"], deny=["fs_read(~/.ssh/**)"])
    assert decide(permissions, fs_read, path="src/a.py") == "allow"
    verdict = permissions.evaluate(call("fs_read", path="~/.ssh/id_rsa"), fs_read)
    assert verdict.decision == "deny" and verdict.rule == "fs_read(~/.ssh/**)"


def test_deny_rule_beats_always_trust(home: Path) -> None:
    trust = Trust(always={"shell"})
    permissions = rules(home, deny=["shell(rm *)"])
    assert decide(permissions, shell, trust, command="ls") == "allow"
    assert decide(permissions, shell, trust, command="rm -rf build") == "deny"


def test_ask_always_trusts_tool_for_session(home: Path) -> None:
    permissions, trust = rules(home), Trust()
    verdict = permissions.evaluate(call("fs_write", path="a"), fs_write, trust)
    trust.record(permissions.approval(call("fs_write", path="a"), fs_write, verdict), "always")
    assert decide(permissions, fs_write, trust, path="b") == "allow"
    assert decide(permissions, fs_write, Trust(), path="b") == "ask"  # another session


def test_ask_never_denies_tool_for_session(home: Path) -> None:
    permissions, trust = rules(home, allow=["fs_write"]), Trust()
    approval = PendingApproval(call("fs_write", path="a"), "fs_write", "?", "dangerous")
    trust.record(approval, "never")
    assert decide(permissions, fs_write, trust, path="a") == "deny"


def test_ask_yes_is_for_this_call_only(home: Path) -> None:
    permissions, trust = rules(home), Trust()
    approval = permissions.approval(call("fs_write", path="a"), fs_write,
                                    permissions.evaluate(call("fs_write", path="a"), fs_write))
    trust.record(approval, "yes")
    assert decide(permissions, fs_write, trust, path="a") == "ask"


def test_ask_rule_asks_even_where_an_allow_rule_allows(home: Path) -> None:
    permissions = rules(home, allow=["fs_read"], ask=["fs_read(**/secrets/**)"])
    assert decide(permissions, fs_read, path="secrets/key") == "ask"
    assert decide(permissions, fs_read, path="src/a.py") == "allow"


def test_allow_rule_lets_a_dangerous_tool_run(home: Path) -> None:
    permissions = rules(home, allow=["fs_write(./src/**)"])
    assert decide(permissions, fs_write, path="src/new.py") == "allow"
    assert decide(permissions, fs_write, path="README.md") == "ask"


def test_pending_approval_round_trips_through_json(home: Path) -> None:
    permissions = rules(home)
    the_call = call("shell", command="make clean")
    approval = permissions.approval(the_call, shell, permissions.evaluate(the_call, shell))
    again = PendingApproval.from_dict(json.loads(json.dumps(approval.to_dict())))
    assert again == approval and again.prompt == "Allow shell to run `make clean`?"


def test_trust_round_trips_through_json() -> None:
    trust = Trust(always={"a"}, never={"b"})
    assert Trust.from_dict(json.loads(json.dumps(trust.to_dict()))) == trust


# -- paths: bypass attempts -------------------------------------------------------------------

@pytest.mark.parametrize("path", [
    "../.ssh/id_rsa", "src/../../.ssh/id_rsa", "~/project/../.ssh/id_rsa",
    "{home}/project/../.ssh/id_rsa", "{home}//project/./../.ssh/id_rsa", "/etc/passwd",
])
def test_dot_dot_out_of_a_trusted_path_is_not_allowed(home: Path, path: str) -> None:
    permissions = rules(home, allow=["fs_write(~/project/**)"])
    assert decide(permissions, fs_write, path=path.format(home=home)) == "ask"
    assert decide(permissions, fs_write, path="src/inside.py") == "allow"
    # an allow rule does not confine a tool that is not dangerous: a deny rule does
    strict = rules(home, allow=["fs_read(~/project/**)"], deny=["fs_read(!~/project/**)"])
    assert decide(strict, fs_read, path=path.format(home=home)) == "deny"


def test_symlink_out_of_a_trusted_path_is_outside(home: Path) -> None:
    (home / "project" / "keys").symlink_to(home / ".ssh")
    permissions = rules(home, allow=["fs_write(~/project/**)"], deny=["fs_write(~/.ssh/**)"])
    assert decide(permissions, fs_write, path="keys/authorized_keys") == "deny"
    assert decide(permissions, fs_write, path="src/ok.py") == "allow"


def test_home_spelled_out_is_the_same_path(home: Path) -> None:
    permissions = rules(home, deny=["fs_read(~/.ssh/**)"])
    assert decide(permissions, fs_read, path=f"{home}/.ssh/id_rsa") == "deny"
    assert decide(permissions, fs_read, path="~/.ssh/id_rsa") == "deny"


@pytest.mark.parametrize("path", ["src/a\x00.py", 42, None, ["src/a.py"], "", "~root/.ssh/x"])
def test_path_a_rule_cannot_check_is_never_allowed_by_it(home: Path, path: object) -> None:
    permissions = rules(home, allow=["fs_write(~/project/**)"])
    assert decide(permissions, fs_write, path=path) == "ask"
    closed = rules(home, allow=["fs_read"], deny=["fs_read(~/.ssh/**)"])
    assert decide(closed, fs_read, path=path) == "deny"  # fails closed


def test_env_file_denied_anywhere(home: Path) -> None:
    permissions = rules(home, allow=["fs_write"], deny=["fs_write(**/.env)"])
    assert decide(permissions, fs_write, path=".env") == "deny"
    assert decide(permissions, fs_write, path="src/deep/.env") == "deny"
    assert decide(permissions, fs_write, path="/tmp/.env") == "deny"
    assert decide(permissions, fs_write, path="src/env.py") == "allow"


# -- commands: bypass attempts ----------------------------------------------------------------

@pytest.mark.parametrize("command", [
    "git status; rm -rf x", "git status && rm -rf x", "git status || rm -rf x",
    "git status | sh", "git status & rm -rf x", "git status\nrm -rf x",
    "git status $(rm -rf x)", "git status `rm -rf x`", "git status \"$(rm -rf x)\"",
    "bash -c 'git status; rm -rf x'", "git status > ~/.bashrc", "(git status; rm x)",
    "git status <(rm -rf x)", "$GIT status", "git status 'unclosed",
])
def test_a_sub_command_is_no_way_around_an_allow_rule(home: Path, command: str) -> None:
    permissions = rules(home, allow=["shell(git status*)"])
    assert decide(permissions, shell, command=command) == "ask"


def test_every_sub_command_allowed_allows_the_whole(home: Path) -> None:
    permissions = rules(home, allow=["shell(git status*)", "shell(git diff*)"])
    assert decide(permissions, shell, command="git status && git diff --stat") == "allow"
    assert decide(permissions, shell, command="git status 2>&1 >/dev/null") == "allow"


@pytest.mark.parametrize("command", [
    "ls; rm -rf x", "ls && rm -rf x", "echo $(rm -rf x)", "echo `rm -rf x`",
    "sh -c 'rm -rf x'", "bash -c \"ls; rm -rf x\"", "eval rm -rf x", "'r'm -rf x",
    "\\rm -rf x", "sudo rm -rf x", "/bin/rm -rf x", "FOO=1 rm -rf x", "nohup rm -rf x &",
    "find . -name '*.py' -exec rm {} \\;", "ls | xargs rm -rf", "timeout 5 rm -rf x",
])
def test_a_denied_sub_command_denies_the_whole(home: Path, command: str) -> None:
    permissions = rules(home, allow=["shell"], deny=["shell(rm *)"])
    assert decide(permissions, shell, command=command) == "deny"


def test_quoted_separators_stay_one_word(home: Path) -> None:
    permissions = rules(home, allow=["shell(echo *)"], deny=["shell(rm *)"])
    assert decide(permissions, shell, command="echo 'a; rm -rf x' \"b && rm -rf y\"") == "allow"


def test_unreadable_command_fails_closed_under_a_deny_rule(home: Path) -> None:
    permissions = rules(home, allow=["shell"], deny=["shell(rm *)"])
    assert decide(permissions, shell, command="echo 'unclosed") == "deny"
    assert decide(permissions, shell, command=["rm", "-rf", "x"]) == "deny"


# -- tool names --------------------------------------------------------------------------------

def test_tool_renamed_by_alias_is_no_way_around_a_deny_rule(home: Path) -> None:
    permissions = rules(home, deny=["shell"])
    for name in ("shell", "bash", "run"):
        assert permissions.evaluate(call(name, command="ls"), shell).decision == "deny"
    by_alias = rules(home, deny=["bash"])
    assert by_alias.evaluate(call("shell", command="ls"), shell).decision == "deny"


def test_server_rules_match_the_tools_of_that_server(home: Path) -> None:
    from dataclasses import replace
    github = replace(weather, definition=weather.definition.model_copy(
        update={"name": "github__create_issue"}), origin="mcp", server="github")
    assert decide(rules(home, deny=["@github"]), github, city="x") == "deny"
    assert decide(rules(home, deny=["@github/create_issue"]), github, city="x") == "deny"
    assert decide(rules(home, deny=["@github/delete_repo"]), github, city="x") == "allow"
    assert decide(rules(home, deny=["@gitlab"]), github, city="x") == "allow"


def test_glob_over_tool_names(home: Path) -> None:
    permissions = rules(home, deny=["fs_*"])
    assert decide(permissions, fs_read, path="a") == "deny"
    assert decide(permissions, weather, city="a") == "allow"


@pytest.mark.parametrize("text", ["", "fs_read(", "fs read", "fs_read()", "(x)",
                                  "fs_read(~other/x)"])
def test_malformed_rule_is_refused_with_the_syntax(home: Path, text: str) -> None:
    with pytest.raises(PermissionRuleError):
        rules(home, allow=[text])


def test_one_string_instead_of_a_list_is_refused(home: Path) -> None:
    with pytest.raises(PermissionRuleError, match="a list of rules"):
        Permissions(allow="fs_read", working_dir=home)  # type: ignore[arg-type]


def test_rules_load_from_toml_and_dicts(home: Path, tmp_path: Path) -> None:
    file = tmp_path / "permissions.toml"
    file.write_text('[permissions]\nallow = ["fs_read"]\ndeny = ["fs_read(~/.ssh/**)"]\n')
    for permissions in (Permissions.from_toml(file, working_dir=home, home=home),
                        Permissions.from_dict({"allow": ["fs_read"],
                                               "deny": ["fs_read(~/.ssh/**)"]},
                                              working_dir=home, home=home)):
        assert decide(permissions, fs_read, path="~/.ssh/x") == "deny"
        assert decide(permissions, fs_read, path="x") == "allow"
    with pytest.raises(PermissionRuleError, match="unknown permission keys"):
        Permissions.from_dict({"alow": ["x"]})
