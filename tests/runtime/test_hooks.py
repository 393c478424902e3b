"""Hooks before and after a call, as Python callables and as shell commands from configuration."""

from __future__ import annotations

import asyncio
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from toolcalls import ToolCall
from toolcalls.runtime import (
    BeforeAction,
    HookConfigError,
    Hooks,
    RuntimeTool,
    Text,
    ToolContext,
    ToolResult,
    function_tool,
)
from toolcalls.runtime._hooks import skip_result

PYTHON = shlex.quote(sys.executable)


def fs_write(path: str, content: str) -> str:
    """Write a file."""
    Path(path).write_text(content)
    return f"wrote {path}"


def shell(command: str) -> str:
    """Run a command."""
    return command


WRITE = function_tool(fs_write, path_arguments=("path",))
SHELL = function_tool(shell, command_argument="command")


def call(name: str = "fs_write", **arguments: Any) -> ToolCall:
    return ToolCall(id="c1", name=name, arguments=arguments, source="native")


def context(tmp_path: Path | None = None, name: str = "fs_write") -> ToolContext:
    return ToolContext("c1", name, working_dir=tmp_path or Path.cwd())


def before(hooks: Hooks, the_call: ToolCall, the_tool: RuntimeTool = WRITE,
           ctx: ToolContext | None = None) -> BeforeAction:
    return asyncio.run(hooks.run_before(the_call, the_tool, ctx or context()))


def after(hooks: Hooks, the_call: ToolCall, result: ToolResult,
          the_tool: RuntimeTool = WRITE, ctx: ToolContext | None = None) -> ToolResult:
    return asyncio.run(hooks.run_after(the_call, the_tool, ctx or context(), result))


# --- Python hooks -----------------------------------------------------------------------------

def test_before_hook_rewrites_arguments() -> None:
    def under_src(c: ToolCall, t: RuntimeTool, ctx: ToolContext) -> BeforeAction:
        return BeforeAction(arguments={**c.arguments, "path": "src/" + c.arguments["path"]})

    async def upper(c: ToolCall, t: RuntimeTool, ctx: ToolContext) -> BeforeAction:
        return BeforeAction(arguments={**c.arguments, "path": c.arguments["path"].upper()})

    action = before(Hooks(before=[under_src, upper]), call(path="a.py", content=""))
    assert action == BeforeAction(arguments={"path": "SRC/A.PY", "content": ""})


def test_before_hooks_that_change_nothing_leave_arguments_none() -> None:
    action = before(Hooks(before=[lambda c, t, ctx: None]), call(path="a.py"))
    assert action == BeforeAction()


def test_before_hook_skip_gives_synthetic_result() -> None:
    ran: list[str] = []

    def no_env(c: ToolCall, t: RuntimeTool, ctx: ToolContext) -> BeforeAction | None:
        if c.arguments["path"].endswith(".env"):
            return BeforeAction(skip="secrets are not written by the model")
        return None

    def later(c: ToolCall, t: RuntimeTool, ctx: ToolContext) -> None:
        ran.append("later")

    hooks = Hooks(before=[no_env, later])
    the_call = call(path=".env", content="x")
    action = before(hooks, the_call)
    assert action.skip == "secrets are not written by the model"
    assert ran == []  # the first skip wins
    result = skip_result(the_call, action.skip)
    assert result.is_error and result.call is the_call
    assert "secrets are not written by the model" in result.text()
    assert before(hooks, call(path="a.py")).skip is None and ran == ["later"]


def test_after_hook_rewrites_result() -> None:
    def redact(c: ToolCall, t: RuntimeTool, ctx: ToolContext, r: ToolResult) -> ToolResult:
        return ToolResult.of(r.text().replace("secret", "[redacted]"))

    async def stamp(c: ToolCall, t: RuntimeTool, ctx: ToolContext,
                    r: ToolResult) -> ToolResult:
        return ToolResult((*r.content, Text("checked")))

    def keep(c: ToolCall, t: RuntimeTool, ctx: ToolContext, r: ToolResult) -> None:
        return None

    result = after(Hooks(after=[redact, keep, stamp]), call(), ToolResult.of("the secret"))
    assert result.text() == "the [redacted]\nchecked"


def test_hook_that_raises_never_escapes() -> None:
    def broken(c: ToolCall, t: RuntimeTool, ctx: ToolContext) -> None:
        raise KeyError("oops")

    async def broken_after(c: ToolCall, t: RuntimeTool, ctx: ToolContext,
                           r: ToolResult) -> ToolResult:
        raise RuntimeError("linter crashed")

    action = before(Hooks(before=[broken]), call(path="a"))
    assert action.skip is not None
    assert "KeyError" in action.skip and "oops" in action.skip
    original = ToolResult.of("wrote a", details={"took": 3})
    result = after(Hooks(after=[broken_after]), call(), original)
    assert result.content == original.content
    assert result.details["took"] == 3
    assert "RuntimeError: linter crashed" in result.details["hook_notes"][0]
    assert "broken_after" in result.details["hook_notes"][0]


