"""Token counts per provider: each one checked against the reference it claims to follow."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolcalls.budget._counts import O200K_ERROR, count_gemini_tools, gemini_tools_text
from toolcalls.budget._model_tokens import (
    DeepSeekCounter,
    QwenCounter,
    counter_name,
    model_counter,
    prompt_format,
)
from toolcalls.budget._render import budget_report, render
from toolcalls.budget._tokens import (
    anthropic_tool_system_prompt,
    anthropic_tools_text,
    count_anthropic_tools,
    count_openai_tools,
    count_tokens,
)
from toolcalls.parsing._registry import get_format
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


# --- Anthropic: the tool-use system prompt per model family ---------------------------------------


@pytest.mark.parametrize(("model", "choice", "tokens"), [
    ("claude-opus-4-1-20250805", "auto", 346),  # Anthropic's table: the Claude 4 family
    ("claude-opus-4-1-20250805", "tool", 313),
    ("claude-sonnet-4-5", "none", 346),
    ("claude-haiku-4-5", "any", 313),
    ("claude-3-7-sonnet-20250219", "auto", 346),
    ("claude-3-5-haiku-20241022", "auto", 264),
    ("claude-3-opus-20240229", "any", 281),
    ("anthropic/claude-sonnet-4-5", "auto", 346),  # a router's provider prefix is dropped
    ("claude-sonnet-4-6", "auto", 497),  # the longest prefix wins over claude-sonnet-4
])
def test_anthropic_system_prompt_per_family(model: str, choice: str, tokens: int) -> None:
    assert anthropic_tool_system_prompt(model, choice) == tokens


def test_anthropic_budget_counts_claude_not_openai() -> None:
    # The issue's case: at budget 8,000 the OpenAI count (7,847) fits in full, Claude's does not.
    tools = load_tools(TOOLSETS / "github-mcp-server-default.json")
    assert render(tools, "openai", budget=8000).mode == "full"
    claude = render(tools, "anthropic", budget=8000)
    assert claude.plan.full_tokens == count_anthropic_tools(tools) > 8000
    assert claude.mode != "full" and claude.tokens <= 8000
    report = budget_report(tools, budget=8000, format="anthropic", model="claude-3-sonnet")
    assert report.full_tokens == count_tokens(anthropic_tools_text(tools)) + 159
    assert f"full: {report.full_tokens:,}" in report.verdict()


# --- Gemini and Ollama -------------------------------------------------------------------------


def test_gemini_counts_its_function_declarations() -> None:
    tools = load_tools(TOOLSETS / "mcp-time.json")
    text = gemini_tools_text(tools)
    assert json.loads(text)[0]["functionDeclarations"][0]["name"] == "get_current_time"
    assert count_gemini_tools(tools) == count_tokens(text)
    assert count_gemini_tools([]) == 0
    assert budget_report(tools, format="gemini").full_tokens == count_gemini_tools(tools)


def test_ollama_counts_the_templates_tools_block() -> None:
    tools = load_tools(TOOLSETS / "mcp-git.json")
    hermes_block = get_format("ollama").render_tools(tools)
    assert "<tools>" in hermes_block
    assert render(tools, "ollama").tokens == count_tokens(hermes_block)
    # A model the registry knows brings its own template and, installed, its tokenizer.
    coder = render(tools, "ollama", model="qwen3-coder:30b")
    assert isinstance(coder.content, dict)  # still Ollama's native payload
    assert coder.tokens == QwenCounter().count(get_format("qwen3_coder").render_tools(tools))
    assert prompt_format("ollama", "llama3.1:8b") == "llama3_json"
    assert prompt_format("ollama", "qwen3:8b") == "hermes"
    assert prompt_format("ollama", "granite3.3:8b") == "ollama"  # unknown: Hermes <tools>


# --- prompt formats: the model's own tokenizer ---------------------------------------------------


def test_qwen_and_deepseek_vocabularies_give_their_published_ids() -> None:
    from toolcalls.budget._model_tokens import _deepseek_tokenizer, _qwen_encoding

    assert _qwen_encoding("qwen").encode_ordinary("hello world") == [14990, 1879]
    assert _qwen_encoding("qwen").n_vocab == 151_643
    assert _deepseek_tokenizer().get_vocab_size(with_added_tokens=False) == 128_000


@pytest.mark.parametrize(("format", "model", "name"), [
    ("qwen3_coder", None, "qwen"),
    ("hermes", "Qwen/Qwen2.5-7B-Instruct", "qwen"),
    ("qwen3_coder", "Qwen/Qwen3.6-35B-A3B", "qwen3.5"),
    ("deepseek_v31", None, "deepseek_v3"),
    ("deepseek_v32_dsml", "deepseek-ai/DeepSeek-V3.2", "deepseek_v3"),
    ("gpt_oss", None, "o200k_harmony"),
    ("hermes", None, "o200k_base"),  # Hermes is also Llama-based Nous Hermes: no one tokenizer
    ("glm45", None, "o200k_base"),
    ("kimi_k2", None, "o200k_base"),
])
def test_each_format_counts_with_its_models_tokenizer(
    format: str, model: str | None, name: str  # noqa: A002
) -> None:
    counter = model_counter(format, model)
    assert counter_name(counter) == name
    assert budget_report([Tool(name="f")], format=format, model=model).encoding == name


def test_an_explicit_encoding_overrides_the_models_tokenizer() -> None:
    tools = load_tools(TOOLSETS / "mcp-time.json")
    report = budget_report(tools, "cl100k_base", format="qwen3_coder")
    assert report.encoding == "cl100k_base"
    assert report.full_tokens == count_tokens(get_format("qwen3_coder").render_tools(tools),
                                              "cl100k_base")


def test_o200k_error_bound_holds_against_the_shipped_vocabularies() -> None:
    """`O200K_ERROR` is what o200k_base may be off by for a tokenizer toolcalls does not have."""
    text = "\n".join(get_format(name).render_tools(load_tools(TOOLSETS / f"{tools}.json"))
                     for name in ("hermes", "qwen3_coder", "glm45", "mistral")
                     for tools in TOOLSET_NAMES)
    o200k = count_tokens(text)
    for counter in (QwenCounter(), DeepSeekCounter()):
        assert abs(counter.count(text) / o200k - 1) <= O200K_ERROR


def test_a_lone_surrogate_is_counted_as_tiktoken_counts_it() -> None:
    # The DeepSeek tokenizer raised TypeError on it (a tool description with one, rendered
    # for deepseek_v32_dsml and counted).
    text = "a lone \ud800 surrogate"
    for counter in (QwenCounter(), DeepSeekCounter()):
        assert counter.count(text) == counter.count(text.replace("\ud800", "\ufffd"))
