"""Toolkits: enabling rules, system-prompt sections, per-turn directives, configuration."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolcalls.runtime import (
    Directive,
    Toolkit,
    ToolkitConfig,
    ToolkitError,
    directive_for,
    resolve_toolkits,
    system_sections,
)

FILES = Toolkit("files", ("fs_read", "fs_write"), policy="Read a file before changing it.",
                disabled_policy="You cannot read or write files: say so, do not guess contents.")
MAIL = Toolkit("mail", ("send_email",), disabled_policy="You cannot send e-mail.",
               directive=Directive(("send an email", "/\\be-?mail\\b/"),
                                   tool_choice="required"))


def test_toolkit_true_enables_members() -> None:
    off_by_default = Toolkit("files", ("fs_read", "fs_write"), default=False)
    assert resolve_toolkits([off_by_default], {"files": True}) == {"fs_read", "fs_write"}


def test_toolkit_false_disables_members() -> None:
    assert resolve_toolkits([FILES, MAIL], {"files": False}) == {"send_email"}


def test_toolkit_absent_falls_back_to_tool_booleans() -> None:
    assert resolve_toolkits([FILES], {"fs_write": False}) == {"fs_read"}


def test_toolkit_absent_and_no_boolean_uses_toolkit_default() -> None:
    assert resolve_toolkits([FILES], {}) == {"fs_read", "fs_write"}
    assert resolve_toolkits([Toolkit("x", ("a",), default=False)], {}) == set()


def test_member_boolean_overrides_toolkit() -> None:
    assert resolve_toolkits([FILES], {"files": False, "fs_read": True}) == {"fs_read"}
    assert resolve_toolkits([FILES], {"files": True, "fs_write": False}) == {"fs_read"}


def test_tool_in_no_toolkit_follows_its_own_boolean_default_enabled() -> None:
    enabled = resolve_toolkits([FILES], {"shell": False, "extra": True},
                               tools=["fs_read", "fs_write", "shell", "ls"])
    assert enabled == {"fs_read", "fs_write", "ls", "extra"}


def test_false_toolkit_wins_over_true_toolkit_for_shared_member() -> None:
    reading = Toolkit("reading", ("fs_read",))
    assert resolve_toolkits([FILES, reading], {"files": False, "reading": True}) == set()


def test_setting_must_be_boolean() -> None:
    with pytest.raises(ToolkitError, match="true or false"):
        resolve_toolkits([FILES], {"files": "false"})  # type: ignore[dict-item]


def test_toolkit_named_like_a_tool_is_refused() -> None:
    with pytest.raises(ToolkitError, match="rename the toolkit"):
        resolve_toolkits([Toolkit("fs_read", ("fs_read",))], {})


def test_enabled_toolkit_emits_policy_section() -> None:
    assert system_sections([FILES, MAIL], {"fs_read", "send_email"}) == [
        "Read a file before changing it."]


def test_disabled_toolkit_emits_cannot_section() -> None:
    enabled = resolve_toolkits([FILES, MAIL], {"files": False, "mail": False})
    assert system_sections([FILES, MAIL], enabled) == [
        "You cannot read or write files: say so, do not guess contents.",
        "You cannot send e-mail."]


def test_partly_enabled_toolkit_emits_policy() -> None:
    assert system_sections([FILES], {"fs_read"}) == ["Read a file before changing it."]


def test_directive_matches_intent() -> None:
    directive = directive_for([FILES, MAIL], "Please send an email to Ann")
    assert directive is not None
    assert directive.active_tools == ("send_email",) and directive.tool_choice == "required"
    assert directive_for([FILES, MAIL], "What is an E-Mail header?") is not None


def test_directive_keyword_matches_whole_words_only() -> None:
    assert directive_for([MAIL], "the emailing list") is None
    assert directive_for([MAIL], "nothing to do here") is None


def test_directive_skips_disabled_tools() -> None:
    assert directive_for([MAIL], "send an email", enabled=set()) is None
    assert directive_for([MAIL], "send an email", enabled={"send_email"}) is not None


def test_directive_with_broken_expression_is_refused() -> None:
    with pytest.raises(ToolkitError, match="regular expression"):
        Directive(("/(unclosed/",))


CONFIG = """
[toolkits.files]
members = ["fs_read", "fs_write"]
policy = "Read files before you change them."
disabled_policy = "You cannot read or write files."
directive = { intents = ["open the file", "/\\\\bREADME\\\\b/"], tool_choice = "required" }

[toolkits.mail]
members = ["send_email"]
default = false

[settings]
files = true
fs_write = false
"""


def test_config_loads_from_toml(tmp_path: Path) -> None:
    path = tmp_path / "toolkits.toml"
    path.write_text(CONFIG)
    config = ToolkitConfig.load(path)
    assert [kit.name for kit in config.toolkits] == ["files", "mail"]
    assert config.enabled(["shell"]) == {"fs_read", "shell"}
    directive = directive_for(config.toolkits, "fix the readme")
    assert directive is not None and directive.active_tools == ("fs_read", "fs_write")


def test_config_from_dict_equals_toml() -> None:
    data = {"toolkits": {"files": {"members": ["fs_read"], "disabled_policy": "No files."}},
            "settings": {"files": False}}
    config = ToolkitConfig.from_dict(data)
    assert config.enabled() == set()
    assert system_sections(config.toolkits, config.enabled()) == ["No files."]


@pytest.mark.parametrize(("data", "message"), [
    ({"toolkit": {}}, "unknown keys"),
    ({"toolkits": {"files": {"members": "fs_read"}}}, "'members' list"),
    ({"toolkits": {"files": {"members": [], "polcy": "x"}}}, "unknown keys"),
    ({"toolkits": {"files": {"members": [], "directive": {"intent": []}}}}, "'intents' list"),
    ({"settings": {"files": 1}}, "true or false"),
])
def test_bad_config_is_refused_with_what_to_fix(data: dict[str, object], message: str) -> None:
    with pytest.raises(ToolkitError, match=message):
        ToolkitConfig.from_dict(data)


def test_bad_toml_is_refused() -> None:
    with pytest.raises(ToolkitError, match="not valid TOML"):
        ToolkitConfig.from_toml("[toolkits")
