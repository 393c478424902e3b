"""``toolcalls mcp list`` against real servers: the test server and ``mcp-server-time``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from toolcalls.budget._counts import provider_cost  # noqa: E402
from toolcalls.cli._main import main  # noqa: E402
from toolcalls.tools._tool import Tool  # noqa: E402

SERVER = Path(__file__).parents[1] / "runtime" / "mcp_server.py"
TIME_SERVER = [sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list_shows_each_tool_with_its_description_and_tokens_per_provider(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "mcp", "list", "--stdio", *TIME_SERVER)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "mcp_server_time: 2 tools"
    assert lines[1].split()[:4] == ["TOOL", "openai", "anthropic", "gemini"]
    row = next(line for line in lines if line.startswith("mcp_server_time__get_current_time"))
    assert "Get current time in a specific timezone" in row
    assert all(cell.isdigit() for cell in row.split()[1:4])
    assert lines[-1].startswith("total")


def test_list_json_counts_match_the_budget_counters(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "mcp", "list", "--json", "--name", "t", "--stdio",
                         sys.executable, str(SERVER))
    assert code == 0, err
    listing = json.loads(out)
    names = [row["name"] for row in listing["tools"]]
    assert listing["server"] == "t"
    assert {"t__add", "t__hang", "t__big"} <= set(names)
    add = next(row for row in listing["tools"] if row["name"] == "t__add")
    assert add["description"] == "Add two integers."
    assert set(add["tokens"]) == {"openai", "anthropic", "gemini"}
    schema = {"properties": {"a": {"title": "A", "type": "integer"},
                             "b": {"title": "B", "type": "integer"}},
              "required": ["a", "b"], "title": "addArguments", "type": "object"}
    alone = Tool(name="t__add", description="Add two integers.", parameters=schema)
    assert add["tokens"]["openai"] == provider_cost("openai")([alone])
    assert listing["total"]["openai"] > max(row["tokens"]["openai"] for row in listing["tools"])


def test_server_name_defaults_to_the_script_of_a_python_command(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "mcp", "list", "--json", "--stdio", sys.executable, str(SERVER))
    assert code == 0
    assert json.loads(out)["server"] == "mcp_server"


def test_server_that_fails_to_start_is_one_line_and_nonzero_exit(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "mcp", "list", "--stdio", sys.executable, "-c",
                         "import sys; sys.exit(3)")
    assert code != 0
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert "cannot connect to MCP server" in err
    assert "Traceback" not in err


def test_url_nobody_listens_on_is_one_line_and_nonzero_exit(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "mcp", "list", "--timeout", "20", "--url",
                       "http://127.0.0.1:9/mcp")
    assert code != 0
    assert len(err.strip().splitlines()) == 1
    assert "cannot connect to MCP server 'server'" in err
    assert "Traceback" not in err


def test_header_without_colon_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "mcp", "list", "--header", "Bearer x", "--url",
                       "http://127.0.0.1:9/mcp")
    assert code == 2
    assert "'Name: value'" in err


def test_without_the_extra_says_how_to_install_it_and_exits_2() -> None:
    code = ("import sys; sys.modules['mcp'] = None\n"
            "from toolcalls.cli._main import main\n"
            "sys.exit(main(['mcp', 'list', '--stdio', 'true']))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "pip install 'toolcalls[mcp]'" in done.stderr
