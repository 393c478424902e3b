"""Every recorded whole response in fixtures/providers/, read, written back as each provider's
response and read again: a proxy that answers in any API loses nothing a client reads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from provider_rows import FIXTURES, FOLDER_OF_PROVIDER, PROVIDER_OF_FOLDER
from test_recorded import WHOLE as SDK_TYPES
from test_recorded import validate

import toolcalls
from toolcalls.parsing._models import ParseResult
from toolcalls.providers import PROVIDERS, write_response

WHOLE = sorted(FIXTURES.glob("*/*.json"))


def _read(path: Path) -> ParseResult:
    return toolcalls.read_response(json.loads(path.read_text(encoding="utf-8")),
                                   PROVIDER_OF_FOLDER[path.parent.name])


def _calls(result: ParseResult, provider: str) -> list[tuple[str, str, dict[str, Any]]]:
    keep_ids = provider != "ollama"  # Ollama's calls carry no ids
    return [(call.id if keep_ids else "", call.name, call.arguments) for call in result.calls]


def test_there_are_recorded_responses_of_every_provider() -> None:
    assert {path.parent.name for path in WHOLE} == set(PROVIDER_OF_FOLDER)


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("path", WHOLE, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_recorded_response_written_as_any_provider_reads_back_the_same(
        path: Path, provider: str) -> None:
    read = _read(path)
    written = write_response(read, provider)
    # Usage written back as it came may lack a field the SDK added after the recording.
    folder = FOLDER_OF_PROVIDER[provider]
    validate(folder, SDK_TYPES[folder], written)
    again = toolcalls.read_response(written, provider)
    assert _calls(again, provider) == _calls(read, provider)
    assert (again.content, again.reasoning) == (read.content, read.reasoning)


@pytest.mark.parametrize("path", WHOLE, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_recorded_response_written_to_its_own_provider_keeps_what_it_sends_back(
        path: Path) -> None:
    """Reasoning pieces with their signatures, why the turn ended, the usage as it came."""
    read = _read(path)
    again = toolcalls.read_response(write_response(read, read.provider or ""), read.provider)
    assert again.reasoning_blocks == read.reasoning_blocks
    assert again.usage == read.usage
    if read.finish_reason is not None:  # an Ollama docs example has none; "stop" is written
        assert again.finish_reason == read.finish_reason
