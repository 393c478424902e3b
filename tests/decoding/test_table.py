"""The export's tables (toolcalls/decoding/_table.py) are the formats' own declarations, read
off the registry: no module of the export names a format (nor does the proxy's prompt mode)
or imports a format's module."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import toolcalls
from toolcalls.decoding._table import (
    BUILDERS,
    REGIONS,
    TAGGED,
    XGRAMMAR_STYLES,
    region_of,
)
from toolcalls.parsing._registry import FORMATS

PACKAGE = Path(toolcalls.__file__).resolve().parent
DECODING = sorted((PACKAGE / "decoding").glob("*.py"))
FORMAT_MODULES = {target.partition(":")[0].removeprefix("toolcalls.")
                  for target in FORMATS.values()}


@pytest.mark.parametrize("name", toolcalls.list_formats())
def test_the_tables_hold_what_the_format_declares(name: str) -> None:
    fmt = toolcalls.get_format(name)
    assert (name in REGIONS) == (fmt.call_region is not None)
    assert TAGGED.get(name) == fmt.structural_tag_markers
    assert XGRAMMAR_STYLES.get(name) == fmt.xgrammar_style


@pytest.mark.parametrize("path", [*DECODING, PACKAGE / "serve" / "_prompt.py"],
                         ids=lambda path: path.name)
def test_no_module_names_a_format(path: Path) -> None:
    names = {*FORMATS, *(alias for name in FORMATS for alias in toolcalls.get_format(name).aliases)}
    literals = {node.value for node in ast.walk(ast.parse(path.read_text()))
                if isinstance(node, ast.Constant) and isinstance(node.value, str)}
    assert not literals & names


@pytest.mark.parametrize("path", DECODING, ids=lambda path: path.name)
def test_no_module_imports_a_format_module(path: Path) -> None:
    imported = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            module = node.module.removeprefix("toolcalls.")
            imported |= {module, *(f"{module}.{alias.name}" for alias in node.names)}
    assert not imported & FORMAT_MODULES


def test_a_shape_with_no_builder_is_a_type_error() -> None:
    class Declared:  # what region_of reads of a format (a compiled Format takes no subclass)
        name = "new_format"
        call_region = object()

    assert object not in BUILDERS
    with pytest.raises(TypeError, match="'new_format': no region builder for object"):
        region_of(Declared())  # type: ignore[arg-type]
