"""The file tools: `fs_read`, `fs_write` and `fs_list`, each kept inside its `Workspace`.

Each declares its ``path`` argument (``path_arguments``), so permission rules can match it, and
checks it itself too (`Workspace.resolve`). ``fs_write`` is dangerous (``is_dangerous``): under
the default permissions a call to it is asked about. What goes wrong is an error result the
model can act on: a missing file, a directory where a file was meant, a binary file, a file too
big to read whole (read it in parts with ``offset`` and ``limit``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path

from .._results import Failed, InvalidArgs, Text, ToolResult
from .._tool import RuntimeTool, function_tool
from ._paths import Workspace

__all__ = ["MAX_FILE_BYTES", "MAX_LIST_ENTRIES", "MAX_READ_CHARS", "fs_tools"]

MAX_FILE_BYTES = 10_000_000
"""The largest file `fs_read` reads (bytes)."""
MAX_READ_CHARS = 100_000
"""The most text one `fs_read` call returns; the rest is read with ``offset``."""
MAX_LIST_ENTRIES = 1_000
"""The most entries one `fs_list` call returns."""
_SNIFF_BYTES = 8_192  # a NUL byte in the first 8 KiB: a binary file, as git decides


def fs_tools(workspace: Workspace) -> list[RuntimeTool]:
    """`fs_read`, `fs_write` and `fs_list`, working in `workspace`."""

    async def fs_read(path: str, offset: int = 0, limit: int = 2_000) -> ToolResult:
        """Read a UTF-8 text file, or a range of its lines.

        Args:
            path: The file, relative to the working directory.
            offset: How many lines to skip from the start of the file.
            limit: The most lines to read.
        """
        if offset < 0 or limit < 1:
            raise InvalidArgs("fs_read", ["offset: must be 0 or more, limit: 1 or more"])
        file = workspace.resolve(path, tool="fs_read")
        return await asyncio.to_thread(_read, workspace, file, offset, limit)

    async def fs_write(path: str, content: str) -> ToolResult:
        """Write a UTF-8 text file, replacing it if it exists (its directories are made).

        Args:
            path: The file, relative to the working directory.
            content: The whole new text of the file.
        """
        file = workspace.resolve(path, tool="fs_write")
        return await asyncio.to_thread(_write, workspace, file, content)

    async def fs_list(path: str = ".", pattern: str | None = None) -> ToolResult:
        """List a directory: its entries, or those matching a glob pattern.

        Args:
            path: The directory, relative to the working directory.
            pattern: A glob such as "*.py" or "**/*.md" ("**" descends); every entry
                when left out.
        """
        directory = workspace.resolve(path, tool="fs_list")
        return await asyncio.to_thread(_list, workspace, directory, pattern)

    return [
        function_tool(fs_read, path_arguments=("path",), category="files"),
        function_tool(fs_write, path_arguments=("path",), category="files", is_dangerous=True),
        function_tool(fs_list, path_arguments=("path",), category="files"),
    ]


# -- fs_read ----------------------------------------------------------------------------------


def _read(workspace: Workspace, file: Path, offset: int, limit: int) -> ToolResult:
    shown = workspace.shown(file)
    _check_readable(file, shown)
    try:
        text = file.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise Failed(f"{shown!r} is not UTF-8 text; fs_read reads text files only") from None
    lines = text.splitlines(keepends=True)
    chosen = _fitting(lines[offset:offset + limit])
    end = offset + len(chosen)
    body = "".join(chosen)
    if end < len(lines):  # say where to read on; a whole file is given as it is
        body += f"\n[lines {offset + 1}-{end} of {len(lines)}; read on with offset={end}]"
    elif offset >= len(lines) > 0:
        body = f"[offset {offset} is past the end: {shown!r} has {len(lines)} lines]"
    details = {"path": shown, "offset": offset, "lines": len(chosen), "total_lines": len(lines)}
    return ToolResult((Text(body),), details=details)


def _check_readable(file: Path, shown: str) -> None:
    if not file.exists():
        raise Failed(f"there is no file {shown!r}; list the directory with fs_list")
    if file.is_dir():
        raise Failed(f"{shown!r} is a directory; list it with fs_list")
    size = file.stat().st_size
    if size > MAX_FILE_BYTES:
        raise Failed(f"{shown!r} is {size} bytes, more than fs_read reads "
                     f"({MAX_FILE_BYTES}); search it with a command instead")
    with file.open("rb") as stream:
        if b"\0" in stream.read(_SNIFF_BYTES):
            raise Failed(f"{shown!r} is a binary file; fs_read reads text files only")


def _fitting(lines: list[str]) -> list[str]:
    """The first of `lines` that fit in `MAX_READ_CHARS` (at least part of the first)."""
    kept: list[str] = []
    size = 0
    for line in lines:
        if size + len(line) > MAX_READ_CHARS:
            return kept or [line[:MAX_READ_CHARS]]
        kept.append(line)
        size += len(line)
    return kept


# -- fs_write ---------------------------------------------------------------------------------


def _write(workspace: Workspace, file: Path, content: str) -> ToolResult:
    shown = workspace.shown(file)
    if file.is_dir():
        raise Failed(f"{shown!r} is a directory; give the path of a file in it")
    created = not file.exists()
    # The parents of a path inside the working directory are inside it too, and do not exist
    # yet, so making them follows no symlink.
    file.parent.mkdir(parents=True, exist_ok=True)
    with file.open("w", encoding="utf-8", newline="") as stream:
        stream.write(content)
    verb = "Created" if created else "Replaced"
    lines = content.count("\n") + (not content.endswith("\n") and content != "")
    details = {"path": shown, "created": created, "characters": len(content)}
    return ToolResult((Text(f"{verb} {shown!r}: {len(content)} characters, {lines} lines."),),
                      details=details)


# -- fs_list ----------------------------------------------------------------------------------


def _list(workspace: Workspace, directory: Path, pattern: str | None) -> ToolResult:
    shown = workspace.shown(directory)
    if not directory.is_dir():
        raise Failed(f"{shown!r} is not a directory" + ("" if directory.exists() else
                                                        " (it does not exist)"))
    entries, outside, more = _entries(workspace, directory, _matches(directory, pattern))
    lines = sorted(entries)
    if outside:
        lines.append(f"[{outside} entries outside the working directory left out]")
    if more:
        lines.append(f"[more than {MAX_LIST_ENTRIES} entries: narrow the pattern]")
    text = "\n".join(lines) if lines else f"[{shown!r} has no entries" + (
        f" matching {pattern!r}]" if pattern else "]")
    return ToolResult((Text(text),), details={"path": shown, "entries": sorted(entries)})


def _matches(directory: Path, pattern: str | None) -> Iterable[Path]:
    if not pattern:
        return directory.iterdir()
    try:
        return list(directory.glob(pattern))
    except (ValueError, NotImplementedError) as error:  # empty or absolute patterns
        raise InvalidArgs("fs_list", [f"pattern: {pattern!r} is not a relative glob ({error})"]
                          ) from None


def _entries(workspace: Workspace, directory: Path, matches: Iterable[Path]
             ) -> tuple[list[str], int, bool]:
    """The matches as names relative to `directory` (a directory's with a ``/``), how many
    were left out as outside the working directory, and whether there were too many."""
    entries: list[str] = []
    outside = 0
    for match in matches:
        if len(entries) == MAX_LIST_ENTRIES:
            return entries, outside, True
        resolved = match.resolve()
        if not workspace.allow_outside and not workspace.contains(resolved):
            outside += 1  # a symlink out, or a pattern such as ../*
            continue
        name = match.relative_to(directory).as_posix()
        entries.append(name + "/" if resolved.is_dir() else name)
    return entries, outside, False
