"""Writing a `Grammar` (named rules of `_ir` nodes) out as llguidance Lark, plain Lark or GBNF."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ._automaton import text_rules
from ._escape import CONTROL_ESCAPES, gbnf_string, lark_string, regex_escape
from ._ir import Alt, Free, Json, Lit, Node, Number, Opt, Ref, Rep, Seq, Shared, Until, Ws
from ._json_rules import JsonRules

__all__ = ["JSON_BLANKS", "TAG_BLANKS", "Grammar"]


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



_NUMBER_REGEX = "-?(?:0|[1-9][0-9]{0,199})"
_FRACTION_REGEX = "(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]{1,2})?"
_NUMBER_GBNF = '"-"? ("0" | [1-9] [0-9]{0,199})'
_FRACTION_GBNF = ' ("." [0-9]+)? ([eE] [-+]? [0-9]{1,2})?'


def number_regex(node: Number) -> str:
    return _NUMBER_REGEX + ("" if node.integer else _FRACTION_REGEX)


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