def test_after_hook_note_keeps_details_that_are_not_a_dict() -> None:
    def broken(c: ToolCall, t: RuntimeTool, ctx: ToolContext, r: ToolResult) -> None:
        raise ValueError("no")

    result = after(Hooks(after=[broken]), call(), ToolResult.of("x", details=[1, 2]))
    assert result.details["details"] == [1, 2] and len(result.details["hook_notes"]) == 1


# --- shell hooks ------------------------------------------------------------------------------

LINTER = """
import sys
text = open(sys.argv[1]).read()
for number, line in enumerate(text.splitlines(), 1):
    if "TODO" in line:
        print(f"{sys.argv[1]}:{number}: TODO left in")
sys.exit(1 if "TODO" in text else 0)
"""


def test_shell_after_hook_runs_linter_after_write(tmp_path: Path) -> None:
    (tmp_path / "lint.py").write_text(LINTER)
    hooks = Hooks.from_config(
        {"after": [{"tools": "fs_write", "command": f"{PYTHON} lint.py {{path}}"}]},
        working_dir=tmp_path)
    target = tmp_path / "a.py"
    the_call = call(path=str(target), content="x = 1\n# TODO: y\n")
    written = asyncio.run(WRITE.run(the_call.arguments, context(tmp_path)))
    result = after(hooks, the_call, written)
    assert result.content[0] == written.content[0]
    lint = result.content[-1]
    assert isinstance(lint, Text)
    assert "(exit status 1)" in lint.text
    assert f"{target}:2: TODO left in" in lint.text
    clean = call(path=str(target), content="x = 1\n")
    written = asyncio.run(WRITE.run(clean.arguments, context(tmp_path)))
    assert after(hooks, clean, written) == written  # a quiet, passing linter adds nothing


def test_shell_hook_quotes_arguments(tmp_path: Path) -> None:
    attacks = ["x; touch pwned1", "$(touch pwned2)", "`touch pwned3`", "x\ntouch pwned4",
               "x' ; touch pwned5 ; '", 'x" ; touch pwned6 ; "', "x && touch pwned7",
               "x | touch pwned8", "> pwned9"]
    hooks = Hooks.from_config(
        {"before": [{"tools": "shell", "command": "echo {command} > seen.txt"}],
         "after": [{"tools": "shell", "command": "echo {command}"}]}, working_dir=tmp_path)
    for attack in attacks:
        the_call = call("shell", command=attack)
        assert before(hooks, the_call, SHELL).skip is None
        assert (tmp_path / "seen.txt").read_text() == attack + "\n"
        result = after(hooks, the_call, ToolResult.of("ran"), SHELL)
        assert attack.strip() in result.text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["seen.txt"]


@pytest.mark.parametrize("command", [
    'echo "{path}"', "echo '{path}'", "echo \\{path}", "echo ${path}", 'sh -c "cat {path}"',
])
def test_shell_hook_placeholder_inside_quotes_is_refused(command: str) -> None:
    with pytest.raises(HookConfigError, match="leave it bare"):
        Hooks.from_config({"before": [{"tools": "*", "command": command}]})


def test_shell_hook_quoted_text_beside_a_bare_placeholder_is_allowed(tmp_path: Path) -> None:
    hooks = Hooks.from_config({"after": [{"tools": "*", "command":
                                          "echo 'file:' {path} \"{{done}}\""}]},
                              working_dir=tmp_path)
    result = after(hooks, call(path="a b"), ToolResult.of("ok"))
    assert "file: a b {done}" in result.text()


def test_shell_before_hook_nonzero_exit_skips_with_output(tmp_path: Path) -> None:
    check = f"{PYTHON} -c 'import sys; print(\"no pushes\"); sys.exit(sys.argv[1] == \"push\")'"
    hooks = Hooks.from_config({"before": [{"tools": "shell", "command": check + " {command}"}]},
                              working_dir=tmp_path)
    action = before(hooks, call("shell", command="push"), SHELL)
    assert action.skip is not None and "no pushes" in action.skip
    assert before(hooks, call("shell", command="status"), SHELL).skip is None


def test_shell_hook_runs_only_for_the_tools_it_names(tmp_path: Path) -> None:
    hooks = Hooks.from_config({"before": [{"tools": ["fs_*"], "command": "false"}]},
                              working_dir=tmp_path)
    assert before(hooks, call(path="a"), WRITE).skip is not None
    assert before(hooks, call("shell", command="ls"), SHELL).skip is None


