"""Paths as permission rules see them: absolute, ``~`` expanded, ``..`` and symlinks resolved.

A rule such as ``fs_read(~/project/**)`` must hold whatever spelling the model uses for a path:
``~/project/../.ssh/id_rsa``, ``/home/me//project/./x``, a relative ``../../etc/passwd``, or a
symlink inside the project that points out of it. Both the path and the pattern are brought to
one form before they are compared: `normalize_path` for the model's path, `PathPattern` for the
rule's pattern (its literal head resolved the same way, its glob tail kept)::

    PathPattern.parse("~/project/**", home=Path("/home/me"), working_dir=Path("/srv"))
    # matches /home/me/project and everything under it, after symlinks are resolved

Glob syntax: ``**`` any run of directories (``**/`` also none), ``*`` and ``?`` within one
name, ``[...]`` a character class. A pattern that starts with ``**`` matches anywhere; one that
starts with ``/`` or ``~`` is absolute; any other is relative to the working directory.
Comparison is exact (POSIX: case matters).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PathPattern", "normalize_path"]

_GLOB_CHARS = frozenset("*?[")


def normalize_path(value: object, working_dir: Path, home: Path) -> Path | None:
    """`value` as one absolute path with symlinks resolved, or None when it is not a path a
    rule can vouch for (not a string, empty, a NUL byte, ``~user``)."""
    if not isinstance(value, str) or not value or "\x00" in value:
        return None
    expanded = _expand_home(value, home)
    if expanded is None:
        return None
    path = Path(expanded)
    if not path.is_absolute():
        path = working_dir / path
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError):  # a symlink loop, or a path the OS refuses
        return None


def _expand_home(value: str, home: Path) -> str | None:
    if value == "~" or value.startswith("~/"):
        return str(home) + value[1:]
    if value.startswith("~"):
        return None  # another user's home: not something a rule should guess
    return value


@dataclass(frozen=True)
class PathPattern:
    """One rule's path pattern, anchored and compiled."""

    text: str
    regex: re.Pattern[str]

    @classmethod
    def parse(cls, text: str, *, working_dir: Path, home: Path) -> PathPattern:
        if text.startswith("**"):
            return cls(text, re.compile(_glob_regex(text)))
        expanded = _expand_home(text, home)
        if expanded is None:
            raise ValueError(f"the path pattern {text!r} names another user's home: write the "
                             "absolute path")
        if not expanded.startswith("/"):
            expanded = str(working_dir / expanded)
        head, tail = _split_at_glob(expanded)
        resolved_head = os.path.realpath(head) if head else "/"
        joined = resolved_head.rstrip("/") + ("/" + tail if tail else "")
        return cls(text, re.compile(_glob_regex(joined)))

    def matches(self, path: Path) -> bool:
        return self.regex.fullmatch(path.as_posix()) is not None


def _split_at_glob(path: str) -> tuple[str, str]:
    """The literal directories before the first part with a glob character, and the rest."""
    parts = path.split("/")
    for index, part in enumerate(parts):
        if _GLOB_CHARS & set(part):
            return "/".join(parts[:index]), "/".join(parts[index:])
    return path, ""


def _glob_regex(glob: str) -> str:
    out, index = [], 0
    while index < len(glob):
        if glob.startswith("/**", index) and index + 3 == len(glob):
            out.append("(?:/.*)?")  # dir/** is the directory and everything under it
            index += 3
        elif glob.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
        elif glob.startswith("**", index):
            out.append(".*")
            index += 2
        else:
            out.append(_one_char(glob, index))
            index += _char_width(glob, index)
    return "".join(out)


def _one_char(glob: str, index: int) -> str:
    char = glob[index]
    if char == "*":
        return "[^/]*"
    if char == "?":
        return "[^/]"
    if char == "[":
        end = glob.find("]", index + 2)
        if end != -1:
            body = glob[index + 1:end].replace("\\", "\\\\")
            return "[^/]" if not body else f"(?!/)[{'^' + body[1:] if body[0] == '!' else body}]"
    return re.escape(char)


def _char_width(glob: str, index: int) -> int:
    if glob[index] == "[":
        end = glob.find("]", index + 2)
        if end != -1:
            return end - index + 1
    return 1
