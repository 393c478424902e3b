"""The random "model" of `_sampling` under an xgrammar structural tag (tests, bench).

Needs xgrammar (and so torch) and numpy: not dev dependencies (see pyproject), so its tests
skip without them. xgrammar's mask over o200k's 200,000 tokens took 50-90 s a sample; a
byte-level vocabulary is what the mask sees here instead: the 256 single bytes, each special
token the tag writes (``<|channel|>``, ``<｜tool▁sep｜>``, ``[TOOL_CALLS]``...) as one token of
its own, as a model's tokenizer has it, and an end-of-sequence token. Nothing is downloaded.
xgrammar is imported by name (`importlib`), so mypy checks this module without it.
"""

from __future__ import annotations

import functools
import importlib
import json
import random
import re
from typing import Any

from ._sampling import TokenClasses, pick

__all__ = [
    "ByteVocabulary", "byte_vocabulary", "known_disagreement", "padded_enum", "sample_tag",
    "tag_literals", "tag_specials",
]

_EOS = b"</s>"
# The markers of xgrammar's XML content styles (GLM, MiniMax-M2, Qwen3-Coder / Seed-OSS): a
# raw-text value ends only at its close tag, which random bytes hardly ever spell.
_STYLE_MARKERS: dict[str, tuple[str, ...]] = {
    "glm_xml": ("<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>"),
    "minimax_xml": ('<parameter name="', '">', "</parameter>"),
    "qwen_xml": ("<parameter=", ">", "</parameter>"),
}
# Special-token spellings: <|name|> (gpt-oss, Kimi), <｜name｜> (DeepSeek), [NAME] (Mistral).
_SPECIAL = re.compile(r"<\|[^|\s]+\|>|<｜[^｜\s]+｜>|\[[A-Z][A-Z_]*\]")


class ByteVocabulary(TokenClasses):
    """The 256 bytes, then the special tokens, then the end of sequence; xgrammar's
    `TokenizerInfo` and compiler over it."""

    def __init__(self, specials: tuple[str, ...]) -> None:
        xgr = importlib.import_module("xgrammar")
        self.pieces = [bytes([byte]) for byte in range(256)]
        self.pieces += [text.encode() for text in specials] + [_EOS]
        self.eos = len(self.pieces) - 1
        super().__init__(list(self.pieces[: self.eos]) + [None])
        info = xgr.TokenizerInfo(self.pieces, xgr.VocabType.RAW, stop_token_ids=[self.eos])
        self.compiler = xgr.GrammarCompiler(info)

    def matcher(self, tag: dict[str, Any]) -> Any:
        """A matcher of either shape of `toolcalls.decoding.structural_tag`."""
        xgr = importlib.import_module("xgrammar")
        if "structures" in tag:  # the legacy shape
            items = [
                xgr.StructuralTagItem(
                    begin=item["begin"], schema=json.dumps(item["schema"]), end=item["end"]
                )
                for item in tag["structures"]
            ]
            compiled = self.compiler.compile_structural_tag(items, tag["triggers"])
        else:
            compiled = self.compiler.compile_structural_tag(json.dumps(tag))
        return xgr.GrammarMatcher(compiled)


@functools.cache
def byte_vocabulary(specials: tuple[str, ...] = ()) -> ByteVocabulary:
    return ByteVocabulary(specials)


def padded_enum(problem: str) -> bool:
    """Whether a `_sampling.problems` line is the known disagreement of xgrammar's XML content
    styles (glm_xml, minimax_xml, qwen_xml, xgrammar 0.2.8): they let any blanks stand around
    a parameter's value, taking them as layout, so an enum's ``deep`` may be written
    ``<arg_value>\n\ndeep</arg_value>``. The readers strip at most one line break at each end
    of a raw value (the template's, `_coerce.strip_value_newlines`) and keep the rest, so the
    value read is no member of the enum. No field of the tag can forbid those blanks
    (``max_whitespace_cnt`` must be positive and bounds runs, not their place)."""
    found = re.search(r"must be one of (.*); got (\"(?:[^\"\\]|\\.)*\") \(a string\)", problem)
    if found is None or not problem.startswith("issue invalid_argument_value"):
        return False
    return json.loads(found[2]).strip() in json.loads(f"[{found[1]}]")


