"""Permissions: each call is allowed, asked about or denied, by rules that are data.

    permissions = Permissions(
        allow=["fs_read(~/project/**)", "shell(git status*)", "@github"],
        deny=["fs_write(**/.env)", "shell(rm *)"],
        ask=["fs_write(~/project/docs/**)"],
    )
    permissions.evaluate(call, tool, trust)   # Verdict("allow" | "ask" | "deny", reason, rule)

A rule is ``TOOL`` or ``TOOL(SPECIFIER)``. ``TOOL`` is a name or a glob over names (``fs_*``,
``*``), ``@server`` (every tool of that MCP server or service) or ``@server/tool``; it matches
a tool's registered name or any of its aliases, so calling a tool by an alias is no way around
a rule. The ``SPECIFIER`` applies to what the tool declares (`RuntimeTool.path_arguments`,
`RuntimeTool.command_argument`):

- for paths, a glob (`toolcalls.runtime._paths`): ``~/project/**``; ``!PATTERN`` means any path
  but those. Paths are compared absolute, with ``~``, ``..`` and symlinks resolved;
- for a command, a glob over each simple command's words (`toolcalls.runtime._commands`):
  ``git status*``. Every simple command is judged on its own: ``git status; rm -rf x`` is
  allowed only if both are, and denied if either is.

A specifier on a tool that declares neither matches no call of it.

**Order**: deny rules, then the session's trust (an earlier Always or Never for the tool), then
ask rules, then allow rules, then the default: Ask for a tool marked ``is_dangerous``, Allow
otherwise. A deny rule matches when any path or simple command matches it; an allow rule
covers a call only when every path and every simple command is matched by some allow rule.
What a rule cannot vouch for is never allowed by a specifier: a path that is not a string or
holds a NUL byte, a command the shell could not parse, a command word that an expansion
decides, an output redirection to a file. Such a call is asked about (or denied, when a deny
rule for the tool has a specifier: it fails closed).

An Ask is handed to the caller as a `PendingApproval` (JSON-ready: show it in a terminal, a web
page, or answer it in a later process) and answered with an `Answer`: ``yes`` (this call),
``always`` (this tool, for the session), ``no`` (refuse this call), ``never`` (refuse the tool
for the session). `Trust` keeps a session's Always and Never answers.
"""

from __future__ import annotations

import fnmatch
import json
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from .._errors import ToolCallsError
from ..parsing._models import ToolCall
from ._commands import SubCommand, split_command
from ._paths import PathPattern, normalize_path
from ._tool import RuntimeTool

__all__ = [
    "Answer",
    "PendingApproval",
    "PermissionRuleError",
    "Permissions",
    "Rule",
    "Trust",
    "Verdict",
]

Answer = Literal["yes", "always", "no", "never"]
"""A user's answer to a `PendingApproval`."""
ANSWERS: tuple[Answer, ...] = get_args(Answer)

_RULE = re.compile(r"^(?P<tool>[^()\s]+)(?:\((?P<spec>.*)\))?$", re.S)
_TOOL_NAME = re.compile(r"^(@[A-Za-z0-9_.-]+(/[A-Za-z0-9_*?.\[\]-]+)?|[A-Za-z0-9_*?.\[\]-]+)$")


class PermissionRuleError(ToolCallsError, ValueError):
    """A permission rule cannot be read (the message shows the syntax)."""


@dataclass(frozen=True)
class Verdict:
    """What the permissions say of one call."""

    decision: Literal["allow", "ask", "deny"]
    reason: str
    """For the model (deny) or the user (ask)."""
    rule: str | None = None
    """The rule that decided, as written; None for trust and the default."""


