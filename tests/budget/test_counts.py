"""Token counts per provider: each one checked against the reference it claims to follow."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolcalls.budget._tokens import count_openai_tools
from toolcalls.tools._importers import load_tools
from toolcalls.tools._tool import Tool

TOOLSETS = Path(__file__).parents[2] / "fixtures" / "toolsets"
SHIPPED = Path(__file__).parents[2] / "toolcalls" / "budget" / "encodings"
TOOLSET_NAMES = sorted(path.stem for path in TOOLSETS.glob("*.json"))


# --- OpenAI native: openai-harmony's renderer -----------------------------------------------------


@pytest.fixture(scope="module")
def harmony() -> Any:
    """openai-harmony's gpt-oss encoding, reading the shipped o200k vocabulary (no download)."""
    openai_harmony = pytest.importorskip("openai_harmony")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TIKTOKEN_ENCODINGS_BASE", str(SHIPPED))
        return openai_harmony.load_harmony_encoding(
            openai_harmony.HarmonyEncodingName.HARMONY_GPT_OSS)


def harmony_tools_tokens(harmony: Any, tools: list[Tool]) -> int:
    """Tokens the renderer adds to a developer message for ``tools`` (its ``# Tools`` section)."""
    from openai_harmony import (
        Conversation,
        DeveloperContent,
        Message,
        Role,
        ToolDescription,
    )

    def developer_message(with_tools: bool) -> int:
        content = DeveloperContent.new().with_instructions("Be brief.")
        if with_tools:
            content = content.with_function_tools([
                ToolDescription.new(tool.name, tool.description, parameters=tool.parameters)
                for tool in tools])
        conversation = Conversation.from_messages(
            [Message.from_role_and_content(Role.DEVELOPER, content)])
        return len(harmony.render_conversation(conversation))

    return developer_message(True) - developer_message(False)


@pytest.mark.parametrize("name", TOOLSET_NAMES)
def test_openai_count_is_within_two_percent_of_openai_harmony(harmony: Any, name: str) -> None:
    tools = load_tools(TOOLSETS / f"{name}.json")
    reference = harmony_tools_tokens(harmony, tools)
    assert abs(count_openai_tools(tools) - reference) <= 0.02 * reference


def test_property_titles_count_as_the_renderer_keeps_them(harmony: Any) -> None:
    titled = Tool(name="f", parameters={"type": "object", "properties": {
        "repo_path": {"type": "string", "title": "Repo Path"}}})
    plain = Tool(name="f", parameters={"type": "object", "properties": {
        "repo_path": {"type": "string"}}})
    added = harmony_tools_tokens(harmony, [titled]) - harmony_tools_tokens(harmony, [plain])
    assert added > 0
    assert count_openai_tools([titled]) - count_openai_tools([plain]) == added
