"""Hypothesis strategies for tools, their calls, and responses in every wire format.

Values are generated from the tools' JSON Schemas, so a call always fits its tool; string
values and prose mix ordinary text with the markup of the formats (openers, close tags, special
tokens, JSON punctuation), unicode and line breaks, which is where parsers break.
"""

from __future__ import annotations

import functools
import itertools
import re
import string
from collections.abc import Iterable, Sequence
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from ..parsing._models import ToolCall
from ..parsing._registry import get_format, list_formats
from ..parsing.formats._base import Format
from ..tools._tool import Tool

__all__ = [
    "arguments", "calls", "chunkings", "delimiters", "mutations", "names", "prose", "responses",
    "schemas", "split_at", "strings", "tools",
]

_PROBE = ToolCall(id="call00000", name="f", arguments={"k": "v"}, span=(0, 0))
_TAG = re.compile(r"</?[^<>\s]{1,40}>|<\|[^|]{1,40}\|>|\[[A-Z_]{2,20}\]")
_ALWAYS = (
    '"', "'", "\\", "{", "}", "[", "]", ",", ":", "\n", "\r\n", "\t", " ", "null", "true", "1",
    "é", "日本語", "🙂", "\u2028", '{"name": "f", "arguments": {"a": 1}}',
    "<function=x>", '<parameter name="k">', "<parameter=k>", "</function>", "</parameter>",
    "</invoke>", "<tool_response>", "</tool_response>", "<response>", "</response>", "<result>",
    "</result>", "</function_results>", "</arguments>", "</name>",
)
_PROSE = string.ascii_letters + string.digits + " .,;:!?'-éü日本"
_CALL_ID = "call{:05d}"


def split_at(text: str, cuts: Iterable[int]) -> list[str]:
    """`text` cut at each of `cuts` (any order, repeats and out-of-range cuts ignored).

    >>> split_at("abcdef", [4, 2, 2, 9])
    ['ab', 'cd', 'ef']
    """
    bounds = [0, *sorted({cut for cut in cuts if 0 < cut < len(text)}), len(text)]
    return [text[start:end] for start, end in itertools.pairwise(bounds)]


@functools.cache
def _delimiters(format_name: str | None) -> tuple[str, ...]:
    """The markup one format writes (or every format, for None): its call openers, reasoning
    tags, the tags and special tokens of a rendered call and result, and JSON punctuation."""
    found: set[str] = set(_ALWAYS)
    for name in list_formats() if format_name is None else [format_name]:
        fmt = get_format(name)
        found.update(fmt.compiled_openers().factories)
        if fmt.reasoning_tags is not None:
            found.update(fmt.reasoning_tags)
        found.update(_TAG.findall(_rendered_probe(fmt)))
    return tuple(sorted(found))


def delimiters(format: str | None = None) -> tuple[str, ...]:
    """The markup `format` writes (every format's, for None), with JSON punctuation, blanks and
    unicode: what `strings` mixes into text.

    >>> from toolcalls.testing import delimiters
    >>> "</tool_call>" in delimiters("hermes")
    True
    """
    return _delimiters(None if format is None else get_format(format).name)


def _rendered_probe(fmt: Format) -> str:
    """A call and a tool result as `fmt` writes them (what it can write of the two)."""
    written = ""
    try:
        written += fmt.render_calls([_PROBE])
        written += fmt.render_result(_PROBE, "r")
    except (NotImplementedError, ValueError):
        pass
    return written


def names() -> st.SearchStrategy[str]:
    """Identifiers as tools and parameters are named: ``[a-z][a-z0-9_]{0,11}``.

    >>> from hypothesis import given
    >>> from toolcalls.testing import names
    >>> @given(names())
    ... def test_names_are_identifiers(name: str) -> None:
    ...     assert name.isidentifier()
    >>> test_names_are_identifiers()
    """
    return st.from_regex(r"[a-z][a-z0-9_]{0,11}", fullmatch=True)


def strings(format: str | None = None, *, max_pieces: int = 6) -> st.SearchStrategy[str]:
    """Text that mixes arbitrary characters with the markup of `format` (of every format by
    default): openers, close tags, special tokens, quotes, braces, line breaks, unicode.

    >>> from hypothesis import given
    >>> import toolcalls
    >>> from toolcalls.testing import strings
    >>> @given(strings("hermes"))
    ... def test_parse_accounts_for_every_character(text: str) -> None:
    ...     result = toolcalls.parse(text, "hermes")
    ...     assert result.segments[-1][2] == len(text) if text else not result.segments
    >>> test_parse_accounts_for_every_character()
    """
    pieces = st.one_of(st.sampled_from(delimiters(format)), st.text(max_size=5))
    return st.lists(pieces, max_size=max_pieces).map("".join)


