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
from typing import Annotated, Any, get_args, get_origin

import anthropic.types
import anthropic.types.beta
import mistralai.client.models
import ollama
import openai.types.chat
import openai.types.responses
import pytest
from google.genai import types as genai_types
from pydantic import TypeAdapter, ValidationError

from toolcalls.providers import PROVIDERS as REGISTRY

ROOT = Path(__file__).resolve().parents[2] / "fixtures" / "providers"
# One fixture folder per registered provider, named as its module (`toolcalls.providers.<module>`).
PROVIDERS = tuple(REGISTRY[name].partition(":")[0].rpartition(".")[2] for name in REGISTRY)
SUFFIXES = (".json", ".sse", ".ndjson")

Validator = Callable[[Any], object]


def union_validator(union: Any) -> Validator:
    """Validates an event as the SDK's event union (a pydantic TypeAdapter); when that fails,
    again as the union member named by the event's `type`, whose errors name the fields."""
    adapter: TypeAdapter[Any] = TypeAdapter(union)

    def check(event: Any) -> object:
        try:
            return adapter.validate_python(event)
        except ValidationError:
            return event_member(union, event).model_validate(event)
    return check

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
    "mistral": (mistralai.client.models.ChatCompletionResponse.model_validate,),
}

# What one event (SSE `data:`) or line (NDJSON) of a stream is, per provider folder.
EVENT: dict[str, tuple[Validator, ...]] = {
    "openai_chat": (openai.types.chat.ChatCompletionChunk.model_validate,),
    "openai_responses": (union_validator(openai.types.responses.ResponseStreamEvent),),
    "anthropic": (union_validator(anthropic.types.RawMessageStreamEvent),
                  union_validator(anthropic.types.beta.BetaRawMessageStreamEvent)),
    "gemini": (genai_types.GenerateContentResponse.model_validate,),
    "ollama": (ollama.ChatResponse.model_validate,),
    "mistral": (mistralai.client.models.CompletionChunk.model_validate,),
}

# Fields the installed SDK requires that the API added after some recordings were made: a
# recording may lack them (and a reader must not need them). Nothing else may be missing.
ADDED_LATER: dict[str, frozenset[str]] = {
    # Responses usage gained it in 2026; gpt-4o/gpt-5 recordings of 2025 have only cached_tokens.
    "openai_responses": frozenset({"usage.input_tokens_details.cache_write_tokens"}),
    # Messages usage.server_tool_use gained it with web fetch; a January 2026 recording lacks it.
    "anthropic": frozenset({"usage.server_tool_use.web_fetch_requests"}),
}


def added_later(provider: str, error: ValidationError) -> bool:
    """True when every error of `error` is a field of ADDED_LATER[provider] that is missing."""
    allowed = ADDED_LATER.get(provider, frozenset())
    paths = [("." + ".".join(map(str, e["loc"])), e["type"]) for e in error.errors()]
    return all(kind == "missing" and any(path.endswith("." + field) for field in allowed)
               for path, kind in paths)


def event_member(union: Any, event: dict[str, Any]) -> Any:
    """The member of a discriminated event union whose `type` literal is the event's type."""
    members = get_args(get_args(union)[0]) if get_origin(union) is Annotated else get_args(union)
    for member in members:
        if get_args(member.model_fields["type"].annotation) == (event.get("type"),):
            return member
    raise AssertionError(f"no {union} member has type {event.get('type')!r}")


def validate(provider: str, validators: tuple[Validator, ...], value: Any) -> None:
    """Passes when any of the types accepts `value`, but for fields added later; else raises
    the first type's error."""
    errors: list[ValidationError] = []
    for check in validators:
        try:
            check(value)
            return
        except ValidationError as error:
            if added_later(provider, error):
                return
            errors.append(error)
    raise errors[0]


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


# Where no public recording of a stream was found, a constructed one stands in (README says why).
# Ollama's is an excerpt of a stream the Ollama blog published (no whole capture was found).
NO_RECORDED_STREAM: dict[str, str] = {}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_each_provider_has_whole_responses_and_a_stream(provider: str) -> None:
    files = fixture_files(provider)
    copied = [p.suffix for p in files if not p.name.startswith("constructed_")]
    assert copied.count(".json") >= 3, provider
    streams = copied if provider not in NO_RECORDED_STREAM else [p.suffix for p in files]
    assert ".sse" in streams or ".ndjson" in streams, provider


@pytest.mark.parametrize(("provider", "path"), all_fixtures((".json",)))
def test_whole_response_validates_as_the_sdk_type(provider: str, path: Path) -> None:
    validate(provider, WHOLE[provider], json.loads(path.read_text(encoding="utf-8")))


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
        validate(provider, EVENT[provider], event)


@pytest.mark.parametrize(("provider", "path"), all_fixtures((".ndjson",)))
def test_ndjson_lines_validate_as_the_sdk_chunk_type(provider: str, path: Path) -> None:
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert lines, path
    for line in lines:
        validate(provider, EVENT[provider], json.loads(line))


def test_the_published_ollama_stream_gives_its_native_call_and_its_text() -> None:
    import toolcalls
    from toolcalls import ToolCallEnd, ToolCallStart

    path = ROOT / "ollama" / "ollama_blog_qwen3_streamed_tool_call.ndjson"
    parser = toolcalls.read_stream("ollama", format="auto")
    events = parser.feed(path.read_bytes()) + parser.close()
    result = parser.result()
    assert type(events[-1]) is ToolCallEnd
    assert [(e.id, e.name) for e in events if isinstance(e, ToolCallStart)] == [
        ("call_0", "get_current_weather")]
    assert [(c.name, c.arguments, c.source) for c in result.calls] == [
        ("get_current_weather", {"format": "celsius", "location": "Toronto"}, "native")]
    # The excerpt starts after qwen3's <think>: its end tag is stray, kept as content.
    assert result.format == "hermes" and result.content == "celsius</think>"
    assert [i.kind for i in result.issues] == ["stray_reasoning_end"]
    assert result.finish_reason is None  # the blog elides the final done chunk