def test_shell_hook_missing_argument_does_not_run(tmp_path: Path) -> None:
    hooks = Hooks.from_config({"before": [{"tools": "*", "command": "touch ran {missing}"}],
                               "after": [{"tools": "*", "command": "touch ran {missing}"}]},
                              working_dir=tmp_path)
    assert before(hooks, call(path="a")) == BeforeAction()
    original = ToolResult.of("ok")
    assert after(hooks, call(path="a"), original) is original
    assert not (tmp_path / "ran").exists()


def test_shell_hook_runs_in_the_context_working_dir_by_default(tmp_path: Path) -> None:
    hooks = Hooks.from_config({"after": [{"tools": "*", "command": "ls"}]})
    (tmp_path / "marker.txt").write_text("")
    result = after(hooks, call(), ToolResult.of("ok"), ctx=context(tmp_path))
    assert "marker.txt" in result.text()


def test_shell_hook_timeout_stops_the_command(tmp_path: Path) -> None:
    sleeper = f"{PYTHON} -c 'import time; time.sleep(120)'"
    hooks = Hooks.from_config({"before": [{"tools": "*", "command": sleeper, "timeout": 0.5}],
                               "after": [{"tools": "*", "command": sleeper, "timeout": 0.5}]},
                              working_dir=tmp_path)
    action = before(hooks, call(path="a"))
    assert action.skip is not None and "did not finish within 0.5 s" in action.skip
    result = after(hooks, call(path="a"), ToolResult.of("ok"))
    assert result.text() == "ok"
    assert "did not finish within 0.5 s" in result.details["hook_notes"][0]


def test_hooks_from_toml(tmp_path: Path) -> None:
    config = tmp_path / "hooks.toml"
    config.write_text('[[hooks.after]]\ntools = "fs_write"\ncommand = "echo linted {path}"\n'
                      'timeout = 5\n')
    hooks = Hooks.from_toml(config, working_dir=tmp_path)
    assert len(hooks.after) == 1 and hooks.before == []
    assert "linted a.py" in after(hooks, call(path="a.py"), ToolResult.of("ok")).text()


@pytest.mark.parametrize("config", [
    {"during": []},
    {"before": {"tools": "x", "command": "y"}},
    {"before": [{"tools": "x"}]},
    {"before": [{"command": "y"}]},
    {"before": [{"tools": "x", "command": "y", "timeout": 0}]},
    {"before": [{"tools": "x", "command": "y", "shell": True}]},
    {"after": [{"tools": "x", "command": "echo {path!r}"}]},
    {"after": [{"tools": "x", "command": "echo {path.name}"}]},
    {"after": [{"tools": "x", "command": "echo {path"}]},
])
def test_bad_hook_config_is_refused(config: dict[str, Any]) -> None:
    with pytest.raises(HookConfigError):
        Hooks.from_config(config)


def test_bad_hook_toml_is_refused() -> None:
    with pytest.raises(HookConfigError, match="TOML"):
        Hooks.from_toml("[[after]\n")


def test_shell_hook_stops_when_the_call_is_cancelled(tmp_path: Path) -> None:
    sleeper = f"{PYTHON} -c 'import time; time.sleep(120)'"
    hooks = Hooks.from_config({"before": [{"tools": "*", "command": sleeper, "timeout": 100}]},
                              working_dir=tmp_path)
    ctx = context(tmp_path)

    async def cancel_soon() -> BeforeAction:
        asyncio.get_running_loop().call_later(0.2, ctx.cancel.cancel, "the user pressed stop")
        return await hooks.run_before(call(path="a"), WRITE, ctx)

    action = asyncio.run(cancel_soon())
    assert action.skip is not None
    assert "was cancelled (the user pressed stop)" in action.skip


def test_shell_hook_matches_the_registered_name_not_the_alias_called(tmp_path: Path) -> None:
    hooks = Hooks.from_config({"before": [{"tools": "fs_write", "command": "false"}]},
                              working_dir=tmp_path)
    assert before(hooks, call("write", path="a"), WRITE).skip is not None


def test_hooks_add_up_in_order(tmp_path: Path) -> None:
    python = Hooks(before=[lambda c, t, ctx: BeforeAction(arguments={"path": "b"})])
    configured = Hooks.from_config({"before": [{"tools": "*", "command": "test {path} = a"}]},
                                   working_dir=tmp_path)
    assert before(python + configured, call(path="a")).skip is not None  # saw "b"
    assert before(configured + python, call(path="a")).skip is None
