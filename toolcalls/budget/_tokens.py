"""Token counting, offline: tiktoken encodings built from vocabulary files shipped in the package.

`get_encoding("o200k_base")` never touches the network, the environment or a cache directory.
tiktoken's own `tiktoken.get_encoding` downloads the vocabulary on first use and keeps a copy in
``$TIKTOKEN_CACHE_DIR`` (or ``/tmp/data-gym-cache``); even its local-file loader,
`tiktoken.load.load_tiktoken_bpe`, copies the file into that cache. So this module reads the
shipped file itself, checks its sha256 against the hash tiktoken expects, and hands the ranks to
tiktoken's encoding constructors from `tiktoken_ext.openai_public`, which supply the exact
pattern string and special tokens of each encoding.

Anything with a ``count(text) -> int`` method is a `TokenCounter`, so other tokenizers plug in
wherever an encoding name is accepted.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import types
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any, Protocol, runtime_checkable

import tiktoken
from tiktoken_ext import openai_public  # type: ignore[import-untyped]

from .._errors import EncodingError
from ..tools._importers import import_tools
from ..tools._tool import Tool
from ..tools._typescript import typescript_namespace

__all__ = [
    "ANTHROPIC_TOOL_SYSTEM_PROMPT",
    "DEFAULT_ENCODING",
    "ENCODINGS",
    "OPENAI_TOOLS_OVERHEAD",
    "TiktokenCounter",
    "TokenCounter",
    "anthropic_tool_system_prompt",
    "anthropic_tools_text",
    "as_counter",
    "count_anthropic_tools",
    "count_openai_tools",
    "count_tokens",
    "get_encoding",
    "openai_tools_text",
]

DEFAULT_ENCODING = "o200k_base"
"""The encoding of gpt-4o and later OpenAI models, and a fair proxy for other recent models."""

ENCODINGS: Mapping[str, str] = {
    "cl100k_base": "cl100k_base.tiktoken",
    "o200k_base": "o200k_base.tiktoken",
    "o200k_harmony": "o200k_base.tiktoken",  # gpt-oss: o200k ranks plus special tokens
}
"""Encodings available offline, and the shipped vocabulary file each one reads."""

_REINSTALL_HINT = "reinstall toolcalls (pip install --force-reinstall --no-deps toolcalls)"


@runtime_checkable
class TokenCounter(Protocol):
    """Anything that counts the tokens of a text (tiktoken, a Hugging Face tokenizer, ...)."""

    def count(self, text: str) -> int: ...


@dataclass(frozen=True)
class TiktokenCounter:
    """A `TokenCounter` over one of the shipped tiktoken encodings.

    With ``special_tokens=False`` (the default) text that looks like a special token, such as
    ``<|endoftext|>``, counts as ordinary text, which is what providers do with tool
    definitions and message content; ``True`` counts each one as a single token, as in a raw
    prompt written for a chat template.
    """

    encoding: str = DEFAULT_ENCODING
    special_tokens: bool = False

    def count(self, text: str) -> int:
        tokenizer = get_encoding(self.encoding)
        if self.special_tokens:
            return len(tokenizer.encode(text, allowed_special="all"))
        return len(tokenizer.encode_ordinary(text))


def as_counter(counter: str | TokenCounter) -> TokenCounter:
    """An encoding name becomes a `TiktokenCounter`; a counter is returned as it is."""
    if isinstance(counter, str):
        if counter not in ENCODINGS:
            raise _unknown_encoding(counter)
        return TiktokenCounter(counter)
    return counter


def count_tokens(text: str, encoding: str | TokenCounter = DEFAULT_ENCODING) -> int:
    """The number of tokens in ``text``, by encoding name or with any `TokenCounter`."""
    return as_counter(encoding).count(text)


@functools.cache
def get_encoding(name: str = DEFAULT_ENCODING) -> tiktoken.Encoding:
    """The tiktoken `Encoding` called ``name``, built from the file shipped in the package.

    Raises `EncodingError` for an unknown name, or when the shipped file is missing or its
    sha256 differs from the one tiktoken expects.
    """
    if name not in ENCODINGS:
        raise _unknown_encoding(name)
    return load_encoding(name, resources.files("toolcalls.budget") / "encodings")


def load_encoding(name: str, directory: Traversable) -> tiktoken.Encoding:
    """Build encoding ``name`` from the vocabulary files in ``directory`` (uncached)."""
    constructor = _offline_constructor(name, directory)
    return tiktoken.Encoding(**constructor())


def _offline_constructor(name: str, directory: Traversable) -> Callable[[], dict[str, Any]]:
    """tiktoken's own constructor for ``name``, reading ranks from ``directory``.

    The constructors in `tiktoken_ext.openai_public` call the module-level
    ``load_tiktoken_bpe(url, expected_hash=...)``. Rebuilding them over a copy of that module's
    namespace, with the loader swapped for `_shipped_ranks`, keeps their pattern strings,
    special tokens and expected hashes exactly as tiktoken defines them, without patching
    tiktoken itself (other users of tiktoken in the process are unaffected).
    """
    namespace = dict(vars(openai_public))
    namespace["load_tiktoken_bpe"] = functools.partial(_shipped_ranks, directory)
    for constructor_name, constructor in openai_public.ENCODING_CONSTRUCTORS.items():
        # Rebinding every constructor lets o200k_harmony's call to o200k_base stay offline.
        namespace[constructor.__name__] = types.FunctionType(
            constructor.__code__, namespace, constructor_name
        )
    rebound = namespace[openai_public.ENCODING_CONSTRUCTORS[name].__name__]
    assert isinstance(rebound, types.FunctionType)
    return rebound


def _shipped_ranks(
    directory: Traversable, blobpath: str, expected_hash: str | None = None
) -> dict[bytes, int]:
    """Stand-in for tiktoken's loader: the BPE ranks of the shipped copy of ``blobpath``."""
    filename = blobpath.rsplit("/", 1)[-1]
    data = _read_verified(directory / filename, filename, expected_hash)
    return _parse_ranks(data, filename)