def prose(format: str | None = None, *, hostile: bool = False) -> st.SearchStrategy[str]:
    """Content before calls, without surrounding blanks (templates trim them): letters, digits,
    punctuation and unicode; `hostile` prose also names the markup of `format` (``Use the
    <tool_call> tag.``) or is made of it (`strings`).

    >>> from hypothesis import given
    >>> import toolcalls
    >>> from toolcalls.testing import prose
    >>> @given(prose())
    ... def test_plain_prose_is_content(text: str) -> None:
    ...     assert toolcalls.parse(text, "hermes").content == text
    >>> test_plain_prose_is_content()
    """
    plain = st.text(alphabet=_PROSE, max_size=30).map(str.strip)
    if not hostile:
        return plain
    mention = st.sampled_from(delimiters(format)).map(lambda marker: f"Use the {marker} tag.")
    return st.one_of(plain, mention, strings(format)).map(str.strip)


_FINITE = st.floats(allow_nan=False, allow_infinity=False)
_JSON_SCALARS = st.none() | st.booleans() | st.integers(-(10**9), 10**9)


def _json(text: st.SearchStrategy[str]) -> st.SearchStrategy[Any]:
    return st.recursive(
        _JSON_SCALARS | text,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
        max_leaves=6)


_PLAIN_KINDS: tuple[dict[str, Any], ...] = (
    {"type": "string"}, {"type": "integer"}, {"type": "number"}, {"type": "boolean"},
    {"type": "array", "items": {"type": "string"}}, {"type": "array", "items": {"type": "integer"}},
    {"type": "object"},
)


def _plain_parameters() -> st.SearchStrategy[dict[str, Any]]:
    """Objects of up to 4 properties, each a string, integer, number, boolean, array or object."""
    return st.dictionaries(names(), st.sampled_from(_PLAIN_KINDS), max_size=4).map(
        lambda properties: {"type": "object", "properties": properties})


def _scalar_schemas(text: st.SearchStrategy[str]) -> st.SearchStrategy[dict[str, Any]]:
    plain = st.sampled_from(["string", "integer", "number", "boolean"]).map(lambda t: {"type": t})
    nullable = st.sampled_from(["string", "integer"]).map(lambda t: {"type": [t, "null"]})
    enum = st.lists(text, min_size=1, max_size=4, unique=True).map(
        lambda values: {"type": "string", "enum": values})
    return st.one_of(plain, nullable, enum)


def _with_description(schema: dict[str, Any], description: str | None) -> dict[str, Any]:
    return schema if description is None else {**schema, "description": description}


def schemas(depth: int = 2) -> st.SearchStrategy[dict[str, Any]]:
    """Object schemas in the subset every provider reads: scalars, nullable types, string enums,
    arrays, nested objects (down to `depth`), descriptions and ``required`` lists.

    >>> from hypothesis import given
    >>> from toolcalls import Tool
    >>> from toolcalls.testing import schemas
    >>> @given(schemas())
    ... def test_any_schema_makes_a_tool(schema: dict) -> None:
    ...     assert Tool(name="f", parameters=schema).parameters == schema
    >>> test_any_schema_makes_a_tool()
    """
    identifiers = st.from_regex(r"[a-zA-Z_][a-zA-Z0-9_]{0,20}", fullmatch=True)
    text = st.text(max_size=40)
    leaf = st.builds(_with_description, _scalar_schemas(text), st.none() | text)
    child: st.SearchStrategy[dict[str, Any]] = leaf
    if depth > 0:
        arrays = leaf.map(lambda item: {"type": "array", "items": item})
        child = st.one_of(leaf, arrays, schemas(depth - 1))
    return st.dictionaries(identifiers, child, max_size=4).flatmap(
        lambda properties: st.lists(st.sampled_from(sorted(properties)) if properties
                                    else st.nothing(), unique=True).map(
            lambda required: {"type": "object", "properties": properties,
                              **({"required": required} if required else {})}))


