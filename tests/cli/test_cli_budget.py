"""``toolcalls render`` and ``toolcalls budget`` on the real tool sets."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from toolcalls.cli._main import main

TOOLSETS = Path(__file__).parents[2] / "fixtures" / "toolsets"
SETS = sorted(TOOLSETS.glob("*.json"))
SVG = "{http://www.w3.org/2000/svg}"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("path", SETS, ids=[path.stem for path in SETS])
def test_budget_json_on_every_real_set(capsys: pytest.CaptureFixture[str], path: Path) -> None:
    code, out, _ = run(capsys, "budget", str(path), "--json")
    report = json.loads(out)
    assert code == 0
    assert report["chosen_tokens"] <= report["full_tokens"]
    assert report["lazy_tokens"] < report["full_tokens"] or not report["eligible"]["lazy"]
    if path.stem == "github-mcp-server-all":
        assert 1 - report["lazy_tokens"] / report["full_tokens"] >= 0.90


def test_budget_prints_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    path = TOOLSETS / "playwright-mcp.json"
    code, out, _ = run(capsys, "budget", str(path), "--budget", "1000")
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("playwright-mcp.json: 25 tools")
    assert [line.split()[0] for line in lines[2:5]] == ["full", "compact", "lazy"]
    assert lines[-1].startswith("chosen: lazy")


def test_budget_plot_writes_an_svg(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "modes.svg"
    path = TOOLSETS / "github-mcp-server-all.json"
    code, _, _ = run(capsys, "budget", str(path), "--budget", "5000", "--plot", str(target))
    root = ET.fromstring(target.read_text(encoding="utf-8"))
    bars = root.findall(f"{SVG}rect")
    labels = [bar.findtext(f"{SVG}title") for bar in bars]
    assert code == 0 and [label.split(":")[0] for label in labels] == [
        "full", "compact", "lazy", "lazy, 6 loaded"]
    widths = [float(bar.get("width")) for bar in bars]
    assert widths[0] == max(widths) and widths[2] == min(widths)
    assert any("budget 5,000" in (text.text or "") for text in root.iter(f"{SVG}text"))


def test_budget_plot_refuses_other_formats(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "budget", str(SETS[0]), "--plot", "out.png")
    assert code == 2 and "SVG" in err


def test_render_native_prints_the_payload(capsys: pytest.CaptureFixture[str]) -> None:
    path = TOOLSETS / "mcp-git.json"
    code, out, err = run(capsys, "render", str(path), "--format", "anthropic")
    payload = json.loads(out)
    assert code == 0 and len(payload["tools"]) == 12 and "input_schema" in payload["tools"][0]
    assert err == ("toolcalls: chosen: full mode, 1,936 tokens; no budget was set, so any size "
                   "fits\n")  # Claude's count


def test_render_prompt_format_within_a_budget(capsys: pytest.CaptureFixture[str]) -> None:
    path = TOOLSETS / "github-mcp-server-all.json"
    code, out, err = run(capsys, "render", str(path), "--format", "hermes", "--budget", "3000",
                         "--pin", "get_me")
    assert code == 0 and out.startswith("# Tools") and '"name": "tool_search"' in out
    assert '"name": "get_me"' in out and "lazy mode" in err


def test_tool_files_in_other_shapes(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    tools = json.loads((TOOLSETS / "mcp-time.json").read_text("utf-8"))["tools"]
    mcp_reply = {"jsonrpc": "2.0", "id": 1, "result": {"tools": [
        {"name": t["name"], "description": t["description"], "inputSchema": t["parameters"]}
        for t in tools]}}
    (tmp_path / "reply.json").write_text(json.dumps(mcp_reply), encoding="utf-8")
    (tmp_path / "openai.json").write_text(json.dumps(
        [{"type": "function", "function": t} for t in tools]), encoding="utf-8")
    counts = {json.loads(run(capsys, "budget", str(tmp_path / name), "--json")[1])["full_tokens"]
              for name in ("reply.json", "openai.json")}
    assert len(counts) == 1


def test_a_missing_file_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "budget", "no/such/tools.json")
    assert code == 2 and "cannot read tools file" in err


@pytest.mark.parametrize(("name", "format", "budget"), [
    ("playwright-mcp", "openai", "2000"),
    ("playwright-mcp", "openai", "300"),
    ("github-mcp-server-all", "hermes", "3000"),
    ("github-mcp-server-all", "anthropic", "1200"),
    ("mcp-git", "qwen3_coder", None),
])
def test_render_and_budget_give_one_verdict(
    capsys: pytest.CaptureFixture[str], name: str, format: str, budget: str | None
) -> None:
    argv = [str(TOOLSETS / f"{name}.json"), "--format", format,
            *(["--budget", budget] if budget else [])]
    _, _, rendered = run(capsys, "render", *argv)
    _, table, _ = run(capsys, "budget", *argv)
    verdict = table.splitlines()[-1]
    assert rendered == f"toolcalls: {verdict}\n"
    assert verdict.startswith("chosen: ") and ("no budget was set" in verdict if budget is None else
                                                f"budget of {int(budget):,}" in verdict)


@pytest.mark.parametrize(("budget", "status", "says"), [
    ("300", 1, "no mode fits the budget of 300 (this one is 109 over at session start alone): "
               "raise the budget, or send fewer tools"),
    ("1200", 0, "it fits the budget of 1,200 with 791 to spare"),
])
@pytest.mark.parametrize("command", ["render", "budget"])
def test_fail_over_exits_1_over_the_budget_after_printing(
    capsys: pytest.CaptureFixture[str], command: str, budget: str, status: int, says: str
) -> None:
    code, out, err = run(capsys, command, str(TOOLSETS / "playwright-mcp.json"), "-f", "openai",
                         "--budget", budget, "--fail-over")
    assert code == status and out and says in (err if command == "render" else out)
    assert run(capsys, command, str(TOOLSETS / "playwright-mcp.json"), "-f", "openai",
               "--budget", budget)[0] == 0


def test_lazy_over_the_budget_once_tools_load_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(TOOLSETS / "github-mcp-server-all.json")
    _, _, err = run(capsys, "render", path, "-f", "openai", "--budget", "2000")
    assert err.endswith("at session start; it does not fit the budget of 2,000 once 3 tools "
                        "are loaded: raise the budget, or pin or send fewer tools\n")
