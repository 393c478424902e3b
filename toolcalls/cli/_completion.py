"""``toolcalls completion bash|zsh|fish``: shell completion by argcomplete (the ``completion``
extra), which completes from the command's own parser, so it never falls behind an option.

The printed script calls ``toolcalls`` with ``_ARGCOMPLETE`` set whenever the shell asks;
`complete_if_asked` answers then (argcomplete prints the candidates and exits) and costs nothing
otherwise: argcomplete is imported only for a completion.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from ._input import InputError

__all__ = ["SHELLS", "add_command", "complete_if_asked"]

SHELLS = ("bash", "zsh", "fish")


def add_command(commands: Any) -> None:
    c = commands.add_parser("completion", help="print the shell completion script for bash, "
                            "zsh or fish (needs toolcalls[completion])",
                            description="Load it in the shell's start-up file, e.g. "
                            "eval \"$(toolcalls completion bash)\" in ~/.bashrc, or "
                            "toolcalls completion fish > "
                            "~/.config/fish/completions/toolcalls.fish")
    c.add_argument("shell", choices=SHELLS, help="the shell the script is for")
    c.set_defaults(run=_completion)


def complete_if_asked(parser: argparse.ArgumentParser) -> None:
    """When a shell asks for completions, print them and exit (argcomplete's protocol)."""
    if "_ARGCOMPLETE" not in os.environ:
        return
    try:
        import argcomplete  # the completion extra: loaded only when a shell asks
    except ImportError:
        return  # no completions, and no error in the middle of the user's command line
    argcomplete.autocomplete(parser)


def _completion(args: argparse.Namespace) -> int:
    try:
        from argcomplete.shell_integration import shellcode
    except ImportError as missing:
        raise InputError(f"shell completion needs argcomplete ({missing}): "
                         "pip install 'toolcalls[completion]'") from None
    print(shellcode(["toolcalls"], shell=args.shell))
    return 0
