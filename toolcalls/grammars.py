"""The old name of `toolcalls.decoding` (the constrained-decoding export), kept so that code
importing ``toolcalls.grammars`` goes on working. Not to be confused with
``toolcalls/parsing/grammars/``, the Lark grammars the readers parse with."""

from .decoding import Dialect, grammar, structural_tag

__all__ = ["Dialect", "grammar", "structural_tag"]
