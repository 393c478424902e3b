"""`grammar` and `structural_tag`: a format's whole response, for constrained decoding."""

from __future__ import annotations

import json
from typing import Any, Literal

from ..parsing._registry import get_format
from ..parsing.formats._base import Format
from ..parsing.formats._regions import XmlParameterCalls
from ..tools._read import ToolsLike, to_tools
from ..tools._tool import Tool
from ._names import check_tools
from ._region import arguments_schema
from ._response import build
from ._table import TAGGED, region_of
from ._xml_families import xgrammar_format

__all__ = ["Dialect", "grammar", "structural_tag"]

Dialect = Literal["llguidance", "lark", "gbnf"]


def grammar(
    format: str | Format,
    tools: ToolsLike,
    *,
    dialect: Dialect = "llguidance",
    tool_choice: str = "auto",
    reasoning: bool = False,
    parallel: bool = True,
    bounded_whitespace: bool = True,
) -> str:
    """The grammar of a whole response in ``format`` calling ``tools``, for constrained decoding.

    ``dialect``: ``"llguidance"`` (Lark with ``%json`` schemas and special tokens written as
    ``<|token|>``: vLLM's guidance backend, llama.cpp with llguidance, SGLang, OpenAI custom
    tools), ``"lark"`` (plain Lark for the Python ``lark`` package, Earley; JSON values
    constrained by type, const, enum and fixed objects only) or ``"gbnf"`` (llama.cpp's own
    engine; not for llguidance's GBNF reader, which folds rules of terminals into single
    lexemes that its lexer never backtracks out of, so it may refuse calls of a second tool).
    ``tool_choice``: ``"auto"`` (content, then optionally calls), ``"required"`` (at least one
    call, no content), or a tool name (exactly one call of that tool). ``reasoning=True``: the
    response opens with the format's reasoning block. ``parallel=False``: one call at most.
    ``bounded_whitespace=True``: between two JSON tokens one space or none (as the chat
    templates write JSON: ``{"a": 1, "b": 2}``), or one line break and an indent of at most
    32 (pretty-printed JSON), and between tags at most four line breaks; ``False``: any
    blanks anywhere, which a model can write for ever (a random model did, 400 tokens of
    ``\\r\\n``). A tool whose name or parameter name the format's reader would not read back
    where the format writes it (``resolve-library-id`` in a pythonic list, a blank in a
    Mistral name) raises `ToolDefinitionError`, as it does in `structural_tag`.

    >>> import toolcalls
    >>> tools = [{"name": "f", "parameters": {"type": "object", "properties": {}}}]
    >>> print(toolcalls.decoding.grammar("hermes", tools, tool_choice="required").splitlines()[2])
    start: "<tool_call>" (call ("\\n" "<tool_call>" call)*)
    """
    return build(
        format, to_tools(tools), tool_choice=tool_choice, reasoning=reasoning, parallel=parallel
    ).write(dialect, bounded_whitespace=bounded_whitespace)


def structural_tag(
    format: str | Format,
    tools: ToolsLike,
    *,
    tool_choice: str = "auto",
    legacy: bool = False,
) -> dict[str, Any]:
    """An xgrammar structural tag: each tool's call as begin, JSON-schema content and end,
    triggered by the format's call opener.

    The current shape (``{"type": "structural_tag", "format": {"type": "triggered_tags",
    ...}}``), or with ``legacy=True`` the ``{"structures": [...], "triggers": [...]}`` shape
    SGLang and vLLM accept. Formats whose arguments are one JSON object between two fixed
    strings can be written so: hermes, xml, mistral, llama3_json, minimax_m1, ollama with its
    ``<tool_call>`` prefix, gpt_oss as the model writes its call header, and deepseek_v3,
    deepseek_v31 and kimi_k2 with one call section per call and Kimi's index written as 0. A
    tag holds one call: MiniMax M1's calls each get their own ``<tool_calls>`` block, which its
    reader takes as parallel calls. GLM (glm45, glm47), MiniMax-M2, Qwen3-Coder and Seed-OSS
    write each argument between tags of its own, raw strings and JSON values mixed, which is no JSON
    object: they have the current shape only, through xgrammar's (0.2.8+) XML content styles
    (``glm_xml``, ``minimax_xml``, ``qwen_xml``); the legacy shape holds JSON content only and
    raises ValueError for them. For the others use `grammar`: pythonic (Python literals, not
    JSON), DeepSeek DSML (each parameter a tag of its own, raw text or JSON), MiniMax-M3 (each
    key a tag of its own, objects nested, which no xgrammar content style writes).

    In the current shape the free text around the calls excludes the markers the format's
    reader opens a block at (``excludes``: ``</tool_call>``, code fences, ``<think>``...), as
    `grammar`'s content does, so a stray one cannot be read as a broken call; the legacy shape
    has no such field, and its free text is any text.
    """
    fmt = get_format(format)  # a registered name, or a format object (one described as data)
    shape, style = fmt.call_region, fmt.xgrammar_style
    if style is not None and isinstance(shape, XmlParameterCalls) and not legacy:
        chosen = _chosen(fmt, to_tools(tools), tool_choice)
        styled = xgrammar_format(shape, style, chosen, tool_choice)
        styled["excludes"] = _free_text_excludes(fmt, styled["triggers"])
        return {"type": "structural_tag", "format": styled}
    markers = fmt.structural_tag_markers
    if markers is None:
        raise ValueError(
            f"format {fmt.name!r} cannot be written as a structural tag (its arguments are not "
            f"one JSON object between fixed strings): use toolcalls.decoding.grammar; one of "
            f"{sorted(TAGGED)}"
        )
    chosen = _chosen(fmt, to_tools(tools), tool_choice)
    trigger, begin, end = markers
    tags = [
        {
            "begin": begin.format(name=tool.name, name_json=json.dumps(tool.name)),
            "schema": arguments_schema(tool),
            "end": end,
        }
        for tool in chosen
    ]
    if legacy:
        return {
            "type": "structural_tag",
            "structures": [dict(tag) for tag in tags],
            "triggers": [trigger],
        }
    return {
        "type": "structural_tag",
        "format": {
            "type": "triggered_tags",
            "triggers": [trigger],
            "tags": [
                {
                    "type": "tag",
                    "begin": tag["begin"],
                    "content": {"type": "json_schema", "json_schema": tag["schema"]},
                    "end": tag["end"],
                }
                for tag in tags
            ],
            "at_least_one": tool_choice != "auto",
            "stop_after_first": tool_choice not in ("auto", "required"),
            "excludes": _free_text_excludes(fmt, [trigger]),
        },
    }


def _free_text_excludes(fmt: Format, triggers: list[str]) -> list[str]:
    """The markers free text may not hold, as content in `toolcalls.decoding.grammar` may not
    (`Format.openers`: the reader opens a block at each, so a stray one is read with an issue),
    but for the triggers' own pieces, which xgrammar must let through to see the trigger.
    None for a response made of messages (gpt-oss): its text before a call is itself messages
    framed by its markers."""
    region = region_of(fmt)
    if region is not None and region.response is not None:
        return []
    return sorted(
        marker for marker in fmt.openers() if marker and not any(marker in t for t in triggers)
    )


def _chosen(fmt: Format, tools: list[Tool], tool_choice: str) -> list[Tool]:
    """The tools ``tool_choice`` lets the model call, each one ``fmt``'s reader can read."""
    chosen = [tool for tool in tools if tool_choice in ("auto", "required", tool.name)]
    if not chosen:
        raise ValueError(f"tool_choice {tool_choice!r} names no tool of the tool set")
    check_tools(fmt, chosen)
    return chosen
