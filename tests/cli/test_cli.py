"""The ``toolcalls parse`` and ``toolcalls formats`` commands (render/budget: test_cli_budget)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from provider_rows import PROVIDER_OF_FOLDER, stream_detected_as

import toolcalls
from toolcalls.cli._main import main

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
RESPONSE = (
    'Checking.\n<tool_call>\n{"name": "get_file_contents", "arguments": '
    '{"owner": "o", "repo": "r", "path": "README.md"}}\n</tool_call>'
)


def test_parse_prints_the_result_as_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    response = tmp_path / "response.txt"
    response.write_text(RESPONSE, encoding="utf-8")
    tools = FIXTURES / "toolsets" / "github-mcp-server-all.json"
    assert main(["parse", str(response), "--format", "hermes", "--tools", str(tools)]) == 0
    printed = json.loads(capsys.readouterr().out)
    expected = toolcalls.parse(RESPONSE, "hermes", tools=toolcalls.tools.load_tools(tools))
    assert printed == json.loads(expected.model_dump_json())
    assert printed["calls"][0]["name"] == "get_file_contents" and printed["issues"] == []


def test_parse_streams_one_event_per_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    response = tmp_path / "response.txt"
    response.write_text(RESPONSE, encoding="utf-8")
    assert main(["parse", str(response), "--format", "hermes", "--stream"]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert "".join(e["text"] for e in events if e["kind"] == "text") == "Checking."
    kinds = [e["kind"] for e in events]
    assert kinds[-3:] == ["tool_call_start", "arguments_delta", "tool_call_end"]
    assert events[-1]["call"]["arguments"] == {"owner": "o", "repo": "r", "path": "README.md"}


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "cannot read tools file"), ("{not json", "is not valid JSON"),
     ('[{"description": "no name"}]', "tool #0")],
)
def test_a_bad_tools_file_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, message: str
) -> None:
    response, tools = tmp_path / "response.txt", tmp_path / "tools.json"
    response.write_text(RESPONSE, encoding="utf-8")
    if content is not None:
        tools.write_text(content, encoding="utf-8")
    assert main(["parse", str(response), "--tools", str(tools)]) == 2
    assert message in capsys.readouterr().err


def test_formats_lists_every_format(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["formats"]) == 0
    printed = capsys.readouterr().out
    assert all(name in printed for name in toolcalls.list_formats())


def test_formats_lists_the_model_ids_that_select_each(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["formats"]) == 0
    blocks = capsys.readouterr().out.strip().split("\n\n")
    listed = {block.split()[0]: block for block in blocks}
    assert "    models: Qwen/Qwen3-Coder, " in listed["qwen3_coder"]
    for name, block in listed.items():
        for line in block.splitlines():
            if line.startswith("    models: "):  # each id listed selects the format it is under
                ids = line.removeprefix("    models: ").split(", ")
                assert {toolcalls.get_format(i + "X").name for i in ids} == {name}, name


def test_read_prints_a_saved_response_as_the_result(capsys: pytest.CaptureFixture[str]) -> None:
    saved = FIXTURES / "providers" / "openai_chat" / "constructed_native_and_text_call.json"
    assert main(["read", str(saved)]) == 0
    printed = json.loads(capsys.readouterr().out)
    expected = toolcalls.read_response(saved.read_text(encoding="utf-8"), format="auto")
    assert printed == json.loads(expected.model_dump_json())
    assert [c["source"] for c in printed["calls"]] == ["native", "text"]


def test_read_reads_a_response_saved_with_a_byte_order_mark(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = FIXTURES / "providers" / "openai_chat" / "constructed_native_and_text_call.json"
    marked = tmp_path / "saved.json"
    marked.write_bytes(b"\xef\xbb\xbf" + saved.read_bytes())
    assert main(["read", str(marked)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert main(["read", str(saved)]) == 0
    assert printed == json.loads(capsys.readouterr().out)


def test_read_with_format_none_reads_no_text_calls(capsys: pytest.CaptureFixture[str]) -> None:
    saved = FIXTURES / "providers" / "openai_chat" / "constructed_hermes_call_in_content.json"
    assert main(["read", str(saved), "--format", "none", "--provider", "openai"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["calls"] == [] and "<tool_call>" in printed["content"]


@pytest.mark.parametrize("saved", sorted((FIXTURES / "providers").glob("*/*.[sn][sd]*")),
                         ids=lambda path: path.name)
def test_read_reads_a_captured_stream_telling_its_provider(
    saved: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A Mistral stream is shaped as OpenAI's: detected, and read, as one (name it to read it
    # as Mistral's: tests/providers/test_mistral_read_stream.py).
    provider = stream_detected_as(PROVIDER_OF_FOLDER[saved.parent.name])
    assert main(["read", str(saved)]) == 0
    printed = json.loads(capsys.readouterr().out)
    reader = toolcalls.read_stream(provider, format="auto")
    reader.feed(saved.read_text(encoding="utf-8"))
    reader.close()
    assert printed == json.loads(reader.result().model_dump_json())


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
def test_read_reads_a_stream_saved_with_a_byte_order_mark_and_any_line_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], end: str
) -> None:
    """A stream whose file starts with U+FEFF was not told from a response (and its first
    event was lost when it was)."""
    saved = FIXTURES / "providers" / "openai_chat" / "gpt4o_mini_tool_call.sse"
    text = saved.read_text(encoding="utf-8")
    marked = tmp_path / "saved.sse"
    marked.write_bytes(("\ufeff" + text.replace("\n", end)).encode())
    assert main(["read", str(marked)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert main(["read", str(saved)]) == 0
    assert printed == json.loads(capsys.readouterr().out) and printed["calls"]


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("not json", "cannot read"),
        ('{"x": 1}', "cannot tell the provider"),
        ('data: {"id": "c"}\n\ndata: [DONE]\n', "name it with --provider"),
        ('{"message": {}}\n{"message": {}}\n', "name it with --provider"),
    ],
)
def test_read_refuses_what_is_not_a_whole_response_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, says: str
) -> None:
    saved = tmp_path / "saved"
    saved.write_text(content, encoding="utf-8")
    assert main(["read", str(saved)]) == 2
    captured = capsys.readouterr()
    assert says in captured.err and captured.out == "" and "Traceback" not in captured.err


def test_a_bug_is_one_line_with_status_70_unless_the_traceback_is_asked_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    response = tmp_path / "response.txt"
    response.write_text(RESPONSE, encoding="utf-8")
    monkeypatch.setattr("toolcalls.cli._main.parse", broken)
    monkeypatch.delenv("TOOLCALLS_TRACEBACK", raising=False)
    assert main(["parse", str(response), "-f", "hermes"]) == 70
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error (RuntimeError: boom); please report" in err
    monkeypatch.setenv("TOOLCALLS_TRACEBACK", "1")
    with pytest.raises(RuntimeError, match="boom"):
        main(["parse", str(response), "-f", "hermes"])


def test_parse_with_a_template_reads_the_format_it_derives(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    template = FIXTURES / "templates" / "Kimi-K2-Instruct.jinja"
    response = tmp_path / "response.txt"
    response.write_text(
        "Sure.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
        '<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|>'
        "<|tool_calls_section_end|>", encoding="utf-8")
    assert main(["parse", str(response), "--template", str(template)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["format"] == "template" and printed["content"] == "Sure."
    assert [(c["name"], c["arguments"]) for c in printed["calls"]] == [
        ("get_weather", {"city": "Paris"})]
    assert main(["parse", str(response), "--template", str(template), "--stream"]) == 0
    assert '"name": "get_weather"' in capsys.readouterr().out


@pytest.mark.parametrize(("arguments", "message"), [
    (["--template", "/no/such.jinja"], "cannot read the chat template '/no/such.jinja'"),
    (["--template", str(FIXTURES / "render" / "gemma4" / "template.jinja")],
     "cannot write the template's calls"),
    (["--template", str(FIXTURES / "templates" / "Qwen3-0.6B.jinja"), "-f", "hermes"],
     "--template and --format both name the format"),
])
def test_parse_with_a_template_that_cannot_be_used_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    response = tmp_path / "response.txt"
    response.write_text("hi", encoding="utf-8")
    assert main(["parse", str(response), *arguments]) == 2
    error = capsys.readouterr().err
    assert message in error and "Traceback" not in error