def _read_verified(path: Traversable, filename: str, expected_hash: str | None) -> bytes:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise EncodingError(
            f"the tokenizer file toolcalls/budget/encodings/{filename} is missing ({error}); "
            f"{_REINSTALL_HINT} to restore it"
        ) from error
    actual_hash = hashlib.sha256(data).hexdigest()
    if expected_hash is not None and actual_hash != expected_hash:
        raise EncodingError(
            f"the tokenizer file toolcalls/budget/encodings/{filename} is damaged: its sha256 is "
            f"{actual_hash}, tiktoken {tiktoken.__version__} expects {expected_hash}; "
            f"{_REINSTALL_HINT} to restore it"
        )
    return data


def _parse_ranks(data: bytes, filename: str) -> dict[bytes, int]:
    """Read the ``<base64 token> <rank>`` lines of a .tiktoken file."""
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        if not line:
            continue
        try:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
        except ValueError as error:
            raise EncodingError(
                f"the tokenizer file toolcalls/budget/encodings/{filename} is damaged: cannot read "
                f"line {line[:60]!r}; {_REINSTALL_HINT} to restore it"
            ) from error
    return ranks


def _unknown_encoding(name: str) -> EncodingError:
    known = ", ".join(ENCODINGS)
    return EncodingError(
        f"unknown encoding {name!r}: toolcalls ships {known}; "
        "for another tokenizer pass an object with a count(text) -> int method"
    )


# --- what native tool definitions cost ----------------------------------------------------------

ToolsLike = Iterable[Tool | Mapping[str, Any]] | Mapping[str, Any]
"""Tools in any shape `toolcalls.tools.import_tools` reads, or a ``{"tools": [...]}`` file."""

OPENAI_TOOLS_OVERHEAD: Mapping[str, int] = {"o200k_base": 5, "cl100k_base": 5}
"""Tokens OpenAI bills per request for a non-empty tool list, beyond `openai_tools_text`.

Calibrated on the one published measurement: the "How to count tokens with tiktoken" notebook
of the OpenAI cookbook (section 7, the ``get_current_weather`` tool with two short messages) was
billed 101 prompt tokens on gpt-4o and 105 on gpt-4. Its two messages cost 33 (o200k) and 34
(cl100k) by the cookbook's own rule (3 per message, 3 to prime the reply), so the tool list cost
68 and 71 tokens; the namespace text is 63 and 66 tokens, leaving 5 for the wrapping (the
``# Tools`` / ``## functions`` header and the join into the system message). The cookbook's
``num_tokens_for_tools`` encodes the same per-request constant as ``func_end = 12``.
"""

