"""A random "model" under a grammar's mask: the verification without a GPU (tests/decoding, bench).

Needs llguidance and numpy (dev dependencies). The tokenizer is o200k from the shipped
tiktoken files, with any special tokens asked for added past its vocabulary, as a model's own
tokenizer has them: nothing is downloaded.
"""

from __future__ import annotations

import functools
import json
import random
import re
from typing import Any

from ..budget._tokens import get_encoding
from ..parsing._api import parse
from ..tools._read import to_tools

__all__ = [
    "TokenClasses", "Vocabulary", "accepts", "pick", "problems", "sample", "special_tokens",
    "vocabulary",
]

_CLOSING = ('"', "}", "]", ">", "\n")


class TokenClasses:
    """The token classes the random model weighs, over a vocabulary given as byte pieces (None
    for an id with no piece): blanks (JSON lets any number stand anywhere: 1 pick in 10) and
    short closing pieces (preferred once a sample is long, so samples end)."""

    def __init__(self, pieces: list[bytes | None]) -> None:
        import numpy as np

        self.blank = np.zeros(len(pieces), dtype=bool)
        self.closing = np.zeros(len(pieces), dtype=bool)
        for token, piece in enumerate(pieces):
            if piece is None:
                continue
            text = piece.decode("utf-8", "ignore")
            self.blank[token] = not piece.strip()
            self.closing[token] = len(text) <= 3 and any(c in text for c in _CLOSING)


class Vocabulary(TokenClasses):
    """o200k (plus special tokens) for tiktoken and llguidance, with its token classes."""

    def __init__(self, specials: tuple[str, ...]) -> None:
        import llguidance.tiktoken
        import tiktoken


        base = get_encoding("o200k_base")
        special_tokens = dict(base._special_tokens)
        for text in specials:
            special_tokens.setdefault(text, base.n_vocab + len(special_tokens))
        self.encoding = tiktoken.Encoding(
            name="o200k_toolcalls",
            pat_str=base._pat_str,
            mergeable_ranks=base._mergeable_ranks,
            special_tokens=special_tokens,
        )
        self.eos = base.eot_token
        self.llguidance = llguidance.tiktoken.lltokenizer_from_encoding(
            self.encoding, eos_token=self.eos
        )
        super().__init__([self._piece(token) for token in range(self.encoding.n_vocab)])

    def _piece(self, token: int) -> bytes | None:
        try:
            return self.encoding.decode_single_token_bytes(token)
        except KeyError:
            return None

    def matcher(self, grammar: str, dialect: str = "llguidance") -> Any:
        import llguidance

        compiled = (
            llguidance.grammar_from("gbnf", grammar) if dialect == "gbnf"
            else llguidance.LLMatcher.grammar_from_lark(grammar)
        )
        matcher = llguidance.LLMatcher(self.llguidance, compiled)
        if matcher.is_error():
            raise ValueError(matcher.get_error())
        return matcher


@functools.cache
def vocabulary(specials: tuple[str, ...] = ()) -> Vocabulary:
    return Vocabulary(specials)


def special_tokens(grammar: str) -> tuple[str, ...]:
    """The special tokens an llguidance grammar names (bare ``<|...|>``, or a bare tag such as
    Jamba's ``<tool_calls>``, outside strings)."""
    rules = [line.split(":", 1)[1] for line in grammar.splitlines() if ":" in line]
    bare = (re.sub(r'"(?:[^"\\\n]|\\.)*"|/(?:[^/\\\n]|\\.)*/', "", rule) for rule in rules)
    found = (re.findall(r"<\|[^|\s]+\|>|</?[A-Za-z_]\w*>", rule) for rule in bare)
    return tuple(sorted({t for tokens in found for t in tokens}))


def accepts(
    grammar: str, text: str, specials: tuple[str, ...] | None = None, dialect: str = "llguidance"
) -> str | None:
    """None when the matcher accepts ``text`` whole, else why not (``dialect="gbnf"``: through
    llguidance's own GBNF reader)."""
    vocab = vocabulary(special_tokens(grammar) if specials is None else specials)
    matcher = vocab.matcher(grammar, dialect)
    tokens = vocab.encoding.encode(text, allowed_special="all")
    taken = matcher.try_consume_tokens(tokens)
    if taken != len(tokens):
        return f"refused after {vocab.encoding.decode(tokens[:taken])[-60:]!r}: " + str(
            matcher.get_error()
        )
    if not matcher.is_accepting():
        return "accepted a prefix only"
    return None


