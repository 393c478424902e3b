"""`read_response` on every recorded whole response in fixtures/providers/: the provider is
detected (a Chat Completions clone such as Mistral's as "openai", which reads its calls), and
each native call the raw JSON holds is read with its id, name and arguments."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from provider_rows import FIXTURES, PROVIDER_OF_FOLDER, detected_as

import toolcalls
from toolcalls.providers import get_provider
from toolcalls.providers.openai_chat import OpenAIChat

WHOLE = sorted(FIXTURES.glob("*/*.json"))


def _arguments(raw: Any) -> dict[str, Any]:
    """Arguments as the API gave them: JSON text (OpenAI) or an object (the others)."""
    if raw is None or raw == "":
        return {}
    decoded = json.loads(raw) if isinstance(raw, str) else raw
    assert isinstance(decoded, dict)
    return decoded


def _native_calls(folder: str, raw: dict[str, Any]) -> list[tuple[str | None, str, dict[str, Any]]]:
    """(id, name, arguments) of each call for the caller to run, read straight off the JSON:
    an independent reading of what the provider module reads."""
    if isinstance(get_provider(PROVIDER_OF_FOLDER[folder]), OpenAIChat):  # and its clones
        message = raw["choices"][0]["message"]
        return [(c["id"], c["function"]["name"], _arguments(c["function"]["arguments"]))
                for c in message.get("tool_calls") or []]
    if folder == "openai_responses":
        return [(i["call_id"], i["name"], _arguments(i["arguments"]))
                for i in raw["output"] if i["type"] == "function_call"]
    if folder == "anthropic":
        return [(b["id"], b["name"], _arguments(b["input"]))
                for b in raw["content"] if b["type"] == "tool_use"]
    if folder == "gemini":
        parts = raw["candidates"][0]["content"].get("parts", [])
        return [(None, p["functionCall"]["name"], _arguments(p["functionCall"].get("args")))
                for p in parts if "functionCall" in p]
    if folder == "ollama":
        calls = raw["message"].get("tool_calls") or []
        return [(None, c["function"]["name"], _arguments(c["function"]["arguments"]))
                for c in calls]
    raise AssertionError(f"no independent reading of {folder}'s calls: add the provider's "
                         "shape to _native_calls (docs/adding-a-provider.md §7)")


@pytest.mark.parametrize("path", WHOLE, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_recorded_response_reads_its_native_calls(path: Path) -> None:
    folder = path.parent.name
    raw = json.loads(path.read_text(encoding="utf-8"))
    detected = toolcalls.read_response(raw, format="auto")
    assert detected.provider == detected_as(PROVIDER_OF_FOLDER[folder])
    result = toolcalls.read_response(raw, PROVIDER_OF_FOLDER[folder], format="auto")
    assert [(c.id, c.name, c.arguments) for c in detected.calls] == [
        (c.id, c.name, c.arguments) for c in result.calls]
    native = [c for c in result.calls if c.source == "native"]
    expected = _native_calls(folder, raw)
    assert [(c.name, c.arguments) for c in native] == [(n, a) for _, n, a in expected]
    for call, (call_id, _, _) in zip(native, expected, strict=True):
        if call_id is not None:
            assert call.id == call_id
    # The same response as JSON text, and with its provider named, reads the same.
    as_text = toolcalls.read_response(path.read_text(encoding="utf-8"),
                                      PROVIDER_OF_FOLDER[folder], format="auto")
    assert as_text == result


def test_every_provider_has_recorded_whole_responses() -> None:
    assert {path.parent.name for path in WHOLE} == set(PROVIDER_OF_FOLDER)


def _read(name: str) -> toolcalls.ParseResult:
    return toolcalls.read_response((FIXTURES / name).read_text(encoding="utf-8"), format="auto")


def test_a_hermes_call_left_in_content_is_read_from_the_text() -> None:
    result = _read("openai_chat/constructed_hermes_call_in_content.json")
    assert result.format == "hermes" and result.content == ""
    assert [(c.name, c.source) for c in result.calls] == [("get_current_weather", "text")]


def test_native_calls_come_before_the_text_calls_of_one_response() -> None:
    result = _read("openai_chat/constructed_native_and_text_call.json")
    assert [(c.arguments["location"], c.source) for c in result.calls] == [
        ("Paris", "native"), ("Tokyo", "text")]
    assert result.content == "I'll check both cities."


@pytest.mark.parametrize("name", ["openai_chat/deepseek_r1_think_in_content.json",
                                  "openai_chat/qwen3_32b_cerebras_think_in_content_tool_call.json"])
def test_think_left_in_content_is_reasoning(name: str) -> None:
    result = _read(name)
    assert result.reasoning and "<think>" not in result.content
    assert "</think>" not in result.content
