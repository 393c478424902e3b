"""Offline token counting: shipped encodings, the counter protocol, native tool costs."""

from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolcalls._errors import EncodingError, ToolCallsError
from toolcalls.budget._tokens import (
    ENCODINGS,
    TiktokenCounter,
    TokenCounter,
    anthropic_tool_system_prompt,
    as_counter,
    count_anthropic_tools,
    count_openai_tools,
    count_tokens,
    get_encoding,
    load_encoding,
    openai_tools_text,
)

TOOLSETS = Path(__file__).parents[2] / "fixtures" / "toolsets"
SHIPPED = Path(__file__).parents[2] / "toolcalls" / "budget" / "encodings"

# The tool of the OpenAI cookbook's "How to count tokens with tiktoken", section 7.
COOKBOOK_WEATHER_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "description": "Get the current weather in a given location",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {
                    "type": "string",
                    "description": "The city and state, e.g. San Francisco, CA",
                },
                "unit": {
                    "type": "string",
                    "description": "The unit of temperature to return",
                    "enum": ["celsius", "fahrenheit"],
                },
            },
            "required": ["location"],
        },
    },
}


def load_toolset(name: str) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = json.loads((TOOLSETS / f"{name}.json").read_text())["tools"]
    return tools


# --- the shipped encodings ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("encoding", "text", "token_ids"),
    [
        # Token ids published in tiktoken's README and test-suite for these encodings.
        ("cl100k_base", "hello world", [15339, 1917]),
        ("o200k_base", "hello world", [24912, 2375]),
    ],
)
def test_known_token_ids(encoding: str, text: str, token_ids: list[int]) -> None:
    assert get_encoding(encoding).encode(text) == token_ids


@pytest.mark.parametrize(("encoding", "n_vocab"), [("cl100k_base", 100277), ("o200k_base", 200019)])
def test_vocabulary_size(encoding: str, n_vocab: int) -> None:
    assert get_encoding(encoding).n_vocab == n_vocab


def test_harmony_special_tokens_have_the_documented_ids() -> None:
    # Ids from openai/harmony docs/format.md ("Special Tokens").
    harmony = get_encoding("o200k_harmony")
    assert harmony.encode("<|start|><|message|><|call|>", allowed_special="all") == [
        200006,
        200008,
        200012,
    ]


@given(st.text(max_size=200))
def test_encode_decode_round_trip(text: str) -> None:
    encoding = get_encoding("o200k_base")
    assert encoding.decode(encoding.encode_ordinary(text)) == text


