"""Ollama's template-derived prefix: `template_prefix`, `Ollama.with_prefix`, `from_template`.

The templates below are short Go templates written for these tests in the shape of the tool
sections of Ollama's model templates (Qwen 2.5, Mistral, Llama 3.2, Command R, Granite).
"""

from __future__ import annotations

import pytest
from helpers import assert_lossless, random_chunks, stream_chunks

import toolcalls
from toolcalls.parsing.formats.ollama import Ollama, closer_for, template_prefix

TOOLS = [
    {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    }
]
CALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}'

TEMPLATES = {
    "qwen": (
        '{{- if .ToolCalls }}<tool_call>\n{{ range .ToolCalls }}{"name": "{{ .Function.Name }}", '
        '"arguments": {{ .Function.Arguments }}}{{ end }}</tool_call>{{ end }}'
    ),
    "mistral": (
        '{{- if .ToolCalls }}[TOOL_CALLS] [{{ range .ToolCalls }}{"name": "{{ .Function.Name }}"}'
        "{{ end }}]{{ end }}"
    ),
    "llama32": (
        '{{- if .ToolCalls }}{{ range .ToolCalls }}{"name": "{{ .Function.Name }}", '
        '"parameters": {{ .Function.Arguments }}}{{ end }}{{ end }}'
    ),
    "command_r": (
        "{{- if .ToolCalls }}Action: ```json\n[{{ range .ToolCalls }}{\"tool_name\": "
        '"{{ .Function.Name }}"}{{ end }}]\n```{{ end }}'
    ),
    "granite": (
        "{{ else if .ToolCalls }}<|tool_call|>[{{ range .ToolCalls }}"
        '{"name": "{{ .Function.Name }}"}'
        "{{ end }}]{{ end }}"
    ),
    "no_tools": "{{ .System }}{{ range .Messages }}{{ .Content }}{{ end }}",
}


@pytest.mark.parametrize(
    ("template", "prefix"),
    [("qwen", "<tool_call>"), ("mistral", "[TOOL_CALLS] ["), ("llama32", "{"),
     ("command_r", "Action: ```json\n["), ("granite", "<|tool_call|>["), ("no_tools", "{")],
)
def test_the_prefix_is_the_first_text_inside_the_toolcalls_block(
    template: str, prefix: str
) -> None:
    assert template_prefix(TEMPLATES[template]) == prefix


def test_closers_follow_the_prefix() -> None:
    assert closer_for("<tool_call>") == "</tool_call>"
    assert closer_for("Action: ```json") == "```"
    assert closer_for("[TOOL_CALLS]") is None


@pytest.mark.parametrize(
    ("template", "text"),
    [
        ("qwen", f"Checking.\n<tool_call>\n{CALL}\n</tool_call>"),
        ("mistral", f"[TOOL_CALLS] [{CALL}]"),
        ("llama32", CALL.replace("arguments", "parameters")),
        (
            "command_r",
            f'Action: ```json\n[{CALL.replace(chr(34) + "name", chr(34) + "tool_name", 1)}]\n```',
        ),
        ("granite", f"<|tool_call|>[{CALL}]"),
    ],
)
def test_a_format_from_a_template_reads_that_models_calls(template: str, text: str) -> None:
    fmt = Ollama.from_template(TEMPLATES[template])
    result = toolcalls.parse(text, fmt, tools=TOOLS)
    assert [(c.name, c.arguments) for c in result.calls] == [("get_weather", {"city": "Paris"})]
    assert_lossless(text, result)
    for seed in range(5):
        _, streamed = stream_chunks(fmt, random_chunks(text, seed), tools=TOOLS)  # type: ignore[arg-type]
        assert streamed == result


def test_a_fenced_prefix_reads_calls_inside_its_fence_but_the_default_quotes_them() -> None:
    text = f'Action: ```json\n[{CALL}]\n```'
    fenced = toolcalls.parse(text, Ollama.from_template(TEMPLATES["command_r"]), tools=TOOLS)
    assert len(fenced.calls) == 1
    default = toolcalls.parse(text, "ollama", tools=TOOLS)
    assert not default.calls and default.content == text


def test_with_prefix_only_the_models_own_prefix_marks_a_call() -> None:
    fmt = Ollama.with_prefix("<toolcall>")
    prefixed = toolcalls.parse(f"<toolcall>{CALL}</toolcall>", fmt, tools=TOOLS)
    assert len(prefixed.calls) == 1
    other = toolcalls.parse(f"[TOOL_CALLS] {CALL}", fmt, tools=TOOLS)
    assert other.content.startswith("[TOOL_CALLS]")
    assert len(other.calls) == 1, "bare JSON naming a declared tool is still a call"


def test_with_prefix_is_cached_per_prefix() -> None:
    assert type(Ollama.with_prefix("<a>")) is type(Ollama.with_prefix("<a>"))
    assert type(Ollama.with_prefix("<a>")) is not type(Ollama.with_prefix("<b>"))


def test_get_format_passes_a_format_object_through() -> None:
    fmt = Ollama.with_prefix("<a>")
    assert toolcalls.get_format(fmt) is fmt


TWO_NAMES = [{"name": n, "parameters": {"type": "object"}} for n in ("f", "g")]


@pytest.mark.parametrize(
    ("body", "name"),
    [
        ('{"tool_name": "g", "arguments": {"b": 1}, "name": "f"}', "g"),
        ('{"name": "f", "arguments": {"b": 1}, "tool_name": "g"}', "f"),
        ('{"tool_name": "g", "name": "f", "arguments": {"b": 1}}', "g"),
        ('{"tool_name": "g", "arguments": {"b": 1}, "name": 5}', "g"),
        ('{"tool_name": 5, "arguments": {"b": 1}, "name": "f"}', "f"),
    ],
)
@pytest.mark.parametrize("wrap", ["{}", "<tool_call>{}</tool_call>", "[{}]"])
@pytest.mark.parametrize("tools", [None, TWO_NAMES])
def test_with_both_name_keys_the_first_string_written_names_the_call(
    body: str, name: str, wrap: str, tools: list[dict[str, object]] | None
) -> None:
    # A stream starts the call at the first name it reads; one piece must name it alike.
    text = wrap.replace("{}", body)
    result = toolcalls.parse(text, "ollama", tools=tools)
    assert [(c.name, c.arguments) for c in result.calls] == [(name, {"b": 1})]
    assert_lossless(text, result)
    for chunks in (list(text), random_chunks(text, 4)):
        _, streamed = stream_chunks("ollama", chunks, tools=tools)
        assert streamed == result
