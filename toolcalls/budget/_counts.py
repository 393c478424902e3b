"""What a tool list costs at each provider, counted as that provider's model reads it.

One entry point, `provider_cost(target, model=, encoding=)`, gives the `ToolsCost` that budgets
(`toolcalls.budget.render`, `budget_report`, the ``toolcalls budget`` verdict) use:

- **OpenAI** (Chat Completions, Responses, Azure, the DeepSeek API): the ``namespace functions``
  text of openai-harmony's renderer plus the per-request wrapping, with o200k_base. Within 0.6%
  of the renderer on the 15 fixture tool sets (tests/budget/test_counts.py).
- **Anthropic**: the tools' JSON plus the tool-use system prompt of the model family
  (`toolcalls.budget._tokens.ANTHROPIC_TOOL_SYSTEM_PROMPT`, Anthropic's published table). The
  system prompt is exact; the definitions are counted with o200k_base because Claude's
  tokenizer ships in no PyPI package (the anthropic SDK's old ``tokenizer.json`` was Claude 2's).
  Expected error on the definitions: a few percent (`O200K_ERROR`), more for non-English text.
- **Gemini**: the ``functionDeclarations`` JSON of the request (types upper-cased, as sent),
  with o200k_base. Gemini's tokenizer is downloaded by google-genai at run time, never shipped,
  and how Gemini lays the declarations out for the model is not published: an estimate, with
  the o200k error on the text and an unknown layout overhead (no fixed prompt is added here).
- **Ollama**: the model's chat template writes the tools into the prompt, so the cost is the
  format's `render_tools` (Hermes/Qwen's ``<tools>`` JSON block for a model the registry does
  not know, which is what the templates of Qwen 2.5/3 and most tool-capable models write),
  counted with the model's own tokenizer where one is installed.
- **Prompt formats**: the format's `render_tools`, with the model's tokenizer
  (`toolcalls.budget._model_tokens.model_counter`): o200k_harmony for gpt-oss (exact), Qwen's
  and DeepSeek's vocabularies when the ``tokenizers`` extra is installed, else o200k_base.

An ``encoding`` given explicitly (a name or any counter) overrides the model's tokenizer
everywhere; the Anthropic system prompt and the OpenAI wrapping are fixed token counts and stay.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Final

from ..parsing._registry import get_format
from ..providers._native import render_native
from ..tools._importers import import_tools
from ..tools._tool import Tool
from ._model_tokens import model_counter, prompt_format
from ._profiles import native_payload
from ._tokens import (
    DEFAULT_ENCODING,
    TokenCounter,
    ToolsLike,
    as_counter,
    count_anthropic_tools,
    count_openai_tools,
)

__all__ = [
    "DEFAULT_ANTHROPIC_MODEL",
    "O200K_ERROR",
    "ToolsCost",
    "count_gemini_tools",
    "count_prompt_tools",
    "count_target",
    "counter_for",
    "gemini_tools_text",
    "provider_cost",
    "tools_cost",
]

DEFAULT_ANTHROPIC_MODEL: Final = "claude-sonnet-4-6"
"""The Claude model budgets assume when none is given."""

O200K_ERROR: Final = 0.03
"""How far o200k_base may be from another recent tokenizer on tool definitions (English, JSON).

Measured on the 15 fixture tool sets rendered in 8 prompt formats: cl100k_base counts 0.2-0.4%
fewer tokens than o200k_base, Qwen's vocabulary 0.2-0.5% more, DeepSeek's 1.5-2.6% more
(totals per format; tests/budget/test_counts.py keeps the Qwen and DeepSeek figures honest).
Claude's and Gemini's tokenizers could not be measured offline; this is the figure assumed.
"""

_OPENAI_PAYLOADS: Final = frozenset({"openai", "openai_responses"})

ToolsCost = Callable[[Sequence[Tool]], int]
"""The tokens a model reads for a list of tools, in some rendering."""


def counter_for(
    target: str, model: str | None = None, encoding: str | TokenCounter | None = None
) -> TokenCounter:
    """The counter a budget for ``target`` uses: ``encoding`` if given, else the model's own."""
    if encoding is not None:
        return as_counter(encoding)
    if target in _OPENAI_PAYLOADS or target in ("anthropic", "gemini"):
        return as_counter(DEFAULT_ENCODING)
    return model_counter(prompt_format(target, model), model)


def provider_cost(
    target: str, *, model: str | None = None, encoding: str | TokenCounter | None = None
) -> ToolsCost:
    """Tokens a model reads for a tool list sent to ``target``.

    ``target`` is a native payload name (``openai``, ``openai_responses``, ``anthropic``,
    ``gemini``, ``ollama``) or a prompt format name, alias or model id.
    """
    counter = counter_for(target, model, encoding)
    if target in _OPENAI_PAYLOADS:
        return lambda tools: count_openai_tools(tools, counter)
    if target == "anthropic":
        claude = model or DEFAULT_ANTHROPIC_MODEL
        return lambda tools: count_anthropic_tools(tools, counter, model=claude)
    if target == "gemini":
        return lambda tools: count_gemini_tools(tools, counter)
    text_format = prompt_format(target, model)
    return lambda tools: count_prompt_tools(tools, text_format, counter)


def gemini_tools_text(tools: ToolsLike) -> str:
    """The ``tools`` field of a Gemini request for ``tools``, as compact JSON."""
    return json.dumps(render_native(import_tools(tools), "gemini")["tools"], ensure_ascii=False)


def count_gemini_tools(tools: ToolsLike, encoding: str | TokenCounter = DEFAULT_ENCODING) -> int:
    """An ESTIMATE of what Gemini bills for ``tools`` (0 for none): their declarations' JSON.

    For exact figures ask Gemini's ``countTokens`` endpoint with the same ``tools``.
    """
    tool_list = import_tools(tools)
    if not tool_list:
        return 0
    return as_counter(encoding).count(gemini_tools_text(tool_list))


def count_prompt_tools(
    tools: Sequence[Tool], format: str, counter: TokenCounter  # noqa: A002
) -> int:
    """Tokens of ``format``'s system-prompt tools block for ``tools`` (0 for none)."""
    return counter.count(get_format(format).render_tools(tools)) if tools else 0


def tools_cost(
    format: str,  # noqa: A002
    encoding: str | TokenCounter | None = None,
    *,
    model: str | None = None,
) -> ToolsCost:
    """How many tokens a model reads for a tool list sent to ``format``.

    Counted as that provider reads tools (`provider_cost`); ``model`` picks the Claude family,
    the Ollama model's template and the tokenizer; ``encoding`` overrides the tokenizer.
    """
    return provider_cost(count_target(format), model=model, encoding=encoding)


def count_target(format: str) -> str:  # noqa: A002
    """What `provider_cost` takes: the payload for a provider name, else the format itself."""
    return native_payload(format) or format
