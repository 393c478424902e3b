"""What a user looks for next to the code: the license, the changelog, one version."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import toolcalls

ROOT = Path(__file__).resolve().parent.parent


def test_the_license_is_the_mit_license_pyproject_names() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "MIT"
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n")
    assert "Copyright (c) 2026 the toolcalls authors" in text


def test_the_version_is_written_once_and_the_changelog_names_it() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" in pyproject["project"]["dynamic"]  # not written in pyproject.toml
    assert pyproject["tool"]["hatch"]["version"]["path"] == "toolcalls/_version.py"
    assert re.fullmatch(r"\d+\.\d+\.\d+", toolcalls.__version__)
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    releases = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", changelog, re.M)
    assert releases and releases[0] == toolcalls.__version__
    assert "## [Unreleased]" in changelog
