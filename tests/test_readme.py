"""Every code block of the README runs as it stands: each Python block in a namespace of its
own, from the repository root (as a reader who cloned it runs them), with nothing defined for
it; the commands name files and extras that exist."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
TEXT = README.read_text(encoding="utf-8")
# Each block with the README's lines before it left blank: a traceback names the README's line.
BLOCKS = ["\n" * TEXT.count("\n", 0, found.start(1)) + found.group(1)
          for found in re.finditer(r"^```python\n(.*?)^```", TEXT, re.S | re.M)]
FENCES = re.findall(r"^```(\w*)\n", TEXT, re.M)
COMMANDS = [line.strip() for line in re.findall(r"^    (python3 .*)$", TEXT, re.M)]


def test_the_readme_has_python_blocks_and_only_known_fences() -> None:
    assert len(BLOCKS) >= 6
    # a block in another language would not be run: say so here when one is added
    assert set(FENCES) <= {"python", ""}, set(FENCES)


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_block_runs(block: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    exec(compile(block, str(README), "exec"), {"__name__": "__readme__"})  # noqa: S102 - our docs


def test_the_readme_commands_name_what_exists() -> None:
    assert COMMANDS, "the README's commands moved: update this test"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    for command in COMMANDS:
        for script in re.findall(r"\b([\w/]+\.py)\b", command):
            assert (ROOT / script).is_file(), (command, script)
        for extra in re.findall(r"\.\[(\w+)\]", command):
            assert extra in extras, (command, extra)
