"""Toolkits: tools switched on and off together, with what the system prompt says about them.

A `Toolkit` names its member tools. Settings (``{"files": True, "shell": False}``) enable
tools, read by `resolve_toolkits` in this order:

1. a tool's own boolean, when set, decides for it, whatever its toolkits say;
2. else its toolkits' keys: ``true`` enables the members, ``false`` disables them all (a tool
   in two toolkits, one set false, is disabled: a refusal is the explicit choice);
3. else (no key set) the toolkits' ``default`` (``True`` unless a toolkit says otherwise);
4. a tool in no toolkit and without a boolean is enabled.

Each toolkit may carry a ``policy`` section for the system prompt, given while any of its
tools is enabled, and a ``disabled_policy`` given while none is ("You cannot send e-mail: say
so instead of pretending to"), so the model does not invent results (`system_sections`). A
`Directive` narrows one turn: when the user's message matches one of its intents, the turn
gets its active tools and tool choice (`directive_for`).

>>> files = Toolkit("files", ["fs_read", "fs_write"], disabled_policy="You cannot read files.")
>>> sorted(resolve_toolkits([files], {"files": False, "fs_read": True}))
['fs_read']
>>> system_sections([files], set())
['You cannot read files.']

Toolkits and settings load from data or TOML (`ToolkitConfig`)::

    [toolkits.files]
    members = ["fs_read", "fs_write"]
    policy = "Read files before you change them."
    disabled_policy = "You cannot read or write files."
    directive = { intents = ["open the file", "/\\\\bREADME\\\\b/"], tool_choice = "required" }

    [settings]
    files = true
    fs_write = false
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .._errors import ToolCallsError

__all__ = [
    "Directive",
    "Toolkit",
    "ToolkitConfig",
    "ToolkitError",
    "directive_for",
    "resolve_toolkits",
    "system_sections",
]


class ToolkitError(ToolCallsError, ValueError):
    """Toolkits or settings that cannot be read (the message says which entry, and why)."""


@dataclass(frozen=True)
class Directive:
    """What one turn gets when the user's message matches an intent."""

    intents: Sequence[str]
    """Phrases matched case-insensitively as whole words; one written ``/.../`` is a regular
    expression (searched, case-insensitive)."""
    active_tools: Sequence[str] = ()
    """The tools offered for the turn; empty means the toolkit's members."""
    tool_choice: str = "auto"
    """``auto``, ``required``, ``none`` or a tool name, as the providers take it."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "intents", tuple(self.intents))
        object.__setattr__(self, "active_tools", tuple(self.active_tools))
        for intent in self.intents:
            _intent_pattern(intent)  # a broken expression fails here, not at the first turn

    def matches(self, message: str) -> bool:
        """Whether ``message`` matches one of the intents."""
        return any(_intent_pattern(intent).search(message) for intent in self.intents)


def _intent_pattern(intent: str) -> re.Pattern[str]:
    if len(intent) > 1 and intent.startswith("/") and intent.endswith("/"):
        try:
            return re.compile(intent[1:-1], re.IGNORECASE)
        except re.error as error:
            raise ToolkitError(f"intent {intent!r} is not a valid regular expression: {error}; "
                               "write a plain phrase, or fix the expression") from None
    return re.compile(rf"(?<!\w){re.escape(intent)}(?!\w)", re.IGNORECASE)


@dataclass(frozen=True)
class Toolkit:
    """Tools enabled and disabled together, and what the system prompt says about them."""

    name: str
    """The settings key that switches the members."""
    members: Sequence[str]
    """The tool names in the toolkit (kept as a tuple)."""
    policy: str | None = None
    """System-prompt section while any member is enabled."""
    disabled_policy: str | None = None
    """System-prompt section while no member is enabled ("you cannot ...")."""
    directive: Directive | None = None
    """What a turn gets when the user's message matches its intents."""
    default: bool = True
    """Whether the members are enabled when neither the toolkit's key nor their own is set."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "members", tuple(self.members))


def resolve_toolkits(toolkits: Sequence[Toolkit], settings: Mapping[str, bool], *,
                     tools: Iterable[str] = ()) -> set[str]:
    """The enabled tool names: the members of ``toolkits``, the ``tools`` given (a
    registry's names) and any tool set true, by the rules in the module docstring."""
    _check_settings(toolkits, settings)
    kits_of: dict[str, list[Toolkit]] = {}
    for kit in toolkits:
        for member in kit.members:
            kits_of.setdefault(member, []).append(kit)
    kit_names = {kit.name for kit in toolkits}
    every = dict.fromkeys([*kits_of, *tools, *(k for k in settings if k not in kit_names)])
    return {name for name in every if _enabled(name, kits_of.get(name, []), settings)}


def _enabled(name: str, kits: list[Toolkit], settings: Mapping[str, bool]) -> bool:
    if name in settings:
        return settings[name]
    keyed = [settings[kit.name] for kit in kits if kit.name in settings]
    if keyed:
        return all(keyed)
    return all(kit.default for kit in kits)


def _check_settings(toolkits: Sequence[Toolkit], settings: Mapping[str, bool]) -> None:
    for key, value in settings.items():
        if not isinstance(value, bool):
            raise ToolkitError(f"setting {key!r} is {value!r}: a setting is true or false")
    members = {member for kit in toolkits for member in kit.members}
    for kit in toolkits:
        if kit.name in members:
            raise ToolkitError(f"toolkit {kit.name!r} has the name of a tool, so a setting "
                               f"{kit.name!r} could mean either: rename the toolkit")


def system_sections(toolkits: Sequence[Toolkit], enabled: Collection[str]) -> list[str]:
    """The system-prompt sections, in toolkit order: each toolkit's policy while any of its
    members is enabled, its disabled policy while none is."""
    sections = []
    for kit in toolkits:
        text = kit.policy if any(m in enabled for m in kit.members) else kit.disabled_policy
        if text:
            sections.append(text)
    return sections


def directive_for(toolkits: Sequence[Toolkit], user_message: str, *,
                  enabled: Collection[str] | None = None) -> Directive | None:
    """The directive of the first toolkit whose intents ``user_message`` matches, its
    ``active_tools`` spelled out (the members when it names none); with ``enabled``, only
    enabled tools stay active, and a toolkit with none enabled gives no directive."""
    for kit in toolkits:
        directive = kit.directive
        if directive is None or not directive.matches(user_message):
            continue
        active = directive.active_tools or kit.members
        if enabled is not None:
            active = tuple(name for name in active if name in enabled)
            if not active:
                continue
        return replace(directive, active_tools=active)
    return None


@dataclass(frozen=True)
class ToolkitConfig:
    """Toolkits and settings as one configuration (from a dict or TOML)."""

    toolkits: tuple[Toolkit, ...] = ()
    settings: Mapping[str, bool] = field(default_factory=dict)

    def enabled(self, tools: Iterable[str] = ()) -> set[str]:
        """`resolve_toolkits` over this configuration."""
        return resolve_toolkits(self.toolkits, self.settings, tools=tools)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolkitConfig:
        """From ``{"toolkits": {name: {members, policy, ...}}, "settings": {key: bool}}``."""
        unknown = set(data) - {"toolkits", "settings"}
        if unknown:
            raise ToolkitError(f"unknown keys {sorted(unknown)}: the configuration has "
                               "'toolkits' and 'settings'")
        kits = data.get("toolkits", {})
        if not isinstance(kits, Mapping):
            raise ToolkitError("'toolkits' maps each toolkit's name to its table")
        settings = dict(data.get("settings", {}))
        toolkits = tuple(_toolkit(name, table) for name, table in kits.items())
        _check_settings(toolkits, settings)
        return cls(toolkits, settings)

    @classmethod
    def from_toml(cls, text: str) -> ToolkitConfig:
        """From TOML text (see the module docstring)."""
        try:
            return cls.from_dict(tomllib.loads(text))
        except tomllib.TOMLDecodeError as error:
            raise ToolkitError(f"the toolkit configuration is not valid TOML: {error}") from None

    @classmethod
    def load(cls, path: str | Path) -> ToolkitConfig:
        """From a TOML file."""
        return cls.from_toml(Path(path).read_text(encoding="utf-8"))


_TOOLKIT_KEYS = {"members", "policy", "disabled_policy", "directive", "default"}
_DIRECTIVE_KEYS = {"intents", "active_tools", "tool_choice"}


def _toolkit(name: str, table: Any) -> Toolkit:
    if not isinstance(table, Mapping) or not isinstance(table.get("members"), list):
        raise ToolkitError(f"toolkit {name!r} needs a table with a 'members' list of tool names")
    _no_unknown_keys(f"toolkit {name!r}", table, _TOOLKIT_KEYS)
    directive = table.get("directive")
    if directive is not None:
        if not isinstance(directive, Mapping) or not isinstance(directive.get("intents"), list):
            raise ToolkitError(f"toolkit {name!r}: a directive needs an 'intents' list")
        _no_unknown_keys(f"toolkit {name!r} directive", directive, _DIRECTIVE_KEYS)
        directive = Directive(tuple(directive["intents"]),
                              tuple(directive.get("active_tools", ())),
                              directive.get("tool_choice", "auto"))
    return Toolkit(name, tuple(table["members"]), table.get("policy"),
                   table.get("disabled_policy"), directive, table.get("default", True))


def _no_unknown_keys(what: str, table: Mapping[str, Any], known: set[str]) -> None:
    unknown = set(table) - known
    if unknown:
        raise ToolkitError(f"{what}: unknown keys {sorted(unknown)}; known: {sorted(known)}")
