"""Module attributes that load on first use: `import toolcalls` stays light.

pydantic alone costs ~150 ms to import, tiktoken and jsonschema tens more: the names that need
them are imported when a program first reads them. Type checkers do not run this: each package
imports the same names under ``TYPE_CHECKING``, and `tests/test_public_api.py` checks both
tables name the same objects.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping

__all__ = ["lazy_attributes", "lazy_dir", "show_as"]


def lazy_attributes(package: str, table: Mapping[str, str]) -> Callable[[str], object]:
    """A module ``__getattr__`` for `package`: ``table[name]`` is the relative module (or
    ``module:attribute``) that `name` comes from. A name met once is then a plain attribute.
    Classes are shown as the package's (`show_as`)."""

    def __getattr__(name: str) -> object:
        where = table.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = where.partition(":")
        imported = importlib.import_module(module, package)
        is_the_module = not attribute and module.rpartition(".")[2] == name  # a subpackage
        value = imported if is_the_module else getattr(imported, attribute or name)
        if isinstance(value, type):
            show_as(package, value)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__


def lazy_dir(package: str, table: Mapping[str, str]) -> Callable[[], list[str]]:
    """A module ``__dir__`` for `package`: its public names (``__all__``) and the lazily loaded
    ones (`table`), what tab completion should offer, not the loading machinery."""

    def __dir__() -> list[str]:
        module = sys.modules[package]
        public = getattr(module, "__all__", ())
        loaded = (name for name in vars(module) if not name.startswith("_")
                  and isinstance(vars(module)[name], type(module)))  # subpackages imported
        return sorted({*public, *table, *loaded})

    return __dir__


def show_as(public_module: str, obj: object) -> None:
    """Show `obj` as ``public_module.X`` (its reprs, docs, pickles), not a private module."""
    if getattr(obj, "__module__", "").startswith("toolcalls."):
        try:
            obj.__module__ = public_module
        except (AttributeError, TypeError):  # a function compiled by mypyc refuses
            pass
