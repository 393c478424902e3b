"""A random "model" under a grammar's mask: the verification without a GPU (tests, bench).

Needs llguidance (a dev dependency). The tokenizer is o200k from the shipped tiktoken files,
with the format's special tokens added past its vocabulary, as the model's own tokenizer has
them (``<|python_tag|>``, ``[TOOL_CALLS]``): nothing is downloaded.
"""

from __future__ import annotations

import functools
import random
from typing import Any

__all__ = ["accepts", "sample", "tokenizer"]

_CLOSING = ('"', "}", "]", ">", "\n")


@functools.cache
def tokenizer(specials: tuple[str, ...] = ()) -> tuple[Any, Any]:
    """(tiktoken encoding, llguidance tokenizer): o200k plus ``specials``."""
    import llguidance.tiktoken
    import tiktoken

    from ..budget._tokens import get_encoding

    base = get_encoding("o200k_base")
    special_tokens = dict(base._special_tokens)
    for text in specials:
        special_tokens.setdefault(text, base.n_vocab + len(special_tokens))
    encoding = tiktoken.Encoding(
        name="o200k_toolcalls",
        pat_str=base._pat_str,
        mergeable_ranks=base._mergeable_ranks,
        special_tokens=special_tokens,
    )
    return encoding, llguidance.tiktoken.lltokenizer_from_encoding(
        encoding, eos_token=base.eot_token
    )


def _matcher(grammar: str, specials: tuple[str, ...]) -> Any:
    import llguidance

    _, lltok = tokenizer(specials)
    matcher = llguidance.LLMatcher(lltok, llguidance.LLMatcher.grammar_from_lark(grammar))
    if matcher.is_error():
        raise ValueError(matcher.get_error())
    return matcher


def accepts(grammar: str, text: str, specials: tuple[str, ...] = ()) -> str | None:
    """None when the matcher accepts ``text`` whole, else why not."""
    encoding, _ = tokenizer(specials)
    matcher = _matcher(grammar, specials)
    tokens = encoding.encode(text, allowed_special="all")
    taken = matcher.try_consume_tokens(tokens)
    if taken != len(tokens):
        return f"refused at {encoding.decode(tokens[:taken])[-40:]!r}: {matcher.get_error()}"
    if not matcher.is_accepting():
        return "accepted a prefix only"
    return None


def sample(
    grammar: str, rng: random.Random, specials: tuple[str, ...] = (), budget: int = 48
) -> tuple[str, bool]:
    """One response the mask allows, token by token at random; past ``budget`` tokens the
    "model" prefers stopping, the grammar's literals and closing characters, so samples end.
    The flag: whether the response is complete (the matcher accepts it); an unfinished one
    (cut at ``8 * budget`` tokens) proves nothing."""
    import numpy as np

    encoding, _ = tokenizer(specials)
    matcher = _matcher(grammar, specials)
    eos = encoding.eot_token
    out: list[int] = []
    finished = False
    for step in range(budget * 8):
        if matcher.is_stopped():
            break
        bits = np.frombuffer(matcher.compute_bitmask(), dtype=np.uint32)
        allowed = np.flatnonzero(np.unpackbits(bits.view(np.uint8), bitorder="little"))
        allowed = allowed[allowed < encoding.n_vocab]
        if step >= budget:
            if eos in allowed:
                finished = True
                break
            if _force_literal(matcher, encoding, grammar, allowed, rng, out):
                continue
            closing = [t for t in allowed[:20000].tolist() if _closes(encoding, t)]
            token = rng.choice(closing) if closing and rng.random() < 0.8 else _pick(
                encoding, allowed.tolist(), rng
            )
        else:
            token = _pick(encoding, allowed.tolist(), rng)
        if token == eos:
            finished = True
            break
        if not matcher.consume_token(token):
            raise AssertionError(matcher.get_error())
        out.append(token)
    return encoding.decode(out), finished or matcher.is_stopped()


def _pick(encoding: Any, allowed: list[int], rng: random.Random) -> int:
    """Uniform, except that blanks (JSON lets any number stand anywhere) are 1 pick in 10."""
    if rng.random() < 0.1:
        return int(rng.choice(allowed))
    for _ in range(20):
        token = int(rng.choice(allowed))
        if not _blank(encoding, token):
            return token
    return token


def _blank(encoding: Any, token: int) -> bool:
    try:
        return not encoding.decode_single_token_bytes(token).strip()
    except KeyError:
        return False


def _literals(grammar: str) -> list[str]:
    import json
    import re

    rules = [line for line in grammar.splitlines() if "%json" not in line]
    found = re.findall(r'"(?:[^"\\\n]|\\.)+"', "\n".join(rules))
    return [json.loads(m) for m in found]


def _force_literal(
    matcher: Any, encoding: Any, grammar: str, allowed: Any, rng: random.Random, out: list[int]
) -> bool:
    """Past the budget: write one of the grammar's literals (a close tag) where it may start."""
    options = []
    allowed_set = set(allowed.tolist())
    for literal in _literals(grammar):
        try:
            tokens = encoding.encode(literal, allowed_special="all")
        except ValueError:
            continue
        if tokens and tokens[0] in allowed_set:
            options.append(tokens)
    if not options or rng.random() < 0.2:
        return False
    tokens = rng.choice(options)
    valid = matcher.validate_tokens(tokens)  # llguidance may force another tokenization
    if not valid:
        return False
    for token in tokens[:valid]:
        matcher.consume_token(token)
        out.append(token)
    return True


def _closes(encoding: Any, token: int) -> bool:
    try:
        piece = encoding.decode_single_token_bytes(token).decode("utf-8", "ignore")
    except KeyError:
        return False
    return len(piece) <= 3 and any(c in piece for c in _CLOSING)