@dataclass(frozen=True)
class PendingApproval:
    """A call waiting for the user's answer; `to_dict` and `from_dict` carry it as JSON."""

    call: ToolCall
    tool: str
    """The tool's registered name (the call may use an alias)."""
    prompt: str
    """What to show the user."""
    reason: str
    """Why it asks: the rule, or the tool being marked dangerous."""
    options: tuple[Answer, ...] = ANSWERS

    def to_dict(self) -> dict[str, Any]:
        return {"call": self.call.model_dump(mode="json"), "tool": self.tool,
                "prompt": self.prompt, "reason": self.reason, "options": list(self.options)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PendingApproval:
        options = tuple(option for option in data.get("options", ANSWERS) if option in ANSWERS)
        return cls(ToolCall.model_validate(data["call"]), str(data["tool"]),
                   str(data["prompt"]), str(data["reason"]), options or ANSWERS)


@dataclass
class Trust:
    """One session's standing answers: tools allowed (Always) or refused (Never) for it."""

    always: set[str] = field(default_factory=set)
    never: set[str] = field(default_factory=set)

    def record(self, approval: PendingApproval, answer: Answer) -> None:
        """Remember an Always or a Never; Yes and No are for their one call only."""
        if answer not in ANSWERS:
            raise ValueError(f"an answer is one of {', '.join(ANSWERS)}, not {answer!r}")
        if answer == "always":
            self.always.add(approval.tool)
            self.never.discard(approval.tool)
        elif answer == "never":
            self.never.add(approval.tool)
            self.always.discard(approval.tool)

    def lookup(self, call: ToolCall, tool: RuntimeTool) -> Literal["allow", "deny"] | None:
        if tool.name in self.never:
            return "deny"
        return "allow" if tool.name in self.always else None

    def to_dict(self) -> dict[str, list[str]]:
        return {"always": sorted(self.always), "never": sorted(self.never)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Iterable[str]]) -> Trust:
        return cls(set(data.get("always", ())), set(data.get("never", ())))


@dataclass(frozen=True)
class Rule:
    """One rule, parsed: which tools, and (optionally) which paths or commands."""

    text: str
    tool: str
    specifier: str | None
    negated: bool
    paths: PathPattern | None

    @classmethod
    def parse(cls, text: str, *, working_dir: Path, home: Path) -> Rule:
        match = _RULE.match(text.strip()) if isinstance(text, str) else None
        if match is None or not _TOOL_NAME.match(match["tool"]):
            raise PermissionRuleError(
                f"cannot read the permission rule {text!r}: write TOOL or TOOL(SPECIFIER), "
                "e.g. 'fs_read(~/project/**)', 'shell(git status*)', '@github', 'fs_*'")
        spec = match["spec"]
        if spec is not None and not spec.strip():
            raise PermissionRuleError(f"the permission rule {text!r} has an empty specifier: "
                                      f"write {match['tool']!r} for every call of the tool")
        negated = spec is not None and spec.startswith("!")
        pattern = spec[1:] if negated and spec else spec
        try:
            paths = (PathPattern.parse(pattern, working_dir=working_dir, home=home)
                     if pattern is not None else None)
        except ValueError as error:
            raise PermissionRuleError(f"in the permission rule {text!r}: {error}") from None
        return cls(text, match["tool"], pattern, negated, paths)

    def covers_tool(self, tool: RuntimeTool) -> bool:
        if self.tool.startswith("@"):
            server, _, name = self.tool[1:].partition("/")
            if tool.server != server:
                return False
            return not name or any(_name_matches(name, each) for each in _names(tool))
        return any(fnmatch.fnmatchcase(each, self.tool) for each in _names(tool))

    def matches_path(self, path: Path) -> bool:
        assert self.paths is not None
        return self.paths.matches(path) != self.negated

    def matches_command(self, command: SubCommand) -> bool:
        assert self.specifier is not None
        return fnmatch.fnmatchcase(command.text, self.specifier) != self.negated


def _names(tool: RuntimeTool) -> tuple[str, ...]:
    return (tool.name, *tool.definition.aliases)


