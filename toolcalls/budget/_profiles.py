"""The mode selector: does a provider or model take tools natively, or in the prompt, and how?

A `Profile` says how tools reach a model: ``native`` (sent in the request's ``tools`` field,
in one provider's payload shape) or ``prompt`` (rendered into the system prompt in a text
format that the parser then reads back). The defaults follow the seed design: native for
OpenAI, Azure OpenAI, Anthropic, Gemini and the DeepSeek API; prompt for Ollama and for local or
OpenAI-compatible servers, in the format of the model's family where the registry knows the
model id (``Qwen/Qwen3-Coder-30B-A3B-Instruct`` → ``qwen3_coder``), else the seed's ``xml``.

Every default can be overridden per provider or per model id prefix::

    select_mode("ollama", "llama3.1:8b", overrides={"ollama": Profile("native", provider="ollama")})
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from .._errors import UnknownFormatError
from ..parsing._registry import get_format
from ..providers._native import PROVIDERS as NATIVE_PROVIDERS

__all__ = [
    "DEFAULT_PROMPT_FORMAT",
    "HOSTED_MODELS",
    "NATIVE_PAYLOADS",
    "PROMPT_NAMED",
    "PROVIDERS",
    "Profile",
    "native_payload",
    "select_mode",
]

PROMPT_NAMED: frozenset[str] = frozenset({"mistral"})
"""Provider APIs whose name the budget keeps for the prompt format of that name, as it was
before the API was added: ``render(tools, "mistral")`` renders Mistral's ``[AVAILABLE_TOOLS]``
block, which is also what a Mistral API model reads (its server renders the tools with that
template), so its count stands for the API's too."""

NATIVE_PAYLOADS: tuple[str, ...] = tuple(name for name in NATIVE_PROVIDERS
                                         if name not in PROMPT_NAMED)
"""The request payload shapes native rendering knows (see `toolcalls.providers._native`)."""

DEFAULT_PROMPT_FORMAT = "xml"
"""The seed design's prompt format, for a model whose family the registry does not know."""


@dataclass(frozen=True)
class Profile:
    """How tools reach one provider or model."""

    mode: Literal["native", "prompt"]
    provider: str | None = None
    """Native mode: the payload shape, one of `NATIVE_PAYLOADS`."""
    format: str | None = None
    """Prompt mode: the text format name; None picks it from the model id."""

    def __post_init__(self) -> None:
        if self.mode == "native" and self.provider not in NATIVE_PAYLOADS:
            raise ValueError(
                f"a native profile needs provider= one of {', '.join(NATIVE_PAYLOADS)}, "
                f"not {self.provider!r}"
            )
        if self.mode == "prompt" and self.provider is not None:
            raise ValueError("a prompt profile renders a text format: give format=, not provider=")

    @property
    def target(self) -> str:
        """What `toolcalls.budget.render` takes as its format: a payload or a format name."""
        return (self.provider if self.mode == "native" else self.format) or DEFAULT_PROMPT_FORMAT


_PROMPT = Profile("prompt")

PROVIDERS: Mapping[str, Profile] = {
    "openai": Profile("native", provider="openai"),
    "responses": Profile("native", provider="openai_responses"),
    "openai-responses": Profile("native", provider="openai_responses"),
    "azure": Profile("native", provider="openai"),  # Azure OpenAI serves the same API
    "anthropic": Profile("native", provider="anthropic"),
    "gemini": Profile("native", provider="gemini"),
    "google": Profile("native", provider="gemini"),
    "deepseek": Profile("native", provider="openai"),  # the DeepSeek API is OpenAI-shaped
    "ollama": _PROMPT,
    "local": _PROMPT,
    "openai-compatible": _PROMPT,
    "vllm": _PROMPT,
    "sglang": _PROMPT,
    "llama.cpp": _PROMPT,
    "lmstudio": _PROMPT,
}
"""Default profile per provider name (case-insensitive)."""

HOSTED_MODELS: tuple[tuple[str, str], ...] = (
    ("gpt-oss", "local"),  # open weights: before "gpt-", which would call it OpenAI's
    ("gpt-", "openai"),
    ("chatgpt-", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("claude-", "anthropic"),
    ("gemini-", "gemini"),
    ("deepseek-chat", "deepseek"),
    ("deepseek-reasoner", "deepseek"),
)
"""Model id prefix → provider, for a model given without its provider; first match wins."""


def native_payload(format: str) -> str | None:  # noqa: A002
    """The payload shape for a provider name (``azure`` → ``openai``), None for a text format.

    A payload name wins over a format of the same name: ``ollama`` is Ollama's native API.
    """
    lowered = format.lower()
    if lowered in NATIVE_PAYLOADS:
        return lowered
    profile = PROVIDERS.get(lowered)
    return profile.provider if profile is not None and profile.mode == "native" else None


def select_mode(
    provider: str | None = None,
    model: str | None = None,
    *,
    overrides: Mapping[str, Profile] | None = None,
) -> Profile:
    """The profile for a provider and/or model id, with its prompt format filled in.

    Lookup order: ``overrides`` (by model id prefix, then provider), the provider's default, the
    provider implied by a hosted model's id (`HOSTED_MODELS`), and otherwise prompt mode (an
    unknown provider or a bare open-weights model id is taken to be a local server).
    """
    if provider is None and model is None:
        raise ValueError("select_mode needs a provider, a model id, or both")
    profile = _override(provider, model, overrides or {}) or _default(provider, model)
    if profile.mode == "prompt" and profile.format is None:
        return Profile("prompt", format=_model_format(model))
    return profile


def _override(
    provider: str | None, model: str | None, overrides: Mapping[str, Profile]
) -> Profile | None:
    table = {key.lower(): profile for key, profile in overrides.items()}
    if model is not None:
        lowered = model.lower()
        prefixes = sorted((key for key in table if lowered.startswith(key)), key=len)
        if prefixes:
            return table[prefixes[-1]]  # the longest, most specific prefix
    return table.get(provider.lower()) if provider is not None else None


def _default(provider: str | None, model: str | None) -> Profile:
    if provider is not None:
        return PROVIDERS.get(provider.lower(), _PROMPT)
    lowered = (model or "").lower().rsplit("/", 1)[-1]
    for prefix, hosted_by in HOSTED_MODELS:
        if lowered.startswith(prefix):
            return PROVIDERS[hosted_by]
    return _PROMPT


def _model_format(model: str | None) -> str:
    """The registry's format for ``model`` (Ollama tags such as ``qwen3:8b`` included)."""
    if model is None:
        return DEFAULT_PROMPT_FORMAT
    for key in (model, model.split(":", 1)[0]):
        try:
            return get_format(key).name
        except UnknownFormatError:
            continue
    return DEFAULT_PROMPT_FORMAT
