"""``toolcalls budget --simulate``: a session priced per strategy, the plan and the plot."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from toolcalls.budget import Trace, UsageProfile
from toolcalls.cli._main import main
from toolcalls.cli._simulate import SimulateError, read_session

FIXTURES = Path(__file__).parents[2] / "fixtures"
GITHUB = str(FIXTURES / "toolsets" / "github-mcp-server-all.json")
TASK = str(FIXTURES / "traces" / "github-fix-issue-5-tools.json")
SVG = "{http://www.w3.org/2000/svg}"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_profile_reproduces_the_issue_and_the_plan_refuses_lazy(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "budget", GITHUB, "--budget", "3000", "--simulate", "50x15x300",
                       "--json")
    report = json.loads(out)
    strategies = report["simulation"]["strategies"]
    assert code == 0 and report["simulation"]["load"] == "tools"
    assert strategies["lazy_search"]["versus_full"] == pytest.approx(1.15, abs=0.02)
    assert report["chosen"] == "compact" and not report["eligible"]["lazy"]
    code, out, _ = run(capsys, "budget", GITHUB, "--budget", "3000", "--json")
    assert json.loads(out)["chosen"] == "lazy"  # priced at session start only


def test_a_trace_prints_both_tables_and_the_cheapest(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "budget", GITHUB, "-f", "anthropic", "--simulate", TASK)
    lines = out.splitlines()
    start = lines.index("") + 1
    assert code == 0 and lines[start].startswith("github-fix-issue-5-tools: 6 turns, anthropic")
    assert "write 1.25x" in lines[start] and "lazy loads in messages" in lines[start]
    assert [line.split()[0] for line in lines[start + 2:start + 7]] == [
        "full", "compact", "lazy_search", "lazy_by_name", "pinned"]
    assert lines[-1] == "cheapest: pinned"


def test_prices_can_be_chosen(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "budget", GITHUB, "--simulate", TASK, "--prices", "none", "--json")
    assert json.loads(out)["simulation"]["prices"] == {"cached": 1.0, "cache_write": 1.0}


def test_the_plot_draws_one_line_per_strategy(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    target = tmp_path / "session.svg"
    code, _, _ = run(capsys, "budget", GITHUB, "--simulate", "50x15x300", "--plot", str(target))
    root = ET.fromstring(target.read_text(encoding="utf-8"))
    lines = root.findall(f"{SVG}polyline")
    titles = [line.findtext(f"{SVG}title") or "" for line in lines]
    assert code == 0 and [title.split(":")[0] for title in titles] == [
        "full", "compact", "lazy_search", "lazy_by_name", "pinned"]
    assert all(len(line.get("points", "").split()) == 50 for line in lines)
    widths = {title.split(":")[0]: line.get("stroke-width") for title, line in zip(
        titles, lines, strict=True)}
    assert widths["compact"] == "3" and widths["full"] == "1.5"  # the cheapest stands out
    texts = [text.text or "" for text in root.iter(f"{SVG}text")]
    assert "lazy_search (+114%)" in texts and "compact (-22%) ✓" in texts


def test_bad_simulate_arguments_are_one_line_errors(capsys: pytest.CaptureFixture[str]) -> None:
    git = str(FIXTURES / "toolsets" / "mcp-git.json")
    code, _, err = run(capsys, "budget", git, "--simulate", TASK)
    assert code == 2 and "does not have: create_or_update_file" in err
    code, _, err = run(capsys, "budget", git, "--simulate", "missing.json")
    assert code == 2 and "50x15x300" in err
    code, _, err = run(capsys, "budget", git, "--simulate", GITHUB)  # a tool set, not a trace
    assert code == 2 and "not a trace" in err


def test_read_session_reads_profiles_and_files() -> None:
    assert read_session("50x15x300") == UsageProfile(50, 15, 300)
    assert read_session("10x2") == UsageProfile(10, 2)
    assert isinstance(read_session(TASK), Trace)
    with pytest.raises(SimulateError):
        read_session("0x3")
