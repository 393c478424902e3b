"""Constrained decoding: each format's whole-response grammar (llguidance, Lark, GBNF) and
xgrammar structural tags, built from what the format declares (`Format.call_region`,
`structural_tag`, `xgrammar_style`). Not on the parse path: never compiled. (Formerly
``toolcalls.grammars``, still importable under that name.)"""

from ._api import Dialect, grammar, structural_tag

__all__ = ["Dialect", "grammar", "structural_tag"]
