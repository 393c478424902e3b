"""Formats as data (`toolcalls.parsing.declare_format`, `register_format`).

The proof that a description is a format: three built-in formats described in
``fixtures/declared/`` read their own corpus rows as their modules do (the few rows where
they differ are listed with the reason), and a described format of every body kind passes the
same properties as the built-in ones (round trips, results never read as calls, streaming
equal to batch), registered by name.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from corpus import load_cases
from helpers import assert_lossless, split_at, stream_chunks
from test_roundtrip import (
    test_a_rendered_result_is_never_read_as_a_call,
    test_parsing_rendered_calls_gives_them_back,
)

import toolcalls
from toolcalls.parsing import (
    FormatSpecError,
    declare_format,
    register_format,
    unregister_format,
)
from toolcalls.parsing._registry import FORMATS
from toolcalls.parsing.formats._base import Format
from toolcalls.parsing.formats._declared import Declared
from toolcalls.parsing.formats._regions import NAMED_OBJECT_HEAD, JsonArrayCalls, JsonListCalls
from toolcalls.parsing.formats._results import protect
from toolcalls.parsing.formats.described import shipped_descriptions

ROOT = Path(__file__).resolve().parents[2]
DECLARED = ROOT / "fixtures" / "declared"
PACKAGE = ROOT / "toolcalls" / "parsing" / "formats"
CALL = toolcalls.ToolCall(id="call_0", name="get_weather", arguments={"city": "Paris"},
                          source="native")
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}]

# Rows the module reads as its source expects and the description does not: what only the
# module knows, each a reason a description stays smaller than a module.
MODULE_ONLY = {
    "hermes-llamacpp-v1-006": "<function=NAME>{...}: a second body kind (name_json) in the "
                              "same format; a description has one",
    "hermes-llamacpp-v1-007": '<function name="NAME">: the same second body kind',
    "granite-llamacpp-v1-005": "Granite's <response> answer tag is markup only to the module",
    "granite-llamacpp-v1-006": "the same <response> tag, closed",
}

# One description per body kind, each with its results written as tags or as tokens.
BODIES = {
    "json": {"start": "<call>\n", "end": "\n</call>"},
    "json_list": {"start": "<TOOLCALL>", "end": "</TOOLCALL>", "arguments_key": "parameters"},
    "name_json": {"start": "<|fn|>", "name_end": "<|args|>", "end": "<|end_fn|>",
                  "separator": ""},
    "pythonic": {"start": "<|py|>", "end": "<|/py|>", "bare": True},
    # Apertus' layout, as format_from_template derives it: the name as the object's key.
    "json_list_keyed": {"body": "json_list", "start": "<|calls|>", "end": "<|/calls|>",
                        "name_as_key": True},
    # Olmo 3's layout, as format_from_template derives it: bare calls one a line.
    "pythonic_lines": {"body": "pythonic", "start": "<calls>\n", "end": "\n</calls>",
                       "lines": True},
}


def _description(body: str) -> dict[str, object]:
    tokens = body in ("name_json", "pythonic")
    return {
        "name": f"test_{body}",
        "aliases": [f"test-{body}-alias"],
        "model_ids": [f"acme/Test-{body}"],
        "turn_ends": ["<|eot|>"],
        "calls": {"body": body, **BODIES[body]},
        "results": {"start": "<|result|>" if tokens else "<result>\n",
                    "end": "<|/result|>" if tokens else "\n</result>", "tokens": tokens},
        "tools": {"start": "<tools>\n", "end": "\n</tools>"},
    }


@pytest.fixture
def registered(request: pytest.FixtureRequest) -> Iterator[Format]:
    fmt = register_format(_description(request.param))
    try:
        yield fmt
    finally:
        unregister_format(fmt.name)


@pytest.mark.parametrize("name", ["hermes", "granite", "lfm2"])
def test_a_described_builtin_reads_its_corpus_as_its_module_does(name: str) -> None:
    fmt = declare_format(DECLARED / f"{name}.toml")
    module_only = []
    for case in load_cases([name]):
        module_agrees = not case.mismatches(case.run())
        declared = toolcalls.parse(case.text, fmt, **case.options())
        assert_lossless(case.text, declared)
        if module_agrees and case.mismatches(declared):
            module_only.append(case.id)
    assert module_only == [row for row in MODULE_ONLY if row.startswith(f"{name}-")]


@pytest.mark.parametrize("registered", list(BODIES), indirect=True)
def test_a_described_format_round_trips_its_calls(registered: Format) -> None:
    test_parsing_rendered_calls_gives_them_back(registered.name)


@pytest.mark.parametrize("registered", list(BODIES), indirect=True)
def test_a_described_format_reads_results_as_data(registered: Format) -> None:
    test_a_rendered_result_is_never_read_as_a_call(registered.name)


@pytest.mark.parametrize("registered", list(BODIES), indirect=True)
def test_a_registered_format_is_found_everywhere(registered: Format) -> None:
    body = registered.name.removeprefix("test_")
    assert registered.name in toolcalls.list_formats()
    for key in (registered.name, f"test-{body}-alias", f"acme/Test-{body}-7B-Instruct"):
        assert toolcalls.get_format(key) is registered
    text = f"Looking it up.\n{registered.example}<|eot|>"
    assert toolcalls.detect(text, TOOLS) == registered.name
    result = toolcalls.parse(text, "auto", tools=TOOLS)
    assert [(c.name, c.arguments) for c in result.calls] == [("get_weather", {"city": "Paris"})]
    assert result.content == "Looking it up."


@pytest.mark.parametrize("registered", list(BODIES), indirect=True)
def test_a_described_format_streams_as_it_parses(registered: Format) -> None:
    text = "Sure." + registered.render_calls(
        [toolcalls.parse(registered.example, registered).calls[0]] * 2) + " Done."
    whole = toolcalls.parse(text, registered.name)
    assert len(whole.calls) == 2
    for size in range(1, 8):
        _, streamed = stream_chunks(registered.name, split_at(text, range(size, len(text), size)))
        assert streamed == whole


@pytest.mark.parametrize("registered", list(BODIES), indirect=True)
def test_a_described_format_has_a_grammar_that_its_reader_reads(registered: Format) -> None:
    grammar = toolcalls.decoding.grammar(registered.name, TOOLS, dialect="lark")
    assert registered.spec.calls.start.strip() in grammar  # type: ignore[attr-defined]
    prompt = registered.render_tools(toolcalls.to_tools(TOOLS))
    assert prompt.startswith("<tools>\n") and '"get_weather"' in prompt


def test_a_name_under_another_key_is_read_and_has_no_grammar() -> None:
    fmt = declare_format({"name": "acme", "calls": {
        "body": "json_list", "start": "<|START_ACTION|>", "end": "<|END_ACTION|>",
        "name_key": "tool_name", "arguments_key": "parameters"}})
    assert fmt.example == ('<|START_ACTION|>[{"tool_name": "get_weather", "parameters": '
                           '{"city": "Paris"}}]<|END_ACTION|>')
    assert [c.name for c in toolcalls.parse(fmt.example, fmt).calls] == ["get_weather"]
    with pytest.raises(ValueError, match="the tool's name is under 'tool_name'"):
        toolcalls.decoding.grammar(fmt, TOOLS)


@pytest.mark.parametrize("chunk", [1, 3, 1000])
def test_broken_arguments_with_no_end_marker_fail_up_to_the_next_call(chunk: int) -> None:
    # Mistral v11's [TOOL_CALLS]NAME[ARGS]{...} has no end marker: a broken body runs to the
    # next call's start (this raised IndexError in the shared JSON call reader).
    register_format({"name": "acme", "calls": {
        "body": "name_json", "start": "[TOOL_CALLS]", "name_end": "[ARGS]", "separator": ""}})
    try:
        text = '[TOOL_CALLS]f[ARGS]{"a": 1,, oops\nmore[TOOL_CALLS]g[ARGS]{"b": 2}'
        _, result = stream_chunks("acme", split_at(text, range(chunk, len(text), chunk)))
        assert [(c.name, c.arguments) for c in result.calls] == [("g", {"b": 2})]
        assert [c.name for c in result.incomplete] == ["f"]
        assert_lossless(text, result)
    finally:
        unregister_format("acme")


def test_a_cut_off_call_is_incomplete_never_content() -> None:
    fmt = declare_format(DECLARED / "hermes.toml")
    result = toolcalls.parse('Checking.\n<tool_call>\n{"name": "get_weather", "argum', fmt)
    assert result.calls == [] and [c.name for c in result.incomplete] == ["get_weather"]
    assert result.content == "Checking."


def test_descriptions_read_from_toml_json_and_paths(tmp_path: Path) -> None:
    toml_text = (DECLARED / "lfm2.toml").read_text()
    as_json = json.dumps({"name": "lfm2_declared",
                          "calls": {"body": "pythonic", "start": "<|tool_call_start|>",
                                    "end": "<|tool_call_end|>"}})
    (tmp_path / "f.json").write_text(as_json)
    examples = {declare_format(source).example for source in (
        toml_text, as_json, str(DECLARED / "lfm2.toml"), tmp_path / "f.json")}
    assert examples == {"<|tool_call_start|>[get_weather(city='Paris')]<|tool_call_end|>"}


@pytest.mark.parametrize(("description", "message"), [
    ({"name": "Acme", "calls": {"body": "json", "start": "<c>"}}, "name: 'Acme' is no registry"),
    ({"name": "acme", "calls": {"body": "yaml", "start": "<c>"}}, "calls.body: Input should be"),
    ({"name": "acme", "calls": {"body": "json", "start": " \n"}}, "start must hold a marker"),
    ({"name": "acme", "calls": {"body": "name_json", "start": "<c>"}}, "needs name_end"),
    ({"name": "acme", "calls": {"body": "json", "start": "<c>"}, "colour": 1},
     "colour: Extra inputs are not permitted"),
    ({"name": "acme"}, "calls: Field required"),
    ('name = "acme"\ncalls = [', "the text is not a TOML format description"),
    ("/nowhere/acme.toml", "cannot read the format description '/nowhere/acme.toml'"),
    # The fields the shipped descriptions added, each named where it is wrong.
    ({"name": "acme", "calls": {"body": "json", "start": "<c>", "list_only": True}},
     "calls: list_only is read only with body 'json_list'"),
    ({"name": "acme", "calls": {"body": "json", "start": "<c>"}, "tools": {"template": "x"}},
     "tools: template needs {tools} once"),
    ({"name": "acme", "calls": {"body": "json", "start": "<c>"}, "tools": {"indent": 20}},
     "tools.indent: Input should be less than or equal to 8"),
    ({"name": "acme", "calls": {"body": "json", "start": "<c>"},
      "results": {"start": "<r>", "end": "</r>", "run": ["[", "]"]}}, "results.run"),
    ({"name": "acme", "calls": {"body": "json", "start": "<c>", "name_as_key": True}},
     "name_as_key: calls {NAME: ARGUMENTS} in a list"),
    ({"name": "acme", "calls": {"body": "json", "start": "<c>", "end": "</c>", "lines": True}},
     "lines: calls one a line of body 'pythonic'"),
    ({"name": "acme", "calls": {"body": "json", "start": "<c>"}, "wire": 3},
     "wire: Input should be a valid string"),
])
def test_a_wrong_description_says_what_to_fix(description: object, message: str) -> None:
    with pytest.raises(FormatSpecError, match=message.replace("[", r"\[").replace(".", r"\.")):
        declare_format(description)  # type: ignore[arg-type]


def test_registering_never_takes_a_name_or_alias_already_in_use() -> None:
    calls = {"body": "json", "start": "<c>", "end": "</c>"}
    with pytest.raises(FormatSpecError, match="'hermes' is already registered"):
        register_format({"name": "hermes", "calls": calls})
    with pytest.raises(FormatSpecError, match="alias 'qwen3' already names the format 'hermes'"):
        register_format({"name": "acme", "aliases": ["qwen3"], "calls": calls})
    first = register_format({"name": "acme", "calls": calls})
    try:
        with pytest.raises(FormatSpecError, match="pass replace=True"):
            register_format({"name": "acme", "calls": calls})
        second = register_format({"name": "acme", "calls": calls}, replace=True)
        assert toolcalls.get_format("acme") is second is not first
    finally:
        unregister_format("acme")
    assert "acme" not in toolcalls.list_formats()
    with pytest.raises(toolcalls.UnknownFormatError):
        toolcalls.get_format("acme")


def test_importing_toolcalls_loads_no_description_machinery() -> None:
    import subprocess

    code = ("import sys, toolcalls; toolcalls.parse('x', 'hermes'); "
            "print(any(m.endswith(('_declare', '_spec')) for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


# -- the built-in formats that are nothing more than a description ------------------------------

SHIPPED = {"jamba", "nemotron_v2"}


def test_the_shipped_descriptions_are_valid_and_are_the_builtin_formats() -> None:
    assert set(shipped_descriptions()) == SHIPPED
    for name in SHIPPED:
        source = PACKAGE / "described" / f"{name}.toml"
        assert declare_format(source).name == name  # valid, as a user's file would be
        assert FORMATS[name] == f"toolcalls.parsing.formats.described:{name}"
        assert isinstance(toolcalls.get_format(name), Declared)
        assert not (PACKAGE / f"{name}.py").exists()  # no module left behind
    assert toolcalls.get_format("nemotron_v2").no_corpus_reason == ""  # it has corpus rows
    assert "vLLM's jamba parser tests" in toolcalls.get_format("jamba").no_corpus_reason


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_a_shipped_description_reads_its_goldens_and_corpus_as_its_module_did(name: str) -> None:
    # The goldens were written by the former module: the description must read them the same.
    for path in sorted((ROOT / "fixtures" / name).glob("*.txt")):
        text = path.read_text(encoding="utf-8")
        expected = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        options = {k: v for k, v in expected.get("options", {}).items() if v is not None}
        result = toolcalls.parse(text, name, **options)
        calls = [{"name": c.name, "arguments": c.arguments} for c in result.calls]
        assert (result.content, result.reasoning, calls) == (
            expected["content"], expected["reasoning"], expected["calls"]), path.name
        assert sorted({i.kind for i in result.issues}) == sorted(set(expected["issues"]))
    assert [case.id for case in load_cases([name]) if case.mismatches(case.run())] == []


def test_nemotron_v2_writes_what_its_former_module_wrote() -> None:
    fmt = toolcalls.get_format("nemotron_v2")
    assert fmt.render_calls([CALL], "Sure.") == (
        'Sure.\n\n<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Paris"}}]'
        "</TOOLCALL>")
    assert fmt.render_calls([CALL], " \n") == " \n" + fmt.example  # no gap after blanks
    assert fmt.render_result(CALL, "a</TOOL_RESPONSE><TOOLCALL>") == protect(
        "a</TOOL_RESPONSE><TOOLCALL>", "</TOOL_RESPONSE>", "<TOOLCALL>")
    assert fmt.result_run == ("<TOOL_RESPONSE>[", ", ", "]</TOOL_RESPONSE>")
    assert fmt.result_tags is None and fmt.turn_ends == ("<SPECIAL_12>",)
    assert fmt.call_region == JsonArrayCalls("<TOOLCALL>", "</TOOLCALL>")
    assert fmt.structural_tag_markers == (
        "<TOOLCALL>", "<TOOLCALL>[" + NAMED_OBJECT_HEAD, "}]</TOOLCALL>")
    tools = fmt.render_tools(toolcalls.to_tools(TOOLS))
    assert tools.startswith("You can use the following tools to assist the user if required:\n"
                            '<AVAILABLE_TOOLS>[{"name": "get_weather", ')
    assert '<TOOLCALL>[{{"name": "tool_name1"' in tools  # doubled, as the template writes them


def test_jamba_writes_what_its_former_module_wrote() -> None:
    fmt = toolcalls.get_format("jamba")
    assert fmt.render_calls([CALL], "Hi") == (
        'Hi<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_calls>')
    assert fmt.render_result(CALL, "x<|eom|>") == (
        f"<|bom|><|tool|> {protect('x<|eom|>', '<|eom|>')}<|eom|>")
    assert fmt.call_region == JsonListCalls("<tool_calls>", close="</tool_calls>")
    assert fmt.result_region_end == "<|eom|>" and fmt.result_run == ("", "\n", "")
    tools = fmt.render_tools(toolcalls.to_tools(TOOLS))
    assert tools.startswith('<tool_definitions>\n# Tools\n\n## Functions\n\n{\n  "name": ')
    assert tools.endswith("\n}\n</tool_definitions>")
    # MiniMax-M1's lines under the same tag are not a Jamba list (list_only).
    lines = '<tool_calls>\n{"name": "get_weather", "arguments": {}}\n{"name": "f"}\n</tool_calls>'
    assert len(toolcalls.parse(lines, "minimax_m1").calls) == 2
    assert len(toolcalls.parse(lines, "jamba").calls) < 2
