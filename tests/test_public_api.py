"""The public surface: a small top level, every name typed as what it is, loaded when used."""

from __future__ import annotations

import ast
import importlib
import importlib.metadata
import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import toolcalls

ROOT = Path(__file__).resolve().parents[1]
USER_PROGRAM = ROOT / "tests" / "typing" / "user_program.py"
PACKAGES = ["toolcalls", "toolcalls.parsing", "toolcalls.tools", "toolcalls.providers",
            "toolcalls.budget", "toolcalls.cli", "toolcalls.decoding",
            "toolcalls.grammars", "toolcalls.runtime"]


def test_the_top_level_is_small() -> None:
    """About 30 names: what a program that parses, streams and reads provider responses
    touches; the rest is in the subpackages."""
    assert len(toolcalls.__all__) <= 31
    assert sorted(toolcalls.__all__) == toolcalls.__all__


SUBPACKAGES = {"budget", "cli", "decoding", "parsing", "providers", "tools"}
"""The subpackages reached as attributes of `toolcalls` (lazily, or once imported)."""


def test_all_is_exactly_the_public_names_of_the_top_level() -> None:
    """Nothing public that `__all__` leaves out (an import left behind, a helper without its
    underscore), nothing in it that is not there: one list a reader can trust."""
    namespace = vars(toolcalls)
    imported = {name for name, value in namespace.items() if isinstance(value, ModuleType)}
    public = {name for name in {*namespace, *toolcalls._LAZY} if not name.startswith("_")}
    plumbing = {"annotations", "TYPE_CHECKING", "lazy_attributes", "lazy_dir", "show_as"}
    # A subpackage another test imported is an attribute too (Python sets it): not API.
    assert public - plumbing - SUBPACKAGES - imported == set(toolcalls.__all__)


def test_each_top_level_name_has_one_spelling() -> None:
    """No top-level name is also exported by a subpackage under the same name, except the
    core's own (`toolcalls.parsing`, `toolcalls.tools` and `toolcalls.providers` hold what the
    top level re-exports, for their own readers): a subsystem's names live in it alone."""
    owners = {"toolcalls.parsing", "toolcalls.tools", "toolcalls.providers"}
    for package in set(PACKAGES) - owners - {"toolcalls"}:
        doubled = set(importlib.import_module(package).__all__) & set(toolcalls.__all__)
        assert doubled == set(), package


def test_version_is_the_installed_distribution_version() -> None:
    assert toolcalls.__version__ == importlib.metadata.version("toolcalls")


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_name_resolves(package: str) -> None:
    module = importlib.import_module(package)
    missing = [name for name in module.__all__ if getattr(module, name, None) is None]
    assert missing == []


def _type_checking_imports(package: str) -> dict[str, tuple[str, str]]:
    """What type checkers see in `package`: name -> (module, attribute) of its
    ``if TYPE_CHECKING:`` imports."""
    source = Path(importlib.import_module(package).__file__ or "").read_text()
    seen: dict[str, tuple[str, str]] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom)
                base = importlib.util.resolve_name("." * statement.level + (statement.module or ""),
                                                   package)
                for alias in statement.names:
                    seen[alias.asname or alias.name] = (base, alias.name)
    return seen


@pytest.mark.parametrize("package", PACKAGES)
def test_type_checkers_see_the_objects_that_load(package: str) -> None:
    """A lazy name's ``TYPE_CHECKING`` import names the very object `__getattr__` loads."""
    module = importlib.import_module(package)
    for name, (where, attribute) in _type_checking_imports(package).items():
        source = importlib.import_module(where)
        expected = getattr(source, attribute, None)
        if expected is None:  # `from . import budget`: a subpackage
            expected = importlib.import_module(f"{where}.{attribute}")
        assert getattr(module, name) is expected, name


def test_each_public_name_is_touched_by_the_typed_user_program() -> None:
    used = {node.attr for node in ast.walk(ast.parse(USER_PROGRAM.read_text()))
            if isinstance(node, ast.Attribute) and getattr(node.value, "id", "") == "toolcalls"}
    assert sorted(set(toolcalls.__all__) - used) == []


def test_a_typed_user_program_passes_mypy_strict(tmp_path: Path) -> None:
    """mypy sees the real type of every public name (a lazy `__getattr__` alone gives
    ``object``, and ``toolcalls.Session(...)`` would fail a typed program)."""
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path),
         str(USER_PROGRAM)],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr


LAZY_PACKAGES = ["toolcalls", "toolcalls.budget", "toolcalls.parsing", "toolcalls.providers",
                 "toolcalls.runtime", "toolcalls.serve", "toolcalls.tools"]


@pytest.mark.parametrize("name", LAZY_PACKAGES)
def test_dir_of_a_lazy_package_shows_its_api_not_its_loading(name: str) -> None:
    module = importlib.import_module(name)
    shown = dir(module)
    assert set(module.__all__) <= set(shown)
    assert not {"_LAZY", "lazy_attributes", "lazy_dir", "TYPE_CHECKING", "annotations"} & set(shown)
    assert all(hasattr(module, attribute) for attribute in shown)  # completion offers real names