def tools(min_size: int = 1, max_size: int = 3, *,
          parameters: st.SearchStrategy[dict[str, Any]] | None = None
          ) -> st.SearchStrategy[list[Tool]]:
    """Lists of tools with distinct names, a description each, and `parameters` schemas (by
    default objects of up to 4 string, integer, number, boolean, array or object properties;
    `schemas()` gives richer ones).

    >>> from hypothesis import given
    >>> from toolcalls.testing import tools
    >>> @given(tools())
    ... def test_tool_names_are_distinct(drawn: list) -> None:
    ...     assert len({tool.name for tool in drawn}) == len(drawn)
    >>> test_tool_names_are_distinct()
    """
    schema = _plain_parameters() if parameters is None else parameters
    one = st.builds(lambda name, description, params: Tool(
        name=name, description=description, parameters=params),
        names(), st.text(max_size=40), schema)
    return st.lists(one, min_size=min_size, max_size=max_size, unique_by=lambda t: t.name)


def _values(schema: Any, text: st.SearchStrategy[str]) -> st.SearchStrategy[Any]:
    """Values valid against `schema` (the subset `schemas()` and `tools()` write)."""
    if not isinstance(schema, dict):
        return _json(text)
    if "enum" in schema and schema["enum"]:
        return st.sampled_from(list(schema["enum"]))
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([_values({**schema, "type": one}, text) for one in kind] or [_json(text)])
    if kind == "string":
        return text
    if kind == "integer":
        return st.integers(-(10**12), 10**12)
    if kind == "number":
        return _FINITE
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        return st.lists(_values(schema.get("items"), text), max_size=3)
    if kind == "object" and schema.get("properties"):
        return _objects(schema, text)
    if kind == "object":
        return st.dictionaries(text, _json(text), max_size=3)
    return _json(text)


def _objects(schema: dict[str, Any], text: st.SearchStrategy[str]
             ) -> st.SearchStrategy[dict[str, Any]]:
    """The required properties, then any others, in a drawn order."""
    properties: dict[str, Any] = schema.get("properties") or {}
    required = [key for key in schema.get("required") or [] if key in properties]
    optional = sorted(set(properties) - set(required))

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        chosen = draw(st.lists(st.sampled_from(optional), unique=True)) if optional else []
        keys = draw(st.permutations([*required, *chosen])) if required else chosen
        return {key: draw(_values(properties[key], text)) for key in keys}

    return build()


def arguments(tool: Tool, *, text: st.SearchStrategy[str] | None = None
              ) -> st.SearchStrategy[dict[str, Any]]:
    """Arguments valid against `tool`'s parameters schema: its required properties and any of
    the others; string values from `text` (by default `strings()`: every format's markup).

    >>> from hypothesis import given
    >>> import jsonschema
    >>> from toolcalls import Tool
    >>> from toolcalls.testing import arguments
    >>> tool = Tool(name="get_weather", parameters={"type": "object", "properties": {
    ...     "city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]})
    >>> @given(arguments(tool))
    ... def test_arguments_fit_the_schema(drawn: dict) -> None:
    ...     jsonschema.validate(drawn, tool.parameters)
    >>> test_arguments_fit_the_schema()
    """
    return _objects({"properties": {}, **tool.parameters}, strings() if text is None else text)


def calls(tools: Sequence[Tool], *, min_size: int = 1, max_size: int = 3,
          text: st.SearchStrategy[str] | None = None) -> st.SearchStrategy[list[ToolCall]]:
    """Lists of calls of `tools` (ids ``call00000``, ``call00001``...), arguments from
    `arguments(tool, text=text)`.

    >>> from hypothesis import given
    >>> from toolcalls import Tool
    >>> from toolcalls.testing import calls
    >>> offered = [Tool(name="f"), Tool(name="g")]
    >>> @given(calls(offered))
    ... def test_calls_name_offered_tools(drawn: list) -> None:
    ...     assert {call.name for call in drawn} <= {"f", "g"}
    >>> test_calls_name_offered_tools()
    """
    if not tools:
        raise ValueError("calls() needs at least one tool")
    one = st.sampled_from(list(tools)).flatmap(
        lambda tool: arguments(tool, text=text).map(lambda args: (tool.name, args)))
    return st.lists(one, min_size=min_size, max_size=max_size).map(lambda drawn: [
        ToolCall(id=_CALL_ID.format(index), name=name, arguments=args, span=(0, 0))
        for index, (name, args) in enumerate(drawn)])


