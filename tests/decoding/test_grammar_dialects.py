"""The same grammar in each dialect: what the format's renderer writes is parsed by the plain
Lark one (Python ``lark``, Earley) and, with ``tool_choice="required"``, accepted by the GBNF
one compiled by llguidance's GBNF reader. That reader turns GBNF into lexemes, and its lexer
does not backtrack, so the free-text automaton of ``"auto"`` (written for llama.cpp's
character-level GBNF engine) is not checked through it: no GBNF engine is installed here."""

from __future__ import annotations

import pytest
from lark import Lark
from lark.exceptions import LarkError

import toolcalls
from toolcalls.decoding import grammar
from toolcalls.decoding._table import REGIONS

pytest.importorskip("llguidance")
pytest.importorskip("numpy")

from toolcalls.testing._sampling import accepts  # noqa: E402

TOOLS = [
    {"name": "get_weather", "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city"],
    }},
    {"name": "search", "parameters": {
        "type": "object",
        "properties": {"q": {"type": "string"}, "mode": {"enum": ["fast", "deep"]}},
        "required": ["q", "mode"],
    }},
]
CALLS = [
    toolcalls.ToolCall(id="a", name="get_weather", arguments={"city": "Paris", "days": 3},
                       source="native"),
    toolcalls.ToolCall(id="b", name="search", arguments={"q": "x y", "mode": "deep"},
                       source="native"),
]


def rendered(name: str) -> list[str]:
    fmt = toolcalls.get_format(name)
    return [fmt.render_calls(CALLS), fmt.render_calls(CALLS, "Let me check."),
            fmt.render_calls(CALLS[:1], "One call.")]


@pytest.mark.parametrize("name", sorted(REGIONS))
def test_gbnf_accepts_what_the_format_writes(name: str) -> None:
    # One tool: with two, llguidance's GBNF reader refuses one of them (`test_llguidance_
    # gbnf_reader_folds_terminal_rules`); llama.cpp's own engine reads GBNF by character.
    rules = grammar(name, TOOLS[:1], dialect="gbnf", tool_choice="required")
    assert rules.startswith("root ::= ")
    text = toolcalls.get_format(name).render_calls(CALLS[:1])
    assert accepts(rules, text, specials=(), dialect="gbnf") is None, text
    assert accepts(grammar(name, TOOLS, dialect="gbnf", tool_choice="required"),
                   "Let me check." + rendered(name)[0], specials=(), dialect="gbnf") is not None


@pytest.mark.parametrize("name", sorted(REGIONS))
def test_plain_lark_parses_what_the_format_writes(name: str) -> None:
    parser = Lark(grammar(name, TOOLS, dialect="lark"), parser="earley", lexer="dynamic")
    for text in rendered(name):
        parser.parse(text)
    with pytest.raises(LarkError):
        parser.parse(rendered(name)[0].replace("get_weather", "get_wether"))


def test_llguidance_gbnf_reader_folds_terminal_rules() -> None:
    """Why a GBNF grammar of two tools fails in llguidance, which is not a fault of the GBNF
    (llama.cpp's engine matches it character by character): llguidance's GBNF reader
    (``llguidance/gbnf_to_lark.py``) turns every rule made only of terminals, to a fixpoint,
    into ONE lexeme, and its lexer takes the longest lexeme without backtracking. A tool whose
    arguments are a fixed object folds into one lexeme ``{"name": "search", ...}``; another
    tool's call, which holds the recursive generic ``json-object``, stays a rule whose first
    lexeme is ``{``. After ``{"`` the lexer is inside the long lexeme, and ``get_weather``
    does not continue it. The same grammar written in the llguidance dialect (Lark, lexemes
    chosen by us) accepts both: use it with llguidance, GBNF with llama.cpp's own engine.
    When this test fails, llguidance changed: drop the one-tool limit above."""
    gbnf = "\n".join([
        'root ::= c1 | c2',
        'c1 ::= "x" n1 obj',
        'c2 ::= "x" n2',  # terminals only: one lexeme  x"search"
        'n1 ::= "\\"get_weather\\""',
        'n2 ::= "\\"search\\""',
        'js ::= "\\"" [a-z]* "\\""',
        'obj ::= "{" (js ":" val)? "}"',
        'val ::= obj | js',  # recursive: obj, val and c1 stay rules
    ]) + "\n"
    assert accepts(gbnf, 'x"search"', specials=(), dialect="gbnf") is None
    assert accepts(gbnf, 'x"get_weather"{}', specials=(), dialect="gbnf") is not None
    two = grammar("hermes", TOOLS, tool_choice="required")
    assert accepts(two, toolcalls.get_format("hermes").render_calls(CALLS)) is None
