"""A small grammar description, written out as llguidance Lark, plain Lark or GBNF.

The whole-format grammars (`_formats`) are built from these nodes, so one description gives
every dialect. Free text is the hard part of a tool-call grammar: the content before a call
must not hold the call's opener, or the model could never stop writing content. Two nodes say
so, each written as its engine can express it:

* `Free`: text holding none of ``exclude`` (to the end of the response, or before a one-character
  opener such as ``{``, where a greedy token stops by itself);
* `Until`: text holding none of ``exclude``, up to and including the first ``end`` (the content
  before a multi-character opener, a raw parameter value before its close tag). llguidance
  writes it as a lazy lexeme, Lark as a regex with a negative lookahead, GBNF as the states of
  a string-matching automaton (`_automaton`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Alt",
    "Free",
    "Grammar",
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


_NUMBER_REGEX = "-?(?:0|[1-9][0-9]{0,199})"
_FRACTION_REGEX = "(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]{1,2})?"
_NUMBER_GBNF = '"-"? ("0" | [1-9] [0-9]{0,199})'
_FRACTION_GBNF = ' ("." [0-9]+)? ([eE] [-+]? [0-9]{1,2})?'


def number_regex(node: Number) -> str:
    return _NUMBER_REGEX + ("" if node.integer else _FRACTION_REGEX)


Node = Lit | Json | Free | Until | Ws | Ref | Seq | Alt | Rep | Opt | Number | Shared


def seq(*items: Node) -> Node:
    """A sequence, without its empty literals (an empty literal when nothing is left)."""
    kept = tuple(item for item in items if item != Lit(""))
    if not kept:
        return Lit("")
    return kept[0] if len(kept) == 1 else Seq(kept)


def alt(*items: Node) -> Node:
    return items[0] if len(items) == 1 else Alt(tuple(items))


@dataclass
class Grammar:
    """Named rules; ``start`` is the whole response."""

    rules: dict[str, Node] = field(default_factory=dict)

    def write(self, dialect: str, *, bounded_whitespace: bool = True) -> str:
        """The grammar in ``dialect``; ``bounded_whitespace``: the blanks between two JSON
        tokens are `JSON_BLANKS` (else any blanks, which a model can write without end)."""
        writer = _WRITERS.get(dialect)
        if writer is None:
            raise ValueError(f"unknown grammar dialect {dialect!r}: one of {sorted(_WRITERS)}")
        return writer(self, bounded_whitespace)


# -- shared helpers ---------------------------------------------------------------------------

_REGEX_META = set("\\.+*?()|[]{}^$#&-~/")


def regex_escape(text: str) -> str:
    """Escapes only what is special in both Python's and Rust's regex syntax (and ``/``, the
    Lark delimiter): Rust refuses some of the escapes `re.escape` writes."""
    return escape_chars(text, _REGEX_META)


CONTROL_ESCAPES = {
    **{chr(code): f"\\x{code:02x}" for code in range(0x20)},
    "\n": "\\n", "\r": "\\r", "\t": "\\t",
}
"""Control characters as escapes every dialect reads (a raw NUL in a grammar's text is lost)."""


def escape_chars(text: str, special: str | set[str]) -> str:
    """``text`` with a backslash before each ``special`` character and newline, carriage
    return and tab written as escapes: the quoting shared by regexes and GBNF strings."""
    return "".join("\\" + char if char in special else CONTROL_ESCAPES.get(char, char)
                   for char in text)


def lark_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


class _Namer:
    """Helper rules made while writing (one per JSON value, lazy text...), numbered."""

    def __init__(self) -> None:
        self.extra: list[str] = []
        self.count = 0
        self.seen: dict[str, str] = {}

    def add(self, prefix: str, body: str, make: Callable[[str, str], str]) -> str:
        key = prefix + "\0" + body
        if key in self.seen:
            return self.seen[key]
        self.count += 1
        name = f"{prefix}_{self.count}"
        self.seen[key] = name
        self.extra.append(make(name, body))
        return name


class _SharedRules:
    """The rules of the `Shared` nodes met while writing, named in the order met. A body is
    written after the rule that names it, from a queue, never inside it: nested lists make no
    nested calls, however deep."""

    def __init__(self, separator: str) -> None:
        self.separator = separator
        self.names: dict[int, str] = {}
        self.pending: list[Shared] = []

    def name(self, node: Shared) -> str:
        if id(node) not in self.names:  # `pending` keeps the node, so its id stays its own
            self.names[id(node)] = f"value{self.separator}{len(self.names) + 1}"
            self.pending.append(node)
        return self.names[id(node)]

    def lines(self, write: Callable[[Node], str], assign: str) -> list[str]:
        lines = []
        for node in self.pending:  # grows while it is read: a body names the rules inside it
            lines.append(f"{self.names[id(node)]}{assign}{write(node.item)}")
        return lines


def _walk(
    node: Node, write_leaf: Callable[[Node], str], join_alt: str = " | "
) -> str:
    if isinstance(node, Seq):
        return " ".join(_group(item, write_leaf) for item in node.items)
    if isinstance(node, Alt):
        return join_alt.join(_walk(item, write_leaf) for item in node.items)
    if isinstance(node, Rep):
        return _group(node.item, write_leaf) + ("+" if node.least else "*")
    if isinstance(node, Opt):
        return _group(node.item, write_leaf) + "?"
    return write_leaf(node)


def _group(node: Node, write_leaf: Callable[[Node], str]) -> str:
    text = _walk(node, write_leaf)
    return f"({text})" if isinstance(node, Seq | Alt) else text


def _class_escape(chars: str) -> str:
    return "".join(
        CONTROL_ESCAPES.get(c, "\\" + c if c in "]\\^-[/" else c) for c in chars
    )


def _any_of(texts: Sequence[str]) -> str:
    return "|".join(regex_escape(text) for text in sorted(set(texts), key=lambda t: (-len(t), t)))


# -- llguidance -------------------------------------------------------------------------------


JSON_BLANKS = "(?: |\\r?\\n[ \\t]{0,32})?"
"""The blanks between two JSON tokens, bounded: one space (the templates' ``{"a": 1, "b": 2}``)
or none, or one line break and an indent (pretty-printed JSON, which models write too)."""
_BOUNDED_JSON = {"x-guidance": {"whitespace_pattern": JSON_BLANKS}}
TAG_BLANKS = "[ \\t]{1,32}|(?:[ \\t]{0,32}\\r?\\n){1,4}[ \\t]{0,32}"
"""The blanks between tags (`Ws`), bounded: a few line breaks, each line indented at most 32
columns, where the templates write one line break (or none)."""
_GBNF_TAG_BLANKS = '([ \\t]{0,32} "\\r"? "\\n"){0,4} [ \\t]{0,32}'
_ANY_BLANKS = "[ \\t\\r\\n]+"


def _write_llguidance(grammar: Grammar, bounded_whitespace: bool) -> str:
    namer = _Namer()
    shared = _SharedRules("_")
    options = _BOUNDED_JSON if bounded_whitespace else {}
    blanks = TAG_BLANKS if bounded_whitespace else _ANY_BLANKS

    def leaf(node: Node) -> str:
        if isinstance(node, Lit):
            if node.token:
                return node.text
            return lark_string(node.text)
        if isinstance(node, Ref):
            return node.name
        if isinstance(node, Shared):
            return shared.name(node)
        if isinstance(node, Ws):
            return namer.add("WS", "", lambda name, _: f"{name}: /{blanks}/") + "?"
        if isinstance(node, Number):
            return namer.add("NUMBER", f"/{number_regex(node)}/", lambda name, b: f"{name}: {b}")
        if isinstance(node, Json):
            body = json.dumps({**node.schema, **options}, ensure_ascii=False, sort_keys=False)
            return namer.add("json", body, lambda name, b: f"{name}: %json {b}")
        if isinstance(node, Free):
            first = f"[^{_class_escape(node.first_not)}]" if node.first_not else "."
            body = f"/(?s:{first}.*)/" + _not_containing(node.exclude)
            return namer.add("FREE", body, lambda name, b: f"{name}: {b}")
        if isinstance(node, Until):
            body = f"/(?s:.*){regex_escape(node.end)}/" + _not_containing(node.exclude)
            return namer.add("until", body, lambda name, b: f"{name}[lazy]: {b}")
        raise TypeError(node)

    lines = [f"{name}: {_walk(node, leaf)}" for name, node in grammar.rules.items()]
    lines += shared.lines(lambda node: _walk(node, leaf), ": ")
    return "%llguidance {}\n\n" + "\n".join(lines + [""] + namer.extra) + "\n"


def _not_containing(exclude: tuple[str, ...]) -> str:
    if not exclude:
        return ""
    return f" & ~/(?s:.*)({_any_of(exclude)})(?s:.*)/"


# -- plain Lark (Python lark, Earley) ---------------------------------------------------------


def _write_lark(grammar: Grammar, bounded_whitespace: bool) -> str:
    from ._json_rules import JsonRules

    namer = _Namer()
    shared = _SharedRules("_")
    json_rules = JsonRules("lark", bounded_whitespace)

    def leaf(node: Node) -> str:
        if isinstance(node, Lit):
            return lark_string(node.text)
        if isinstance(node, Ref):
            return node.name
        if isinstance(node, Shared):
            return shared.name(node)
        if isinstance(node, Ws):
            return "WS?"
        if isinstance(node, Number):
            return namer.add("NUMBER", f"/{number_regex(node)}/", lambda name, b: f"{name}: {b}")
        if isinstance(node, Json):
            return json_rules.rule(node.schema)
        if isinstance(node, Free):
            char = f"(?:(?!{_any_of(node.exclude)})[\\s\\S])" if node.exclude else r"[\s\S]"
            first = f"(?![{_class_escape(node.first_not)}])" if node.first_not else ""
            body = f"/{first}{char}+/"
            return namer.add("FREE", body, lambda name, b: f"{name}: {b}")
        if isinstance(node, Until):
            stops = _any_of((*node.exclude, node.end))
            body = f"/(?:(?!{stops})[\\s\\S])*{regex_escape(node.end)}/"
            return namer.add("UNTIL", body, lambda name, b: f"{name}: {b}")
        raise TypeError(node)

    lines = [f"{name}: {_walk(node, leaf)}" for name, node in grammar.rules.items()]
    lines += shared.lines(lambda node: _walk(node, leaf), ": ")
    blanks = TAG_BLANKS if bounded_whitespace else _ANY_BLANKS
    tail = [f"WS: /{blanks}/", *namer.extra, *json_rules.lines]
    return "\n".join(lines + [""] + tail) + "\n"


# -- GBNF (llama.cpp) -------------------------------------------------------------------------


def _write_gbnf(grammar: Grammar, bounded_whitespace: bool) -> str:
    from ._automaton import text_rules
    from ._json_rules import JsonRules, gbnf_string

    json_rules = JsonRules("gbnf", bounded_whitespace)
    shared = _SharedRules("-")
    extra: list[str] = []
    made: dict[tuple[str, tuple[str, ...]], str] = {}

    def text_rule(end: str, exclude: tuple[str, ...], nonempty: bool) -> str:
        key = (end, exclude)
        if key not in made:
            name = f"text{len(made) + 1}"
            made[key] = name
            extra.extend(text_rules(name, exclude, end, nonempty))
        return made[key]

    def leaf(node: Node) -> str:
        if isinstance(node, Lit):
            return gbnf_string(node.text)
        if isinstance(node, Ref):
            return node.name.replace("_", "-")
        if isinstance(node, Shared):
            return shared.name(node)
        if isinstance(node, Ws):
            return "ws"
        if isinstance(node, Number):
            return f"({_NUMBER_GBNF}{'' if node.integer else _FRACTION_GBNF})"
        if isinstance(node, Json):
            return json_rules.rule(node.schema)
        if isinstance(node, Free):
            rule = text_rule("", node.exclude, True)
            if node.first_not:  # an approximation: the first character restarts the watch
                return f"[^{_class_escape(node.first_not)}] {rule}-s0"
            return rule
        if isinstance(node, Until):
            return text_rule(node.end, node.exclude, False)
        raise TypeError(node)

    lines = [
        f"{'root' if name == 'start' else name.replace('_', '-')} ::= {_walk(node, leaf)}"
        for name, node in grammar.rules.items()
    ]
    lines += shared.lines(lambda node: _walk(node, leaf), " ::= ")
    blanks = _GBNF_TAG_BLANKS if bounded_whitespace else "[ \\t\\r\\n]*"
    tail = [f"ws ::= {blanks}", *extra, *json_rules.lines]
    return "\n".join(lines + tail) + "\n"


_WRITERS: dict[str, Callable[[Grammar, bool], str]] = {
    "llguidance": _write_llguidance,
    "lark": _write_lark,
    "gbnf": _write_gbnf,
}
