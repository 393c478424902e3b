"""What every registered provider owes, checked over the registry (`toolcalls.providers.PROVIDERS`).

A provider is one module (or a folder), one registry row and one fixture folder
(`fixtures/providers/<module>/`, named as its module; see docs/adding-a-provider.md). The
dispatch tests (test_native, test_response_writer, test_stream_writer, test_fields,
test_recorded...) iterate over the registry, so a new provider is tested without editing them
once it has its row, its fixtures and its SDK's validators (`written.validators`,
`test_recorded.WHOLE` and `EVENT`); this file checks that the class and its files tell the
truth, and that what a provider writes it reads back.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from written import FULL, OPTIONS, validators

import toolcalls
from toolcalls._errors import UnknownProviderError
from toolcalls.providers import PROVIDERS, get_provider, stream_text, write_response, write_stream
from toolcalls.providers._base import Provider
from toolcalls.providers._framing import FRAMERS
from toolcalls.providers._registry import (
    ERROR_DETECTION,
    RESPONSE_DETECTION,
    STREAM_DETECTION,
    detect_provider,
)
from toolcalls.providers._stream_reader import ProviderStream
from toolcalls.providers._stream_writer import StreamWriter

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "providers"
NAMES = list(PROVIDERS)
SUFFIXES = (".json", ".sse", ".ndjson")


def module_of(name: str) -> str:
    """The provider's module, ``toolcalls.providers.<module>``: its fixture folder's name."""
    return PROVIDERS[name].partition(":")[0].rpartition(".")[2]


@pytest.mark.parametrize("name", NAMES)
def test_the_registry_row_names_the_class_that_bears_the_name(name: str) -> None:
    provider = get_provider(name)
    assert isinstance(provider, Provider)
    assert provider.name == name, f"{PROVIDERS[name]} says its name is {provider.name!r}"
    module, _, cls = PROVIDERS[name].partition(":")
    assert module == f"toolcalls.providers.{module_of(name)}"
    assert type(provider) is getattr(importlib.import_module(module), cls)
    assert get_provider(provider) is provider


@pytest.mark.parametrize("name", NAMES)
def test_declares_its_stream_classes_and_wire(name: str) -> None:
    provider = get_provider(name)
    assert issubclass(provider.stream_reader, ProviderStream)
    assert issubclass(provider.stream_writer, StreamWriter)
    assert provider.stream_writer.provider == name  # its own usage is written back as it came
    assert provider.stream_writer.id_prefix == provider.id_prefix
    assert provider.framing in FRAMERS
    assert provider.stream_end in ("", "data: [DONE]\n\n")


@pytest.mark.parametrize("name", NAMES)
def test_aliases_lead_to_it(name: str) -> None:
    provider = get_provider(name)
    for alias in provider.aliases:
        assert get_provider(alias) is provider


def test_an_unknown_name_is_a_value_error_naming_the_known_ones() -> None:
    with pytest.raises(UnknownProviderError, match="unknown provider 'cohere'.*gemini"):
        get_provider("cohere")
    assert issubclass(UnknownProviderError, ValueError)


def test_detection_orders_name_registered_providers_once() -> None:
    for order in (RESPONSE_DETECTION, ERROR_DETECTION, STREAM_DETECTION):
        assert len(set(order)) == len(order)
        assert set(order) <= set(PROVIDERS)


@pytest.mark.parametrize("name", NAMES)
def test_has_recorded_fixtures_with_their_sources(name: str) -> None:
    folder = FIXTURES / module_of(name)
    assert (folder / "README.md").is_file(), f"{folder}/README.md names each file's source"
    recorded = [path for path in folder.iterdir() if path.suffix in SUFFIXES]
    assert recorded, f"{folder} holds no recorded response"
    listed = (folder / "README.md").read_text()
    assert [path.name for path in recorded if path.name not in listed] == []


@pytest.mark.parametrize("name", NAMES)
def test_has_its_sdks_validators(name: str) -> None:
    """What it writes is checked with the provider's own SDK types (tests/providers/written.py)."""
    assert name in validators()


@pytest.mark.parametrize("name", NAMES)
def test_what_it_writes_it_reads_back(name: str) -> None:
    """A written response is detected as its own (where the provider can be told by shape)
    and read back to the same calls and content; so is its stream, on the wire."""
    whole = write_response(FULL, name, **OPTIONS)
    if name in RESPONSE_DETECTION:
        assert detect_provider(whole) == name
    read = toolcalls.read_response(whole, name)
    assert [(call.name, call.arguments) for call in read.calls] == [
        (call.name, call.arguments) for call in FULL.calls]
    assert read.content == FULL.content
    reader = toolcalls.read_stream(name)
    reader.feed(stream_text(write_stream(FULL, name, **OPTIONS), name))
    reader.close()
    streamed = reader.result()
    assert [(call.name, call.arguments) for call in streamed.calls] == [
        (call.name, call.arguments) for call in FULL.calls]
    assert streamed.content == FULL.content
