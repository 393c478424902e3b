"""Where the built-in tools may reach: the working directory, checked inside each tool.

Permission rules (another module) may also restrict a tool's paths; this check stands without
them, so a tool built here never reads or writes outside its working directory by mistake
(defence in depth). A path is taken relative to the working directory, ``~`` is the user's
home, and symlinks are resolved before the check, so ``../x`` and a link that points out are
both outside::

    workspace = Workspace.at("/srv/project")
    workspace.resolve("src/main.py", tool="fs_read")   # Path("/srv/project/src/main.py")
    workspace.resolve("../.ssh/id_rsa", tool="fs_read")  # raises Denied

A check and the use that follows are two steps: a symlink swapped in between by another
process can still redirect the use. The check is against the model's mistakes and tricks, not
against a hostile process on the same machine.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..._errors import ToolCallsError
from .._results import Denied, InvalidArgs

__all__ = ["WorkingDirectoryError", "Workspace"]


class WorkingDirectoryError(ToolCallsError, NotADirectoryError):
    """The built-in tools were given a working directory that is not a directory."""


@dataclass(frozen=True)
class Workspace:
    """The directory the built-in tools work in, and whether they may leave it."""

    root: Path
    """The working directory, absolute with its symlinks resolved."""
    allow_outside: bool = False
    """Let paths outside `root` through (permission rules are then the only limit)."""

    @classmethod
    def at(cls, working_dir: str | Path, *, allow_outside: bool = False) -> Workspace:
        """The workspace of `working_dir`, which must be an existing directory."""
        root = Path(working_dir).expanduser().resolve()
        if not root.is_dir():
            raise WorkingDirectoryError(f"the working directory {str(working_dir)!r} is not a "
                                        "directory: create it, or pass one that exists")
        return cls(root, allow_outside)

    def resolve(self, path: str, *, tool: str, argument: str = "path") -> Path:
        """`path` as an absolute path with its symlinks resolved; `Denied` when outside the
        working directory (unless `allow_outside`), `InvalidArgs` when not a path at all."""
        try:
            resolved = (self.root / Path(path).expanduser()).resolve()
        except (ValueError, OSError, RuntimeError) as error:  # NUL bytes, symlink loops
            raise InvalidArgs(tool, [f"{argument}: {path!r} is not a usable path ({error})"]
                              ) from None
        if not self.allow_outside and not self.contains(resolved):
            raise Denied(f"{path!r} is outside the working directory {str(self.root)!r} "
                         "(symlinks resolved); use a path inside it")
        return resolved

    def contains(self, resolved: Path) -> bool:
        """Whether `resolved` (already resolved) is the working directory or inside it."""
        return resolved == self.root or resolved.is_relative_to(self.root)

    def shown(self, resolved: Path) -> str:
        """`resolved` as the model should write it: relative to the working directory when
        inside it."""
        if self.contains(resolved):
            return resolved.relative_to(self.root).as_posix() or "."
        return str(resolved)