def test_loading_touches_no_network_no_environment_no_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache_dir = tmp_path / "tiktoken-cache"
    cache_dir.mkdir()
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(cache_dir))
    default_cache = Path(tempfile.gettempdir()) / "data-gym-cache"
    default_cache_before = sorted(default_cache.iterdir()) if default_cache.exists() else None

    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("toolcalls tried to open a socket while loading an encoding")

    monkeypatch.setattr(socket, "socket", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    environment_before = dict(os.environ)
    get_encoding.cache_clear()
    try:
        for name in ENCODINGS:
            assert get_encoding(name).encode("offline") != []
    finally:
        get_encoding.cache_clear()
    assert dict(os.environ) == environment_before
    assert list(cache_dir.iterdir()) == []
    after = sorted(default_cache.iterdir()) if default_cache.exists() else None
    assert after == default_cache_before


def test_damaged_file_raises_a_typed_error_that_says_how_to_fix_it(tmp_path: Path) -> None:
    damaged = bytearray((SHIPPED / "cl100k_base.tiktoken").read_bytes())
    damaged[1000] ^= 0x01
    (tmp_path / "cl100k_base.tiktoken").write_bytes(bytes(damaged))
    with pytest.raises(EncodingError, match="damaged.*reinstall toolcalls") as caught:
        load_encoding("cl100k_base", tmp_path)
    assert isinstance(caught.value, ToolCallsError)


def test_missing_file_raises_a_typed_error(tmp_path: Path) -> None:
    with pytest.raises(EncodingError, match="missing.*reinstall toolcalls"):
        load_encoding("o200k_base", tmp_path)


def test_intact_copy_loads_from_any_directory(tmp_path: Path) -> None:
    shutil.copy(SHIPPED / "cl100k_base.tiktoken", tmp_path)
    assert load_encoding("cl100k_base", tmp_path).encode("hello world") == [15339, 1917]


def test_unknown_encoding_names_the_known_ones() -> None:
    with pytest.raises(EncodingError, match="o200k_base"):
        get_encoding("p50k_base")
    with pytest.raises(EncodingError, match="count"):
        count_tokens("x", "gpt2")


# --- the counter protocol -----------------------------------------------------------------------


class WhitespaceCounter:
    """A stand-in for another tokenizer: one token per whitespace-separated word."""

    def count(self, text: str) -> int:
        return len(text.split())


def test_any_object_with_count_is_a_token_counter() -> None:
    counter = WhitespaceCounter()
    assert isinstance(counter, TokenCounter)
    assert as_counter(counter) is counter
    assert count_tokens("one two three", counter) == 3
    assert count_openai_tools([COOKBOOK_WEATHER_TOOL], counter) == (
        len(openai_tools_text([COOKBOOK_WEATHER_TOOL]).split()) + 5
    )


def test_special_token_text_counts_as_text_unless_asked() -> None:
    assert count_tokens("<|endoftext|>") > 1
    assert TiktokenCounter("o200k_base", special_tokens=True).count("<|endoftext|>") == 1


# --- what OpenAI bills for function tools -------------------------------------------------------


def test_cookbook_anchor_gpt4o_and_gpt4() -> None:
    # Billed 101 (gpt-4o) and 105 (gpt-4) prompt tokens with two messages worth 33 and 34.
    assert count_openai_tools([COOKBOOK_WEATHER_TOOL], "o200k_base") == 68
    assert count_openai_tools([COOKBOOK_WEATHER_TOOL], "cl100k_base") == 71


def test_github_mcp_server_all_is_within_ten_percent_of_the_anchor() -> None:
    tools = load_toolset("github-mcp-server-all")
    assert len(tools) == 86
    assert abs(count_openai_tools(tools) - 15_086) <= 1_508


def test_no_tools_cost_nothing() -> None:
    assert count_openai_tools([]) == 0
    assert count_anthropic_tools([]) == 0


def test_namespace_text_layout() -> None:
    assert openai_tools_text([COOKBOOK_WEATHER_TOOL]) == (
        "namespace functions {\n\n"
        "// Get the current weather in a given location\n"
        "type get_current_weather = (_: {\n"
        "// The city and state, e.g. San Francisco, CA\n"
        "location: string,\n"
        "// The unit of temperature to return\n"
        'unit?: "celsius" | "fahrenheit",\n'
        "}) => any;\n\n"
        "} // namespace functions"
    )


# --- Anthropic ----------------------------------------------------------------------------------


def test_anthropic_system_prompt_table() -> None:
    assert anthropic_tool_system_prompt("claude-sonnet-4-6", "auto") == 497
    assert anthropic_tool_system_prompt("claude-sonnet-4-6", "none") == 497
    assert anthropic_tool_system_prompt("claude-sonnet-4-6", "any") == 589
    assert anthropic_tool_system_prompt("claude-sonnet-4-6", "tool") == 589
    with pytest.raises(ValueError, match="known models"):
        anthropic_tool_system_prompt("gpt-4o")


def test_anthropic_count_is_tool_json_plus_the_fixed_prompt() -> None:
    tools = load_toolset("mcp-time")
    auto = count_anthropic_tools(tools, tool_choice="auto")
    forced = count_anthropic_tools(tools, tool_choice="any")
    assert forced - auto == 589 - 497
    assert auto > 497


def test_namespace_renders_every_schema_construct() -> None:
    schema = {
        "type": "object",
        "properties": {
            "q": {"type": "string", "description": "Query", "title": "Q"},
            "path": {"type": "string", "description": "A path.\nTwo lines.", "default": "."},
            "unit": {"type": "string", "enum": ["c", "f"], "default": "c"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "mixed": {"type": "array", "items": {"oneOf": [{"type": "string"},
                                                           {"type": "integer"}]}},
            "limit": {"type": ["integer", "null"], "default": 10},
            "opt": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "filter": {"type": "object", "description": "Filter", "required": ["owner"],
                       "properties": {"owner": {"type": "string", "description": "Owner login"},
                                      "state": {"enum": ["open", "closed"]}}},
            "node": {"$ref": "#/$defs/Node"},
            "flag": {"type": "boolean", "nullable": True},
            "free": {},
        },
        "required": ["q"],
        "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}},
    }
    text = openai_tools_text([{"name": "search", "description": "Search.\nTwo lines.",
                               "parameters": schema}, {"name": "now"}])
    assert text == (
        "namespace functions {\n\n"
        "// Search.\n// Two lines.\n"
        "type search = (_: {\n"
        "// Q\n//\n// Query\n"  # the title is kept, as openai-harmony's renderer keeps it
        "q: string,\n"
        "// A path.\nTwo lines.\n"  # only a property description's first line is commented
        'path?: string, // default: "."\n'
        'unit?: "c" | "f", // default: c\n'
        "tags?: string[],\n"
        "mixed?: (string | number)[],\n"
        "limit?: number | null, // default: 10\n"
        "opt?: any,\n"  # the renderer writes every anyOf as any
        "// Filter\n"
        "filter?:     // Filter\n{\n"  # ... and a nested object's description twice
        "    // Owner login\n"
        "    owner: string,\n"
        '    state?: "open" | "closed",\n'
        "    },\n"
        "node?: {\n"
        "    next?: any,\n"  # the recursive reference stops at "any"
        "    },\n"
        "flag?: boolean | null,\n"
        "free?: any,\n"
        "}) => any;\n\n"
        "type now = (_: {\n}) => any;\n\n"
        "} // namespace functions"
    )
