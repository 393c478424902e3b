"""The one registry of formats: lookup by name, alias or model id, and detection.

Format modules are imported on first use, so ``import toolcalls`` compiles nothing.
"""

from __future__ import annotations

import bisect
import difflib
import functools
import importlib
from typing import TYPE_CHECKING

from .._errors import UnknownFormatError
from ..tools._read import ToolsLike, to_tools

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..tools._tool import Tool
    from ._models import ParseResult
    from .formats._base import Format

__all__ = [
    "DECLARED", "FORMATS", "add_format", "detect", "detect_parsed", "get_format", "list_formats",
    "remove_format",
]

# name -> "module:Class", alphabetical. Module names match the fixture folders.
FORMATS: dict[str, str] = {
    "apertus": "toolcalls.parsing.formats.apertus:Apertus",
    "apriel": "toolcalls.parsing.formats.apriel:Apriel",
    "cohere": "toolcalls.parsing.formats.cohere:Cohere",
    "deepseek_v3": "toolcalls.parsing.formats.deepseek:DeepseekV3",
    "deepseek_v31": "toolcalls.parsing.formats.deepseek:DeepseekV31",
    "deepseek_v32_dsml": "toolcalls.parsing.formats.deepseek_dsml:DeepseekV32Dsml",
    "firefunction_v2": "toolcalls.parsing.formats.firefunction:FirefunctionV2",
    "function_gemma": "toolcalls.parsing.formats.gemma:FunctionGemma",
    "functionary_v31": "toolcalls.parsing.formats.functionary:FunctionaryV31",
    "functionary_v32": "toolcalls.parsing.formats.functionary:FunctionaryV32",
    "gemma4": "toolcalls.parsing.formats.gemma:Gemma4",
    "generic_json": "toolcalls.parsing.formats.generic_json:GenericJson",
    "gigachat3": "toolcalls.parsing.formats.gigachat:Gigachat3",
    "gigachat31": "toolcalls.parsing.formats.gigachat:Gigachat31",
    "gigachat35": "toolcalls.parsing.formats.gigachat35:Gigachat35",
    "glm45": "toolcalls.parsing.formats.glm:Glm45",
    "glm47": "toolcalls.parsing.formats.glm:Glm47",
    "gpt_oss": "toolcalls.parsing.formats.gpt_oss:GptOss",
    "granite": "toolcalls.parsing.formats.granite:Granite",
    "granite4": "toolcalls.parsing.formats.granite:Granite4",
    "granite_20b_fc": "toolcalls.parsing.formats.granite_20b_fc:Granite20bFc",
    "hermes": "toolcalls.parsing.formats.hermes:Hermes",
    "hunyuan_a13b": "toolcalls.parsing.formats.hunyuan:HunyuanA13b",
    "internlm2": "toolcalls.parsing.formats.internlm2:Internlm2",
    "jamba": "toolcalls.parsing.formats.described:jamba",
    "kimi_k2": "toolcalls.parsing.formats.kimi_k2:KimiK2",
    "lfm2": "toolcalls.parsing.formats.lfm2:Lfm2",
    "llama3_json": "toolcalls.parsing.formats.llama3_json:Llama3Json",
    "longcat": "toolcalls.parsing.formats.longcat:Longcat",
    "minimax_m1": "toolcalls.parsing.formats.minimax_m1:MinimaxM1",
    "minimax_m2": "toolcalls.parsing.formats.minimax_m2:MinimaxM2",
    "minimax_m3": "toolcalls.parsing.formats.minimax_m3:MinimaxM3",
    "mistral": "toolcalls.parsing.formats.mistral:Mistral",
    "nemotron_v2": "toolcalls.parsing.formats.described:nemotron_v2",
    "ollama": "toolcalls.parsing.formats.ollama:Ollama",
    "olmo3": "toolcalls.parsing.formats.olmo3:Olmo3",
    "phi4_mini": "toolcalls.parsing.formats.firefunction:Phi4Mini",
    "pythonic": "toolcalls.parsing.formats.pythonic:Pythonic",
    "qwen3_coder": "toolcalls.parsing.formats.qwen3_coder:Qwen3Coder",
    "reka": "toolcalls.parsing.formats.reka:Reka",
    "seed_oss": "toolcalls.parsing.formats.seed_oss:SeedOss",
    "step3": "toolcalls.parsing.formats.step3:Step3",
    "step35": "toolcalls.parsing.formats.step35:Step35",
    "xlam": "toolcalls.parsing.formats.xlam:Xlam",
    "xml": "toolcalls.parsing.formats.xml:Xml",
}


DECLARED: dict[str, Format] = {}
"""Formats registered at run time (`toolcalls.parsing.register_format`), by name."""


def list_formats() -> list[str]:
    """The registered format names, sorted."""
    return sorted({*FORMATS, *DECLARED})


