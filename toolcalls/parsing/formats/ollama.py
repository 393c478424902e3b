"""Ollama's prompt-based tool calling: JSON objects naming a declared tool.

For models without a dedicated parser, Ollama takes the tool-call *prefix* from the model's
chat template (the first text inside ``{{ if .ToolCalls }}``, cut at its first ``{``: such as
``<tool_call>``, ``[TOOL_CALLS]``, ``functools[`` or ``Action: ```json``; none when the template
writes the JSON straight away), then looks for a declared tool name and its arguments object::

    <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>
    [TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]
    {"name": "get_weather", "parameters": {"city": "Paris"}}

Here a call is a JSON object (or an array of them, or several after one prefix) with a
``"name"`` (Command R: ``"tool_name"``; with both, the first one written with a string value
names the call, as a stream must) and an ``"arguments"`` or ``"parameters"`` object,
either bare or after a prefix; a closing tag (``</tool_call>``, the fence's closing backticks)
is markup when present. With tools given the name must be declared, else the JSON is content;
without tools any string name counts, as in `llama3_json`. The registered format accepts the
common prefixes; `Ollama.with_prefix` and `Ollama.from_template` give one model's prefix. JSON
inside a markdown code fence is quoted, not called, unless the model's prefix is itself fenced
(``Action: ```json``, Command R).

Unlike Ollama, text before a bare JSON call does not stop it from being a call, an invalid
candidate is kept as content rather than dropped, and arguments stream as they arrive.

Prompt rendering: each model brings its own Go template, so there is no one template to follow.
Calls are written after the format's first prefix as its parser reads them; the tools block and
results are Hermes/Qwen's (``<tools>``, ``<tool_response>``), where the default ``<tool_call>``
prefix comes from, and a ``<tool_response>`` block in the text is data, never calls.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import ClassVar

from mypy_extensions import mypyc_attr

from ...tools._tool import Tool
from .._models import ToolCall
from ..reader import Reader, ReaderContext, ReaderFactory, Status
from ._base import CODE_FENCE, Format
from ._jsonobjects import JsonCallsReader, JsonShape
from ._regions import NAMED_OBJECT_HEAD, JsonObjectCalls
from ._results import result_block
from ._template_json import tojson
from .hermes import RESULT_END, RESULT_START, Hermes

__all__ = ["Ollama", "template_prefix"]

DEFAULT_PREFIXES = (
    "<tool_call>",
    "<toolcall>",
    "<|tool_call|>",
    "[TOOL_CALLS]",
    "<|python_tag|>",
    "functools",
)
NAME_KEYS = ("name", "tool_name")
BARE = JsonShape(arrays=True, name_keys=NAME_KEYS)

_TOOLCALLS_IF = re.compile(r"\{\{-?\s*(?:else\s+)?if\b[^}]*?(?<![\w$])\.ToolCalls\b[^}]*\}\}")
_ACTION = re.compile(r"\{\{-?(.*?)-?\}\}", re.S)
_DESCEND = frozenset({"if", "range", "with", "else"})


def template_prefix(template: str) -> str:
    """The tag Ollama infers from a Go chat template (``"{"`` when there is none).

    The first non-blank text inside the ``{{ if .ToolCalls }}`` block, stepping into nested
    ``if``/``range``/``with`` blocks but stopping at any other action, cut at its first ``{``.
    """
    found = _TOOLCALLS_IF.search(template)
    if found is None:
        return "{"
    pos = found.end()
    for action in _ACTION.finditer(template, pos):
        text = template[pos : action.start()]
        if text.strip():
            return _tag(text)
        words = action.group(1).split(maxsplit=1)
        if not words or not (words[0] in _DESCEND or words[0].startswith("/*")):
            return "{"
        pos = action.end()
    return _tag(template[pos:]) if template[pos:].strip() else "{"


def _tag(text: str) -> str:
    return text.replace("\r\n", "\n").split("{", 1)[0].strip() or "{"


def _normalize(prefix: str) -> str:
    """A prefix without the ``[`` that opens the call array (read as part of the JSON)."""
    prefix = prefix.strip()
    if prefix.endswith("["):
        prefix = prefix[:-1].rstrip()
    return "" if prefix == "{" else prefix


def closer_for(prefix: str) -> str | None:
    """The marker that closes what `prefix` opens: ``<x>`` -> ``</x>``, a fence -> backticks."""
    if "```" in prefix:
        return "```"
    tag = re.fullmatch(r"<([A-Za-z_][\w-]*)>", prefix)
    return f"</{tag[1]}>" if tag else None


_FIRST_PREFIX = DEFAULT_PREFIXES[0]
_FIRST_CLOSER = closer_for(_FIRST_PREFIX) or ""


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled, with_prefix still subclasses it
class Ollama(Format):
    name = "ollama"
    aliases = ("ollama_json", "prompt_json")
    signatures = ()  # nothing tells it from the formats it generalizes: never auto-detected
    # Each model brings its own template: the common ends of a turn (ChatML, Llama 3, GLM and
    # Qwen's eos, Granite, Mistral).
    turn_ends = ("<|im_end|>", "<|eot_id|>", "<|endoftext|>", "<|end_of_text|>", "</s>")
    example = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
    prefixes: ClassVar[tuple[str, ...]] = DEFAULT_PREFIXES
    """The markers a call may follow (besides none at all)."""

    models = "prompt-based models served by Ollama"
    wire = "JSON objects naming a declared tool"
    no_corpus_reason = (
        "a prompt-based format (a prefix and JSON objects, taught by the prompt): "
        "no upstream parser test suite to copy rows from"
    )
    result_tags = ("<tool_response>", "</tool_response>")
    # The first prefix and its closer, one call per tag pair, as `render_calls` writes; the
    # other prefixes and bare JSON, which the reader also takes, are left out.
    call_region = JsonObjectCalls(_FIRST_PREFIX, call_close=_FIRST_CLOSER)
    structural_tag_markers = (
        _FIRST_PREFIX, f"{_FIRST_PREFIX}{NAMED_OBJECT_HEAD}", f"}}{_FIRST_CLOSER}"
    )

    @classmethod
    def with_prefix(cls, *prefixes: str) -> Ollama:
        """The format for a model whose template puts `prefixes` before its tool calls."""
        return _with_prefixes(tuple(dict.fromkeys(p for p in map(_normalize, prefixes) if p)))()

    @classmethod
    def from_template(cls, template: str) -> Ollama:
        """The format for a model with this Go chat template (Ollama's ``TEMPLATE``)."""
        return cls.with_prefix(template_prefix(template))

    def render_tools(self, tools: Sequence[Tool]) -> str:
        """The Hermes/Qwen tools block, where the default ``<tool_call>`` prefix comes from."""
        return Hermes().render_tools(tools)

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        """After the model's prefix (the first one; none for a bare format), one JSON object per
        call: each in its own tag pair for a tag prefix, else an array of them."""
        if not calls:
            return content
        objects = [f'{{"name": {tojson(c.name)}, "arguments": {tojson(c.arguments)}}}'
                   for c in calls]
        prefix = self.prefixes[0] if self.prefixes else ""
        closer = closer_for(prefix) if prefix else None
        if closer is not None and CODE_FENCE not in closer:
            return content + "\n".join(f"{prefix}{obj}{closer}" for obj in objects)
        body = objects[0] if len(objects) == 1 else f"[{', '.join(objects)}]"
        if closer is not None:  # a fenced prefix: the JSON on its own lines
            return f"{content}{prefix}\n{body}\n{closer}"
        return f"{content}{prefix}{body}"

    def render_result(self, call: ToolCall, result: str) -> str:
        return Hermes().render_result(call, result)

    def call_openers(self) -> dict[str, ReaderFactory]:
        table: dict[str, ReaderFactory] = {"{": _bare, "[": _bare}
        table[RESULT_START] = result_block(RESULT_END)  # a result in history is data
        for prefix in self.prefixes:
            shape = JsonShape(prefix=True, arrays=True, sequence=True,
                              closer=closer_for(prefix), name_keys=NAME_KEYS)
            table[prefix] = functools.partial(_prefixed, shape)
        return table

    def openers(self) -> dict[str, ReaderFactory]:
        table = super().openers()
        # An opener that begins a longer one ("[" and "[TOOL_CALLS]") must wait to see which
        # it is, or a chunk ending after "[" would decide differently from the whole text.
        for opener in list(table):
            longer = {o: table[o] for o in table if o != opener and o.startswith(opener)}
            if longer:
                table[opener] = functools.partial(_LongestOpener, table[opener], longer)
        return table


@functools.cache
def _with_prefixes(prefixes: tuple[str, ...]) -> type[Ollama]:
    attributes: dict[str, object] = {"prefixes": prefixes, "__module__": __name__}
    if any(CODE_FENCE in prefix for prefix in prefixes):
        attributes["code_fence"] = None  # the model's own call syntax is fenced (Command R)
    return type("Ollama", (Ollama,), attributes)


def _bare(ctx: ReaderContext, opener: str) -> JsonCallsReader:
    return JsonCallsReader(BARE, opener)


def _prefixed(shape: JsonShape, ctx: ReaderContext, opener: str) -> JsonCallsReader:
    return JsonCallsReader(shape, opener)


class _LongestOpener:
    """Starts the reader of the longest opener found at this position."""

    def __init__(self, short: ReaderFactory, longer: dict[str, ReaderFactory],
                 ctx: ReaderContext, opener: str) -> None:
        self.short = short
        self.longer = longer
        self.opener = opener
        self.inner: Reader | None = None
        self.start = 0

    @property
    def resume(self) -> int:
        resume = getattr(self.inner, "resume", None) or 0
        return max(resume, self.start + len(self.opener))

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        if self.inner is None:
            self.start = ctx.at()
            ahead = ctx.buf[ctx.pos : ctx.pos + max(map(len, self.longer))]
            match = max((o for o in self.longer if ahead.startswith(o)), key=len, default=None)
            if match is None and not eof and any(o.startswith(ahead) for o in self.longer):
                return Status.MORE
            self.opener = match or self.opener
            self.inner = (self.longer[match] if match else self.short)(ctx, self.opener)
        return self.inner.read(ctx, eof)
