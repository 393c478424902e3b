"""Formats as data: `declare_format` builds one from a description, `register_format` adds it
to the registry, so that names, aliases, model ids and ``format="auto"`` find it.

A description is a `FormatSpec`, a mapping of its fields, a TOML or JSON document, or the path
of a ``.toml`` / ``.json`` file holding one (`toolcalls.parsing.formats._spec` lists the
fields). What it cannot describe (a format whose calls are no known shape) is a module:
``docs/adding-a-format.md``.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .._errors import FormatSpecError
from ._registry import add_format, remove_format
from .formats._base import Format
from .formats._declared import build_format
from .formats._spec import FormatSpec

__all__ = ["Description", "declare_format", "register_format", "unregister_format"]

Description = FormatSpec | Mapping[str, Any] | str | os.PathLike[str]
"""What `declare_format` reads: a spec, its fields, TOML or JSON text, or a file of either."""


def declare_format(description: Description) -> Format:
    """The format `description` describes, not registered: pass it wherever a format name goes
    (``toolcalls.parse(text, fmt)``).

    Raises:
        FormatSpecError: the description cannot be read, or a field is missing or wrong (the
            message names the field).
    """
    return build_format(_spec(description))


def register_format(description: Description | Format, *, replace: bool = False) -> Format:
    """Build the format (`declare_format`) and register it: `get_format`, `list_formats`,
    aliases, model ids and detection (``format="auto"``) find it from then on.

    A built-in format's name cannot be taken; one registered before is replaced only with
    ``replace=True``. Returns the registered format.
    """
    fmt = description if isinstance(description, Format) else declare_format(description)
    try:
        add_format(fmt, replace=replace)
    except ValueError as exc:
        raise FormatSpecError(f"cannot register {fmt.name!r}: {exc}") from None
    return fmt


def unregister_format(name: str) -> None:
    """Remove a format that `register_format` added (built-in formats stay)."""
    remove_format(name)


def _spec(description: Description) -> FormatSpec:
    if isinstance(description, FormatSpec):
        return description
    fields = description if isinstance(description, Mapping) else _read_document(description)
    try:
        return FormatSpec.model_validate(dict(fields))
    except ValidationError as exc:
        raise FormatSpecError(_explain(exc)) from None


def _read_document(source: str | os.PathLike[str]) -> Mapping[str, Any]:
    """TOML or JSON, from text or a file: a path object, or a one-line string naming a
    ``.toml``/``.json`` file."""
    if not isinstance(source, str) or (
            "\n" not in source and source.strip().endswith((".toml", ".json"))):
        path = Path(source)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise FormatSpecError(f"cannot read the format description {str(path)!r}: "
                                  f"{exc}") from None
        return _parse(text, json_first=path.suffix == ".json", where=str(path))
    return _parse(source, json_first=source.lstrip().startswith("{"), where="the text")


def _parse(text: str, *, json_first: bool, where: str) -> Mapping[str, Any]:
    try:
        document = json.loads(text) if json_first else tomllib.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        kind = "JSON" if json_first else "TOML"
        raise FormatSpecError(f"{where} is not a {kind} format description: {exc}") from None
    if not isinstance(document, dict):
        raise FormatSpecError(f"{where} must hold one object of fields (name, calls, ...)")
    return document


def _explain(exc: ValidationError) -> str:
    """One line per problem: where it is (``calls.body``) and what is wrong."""
    lines = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"]) or "the description"
        message = error["msg"].removeprefix("Value error, ")
        lines.append(f"{where}: {message}")
    return "invalid format description: " + "; ".join(lines)
