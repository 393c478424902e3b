"""A small grammar description: the nodes a whole-response grammar is built from.

The whole-format grammars (`_formats`) are built from these nodes, and `_dialects` writes them
out as llguidance Lark, plain Lark or GBNF, so one description gives every dialect. Free text
is the hard part of a tool-call grammar: the content before a call must not hold the call's
opener, or the model could never stop writing content. Two nodes say so, each written as its
engine can express it:

* `Free`: text holding none of ``exclude`` (to the end of the response, or before a one-character
  opener such as ``{``, where a greedy token stops by itself);
* `Until`: text holding none of ``exclude``, up to and including the first ``end`` (the content
  before a multi-character opener, a raw parameter value before its close tag). llguidance
  writes it as a lazy lexeme, Lark as a regex with a negative lookahead, GBNF as the states of
  a string-matching automaton (`_automaton`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Alt",
    "Free",
    "Json",
    "Lit",
    "Node",
    "Number",
    "Opt",
    "Ref",
    "Rep",
    "Seq",
    "Shared",
    "Until",
    "Ws",
]


@dataclass(frozen=True)
class Lit:
    """A literal; ``special``: one special token of the model's tokenizer (``<|python_tag|>``)."""

    text: str
    special: bool = False

    @property
    def token(self) -> bool:
        """Written as one special token in llguidance, which names special tokens only in the
        ``<|...|>`` spelling; others (Mistral's ``[TOOL_CALLS]``) are written as their text
        (the tokenizer-specific ``<[id]>`` would tie the grammar to one tokenizer)."""
        return self.special and self.text.startswith("<") and self.text.endswith(">")


@dataclass(frozen=True)
class Json:
    """A JSON value valid against ``schema``."""

    schema: Mapping[str, Any]


@dataclass(frozen=True)
class Free:
    """Text (at least one character) holding none of ``exclude``, whose first character is
    none of ``first_not``."""

    exclude: tuple[str, ...]
    first_not: str = ""


@dataclass(frozen=True)
class Until:
    """Text holding none of ``exclude``, then ``end`` (its first occurrence)."""

    end: str
    exclude: tuple[str, ...] = ()


@dataclass(frozen=True)
class Ws:
    """Optional blanks (spaces, tabs, line breaks)."""


@dataclass(frozen=True)
class Ref:
    name: str


@dataclass(frozen=True)
class Seq:
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Alt:
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Rep:
    """``item`` at least ``least`` (0 or 1) times."""

    item: Node
    least: int = 0


@dataclass(frozen=True)
class Opt:
    item: Node


@dataclass(frozen=True, eq=False)
class Shared:
    """``item`` written once, as a rule of its own, and named wherever it stands. A node that
    stands in several places (a list's item, before and after its commas) is otherwise written
    out in each, and lists nested in lists would double the text at each level. Compared by
    identity: equal-looking nodes built apart are two rules, and no comparison walks a tree."""

    item: Node


@dataclass(frozen=True)
class Number:
    """A number as Python and JSON write it that is a finite double: at most 200 digits before
    the point and an exponent of at most two digits (``1.5e3``, never ``1e400``, which the
    readers refuse); ``integer``: digits only."""

    integer: bool = False


Node = Lit | Json | Free | Until | Ws | Ref | Seq | Alt | Rep | Opt | Number | Shared


def seq(*items: Node) -> Node:
    """A sequence, without its empty literals (an empty literal when nothing is left)."""
    kept = tuple(item for item in items if item != Lit(""))
    if not kept:
        return Lit("")
    return kept[0] if len(kept) == 1 else Seq(kept)


def alt(*items: Node) -> Node:
    return items[0] if len(items) == 1 else Alt(tuple(items))