def _name_matches(pattern: str, name: str) -> bool:
    """``@server/tool`` names the tool as the server does, before namespacing."""
    return fnmatch.fnmatchcase(name, pattern) or fnmatch.fnmatchcase(name, f"*__{pattern}")


@dataclass(frozen=True)
class _Subjects:
    """What a call's specifiers are matched against."""

    paths: tuple[Path, ...] = ()
    commands: tuple[SubCommand, ...] = ()
    unknown: str | None = None
    """Why part of the call cannot be vouched for by a specifier, if it cannot."""


class Permissions:
    """Allow, ask and deny rules, and the order they are applied in (see the module)."""

    def __init__(self, allow: Iterable[str] = (), deny: Iterable[str] = (),
                 ask: Iterable[str] = (), *, working_dir: str | Path | None = None,
                 home: str | Path | None = None) -> None:
        self.working_dir = Path(working_dir or Path.cwd()).resolve()
        self.home = Path(home).resolve() if home is not None else Path.home()
        self.allow = self._rules(allow, "allow")
        self.deny = self._rules(deny, "deny")
        self.ask = self._rules(ask, "ask")

    def _rules(self, texts: Iterable[str], kind: str) -> tuple[Rule, ...]:
        if isinstance(texts, str):
            raise PermissionRuleError(f"{kind} is a list of rules, not one string: "
                                      f"{kind}=[{texts!r}]")
        return tuple(Rule.parse(text, working_dir=self.working_dir, home=self.home)
                     for text in texts)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], **options: Any) -> Permissions:
        """``{"allow": [...], "deny": [...], "ask": [...]}``, or those under ``permissions``."""
        table = data.get("permissions", data)
        unknown = sorted(set(table) - {"allow", "deny", "ask"})
        if unknown:
            raise PermissionRuleError(f"unknown permission keys {unknown}: use allow, deny, ask")
        return cls(table.get("allow", ()), table.get("deny", ()), table.get("ask", ()),
                   **options)

    @classmethod
    def from_toml(cls, source: str | Path, **options: Any) -> Permissions:
        """TOML text or a file: ``allow = [...]`` at the top or in a ``[permissions]`` table."""
        text = source.read_text(encoding="utf-8") if isinstance(source, Path) else source
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise PermissionRuleError(f"the permissions are not valid TOML: {error}") from None
        return cls.from_dict(data, **options)

    def evaluate(self, call: ToolCall, tool: RuntimeTool, trust: Trust | None = None) -> Verdict:
        """Allow, ask or deny `call` to `tool` (in the order the module describes)."""
        subjects = self._subjects(call, tool)
        denied = self._denied_by(tool, subjects)
        if denied is not None:
            return denied
        standing = trust.lookup(call, tool) if trust is not None else None
        if standing == "deny":
            return Verdict("deny", "the user refused this tool for the session")
        if standing == "allow":
            return Verdict("allow", "the user allowed this tool for the session")
        asked = next((rule for rule in self.ask if self._any_match(rule, tool, subjects)), None)
        if asked is not None:
            return Verdict("ask", f"the rule {asked.text!r} asks first", asked.text)
        allowed = self._allowed_by(tool, subjects)
        if allowed is not None:
            return Verdict("allow", f"allowed by {allowed!r}", allowed)
        if tool.definition.is_dangerous:
            return Verdict("ask", "the tool is marked dangerous")
        if subjects.unknown is not None and self._has_specifier_rules(tool):
            return Verdict("ask", subjects.unknown)
        return Verdict("allow", "no rule applies")

    def approval(self, call: ToolCall, tool: RuntimeTool, verdict: Verdict) -> PendingApproval:
        """The question to put to the user for a call that asks."""
        return PendingApproval(call, tool.name, _prompt(call, tool), verdict.reason)

    def _subjects(self, call: ToolCall, tool: RuntimeTool) -> _Subjects:
        paths, unknown = [], None
        for argument in tool.path_arguments:
            if argument not in call.arguments:
                continue
            path = normalize_path(call.arguments[argument], self.working_dir, self.home)
            if path is None:
                unknown = f"the {argument!r} argument is not a path a rule can check"
            else:
                paths.append(path)
        commands: tuple[SubCommand, ...] = ()
        if tool.command_argument is not None and tool.command_argument in call.arguments:
            given = call.arguments[tool.command_argument]
            split = split_command(given) if isinstance(given, str) else None
            if split is None or split.error is not None:
                unknown = "the command cannot be read (" + (
                    split.error if split is not None and split.error else "not a string") + ")"
            else:
                commands = split.commands
                unknown = unknown or _unvouched(commands)
        return _Subjects(tuple(paths), commands, unknown)

    def _denied_by(self, tool: RuntimeTool, subjects: _Subjects) -> Verdict | None:
        for rule in self.deny:
            if not rule.covers_tool(tool):
                continue
            if rule.specifier is None:
                return Verdict("deny", "this tool is not allowed", rule.text)
            if subjects.unknown is not None:  # fails closed: the rule might have matched
                return Verdict("deny", f"{subjects.unknown}, so it cannot be told apart from "
                               "what the rule forbids", rule.text)
            matched = self._matching(rule, subjects)
            if matched is not None:
                return Verdict("deny", f"{matched} is not allowed", rule.text)
        return None

    def _any_match(self, rule: Rule, tool: RuntimeTool, subjects: _Subjects) -> bool:
        if not rule.covers_tool(tool):
            return False
        return (rule.specifier is None or subjects.unknown is not None
                or self._matching(rule, subjects) is not None)

    def _matching(self, rule: Rule, subjects: _Subjects) -> str | None:
        """The first of the call's paths or commands that `rule` matches (deny and ask), as
        the model should read it."""
        for path in subjects.paths:
            if rule.matches_path(path):
                return f"the path {str(path)!r}"
        for command in subjects.commands:
            if rule.matches_command(command) or rule.matches_command(command.core()):
                return f"the command `{command.text}`"
        return None

    def _allowed_by(self, tool: RuntimeTool, subjects: _Subjects) -> str | None:
        rules = [rule for rule in self.allow if rule.covers_tool(tool)]
        whole = next((rule for rule in rules if rule.specifier is None), None)
        if whole is not None:
            return whole.text
        if not rules or subjects.unknown is not None:
            return None
        if not subjects.paths and not subjects.commands:
            return None  # a specifier vouches for nothing in a call without paths or commands
        used: list[str] = []
        for path in subjects.paths:
            rule = next((r for r in rules if r.matches_path(path)), None)
            if rule is None:
                return None
            used.append(rule.text)
        for command in subjects.commands:
            rule = next((r for r in rules if r.matches_command(command)), None)
            if rule is None:
                return None
            used.append(rule.text)
        return ", ".join(dict.fromkeys(used))

    def _has_specifier_rules(self, tool: RuntimeTool) -> bool:
        return any(rule.specifier is not None and rule.covers_tool(tool)
                   for rule in (*self.allow, *self.ask))


def _unvouched(commands: tuple[SubCommand, ...]) -> str | None:
    for command in commands:
        if command.writes_file:
            return f"`{command.text}` writes to a file through a redirection"
        if command.dynamic:
            return f"`{command.text}`: an expansion decides which program runs"
    return None


def _prompt(call: ToolCall, tool: RuntimeTool) -> str:
    command = call.arguments.get(tool.command_argument) if tool.command_argument else None
    if isinstance(command, str):
        return f"Allow {tool.name} to run `{command}`?"
    paths = [call.arguments[name] for name in tool.path_arguments if name in call.arguments]
    if paths:
        return f"Allow {tool.name} on {', '.join(str(path) for path in paths)}?"
    shown = json.dumps(call.arguments, ensure_ascii=False, default=str)
    return f"Allow {tool.name} with {shown[:300] + ('…' if len(shown) > 300 else '')}?"