def add_format(fmt: Format, *, replace: bool = False) -> None:
    """Register `fmt` under its name, aliases and model ids (see `register_format`)."""
    taken = fmt.name in FORMATS or (fmt.name in DECLARED and not replace)
    if taken:
        hint = "" if fmt.name in FORMATS else " (pass replace=True to replace it)"
        raise ValueError(f"a format named {fmt.name!r} is already registered{hint}")
    owners = _aliases()
    for alias in fmt.aliases:
        owner = owners.get(_normalize(alias))
        if owner is not None and owner != fmt.name:
            raise ValueError(f"the alias {alias!r} already names the format {owner!r}")
    DECLARED[fmt.name] = fmt
    _forget()


def remove_format(name: str) -> None:
    """Unregister a format registered at run time (built-in ones stay)."""
    if name not in DECLARED:
        raise UnknownFormatError(f"no format named {name!r} was registered at run time")
    del DECLARED[name]
    _forget()


def _forget() -> None:
    """Drop what was derived from the registry, after it changed."""
    for cached in (_load, _aliases, _model_prefixes):
        cached.cache_clear()


@functools.cache
def _load(name: str) -> Format:
    if name in DECLARED:
        return DECLARED[name]
    module, _, cls = FORMATS[name].partition(":")
    return getattr(importlib.import_module(module), cls)()  # type: ignore[no-any-return]


def _normalize(key: str) -> str:
    return key.strip().lower().replace("-", "_").replace(".", "").replace(" ", "_")


@functools.cache
def _aliases() -> dict[str, str]:
    table: dict[str, str] = {}
    for name in list_formats():
        for alias in _load(name).aliases:
            table[_normalize(alias)] = name
    return table


@functools.cache
def _model_prefixes() -> list[tuple[str, str]]:
    pairs = [(p.lower(), name) for name in list_formats() for p in _load(name).model_prefixes]
    return sorted(pairs, key=lambda pair: len(pair[0]), reverse=True)


def get_format(key: str | Format) -> Format:
    """A format by name, alias or model id (``Qwen/Qwen3-Coder-30B-A3B-Instruct``).

    A `Format` object is returned as it is, so one built for a model (such as
    ``Ollama.from_template(template)``) goes wherever a name does.
    """
    if not isinstance(key, str):
        return key
    if key in FORMATS or key in DECLARED:
        return _load(key)
    normalized = _normalize(key)
    if normalized in FORMATS or normalized in DECLARED:
        return _load(normalized)
    if normalized in _aliases():
        return _load(_aliases()[normalized])
    lowered = key.strip().lower()
    for prefix, name in _model_prefixes():
        if lowered.startswith(prefix) or lowered.split("/")[-1].startswith(prefix):
            return _load(name)
    raise UnknownFormatError(_unknown_message(key))


def _unknown_message(key: str) -> str:
    candidates = list_formats() + list(_aliases())
    close = difflib.get_close_matches(_normalize(key), candidates, n=3, cutoff=0.5)
    hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    return (
        f"unknown tool-call format {key!r}.{hint} "
        f"Known formats: {', '.join(list_formats())} (or 'auto' to detect)."
    )


_PLAIN_TEXT_SIGNS = frozenset({'"name"', '"parameters"', '"arguments"', "```json"})
"""Signatures that ordinary text has too (JSON keys, a Markdown fence): not markup."""
_NAMES_A_TOOL = 0.25
"""The score of a bare-call format when the text names a declared tool (below any marker)."""


def detect(text: str, tools: ToolsLike = None) -> str | None:
    """The name of the format `text` most likely uses, or None when no format is seen.

    Markup (``<tool_call>``, ``[TOOL_CALLS]``...) shortlists the formats. Signs that ordinary
    text has too (a ``"name"`` key, a fenced JSON block, a bare call list, with `tools` the name
    of a declared one) count only if the format reads a call in the text, and with `tools` a
    bare call must name a declared tool. When several formats are left, each parses the text,
    and the one that reads the most calls with the fewest problems wins.
    """
    return detect_parsed(text, to_tools(tools))[0]


