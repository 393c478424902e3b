"""Real tool sets shipped in the package (``samples/``, gzipped JSON; sources and licenses in
its README): what the budget examples and ``toolcalls budget NAME`` run on, from any directory,
with nothing installed but the package."""

from __future__ import annotations

import gzip
import json
from importlib import resources
from importlib.resources.abc import Traversable

from .._errors import ToolDefinitionError
from ._importers import import_tools
from ._tool import Tool

__all__ = ["sample_tools", "sample_toolsets"]

_SUFFIX = ".json.gz"


def _folder() -> Traversable:
    return resources.files("toolcalls.tools") / "samples"


def sample_toolsets() -> list[str]:
    """The names `sample_tools` takes: ``github-mcp-server-all`` (86 tools), ``playwright-mcp``,
    ``mcp-time``, ..."""
    return sorted(entry.name.removesuffix(_SUFFIX) for entry in _folder().iterdir()
                  if entry.name.endswith(_SUFFIX))


def sample_tools(name: str) -> list[Tool]:
    """The tools of the shipped sample tool set `name` (a name of `sample_toolsets`, with or
    without ``.json``). Raises `ToolDefinitionError` naming the samples for any other name."""
    stem = name.removesuffix(".json")
    entry = _folder() / f"{stem}{_SUFFIX}"
    if stem not in sample_toolsets():
        raise ToolDefinitionError(f"no sample tool set named {name!r}; the samples are: "
                                  f"{', '.join(sample_toolsets())}")
    return import_tools(json.loads(gzip.decompress(entry.read_bytes())))
