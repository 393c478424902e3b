"""Lark grammars: loaded from the installed package once, on first use."""

from __future__ import annotations

import functools
from typing import Any

from lark import Lark

__all__ = ["load_grammar"]


@functools.cache
def load_grammar(name: str, start: str = "start", **options: Any) -> Lark:
    """The LALR parser of ``toolcalls/parsing/grammars/<name>.lark`` (built once per process).

    No ``cache=True``: that would write pickles to the temp directory, a side effect a library
    should not have.
    """
    return Lark.open_from_package(
        "toolcalls.parsing", f"{name}.lark", ("grammars",), parser="lalr", start=start, **options
    )