@st.composite
def _cases(draw: st.DrawFn, format: str, tools: Sequence[Tool], with_reasoning: bool,
           with_prose: bool, hostile: bool) -> tuple[str, list[ToolCall] | None, str]:
    """A response, the calls it was rendered from (None once hostile edits changed them), and
    where it comes from: ``clean``, ``hostile`` (markup in values and prose), ``truncated``,
    ``appended`` (prose after the calls)."""
    fmt = get_format(format)
    values = strings(format) if hostile else st.text(alphabet=_PROSE, max_size=20)
    drawn = draw(calls(tools, text=values))
    content = draw(prose(format, hostile=hostile)) if with_prose else ""
    try:
        text = fmt.render_calls(drawn, content)
    except ValueError:  # a value this format cannot write unambiguously
        assume(False)
        raise
    if with_reasoning and fmt.reasoning_tags is not None:
        start, end = fmt.reasoning_tags
        text = f"{start}{draw(prose(format))}{end}\n\n{text}"
    intended: list[ToolCall] | None = drawn
    origin = "hostile" if hostile else "clean"
    if hostile and draw(st.booleans()):
        cut = draw(st.integers(0, len(text)))
        text, intended, origin = text[:cut], None, "truncated"  # the stream stopped mid-way
    elif hostile and draw(st.booleans()):
        text, intended, origin = text + draw(prose(format, hostile=True)), None, "appended"
    return text, intended, origin


def responses(format: str, tools: Sequence[Tool], *, reasoning: bool = False,
              prose: bool = True, hostile: bool = False) -> st.SearchStrategy[str]:
    """Responses in `format`, written by the format's own ``render_calls``: one to three calls
    of `tools`, after prose (`prose`), after a reasoning block (`reasoning`, for formats with
    reasoning tags). `hostile` makes string values and prose hold every delimiter of the format
    (and prose that mentions them), unicode, and sometimes cuts the response short or appends
    more prose after the calls.

    Without `hostile`, the response parses back to exactly the calls drawn.

    >>> from hypothesis import given
    >>> import toolcalls
    >>> from toolcalls import Tool
    >>> from toolcalls.testing import responses
    >>> offered = [Tool(name="search", parameters={"type": "object", "properties": {
    ...     "query": {"type": "string"}}})]
    >>> @given(responses("qwen3_coder", offered))
    ... def test_every_rendered_call_is_read(text: str) -> None:
    ...     result = toolcalls.parse(text, "qwen3_coder", tools=offered)
    ...     assert result.calls and not result.incomplete
    >>> test_every_rendered_call_is_read()
    """
    return _cases(format, tools, reasoning, prose, hostile).map(lambda case: case[0])


def chunkings(text: str, *, max_cuts: int = 8) -> st.SearchStrategy[list[str]]:
    """Ways to cut `text` into the deltas of a stream: lists of non-empty strings that join to
    it (`[""]` for an empty text).

    >>> from hypothesis import given
    >>> import toolcalls
    >>> from toolcalls.testing import chunkings
    >>> text = '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>'
    >>> @given(chunkings(text))
    ... def test_streaming_gives_the_batch_result(chunks: list) -> None:
    ...     parser = toolcalls.stream("hermes")
    ...     for chunk in chunks:
    ...         parser.feed(chunk)
    ...     parser.close()
    ...     assert parser.result() == toolcalls.parse(text, "hermes")
    >>> test_streaming_gives_the_batch_result()
    """
    cuts = st.lists(st.integers(0, len(text)), max_size=max_cuts)
    return cuts.map(lambda drawn: split_at(text, drawn))


def mutations(text: str, *, format: str | None = None) -> st.SearchStrategy[str]:
    """`text` edited the ways model output goes wrong: a slice replaced by a few characters
    (the markup of `format` among them, when given), cut short, or a slice repeated.

    >>> from hypothesis import given
    >>> import toolcalls
    >>> from toolcalls.testing import mutations
    >>> text = "<tool_call>\\n<function=f>\\n<parameter=a>\\n1\\n</parameter>\\n</function>\\n"
    >>> @given(mutations(text, format="qwen3_coder"))
    ... def test_no_edit_makes_parse_raise(edited: str) -> None:
    ...     toolcalls.parse(edited, "qwen3_coder")
    >>> test_no_edit_makes_parse_raise()
    """
    inserted = st.text(max_size=5)
    if format is not None:
        inserted = st.one_of(inserted, st.sampled_from(delimiters(format)))
    position = st.integers(0, 10_000).map(lambda at: at % (len(text) + 1))
    replaced = st.tuples(position, st.integers(0, 40), inserted).map(
        lambda edit: text[:edit[0]] + edit[2] + text[edit[0] + edit[1]:])
    truncated = position.map(lambda at: text[:at])
    repeated = st.tuples(position, st.integers(1, 40)).map(
        lambda edit: text[:edit[0] + edit[1]] + text[edit[0]:])
    return st.one_of(replaced, truncated, repeated)
