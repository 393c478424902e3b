"""The one table of provider APIs: lookup by name, and detection of a response's or a stream's API.

Provider modules are imported on first use (like the format registry), so importing
`toolcalls.providers` loads none of them, and no module here imports a provider module: the
providers import the shared bases, never the dispatch that finds them.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._errors import UnknownProviderError

if TYPE_CHECKING:
    from ._base import Provider

__all__ = [
    "ERROR_DETECTION", "PROVIDERS", "RESPONSE_DETECTION", "STREAM_DETECTION",
    "detect_provider", "detect_stream_provider", "get_provider", "list_providers",
]

# name -> "module:Class". The order is the order callers list them in (tests, docs).
PROVIDERS: dict[str, str] = {
    "openai": "toolcalls.providers.openai_chat:OpenAIChat",
    "openai_responses": "toolcalls.providers.openai_responses:OpenAIResponses",
    "anthropic": "toolcalls.providers.anthropic:Anthropic",
    "gemini": "toolcalls.providers.gemini:Gemini",
    "ollama": "toolcalls.providers.ollama:Ollama",
    "mistral": "toolcalls.providers.mistral:Mistral",
}
"""Every provider API by its name (`toolcalls.budget` maps service names onto these)."""

# Detection tries providers in these orders, first match wins. A provider that cannot be told
# apart from another by shape (an OpenAI-compatible API) is in none of them: it is named.
RESPONSE_DETECTION: tuple[str, ...] = ("openai", "gemini", "openai_responses", "anthropic",
                                       "ollama")
"""Who claims a whole response first (`Provider.is_response`)."""
ERROR_DETECTION: tuple[str, ...] = ("anthropic", "ollama", "gemini", "openai")
"""Who claims a body that is only an error (`Provider.is_error_body`); the last is the
fallback and claims any error."""
STREAM_DETECTION: tuple[str, ...] = ("anthropic", "openai_responses", "openai", "gemini",
                                     "ollama")
"""Whose marks are looked for first in a captured stream (`Provider.stream_marks`)."""


def list_providers() -> list[str]:
    """The registered provider names, in the table's order."""
    return list(PROVIDERS)


@functools.cache
def _load(name: str) -> Provider:
    module, _, cls = PROVIDERS[name].partition(":")
    return getattr(importlib.import_module(module), cls)()  # type: ignore[no-any-return]


@functools.cache
def _aliases() -> dict[str, str]:
    return {alias: name for name in PROVIDERS for alias in _load(name).aliases}


def get_provider(name: str | Provider) -> Provider:
    """A provider by name or alias; a `Provider` object is returned as it is.

    An unknown name raises `UnknownProviderError` (a ValueError) naming those it knows."""
    if not isinstance(name, str):
        return name
    if name in PROVIDERS:
        return _load(name)
    if name in _aliases():
        return _load(_aliases()[name])
    raise UnknownProviderError(f"unknown provider {name!r}; known providers: "
                               f"{', '.join(PROVIDERS)}")


def detect_provider(data: Mapping[str, Any]) -> str:
    """The provider API whose response `data` is, from its shape."""
    for name in RESPONSE_DETECTION:
        if _load(name).is_response(data):
            return name
    error = data.get("error")
    if error:  # an error body alone
        for name in ERROR_DETECTION:
            if _load(name).is_error_body(data, error):
                return name
    raise ValueError(
        "cannot tell the provider from this response's shape (no 'choices', 'candidates', "
        "'output', 'content' blocks or 'message'): name it with provider="
    )


def detect_stream_provider(text: str) -> str | None:
    """The provider whose captured stream `text` is, from marks only its events carry (in
    its first 4 KiB); None when no provider's marks are there."""
    compact = text[:4096].replace('": ', '":')  # the marks are written without the blank
    for name in STREAM_DETECTION:
        if any(mark in compact for mark in _load(name).stream_marks):
            return name
    return None
