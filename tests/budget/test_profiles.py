"""The mode selector: native for hosted APIs, prompt (in the model's format) for local servers."""

from __future__ import annotations

import pytest

from toolcalls.budget._profiles import DEFAULT_PROMPT_FORMAT, NATIVE_PAYLOADS, Profile, select_mode


@pytest.mark.parametrize(
    ("provider", "model", "expected"),
    [
        ("openai", None, Profile("native", provider="openai")),
        ("azure", "gpt-4o", Profile("native", provider="openai")),
        ("anthropic", None, Profile("native", provider="anthropic")),
        ("gemini", None, Profile("native", provider="gemini")),
        ("deepseek", "deepseek-chat", Profile("native", provider="openai")),
        (None, "gpt-4o-mini", Profile("native", provider="openai")),
        (None, "claude-sonnet-4-6", Profile("native", provider="anthropic")),
        (None, "gemini-2.5-pro", Profile("native", provider="gemini")),
        (None, "deepseek-reasoner", Profile("native", provider="openai")),
        ("ollama", "qwen3-coder:30b", Profile("prompt", format="qwen3_coder")),
        ("ollama", "llama3.1:8b", Profile("prompt", format="llama3_json")),
        ("ollama", "some-new-model", Profile("prompt", format=DEFAULT_PROMPT_FORMAT)),
        ("vllm", "moonshotai/Kimi-K2-Instruct", Profile("prompt", format="kimi_k2")),
        ("openai-compatible", "zai-org/GLM-4.5", Profile("prompt", format="glm45")),
        (None, "openai/gpt-oss-20b", Profile("prompt", format="gpt_oss")),
        ("my-own-server", None, Profile("prompt", format=DEFAULT_PROMPT_FORMAT)),
    ],
)
def test_the_seed_defaults(provider: str | None, model: str | None, expected: Profile) -> None:
    assert select_mode(provider, model) == expected


def test_overrides_win_by_model_prefix_then_provider() -> None:
    overrides = {
        "ollama": Profile("native", provider="ollama"),
        "qwen3": Profile("prompt", format="hermes"),
        "qwen3-coder": Profile("prompt", format="qwen3_coder"),
    }
    assert select_mode("ollama", "llama3.1", overrides=overrides).provider == "ollama"
    assert select_mode("ollama", "qwen3:8b", overrides=overrides).format == "hermes"
    assert select_mode("ollama", "Qwen3-Coder:30b", overrides=overrides).format == "qwen3_coder"
    assert select_mode("openai", "gpt-4o", overrides=overrides).provider == "openai"


def test_profiles_are_checked() -> None:
    with pytest.raises(ValueError, match="native profile"):
        Profile("native", provider="bedrock")
    with pytest.raises(ValueError, match="format="):
        Profile("prompt", provider="openai")
    with pytest.raises(ValueError, match="provider, a model"):
        select_mode()
    assert set(NATIVE_PAYLOADS) == {"openai", "openai_responses", "anthropic", "gemini", "ollama"}
    assert Profile("prompt").target == DEFAULT_PROMPT_FORMAT
