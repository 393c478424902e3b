"""What the tests know of each provider, read off the registry (`toolcalls/providers/_registry.py`)
instead of listed per provider: a new registry row is picked up by every test that uses these.

Its fixture folder is its module's name (`"openai"` -> `openai_chat`), and what detection calls
its responses and streams follows from the detection orders: a provider in an order is detected
as itself, one in none (a Chat Completions clone) as the detected provider it is built on.
Imported by tests/providers and tests/cli (tests/ is on the path: conftest.py)."""

from __future__ import annotations

from pathlib import Path

from toolcalls.providers import PROVIDERS, get_provider
from toolcalls.providers._registry import RESPONSE_DETECTION, STREAM_DETECTION

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "providers"


def folder_of(provider: str) -> str:
    """The fixture folder of `provider`: the last part of its module's name."""
    module = PROVIDERS[provider].partition(":")[0]
    return module.rpartition(".")[2]


PROVIDER_OF_FOLDER: dict[str, str] = {folder_of(name): name for name in PROVIDERS}
"""Fixture folder -> the provider whose responses it holds, for every registered provider."""
FOLDER_OF_PROVIDER: dict[str, str] = {name: folder for folder, name in PROVIDER_OF_FOLDER.items()}


def _detected_among(order: tuple[str, ...], provider: str) -> str:
    if provider in order:
        return provider
    own = type(get_provider(provider))
    claims = [name for name in order if issubclass(own, type(get_provider(name)))]
    assert claims, (
        f"provider {provider!r} is in no detection order of the registry and is built on no "
        f"provider that is: its fixtures cannot be detected. Add it to the detection orders "
        f"(docs/adding-a-provider.md §5).")
    return claims[0]


def detected_as(provider: str) -> str:
    """The provider `read_response` without a provider names for a response of `provider`."""
    return _detected_among(RESPONSE_DETECTION, provider)


def stream_detected_as(provider: str) -> str:
    """The provider `toolcalls read` finds for a captured stream of `provider`."""
    return _detected_among(STREAM_DETECTION, provider)