ANTHROPIC_TOOL_SYSTEM_PROMPT: Mapping[tuple[str, str], int] = {
    ("claude-sonnet-4-6", "auto"): 497,
    ("claude-sonnet-4-6", "any"): 589,
    ("claude-opus-4", "auto"): 346,
    ("claude-opus-4", "any"): 313,
    ("claude-sonnet-4", "auto"): 346,
    ("claude-sonnet-4", "any"): 313,
    ("claude-haiku-4", "auto"): 346,
    ("claude-haiku-4", "any"): 313,
    ("claude-3-7-sonnet", "auto"): 346,
    ("claude-3-7-sonnet", "any"): 313,
    ("claude-3-5-sonnet", "auto"): 346,
    ("claude-3-5-sonnet", "any"): 313,
    ("claude-3-5-haiku", "auto"): 264,
    ("claude-3-5-haiku", "any"): 340,
    ("claude-3-opus", "auto"): 530,
    ("claude-3-opus", "any"): 281,
    ("claude-3-sonnet", "auto"): 159,
    ("claude-3-sonnet", "any"): 235,
    ("claude-3-haiku", "auto"): 264,
    ("claude-3-haiku", "any"): 340,
}
"""Tokens of the system prompt Anthropic adds whenever a request carries tools.

Keyed by (model id prefix, tool_choice type); ``none`` costs what ``auto`` does and ``tool``
what ``any`` does; the longest matching prefix wins. Sources:

- Claude 3 Opus, Sonnet, Haiku: Anthropic's "Tool use pricing and tokens" table
  (docs.anthropic.com/en/docs/tool-use-pricing-and-tokens).
- Claude 4 family (Opus 4.x, Sonnet 4.x, Haiku 4.5), Sonnet 3.7 and 3.5 (Oct 2024): 346 with
  ``auto``/``none``, 313 with ``any``/``tool``; Haiku 3.5 as Haiku 3: the pricing table of
  Anthropic's tool-use overview (docs.claude.com/en/docs/agents-and-tools/tool-use/overview,
  "Pricing"), also quoted at claudecodeguides.com/claude-tool-definitions-346-tokens-per-call.
- Sonnet 4.6: 497 (auto) and 589 (any), the figures of this project's issue 4, which the
  longest-prefix rule keeps ahead of the 4.x family's 346/313 (the published table has no
  separate 4.6 row; the two disagree and the issue's figures were kept).
"""


def openai_tools_text(tools: ToolsLike) -> str:
    """The ``namespace functions { ... }`` text OpenAI models read for these function tools."""
    return typescript_namespace(_tool_list(tools))


def count_openai_tools(tools: ToolsLike, encoding: str | TokenCounter = DEFAULT_ENCODING) -> int:
    """Prompt tokens OpenAI bills for sending ``tools`` natively (0 for no tools).

    The namespace text plus `OPENAI_TOOLS_OVERHEAD`; a custom counter gets the o200k overhead.
    """
    tool_list = _tool_list(tools)
    if not tool_list:
        return 0
    overhead = OPENAI_TOOLS_OVERHEAD.get(encoding if isinstance(encoding, str) else "", 5)
    return count_tokens(typescript_namespace(tool_list), encoding) + overhead


def anthropic_tools_text(tools: ToolsLike) -> str:
    """The tools as the JSON array of Anthropic's ``tools`` request field."""
    definitions = [
        {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}
        for tool in _tool_list(tools)
    ]
    return json.dumps(definitions, ensure_ascii=False)


def count_anthropic_tools(
    tools: ToolsLike,
    encoding: str | TokenCounter = DEFAULT_ENCODING,
    *,
    model: str = "claude-sonnet-4-6",
    tool_choice: str = "auto",
) -> int:
    """An APPROXIMATE count of what Anthropic bills for ``tools``.

    Claude's tokenizer is not public, so the tool JSON is counted with o200k_base (or the
    counter given) and is only an estimate (expected error: a few percent of the definitions,
    `toolcalls.budget._counts.O200K_ERROR`, more for non-English text); the fixed tool-use
    system prompt comes from `ANTHROPIC_TOOL_SYSTEM_PROMPT` and is exact for the model families
    listed there. For exact figures ask Anthropic's ``/v1/messages/count_tokens`` endpoint.
    """
    tool_list = _tool_list(tools)
    if not tool_list:
        return 0
    prompt_tokens = anthropic_tool_system_prompt(model, tool_choice)
    return count_tokens(anthropic_tools_text(tool_list), encoding) + prompt_tokens


def anthropic_tool_system_prompt(model: str, tool_choice: str = "auto") -> int:
    """Tokens of Anthropic's tool-use system prompt for ``model`` (a dated id is fine)."""
    choice = {"none": "auto", "tool": "any"}.get(tool_choice, tool_choice)
    family = model.rsplit("/", 1)[-1]  # "anthropic/claude-..." as routers write it
    matches = [(len(known_model), tokens)
               for (known_model, known_choice), tokens in ANTHROPIC_TOOL_SYSTEM_PROMPT.items()
               if family.startswith(known_model) and choice == known_choice]
    if matches:
        return max(matches)[1]  # the longest, most specific prefix
    known = ", ".join(sorted({name for name, _ in ANTHROPIC_TOOL_SYSTEM_PROMPT}))
    raise ValueError(
        f"no tool-use system prompt figure for model {model!r} with tool_choice {tool_choice!r}; "
        f"known models: {known}; tool_choice is one of auto, none, any, tool"
    )


def _tool_list(tools: ToolsLike) -> list[Tool]:
    return import_tools(tools)