def detect_parsed(text: str, declared: Sequence[Tool]) -> tuple[str | None, ParseResult | None]:
    """`detect`, with the format's lenient parse of `text` when detecting needed it (so
    ``parse(text, "auto")`` does not parse twice).

    A tool result is data in every format: a format that reads a call inside what another
    format reads as a tool result (a ``<tool_response>`` block, a ``[TOOL_RESULTS]`` region)
    is not a candidate, so a call quoted in a result and refused by the format whose result
    it is (``call_in_tool_result``) is never read as a call by detection.
    """
    scores = _scores(text, declared)
    parses = _Parses(text, declared)
    shortlist = [
        name
        for name in sorted(scores, key=lambda n: -scores[n])
        if _has_markup(name, text) or _reads_a_call(parses.result(name))
    ]
    if any(_reads_a_call(parses.result(name)) for name in shortlist):
        guards = {name: first for name in list_formats()
                  if (first := _first_result_marker(name, text)) >= 0}
        holders = {name: _holders(name, guards, parses) for name in shortlist}
        trusted = [name for name in shortlist if not holders[name]]
        if len(trusted) < len(shortlist) and not any(
                _reads_a_call(parses.result(name)) for name in trusted):
            # Only quoted calls: the text is the format's whose tool result quotes them.
            quoting = sorted({holder for names in holders.values() for holder in names})
            quoted_by = max(quoting, key=lambda name: _quoting_fit(name, parses, scores))
            return quoted_by, parses.result(quoted_by)
        shortlist = trusted
    if len(shortlist) <= 1:
        found = shortlist[0] if shortlist else None
        return found, parses.result(found) if found is not None else None

    def fit(name: str) -> tuple[int, bool, int, int, bool, bool, float]:
        # With as many calls, a format that read a call it could not complete (a <tool_call>
        # holding broken JSON: Hermes, with the JSON issue) beats one that read nothing there
        # (xml, whose <tool_call> needs a <name>): the markup was its call, written wrong.
        # Then a format whose turn-end token ends the text (Reka's <sep> after Hermes' calls):
        # it reads that token as markup where the others leave it in the content. Then markup
        # of its own beats signs any JSON has (llama3_json's "parameters").
        result = parses.result(name)
        return (len(result.calls), _reads_a_call(result), -len(result.incomplete),
                -len(result.issues), _ends_its_turn(name, text), _has_markup(name, text),
                scores[name])

    best = max(shortlist, key=fit)  # the first of equals: the higher marker score
    return best, parses.result(best)


class _Parses:
    """Each format's lenient parse of one text, made once, with the spans it read as tool
    results."""

    def __init__(self, text: str, declared: Sequence[Tool]) -> None:
        self.text = text
        self.declared = declared
        self.made: dict[str, tuple[ParseResult, list[tuple[int, int]]]] = {}

    def result(self, name: str) -> ParseResult:
        return self._parse(name)[0]

    def quoted(self, name: str) -> list[tuple[int, int]]:
        return self._parse(name)[1]

    def _parse(self, name: str) -> tuple[ParseResult, list[tuple[int, int]]]:
        made = self.made.get(name)
        if made is None:
            from .stream import parse_quoting  # loads the engine: not at `import toolcalls`

            made = self.made[name] = parse_quoting(_load(name), self.text, self.declared)
        return made


def _reads_a_call(result: ParseResult) -> bool:
    return bool(result.calls or result.incomplete)


def _first_result_marker(name: str, text: str) -> int:
    """Where the first of the format's tool-result markers is in `text`; -1 when none is."""
    found = [at for marker in _load(name).result_markers() if (at := text.find(marker)) >= 0]
    return min(found, default=-1)


def _holders(name: str, guards: dict[str, int], parses: _Parses) -> list[str]:
    """The other formats in whose tool results a call that `name` reads starts (`guards`: the
    formats with a result marker in the text, and where the first one is)."""
    result = parses.result(name)
    spans = [call.span for call in result.calls] + [call.span for call in result.incomplete]
    starts = [span[0] for span in spans if span is not None]
    last = max(starts, default=-1)
    # A guard is parsed only when a call starts after its first marker: a call followed by
    # its result block (the usual history) costs no parse.
    return [guard for guard, first in guards.items() if guard != name and first < last
            and any(_within(start, parses.quoted(guard)) for start in starts)]


def _within(offset: int, spans: list[tuple[int, int]]) -> bool:
    """Whether `offset` is inside one of `spans` (in order, not overlapping), past its start."""
    index = bisect.bisect_left(spans, (offset, -1)) - 1  # the last span to start before it
    return index >= 0 and spans[index][1] > offset


def _quoting_fit(name: str, parses: _Parses, scores: dict[str, float]) -> tuple[bool, bool, float]:
    """How well a format that quoted a call explains the text: it can be detected at all (not
    ollama, which generalizes the others), it noticed the call (an issue inside one of its tool
    results: ``call_in_tool_result``...), its score."""
    spans = parses.quoted(name)
    noticed = any(issue.span is not None and _within(issue.span[0] + 1, spans)
                  for issue in parses.result(name).issues)
    return bool(type(_load(name)).signatures), noticed, scores.get(name, 0.0)


def _scores(text: str, tools: Sequence[Tool]) -> dict[str, float]:
    """The formats with a sign in `text`, by how sure their markers make us."""
    scores = {name: type(_load(name)).detect(text) for name in list_formats()}
    if any(tool.name in text for tool in tools):
        for name in scores:
            if type(_load(name)).bare_calls:  # calls with no markup (`Format.bare_calls`)
                scores[name] = max(scores[name], _NAMES_A_TOOL)
    return {name: score for name, score in scores.items() if score > 0}


def _ends_its_turn(name: str, text: str) -> bool:
    """Whether one of the format's turn-end tokens ends `text` (then blanks at most)."""
    return text.rstrip().endswith(type(_load(name)).turn_ends)


def _has_markup(name: str, text: str) -> bool:
    signatures = type(_load(name)).signatures
    return any(sign in text for sign in signatures if sign not in _PLAIN_TEXT_SIGNS)
