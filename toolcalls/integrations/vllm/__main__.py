"""``python -m toolcalls.integrations.vllm --path``: the file for vLLM's ``--tool-parser-plugin``
(``--list``: the names it registers, for ``--tool-call-parser``). Imports no vLLM."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .._session import parser_names
from . import plugin_path

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Print the plugin's path (``--path``) or the parser names (``--list``)."""
    options = argparse.ArgumentParser(
        prog="python -m toolcalls.integrations.vllm",
        description="toolcalls' formats as vLLM tool parsers (--tool-parser-plugin).",
    )
    options.add_argument("--path", action="store_true",
                         help="print the file to pass to vLLM's --tool-parser-plugin")
    options.add_argument("--list", action="store_true",
                         help="print the names to pass to --tool-call-parser")
    args = options.parse_args(argv)
    if args.list:
        print("\n".join(parser_names()))
    elif args.path:
        print(plugin_path())
    else:
        options.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