def sample(
    grammar: str, rng: random.Random, specials: tuple[str, ...] | None = None, budget: int = 48,
    blanks: float = 0.0,
) -> tuple[str, bool]:
    """One response the mask allows, token by token at random. Past ``budget`` tokens the
    "model" prefers stopping, the grammar's literals (close tags) and closing characters.
    ``blanks``: how often it writes a blank token wherever one is allowed, before anything
    else (a model stuck writing line breaks: it ends only where the grammar bounds blanks).
    The flag: whether the response is complete (the matcher accepts it); one cut at
    ``8 * budget`` tokens proves nothing."""
    import numpy as np

    vocab = vocabulary(special_tokens(grammar) if specials is None else specials)
    matcher = vocab.matcher(grammar)
    literals = [
        tokens for tokens in (vocab.encoding.encode(t, allowed_special="all")
                              for t in _literals(grammar)) if tokens
    ]
    size = vocab.encoding.n_vocab
    out: list[int] = []
    for step in range(budget * 8):
        if matcher.is_stopped():
            return vocab.encoding.decode(out), True
        bits = np.frombuffer(matcher.compute_bitmask(), dtype=np.uint8)
        allowed = np.flatnonzero(np.unpackbits(bits, bitorder="little")[:size])
        late = step >= budget
        only_eos = len(allowed) == 1 and allowed[0] == vocab.eos
        # Past the budget, stop where it may (half the time: content may still open a call).
        if only_eos or late and vocab.eos in allowed and rng.random() < 0.5:
            return vocab.encoding.decode(out), True
        allowed = allowed[allowed != vocab.eos] if rng.random() > 0.02 else allowed
        token = _blank(vocab, allowed, rng, blanks)
        if token is None:
            if late and _write_literal(matcher, literals, allowed, rng, out):
                continue
            token = pick(vocab, allowed, rng, late)
        if token == vocab.eos:
            return vocab.encoding.decode(out), True
        if not matcher.consume_token(token):
            raise AssertionError(matcher.get_error())
        out.append(token)
    return vocab.encoding.decode(out), matcher.is_accepting()


def _blank(vocab: TokenClasses, allowed: Any, rng: random.Random, blanks: float) -> int | None:
    """A blank token, ``blanks`` of the time where one is allowed."""
    if not blanks or rng.random() >= blanks:
        return None
    found = allowed[vocab.blank[allowed]]
    return int(found[rng.randrange(len(found))]) if len(found) else None


def pick(vocab: TokenClasses, allowed: Any, rng: random.Random, late: bool) -> int:
    """One of the ``allowed`` token ids: late in a sample mostly a closing piece, else mostly
    a solid (non-blank) one."""
    if late and rng.random() < 0.8:
        closing = allowed[vocab.closing[allowed]]
        if len(closing):
            return int(closing[rng.randrange(len(closing))])
    if rng.random() >= 0.1:
        solid = allowed[~vocab.blank[allowed]]
        if len(solid):
            return int(solid[rng.randrange(len(solid))])
    return int(allowed[rng.randrange(len(allowed))])


def problems(format_name: str, text: str, tools: Any, tool_choice: str) -> list[str]:
    """Why toolcalls' read of a finished sample is wrong (empty: right): it must read calls to
    declared tools only, valid against their schemas (``validate=True``), with no issue and
    nothing incomplete, at least one call unless ``tool_choice="auto"``, and exactly one call
    of the named tool when ``tool_choice`` names one."""
    result = parse(text, format_name, tools=tools, validate=True)
    found = [f"issue {issue.kind}: {issue.message}" for issue in result.issues]
    found += [f"incomplete call {call!r}" for call in result.incomplete]
    names = [call.name for call in result.calls]
    declared = {tool.name for tool in to_tools(tools)}
    found += [f"undeclared tool {name!r}" for name in names if name not in declared]
    if tool_choice != "auto" and not names:
        found.append(f"no call under tool_choice={tool_choice!r}")
    if tool_choice not in ("auto", "required") and names != [tool_choice]:
        found.append(f"calls {names} under tool_choice={tool_choice!r}")
    return found


def _literals(grammar: str) -> list[str]:
    """The quoted literals of the grammar's rules (not of its ``%json`` schemas), the ends of
    its lazy texts and its special tokens."""
    rules = "\n".join(line for line in grammar.splitlines() if "%json" not in line)
    quoted = [json.loads(found) for found in re.findall(r'"(?:[^"\\\n]|\\.)+"', rules)]
    # and the end of each lazy text (a reasoning end tag, a call opener after content)
    ends = re.findall(r"\[lazy\]: /\(\?s:\.\*\)((?:[^/\\]|\\.)+)/", rules)
    # and the special tokens (gpt-oss's <|end|> ends a message: one token in 200,000)
    return quoted + [_unescape(end) for end in ends] + list(special_tokens(grammar))


def _unescape(pattern: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "r": "\r", "t": "\t"}.get(m[1], m[1]), pattern)


def _write_literal(
    matcher: Any, literals: list[list[int]], allowed: Any, rng: random.Random, out: list[int]
) -> bool:
    """Writes one of the grammar's literals where it may start (4 times in 5)."""
    allowed_set = set(allowed.tolist()) if len(allowed) < 5000 else None
    options = [
        tokens for tokens in literals
        if (tokens[0] in allowed_set if allowed_set is not None else bool(
            (allowed == tokens[0]).any()))
    ]
    if not options or rng.random() < 0.2:
        return False
    tokens = rng.choice(options)
    valid = matcher.validate_tokens(tokens)  # llguidance may force another tokenization
    for token in tokens[:valid]:
        matcher.consume_token(token)
        out.append(token)
    return bool(valid > 0)
