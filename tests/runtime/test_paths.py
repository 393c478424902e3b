"""Paths and path patterns in one form: absolute, ~ expanded, .. and symlinks resolved."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolcalls.runtime._paths import PathPattern, normalize_path


def test_relative_home_dots_and_slashes(tmp_path: Path) -> None:
    home, work = tmp_path / "h", tmp_path / "w"
    assert normalize_path("a/../b//c/.", work, home) == work.resolve() / "b" / "c"
    assert normalize_path("~/x", work, home) == home.resolve() / "x"
    assert normalize_path("~", work, home) == home.resolve()


def test_symlinks_are_resolved(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert normalize_path("link/f", tmp_path, tmp_path) == (tmp_path / "real" / "f").resolve()


@pytest.mark.parametrize("value", ["", "a\x00b", 3, None, "~other/x"])
def test_not_a_checkable_path(value: object, tmp_path: Path) -> None:
    assert normalize_path(value, tmp_path, tmp_path) is None


@pytest.mark.parametrize(("pattern", "path", "matches"), [
    ("~/p/**", "~/p", True), ("~/p/**", "~/p/a/b", True), ("~/p/**", "~/pq/a", False),
    ("~/p/*", "~/p/a", True), ("~/p/*", "~/p/a/b", False), ("**/.env", "/x/y/.env", True),
    ("**/.env", "/.env", True), ("**/.env", "/x/.envrc", False), ("./src/*.py", "src/a.py", True),
    ("src/?.py", "src/ab.py", False), ("src/[ab].py", "src/b.py", True),
])
def test_pattern_matches(tmp_path: Path, pattern: str, path: str, matches: bool) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    compiled = PathPattern.parse(pattern, working_dir=work, home=home)
    normalized = normalize_path(path, work, home)
    assert normalized is not None and compiled.matches(normalized) is matches


def test_pattern_head_resolves_symlinks_like_paths(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    pattern = PathPattern.parse(str(tmp_path / "link" / "**"), working_dir=tmp_path,
                                home=tmp_path)
    assert pattern.matches((tmp_path / "real" / "x").resolve())
