"""Built-in tools: files and a shell, safe by default, to give an agent hands at once.

>>> import tempfile
>>> from toolcalls.runtime import builtin_tools
>>> [t.name for t in builtin_tools(tempfile.gettempdir())]
['fs_read', 'fs_write', 'fs_list', 'shell']

=========  ==========================  ============  ==========================================
tool       arguments                   dangerous     what it does
=========  ==========================  ============  ==========================================
fs_read    path, offset?, limit?       no            a UTF-8 text file, or a range of its lines
fs_write   path, content               yes (Ask)     writes a text file, making its directories
fs_list    path?, pattern?             no            a directory's entries, or a glob's matches
shell      command, timeout?           yes (Ask)     ``/bin/sh -c command``: exit code, output
=========  ==========================  ============  ==========================================

Every path is taken relative to the working directory, symlinks resolved, and a path outside
it is refused inside the tool (`Denied`), with or without permission rules, unless
``allow_outside=True``. The shell runs in the working directory, but a command can reach
anything the process can: that is why it is asked about (``is_dangerous``) under the default
permissions, and why its ``command`` argument is declared for rules such as
``shell(git status*)``.
"""

from __future__ import annotations

from pathlib import Path

from .._tool import RuntimeTool
from ._fs import fs_tools
from ._paths import WorkingDirectoryError, Workspace
from ._shell import shell_tool

__all__ = ["WorkingDirectoryError", "Workspace", "builtin_tools"]


def builtin_tools(working_dir: str | Path, *, allow_outside: bool = False) -> list[RuntimeTool]:
    """``fs_read``, ``fs_write``, ``fs_list`` and ``shell``, working in `working_dir` (an
    existing directory, else `WorkingDirectoryError`)."""
    workspace = Workspace.at(working_dir, allow_outside=allow_outside)
    return [*fs_tools(workspace), shell_tool(workspace)]