def known_disagreement(found: list[str]) -> str | None:
    """The known disagreement a sample's `_sampling.problems` are, if they are one: "padded
    enum" (`padded_enum`), or "lone surrogate": xgrammar's JSON strings take any ``\\uXXXX``
    escape, an unpaired surrogate (``"\\udd97"``) included, which RFC 8259 lets parse but no
    UTF-8 text can hold; toolcalls' strict JSON refuses it on purpose (`_coerce`: the call is
    incomplete, with ``invalid_arguments``). No JSON schema keyword can forbid the escape."""
    if found and all(padded_enum(problem) for problem in found):
        return "padded enum"
    if any(p.startswith("issue invalid_arguments") and "lone surrogate" in p for p in found):
        return "lone surrogate"
    return None


def tag_literals(tag: Any) -> list[str]:
    """The fixed strings of a structural tag: its triggers, each tag's begin and end, and the
    markers of the XML content styles it names (xgrammar's own, not in the dict)."""
    if isinstance(tag, list):
        return [text for item in tag for text in tag_literals(item)]
    if not isinstance(tag, dict):
        return []
    found = [tag[key] for key in ("begin", "end") if isinstance(tag.get(key), str)]
    found += [text for text in tag.get("triggers", ()) if isinstance(text, str)]
    found += _STYLE_MARKERS.get(str(tag.get("style")), ())
    for key, value in tag.items():
        if key not in ("schema", "json_schema", "triggers"):
            found += tag_literals(value)
    return [text for text in found if text]


def tag_specials(tag: dict[str, Any]) -> tuple[str, ...]:
    """The special tokens the tag's fixed strings write."""
    return tuple(sorted({found for text in tag_literals(tag) for found in _SPECIAL.findall(text)}))


def sample_tag(tag: dict[str, Any], rng: random.Random, budget: int = 160) -> tuple[str, bool]:
    """One response the structural tag's mask allows, token by token at random, as
    `_sampling.sample` (``budget`` here in bytes): past it the "model" prefers stopping, the
    tag's fixed strings and closing characters. The flag: whether the response is complete.
    The text is decoded with replacement: xgrammar's free text takes any bytes, UTF-8 or not,
    as a byte-level model may write them.

    The legacy shape's free text is any text (it has no ``excludes``), so a model writing
    markers there gets them read as stray markup: its "model" has no special tokens and
    writes only triggers and begins, so markers appear where the tag writes them (or inside
    JSON strings, which the readers must and do take as text)."""
    import numpy as np

    xgr = importlib.import_module("xgrammar")
    legacy = "structures" in tag
    vocab = byte_vocabulary(() if legacy else tag_specials(tag))
    matcher = vocab.matcher(tag)
    literals = [text.encode() for text in (_openings(tag) if legacy else tag_literals(tag))]
    size = len(vocab.pieces)
    mask = xgr.allocate_token_bitmask(1, size)
    out = bytearray()
    for step in range(budget * 8):
        if matcher.is_terminated():
            return out.decode("utf-8", "replace"), True
        matcher.fill_next_token_bitmask(mask)
        bits = mask[0].numpy().view(np.uint8)
        allowed = np.flatnonzero(np.unpackbits(bits, bitorder="little")[:size])
        late = step >= budget
        only_eos = len(allowed) == 1 and allowed[0] == vocab.eos
        if only_eos or late and vocab.eos in allowed and rng.random() < 0.5:
            return out.decode("utf-8", "replace"), True
        allowed = allowed[allowed != vocab.eos] if rng.random() > 0.02 else allowed
        if late and _write_literal(matcher, literals, rng, out):
            continue
        token = pick(vocab, allowed, rng, late)
        if token == vocab.eos:
            return out.decode("utf-8", "replace"), True
        if not matcher.accept_token(token):
            raise AssertionError(f"the mask allowed token {token} the matcher refuses")
        out += vocab.pieces[token]
    return out.decode("utf-8", "replace"), bool(matcher.is_completed())


def _openings(tag: dict[str, Any]) -> list[str]:
    """The legacy shape's triggers and begins."""
    return list(tag["triggers"]) + [item["begin"] for item in tag["structures"]]


def _write_literal(matcher: Any, literals: list[bytes], rng: random.Random, out: bytearray) -> bool:
    """Writes one of the tag's fixed strings where the matcher takes it whole (4 times in 5):
    a trigger or a begin opens a call no random byte sequence would."""
    if rng.random() < 0.2:
        return False
    options = [text for text in literals if matcher.fork().accept_string(text)]
    if not options:
        return False
    text = rng.choice(options)
    matcher.accept_string(text)
    out += text
    return True
