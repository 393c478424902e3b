"""The sample tool sets and traces shipped in the package: the same bytes as the repository's
fixtures (which copy the shared collection), each readable, and by name on the command line
from any directory."""

from __future__ import annotations

import gzip
import json
from importlib import resources
from pathlib import Path

import pytest

from toolcalls import ToolDefinitionError
from toolcalls.budget import Trace, sample_trace, sample_traces
from toolcalls.cli._main import main
from toolcalls.tools import load_tools, sample_tools, sample_toolsets

FIXTURES = Path(__file__).parents[2] / "fixtures"


def test_every_fixture_tool_set_ships_as_a_sample_with_the_same_bytes() -> None:
    fixtures = sorted(path.stem for path in (FIXTURES / "toolsets").glob("*.json"))
    assert sample_toolsets() == fixtures
    for name in fixtures:
        shipped = resources.files("toolcalls.tools") / "samples" / f"{name}.json.gz"
        assert gzip.decompress(shipped.read_bytes()) == (FIXTURES / "toolsets" / f"{name}.json"
                                                         ).read_bytes(), name


@pytest.mark.parametrize("name", sample_toolsets())
def test_a_sample_reads_as_its_fixture_does(name: str) -> None:
    assert sample_tools(name) == load_tools(FIXTURES / "toolsets" / f"{name}.json")
    assert sample_tools(f"{name}.json") == sample_tools(name)


def test_an_unknown_sample_names_the_samples() -> None:
    with pytest.raises(ToolDefinitionError, match="github-mcp-server-all, github-mcp-server-de"):
        sample_tools("github")


def test_every_fixture_trace_ships_and_names_a_sample_tool_set() -> None:
    fixtures = sorted(path.stem for path in (FIXTURES / "traces").glob("*.json"))
    assert sample_traces() == fixtures
    for name in fixtures:
        assert sample_trace(name) == Trace.load(FIXTURES / "traces" / f"{name}.json")
        toolset = json.loads((FIXTURES / "traces" / f"{name}.json").read_text("utf-8"))["toolset"]
        tools = {tool.name for tool in sample_tools(toolset)}
        assert sample_trace(name).tool_names() <= tools, name
    with pytest.raises(ValueError, match="github-maintainer-50"):
        sample_trace("github")


def test_the_command_line_takes_sample_names_from_any_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    code = main(["budget", "github-mcp-server-all", "--simulate", "github-maintainer-50"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("github-mcp-server-all: 86 tools")
    assert "github-maintainer-50: 50 turns" in out


def test_a_local_file_wins_over_a_sample_of_the_same_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mcp-time").write_text('[{"name": "mine", "parameters": {}}]', encoding="utf-8")
    assert main(["render", "mcp-time", "--format", "openai"]) == 0
    assert '"mine"' in capsys.readouterr().out


def test_neither_a_file_nor_a_sample_is_one_line_naming_both(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["budget", "nope.json"]) == 2
    err = capsys.readouterr().err
    assert "no such file, nor a sample tool set" in err and "mcp-time" in err
    assert err.count("\n") == 1
