"""``python -m toolcalls.integrations.vllm``: what the operator's command line runs (no vLLM)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from toolcalls.integrations._session import parser_names
from toolcalls.integrations.vllm import plugin_path
from toolcalls.integrations.vllm.__main__ import main


def test_path_prints_the_plugin_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--path"]) == 0
    printed = Path(capsys.readouterr().out.strip())
    assert printed == plugin_path() and printed.is_file()
    assert "register()" in printed.read_text(encoding="utf-8")


def test_list_prints_the_parser_names(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list"]) == 0
    names = capsys.readouterr().out.split()
    assert "toolcalls_hermes" in names and "toolcalls_auto" in names


def test_the_module_runs_without_vllm_installed(tmp_path: Path) -> None:
    # from elsewhere than the checkout: `python -m` puts the working directory first on the path
    done = subprocess.run([sys.executable, "-m", "toolcalls.integrations.vllm", "--path"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()) == plugin_path()
    assert "vllm" not in sys.modules  # nor does importing the package bring it in


DOCS = Path(__file__).resolve().parents[2] / "docs" / "integrations.md"


def test_the_docs_commands_are_the_ones_tested() -> None:
    """The operator's two command lines, as docs/integrations.md gives them: vLLM loads the
    plugin file this module prints, and both name a parser that registers."""
    lines = [line.strip() for line in DOCS.read_text(encoding="utf-8").splitlines()]
    vllm = [line for line in lines if line.startswith("vllm serve ")]
    sglang = [line for line in lines if line.startswith("sglang serve ")]
    assert len(vllm) == len(sglang) == 1
    assert '--tool-parser-plugin "$(python -m toolcalls.integrations.vllm --path)"' in vllm[0]
    assert "--enable-auto-tool-choice" in vllm[0]
    for line in [*vllm, *sglang]:
        name = line.split("--tool-call-parser ")[1].split()[0]
        assert name in parser_names()
