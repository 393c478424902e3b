"""How a format writes its calls, as plain data: what the constrained-decoding export
(`toolcalls.decoding`) builds the format's whole-response grammar from.

A format sets `Format.call_region` to one of these shapes, filled with the markers its own
reader uses (its module's constants, its `XmlCallStyle`), never strings typed again. Each shape
is one way of writing calls, and `toolcalls.decoding` has one builder per shape: a new format
written as an existing shape needs no code there. Nothing here is read while parsing (nor
compiled: plain data).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # not loaded for the JSON formats, whose readers do without them
    from ._xmlparams import XmlTags
    from ._xmlrender import XmlCallStyle

__all__ = [
    "NAMED_OBJECT_HEAD",
    "BareJsonCalls",
    "BareJsonListCalls",
    "CallShape",
    "DeepseekCalls",
    "DsmlCalls",
    "GemmaCalls",
    "GenericJsonCalls",
    "HarmonyCalls",
    "JsonArrayCalls",
    "JsonListCalls",
    "JsonObjectCalls",
    "KeyTagCalls",
    "KeyedJsonListCalls",
    "KimiCalls",
    "NameArgsCalls",
    "PythonLineCalls",
    "PythonListCalls",
    "RecipientCalls",
    "TaggedJsonCalls",
    "XmlParameterCalls",
]


NAMED_OBJECT_HEAD = '{{"name": {name_json}, "arguments": '
"""A ``{"name", "arguments"}`` call object up to its arguments, as the begin of a structural
tag (`Format.structural_tag_markers`: a `str.format` template, its braces doubled)."""


@dataclass(frozen=True)
class JsonObjectCalls:
    """``{"name": NAME, "arguments": {...}}`` after ``opener``. With ``section_close``, the
    opener begins one section holding every call, one object per line (MiniMax M1's
    ``<tool_calls>``); else each call stands after an opener of its own and ends with
    ``call_close`` (Hermes' ``</tool_call>``; None: nothing after the object)."""

    opener: str
    call_close: str | None = None
    section_close: str = ""


@dataclass(frozen=True)
class JsonListCalls:
    """After ``opener`` (a special token), one JSON list of ``{"name", "arguments"}`` objects,
    or one such object without the list (Granite 3.x's ``<|tool_call|>[...]``); then ``close``
    (Jamba's ``</tool_calls>``), if any. ``special``: the markers are tokens of the tokenizer
    (a described format's may be plain tags)."""

    opener: str
    close: str = ""
    special: bool = True


@dataclass(frozen=True)
class JsonArrayCalls:
    """``opener``, one JSON array of calls, ``close``: ``{"name", "arguments"}`` objects
    (Nemotron Nano v2's ``<TOOLCALL>[...]</TOOLCALL>``, Apriel's ``<tool_calls>``), or with
    ``name_as_key`` ``{NAME: {...}}`` objects (Apertus' ``<|tools_prefix|>``); ``special``:
    the two markers are special tokens; ``call_id``: an object may end with the call's
    ``"id"`` (Apriel's template writes it in history)."""

    opener: str
    close: str
    name_as_key: bool = False
    special: bool = False
    call_id: bool = False


@dataclass(frozen=True)
class KeyedJsonListCalls:
    """After ``opener``, one JSON list of call objects keyed as the format names them, then
    ``close``, both special tokens (Cohere's ``<|START_ACTION|>[{"tool_call_id": "0",
    "tool_name": NAME, "parameters": {...}}]<|END_ACTION|>``); the reader also takes one object
    without the list. ``id_key``: a string id written first (``""``: none)."""

    opener: str
    close: str
    name_key: str
    arguments_key: str
    id_key: str = ""


@dataclass(frozen=True)
class TaggedJsonCalls:
    """``OPENER NAME_OPEN NAME NAME_CLOSE ARGUMENTS_OPEN {...} ARGUMENTS_CLOSE CLOSE``, a call
    per opener (the prompt-based ``xml`` format)."""

    opener: str
    name_open: str
    name_close: str
    arguments_open: str
    arguments_close: str
    close: str


@dataclass(frozen=True)
class BareJsonCalls:
    """Bare ``{"name": NAME, KEY: {...}}`` objects, ``separator`` between two, each maybe after
    ``python_tag`` (Llama 3.x); ``keys``: the arguments' key as the template writes it, then the
    others the reader takes."""

    python_tag: str
    separator: str
    keys: tuple[str, ...]


@dataclass(frozen=True)
class BareJsonListCalls:
    """One JSON list of ``{"name", "arguments"}`` objects standing bare in the text, ``[``
    ... ``]``, ``separator`` between two (xLAM-2)."""

    separator: str


@dataclass(frozen=True)
class NameArgsCalls:
    """``OPENER NAME ARGS {...}`` per call, or after the opener one JSON array of ``{"name",
    "arguments"}`` objects (Mistral's two generations); both markers special tokens."""

    opener: str
    args: str


@dataclass(frozen=True)
class XmlParameterCalls:
    """Each argument between tags of its own, as ``style`` writes them (Qwen3-Coder, GLM,
    MiniMax-M2, Seed-OSS). Where the calls stand follows from the style's tags: in a section
    per call (``section_per_call``), in one section holding every call (the tags have a
    section), or with no section, the call's own open tag opening the region (GLM).
    ``reasoning_lead``: what the model writes before its reasoning block (GLM: a line break
    after the template's ``<|assistant|>``)."""

    style: XmlCallStyle
    reasoning_lead: str = ""


@dataclass(frozen=True)
class KeyTagCalls:
    """One section (``section_open`` ... ``section_close``) of ``invoke_open NAME head_end``
    ... ``invoke_close`` calls whose arguments are elements named after their keys, objects
    nested, lists as ``<item>`` elements, every tag behind the ``namespace`` token
    (MiniMax-M3: `toolcalls.parsing.formats._minimax_m3_values`)."""

    section_open: str
    section_close: str
    invoke_open: str
    head_end: str
    invoke_close: str
    namespace: str


@dataclass(frozen=True)
class DeepseekCalls:
    """One section (``calls_begin`` ... ``calls_end``) of ``call_begin`` ... ``call_end``
    calls. With ``fence_open``: ``TYPE SEP NAME``, a line break, the arguments in a fenced
    block (DeepSeek V3, R1); without: ``NAME SEP {...}`` (V3.1)."""

    calls_begin: str
    calls_end: str
    call_begin: str
    sep: str
    call_end: str
    call_type: str = ""
    fence_open: str = ""
    fence_close: str = ""


@dataclass(frozen=True)
class DsmlCalls:
    """DeepSeek's DSML: a section of ``invoke`` calls whose parameters are raw text
    (``string="true"``) or JSON (``string="false"``), with ``tags``' spelling; the section may
    be any of the tags' section names."""

    tags: XmlTags


@dataclass(frozen=True)
class KimiCalls:
    """One section of ``CALL_BEGIN PREFIX NAME SEPARATOR INDEX ARGUMENT_BEGIN {...} CALL_END``
    calls, every marker a special token (Kimi K2)."""

    section_begin: str
    section_end: str
    call_begin: str
    name_prefix: str
    index_separator: str
    argument_begin: str
    call_end: str


@dataclass(frozen=True)
class PythonListCalls:
    """A Python list of calls, ``[f(a=1), g()]``, bare or between the ``start`` and ``end``
    special tokens (Llama 4, LFM2), the end optional. ``json_containers``: lists and dicts are
    written as JSON (LFM2.5's template writes them with ``tojson``), not as Python literals."""

    start: str
    end: str
    json_containers: bool = False


@dataclass(frozen=True)
class PythonLineCalls:
    """Pythonic calls one a line, ``f(a=1)`` then ``g()``, in one section between the ``start``
    and ``end`` tags, each on its own line (Olmo 3's ``<function_calls>``)."""

    start: str
    end: str


@dataclass(frozen=True)
class HarmonyCalls:
    """gpt-oss's harmony messages, every marker a special token: not content then calls but
    a response made of messages, each call one (``to=NAMESPACE.NAME``)."""

    start: str
    channel: str
    message: str
    constrain: str
    call: str
    end: str
    return_: str
    namespace: str
    tokens: tuple[str, ...]


@dataclass(frozen=True)
class RecipientCalls:
    """Functionary v3.2's message parts: ``PART NAME\\n{...}`` per call, text for the user
    the part ``PART CONTENT\\n...``. The prompt ends with ``PART``, so the response starts
    inside a part (a model may write it again); after a reasoning block, with ``PART``.
    ``markers``: what text may not hold (the reader's openers); ``reasoning``: its tags."""

    part: str
    content: str
    markers: tuple[str, ...]
    reasoning: tuple[str, str]


@dataclass(frozen=True)
class GemmaCalls:
    """``OPEN call:NAME{key:value,...} CLOSE`` per call, both markers special tokens; strings
    between two ``quote`` tokens, keys bare, other values JSON's (Gemma 4, FunctionGemma)."""

    open: str
    close: str
    quote: str


@dataclass(frozen=True)
class GenericJsonCalls:
    """The whole response one JSON object (llama.cpp's generic JSON): the calls as a list under
    ``calls_key``, one call under ``call_key``, or an answer string under ``response_key``;
    maybe ``reasoning`` before it."""

    calls_key: str
    call_key: str
    response_key: str
    reasoning: tuple[str, str]


CallShape = (
    JsonObjectCalls | JsonListCalls | TaggedJsonCalls | BareJsonCalls | NameArgsCalls
    | BareJsonListCalls
    | XmlParameterCalls | KeyTagCalls | DeepseekCalls | DsmlCalls | KimiCalls | PythonListCalls
    | PythonLineCalls | HarmonyCalls | RecipientCalls | GemmaCalls | JsonArrayCalls
    | KeyedJsonListCalls | GenericJsonCalls
)
"""Every way a format may write its calls (`Format.call_region`)."""
