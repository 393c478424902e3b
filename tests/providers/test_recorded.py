"""The recorded provider responses in fixtures/providers/: each is listed with its source, and
each is what the provider's own SDK accepts (a whole response as the SDK's response type, each
event of a stream as the SDK's chunk or event type).

The SDKs are dev dependencies only (pyproject's `dev` extra); the library never imports them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anthropic.types
import anthropic.types.beta
import ollama
import openai.types.chat
import openai.types.responses
import pytest
from google.genai import types as genai_types
from pydantic import TypeAdapter, ValidationError

ROOT = Path(__file__).resolve().parents[2] / "fixtures" / "providers"
PROVIDERS = ("openai_chat", "anthropic")
SUFFIXES = (".json", ".sse", ".ndjson")

Validator = Callable[[Any], object]

# What one whole response is, per provider folder: any of these types. Anthropic's beta
# endpoint (`/v1/messages?beta=true`, where pydantic-ai records) answers in the SDK's Beta
# types, a superset of the GA ones (beta tools such as the advisor).
WHOLE: dict[str, tuple[Validator, ...]] = {
    "openai_chat": (openai.types.chat.ChatCompletion.model_validate,),
    "openai_responses": (openai.types.responses.Response.model_validate,),
    "anthropic": (anthropic.types.Message.model_validate,
                  anthropic.types.beta.BetaMessage.model_validate),
    "gemini": (genai_types.GenerateContentResponse.model_validate,),
    "ollama": (ollama.ChatResponse.model_validate,),
}

# What one event (SSE `data:`) or line (NDJSON) of a stream is, per provider folder.
EVENT: dict[str, tuple[Validator, ...]] = {
    "openai_chat": (openai.types.chat.ChatCompletionChunk.model_validate,),
    "openai_responses": (TypeAdapter(openai.types.responses.ResponseStreamEvent).validate_python,),
    "anthropic": (TypeAdapter(anthropic.types.RawMessageStreamEvent).validate_python,
                  TypeAdapter(anthropic.types.beta.BetaRawMessageStreamEvent).validate_python),
    "gemini": (genai_types.GenerateContentResponse.model_validate,),
    "ollama": (ollama.ChatResponse.model_validate,),
}

# Recordings older than a field the SDK now requires: the fields each lacks. The test checks
# that exactly these are missing, so it notices when the SDK relaxes or the file changes.
SDK_NEWER_THAN_RECORDING: dict[str, set[str]] = {
    "anthropic/claude_sonnet4_server_tool_use_code_execution.json": {
        "usage.server_tool_use.web_fetch_requests"},
}


def validate(validators: tuple[Validator, ...], value: Any) -> None:
    """Passes when any of the types accepts `value`; else raises the first type's error."""
    errors: list[ValidationError] = []
    for check in validators:
        try:
            check(value)
            return
        except ValidationError as error:
            errors.append(error)
    raise errors[0]


def missing_fields(error: ValidationError) -> set[str]:
    return {".".join(map(str, e["loc"])) for e in error.errors() if e["type"] == "missing"}


# A README row: | `file` | what it shows | source | edits |
ROW = re.compile(
    r"^\|\s*`(?P<file>[^`]+)`\s*\|(?P<shows>[^|]*)\|(?P<source>[^|]*)\|(?P<edits>[^|]*)\|\s*$")
# A source names a repository file at a commit, or a web page.
SOURCE = re.compile(r"[\w.-]+/[\w.-]+:\S+@[0-9a-f]{40}|https?://\S+")


def readme_rows(provider: str) -> dict[str, dict[str, str]]:
    rows: dict[str, dict[str, str]] = {}
    for line in (ROOT / provider / "README.md").read_text(encoding="utf-8").splitlines():
        match = ROW.match(line)
        if match:
            rows[match["file"]] = {k: match[k].strip() for k in ("shows", "source", "edits")}
    return rows


def fixture_files(provider: str) -> list[Path]:
    return sorted(p for p in (ROOT / provider).iterdir() if p.suffix in SUFFIXES)


def all_fixtures(suffixes: tuple[str, ...]) -> list[Any]:
    return [pytest.param(provider, path, id=f"{provider}/{path.name}")
            for provider in PROVIDERS for path in fixture_files(provider)
            if path.suffix in suffixes]


def sse_events(text: str) -> Iterator[tuple[str | None, str]]:
    """(event name or None, data) per SSE event; events are separated by a blank line."""
    for block in re.split(r"\r?\n\r?\n", text):
        name: str | None = None
        data: list[str] = []
        for line in block.splitlines():
            if line.startswith("event:"):
                name = line[len("event:"):].strip()
            elif line.startswith("data:"):
                data.append(line[len("data:"):].removeprefix(" "))
            elif line and not line.startswith(":"):
                raise AssertionError(f"not an SSE line: {line!r}")
        if data:
            yield name, "\n".join(data)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_fixture_is_listed_with_its_source(provider: str) -> None:
    rows = readme_rows(provider)
    files = {p.name for p in fixture_files(provider)}
    assert files, f"no fixtures in {provider}/"
    assert files == set(rows), f"README rows and files differ: {files ^ set(rows)}"
    for name, row in rows.items():
        assert row["shows"], f"{name}: say what it shows"
        assert SOURCE.search(row["source"]), f"{name}: source needs repo:path@commit or a URL"
        # A made-up example says so in its name and its row; a recorded one never does.
        constructed = name.startswith("constructed_")
        assert constructed == ("constructed" in row["source"].lower()), name


@pytest.mark.parametrize("provider", PROVIDERS)
def test_each_provider_has_whole_responses_and_a_stream(provider: str) -> None:
    suffixes = [p.suffix for p in fixture_files(provider) if not p.name.startswith("constructed_")]
    assert suffixes.count(".json") >= 3, provider
    assert ".sse" in suffixes or ".ndjson" in suffixes, provider


@pytest.mark.parametrize(("provider", "path"), all_fixtures((".json",)))
def test_whole_response_validates_as_the_sdk_type(provider: str, path: Path) -> None:
    response = json.loads(path.read_text(encoding="utf-8"))
    lacks = SDK_NEWER_THAN_RECORDING.get(f"{provider}/{path.name}")
    if lacks is None:
        validate(WHOLE[provider], response)
        return
    for check in WHOLE[provider]:
        with pytest.raises(ValidationError) as caught:
            check(response)
        assert missing_fields(caught.value) == lacks
        assert len(caught.value.errors()) == len(lacks)


@pytest.mark.parametrize(("provider", "path"), all_fixtures((".sse",)))
def test_sse_events_validate_as_the_sdk_event_type(provider: str, path: Path) -> None:
    events = list(sse_events(path.read_text(encoding="utf-8")))
    assert events, path
    for name, data in events:
        if data == "[DONE]":  # OpenAI Chat's end marker
            continue
        event = json.loads(data)
        if name is not None and name != "ping":
            assert event["type"] == name, f"event: {name} carries type {event['type']}"
        if event.get("type") == "ping":  # Anthropic keep-alive, not in the SDK's event union
            continue
        validate(EVENT[provider], event)


@pytest.mark.parametrize(("provider", "path"), all_fixtures((".ndjson",)))
def test_ndjson_lines_validate_as_the_sdk_chunk_type(provider: str, path: Path) -> None:
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert lines, path
    for line in lines:
        validate(EVENT[provider], json.loads(line))
