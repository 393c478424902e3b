"""Built-in formats that are nothing more than a description: one TOML file each here, read
with the fields `toolcalls.parsing.formats._spec` documents, and built by the same engine as
`toolcalls.register_format` (`_declared.build_format`).

The registry names them ``toolcalls.parsing.formats.described:NAME``; reading ``NAME`` here
loads ``NAME.toml`` and returns its class. The files are worked examples for a user writing a
description of their own.
"""

from __future__ import annotations

import functools
import tomllib
from importlib import resources

from .._declared import Declared, build_format
from .._spec import FormatSpec

__all__ = ["described_format", "shipped_descriptions"]


def shipped_descriptions() -> list[str]:
    """The names of the descriptions shipped in this package."""
    return sorted(entry.name.removesuffix(".toml") for entry in resources.files(__name__).iterdir()
                  if entry.name.endswith(".toml"))


@functools.cache
def described_format(name: str) -> type[Declared]:
    """The class of the built-in format ``NAME.toml`` describes (a shipped file that does not
    validate is a bug of the package: pydantic's error names the field)."""
    text = resources.files(__name__).joinpath(f"{name}.toml").read_text(encoding="utf-8")
    spec = FormatSpec.model_validate(tomllib.loads(text))
    return type(build_format(spec, shipped=True))


def __getattr__(name: str) -> type[Declared]:
    if name not in shipped_descriptions():
        raise AttributeError(f"no format description {name!r} ships in {__name__}")
    return described_format(name)
