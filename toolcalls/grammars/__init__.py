"""Whole-response grammars of each format, for constrained decoding (llguidance, Lark, GBNF,
xgrammar structural tags). Not on the parse path: never compiled."""

from ._api import Dialect, grammar, structural_tag

__all__ = ["Dialect", "grammar", "structural_tag"]
