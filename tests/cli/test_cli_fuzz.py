"""``toolcalls fuzz`` as users run it: a summary, JSONL reproducers, one line per error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

COMMAND = [sys.executable, "-P", "-m", "toolcalls", "fuzz"]
PARSERS = '''
import toolcalls

def drops_the_last_call(text):
    return toolcalls.parse(text, "hermes").calls[:-1]

def agrees(text, *, tools):
    offered = [toolcalls.Tool.model_validate(tool) for tool in tools]
    return toolcalls.parse(text, "hermes", tools=offered).calls

not_callable = 3
'''


def run(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([*COMMAND, *argv], capture_output=True, text=True, cwd=cwd,
                          stdin=subprocess.DEVNULL, timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "parsers.py").write_text(PARSERS)
    (tmp_path / "broken.py").write_text("raise RuntimeError('no import for you')\n")
    return tmp_path


def test_disagreements_are_summarized_and_written(work: Path) -> None:
    done = run(work, "--format", "hermes", "--against", "parsers:drops_the_last_call",
               "--seconds", "4", "--out", "found.jsonl")
    assert done.returncode == 1, done.stderr
    assert "missed_calls" in done.stdout and "reproducers written to found.jsonl" in done.stdout
    lines = [json.loads(line) for line in (work / "found.jsonl").read_text().splitlines()]
    assert lines and all(line["kind"] == "missed_calls" for line in lines)
    assert all(line["format"] == "hermes" and line["other"] == line["toolcalls"][:-1]
               for line in lines)


def test_agreement_exits_0_and_a_file_path_works(work: Path) -> None:
    done = run(work, "-f", "Qwen/Qwen2.5-7B-Instruct", "--against",
               str(work / "parsers.py") + ":agrees", "--seconds", "3")
    assert done.returncode == 0, done.stderr
    assert "0 disagreements" in done.stdout


@pytest.mark.parametrize(("against", "message"), [
    ("parsers", "expected MODULE:CALLABLE"),
    ("nowhere:f", "cannot import 'nowhere'"),
    ("broken:f", "no import for you"),
    ("parsers:not_callable", "has no callable 'not_callable'"),
    ("missing/file.py:f", "no file"),
])  # fmt: skip
def test_a_bad_against_is_one_line(work: Path, against: str, message: str) -> None:
    done = run(work, "--format", "hermes", "--against", against, "--seconds", "1")
    assert done.returncode == 2 and message in done.stderr
    assert done.stderr.count("\n") == 1


def test_an_unknown_format_is_one_line(work: Path) -> None:
    done = run(work, "--format", "nope", "--against", "parsers:agrees")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
