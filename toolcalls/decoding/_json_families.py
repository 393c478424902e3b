"""The call regions of the formats whose arguments are one JSON object: the region builders of
the `JsonObjectCalls`, `JsonListCalls`, `TaggedJsonCalls`, `BareJsonCalls`, `BareJsonListCalls`
and `NameArgsCalls` shapes.

* `JsonObjectCalls`: ``{"name": ..., "arguments": {...}}`` after an opener, closed per call
  (Hermes' ``<tool_call>``, Ollama's first prefix) or one section holding every call, one
  object per line (MiniMax M1's ``<tool_calls>``; parallel calls share the block);
* `JsonListCalls`: Granite 3.x's ``<|tool_call|>`` then a JSON list of such objects, or one,
  then Jamba's close token;
* `JsonArrayCalls`: one JSON array of calls between two markers (Nemotron Nano v2's
  ``<TOOLCALL>``, Apriel's ``<tool_calls>``, Apertus' ``{NAME: {...}}`` objects), or a call
  per pair of markers, which the readers take too;
* `KeyedJsonListCalls`: Cohere's ``<|START_ACTION|>`` then a JSON list of ``{"tool_call_id",
  "tool_name", "parameters"}`` objects (or one), then ``<|END_ACTION|>``;
* `TaggedJsonCalls`: ``<name>NAME</name><arguments>{...}</arguments>`` in ``<tool_call>``;
* `BareJsonCalls`: bare ``{"name": ..., "parameters": {...}}``, each maybe after Llama's
  ``<|python_tag|>``, the template's key or the others its reader takes;
* `BareJsonListCalls`: xLAM-2's bare JSON list of such objects;
* `NameArgsCalls`: Mistral v11+'s ``[TOOL_CALLS]NAME[ARGS]{...}``, or the JSON array of
  ``{"name", "arguments"}`` objects written before v11 (Mistral 7B v0.3, Nemo, Small 3.1);
* `GenericJsonCalls`: llama.cpp's generic JSON, the whole response ``{"tool_calls": [...]}``
  or ``{"response": "..."}``;
* `RecipientCalls`: Functionary v3.2's parts, ``all\\n`` + text or ``NAME\\n{...}``, each
  after ``>>>`` but the first (the prompt wrote it).

Blanks go where the templates write a line break; the readers take any there.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from ..parsing.formats._regions import (
    BareJsonCalls,
    BareJsonListCalls,
    GenericJsonCalls,
    JsonArrayCalls,
    JsonListCalls,
    JsonObjectCalls,
    KeyedJsonListCalls,
    NameArgsCalls,
    RecipientCalls,
    TaggedJsonCalls,
)
from ..tools._tool import Tool
from ._ir import Free, Json, Lit, Node, Opt, Ref, Rep, Until, Ws, alt, seq
from ._region import CallRegion, arguments_schema, named_object, rebased

__all__ = ["BUILDERS"]


def json_object_region(shape: JsonObjectCalls) -> CallRegion:
    def call(tool: Tool) -> Node:
        named = Json(named_object(tool, "arguments"))
        if shape.call_close is None:
            return seq(Ws(), named)
        return seq(Ws(), named, Ws(), Lit(shape.call_close))

    if shape.section_close:
        return CallRegion(Lit(shape.opener), call, Lit(""),
                          close=seq(Ws(), Lit(shape.section_close)), reopen=False)
    return CallRegion(Lit(shape.opener), call, Ws())


def tagged_json_region(shape: TaggedJsonCalls) -> CallRegion:
    def call(tool: Tool) -> Node:
        return seq(
            Ws(), Lit(f"{shape.name_open}{tool.name}{shape.name_close}"), Ws(),
            Lit(shape.arguments_open), Json(arguments_schema(tool)),
            Lit(shape.arguments_close), Ws(), Lit(shape.close),
        )

    return CallRegion(Lit(shape.opener), call, Ws())


def bare_json_region(shape: BareJsonCalls) -> CallRegion:
    def call(tool: Tool) -> Node:
        objects = {"anyOf": [named_object(tool, key, f"/anyOf/{index}")
                             for index, key in enumerate(shape.keys)]}
        return seq(Opt(seq(Lit(shape.python_tag, special=True), Ws())), Json(objects))

    return CallRegion(Lit(""), call, seq(Ws(), Lit(shape.separator), Ws()))


def name_args_region(shape: NameArgsCalls) -> CallRegion:
    def call(tool: Tool) -> Node:
        return seq(Lit(tool.name), Lit(shape.args, special=True), Json(arguments_schema(tool)))

    return CallRegion(Lit(shape.opener, special=True), call, Lit(""), alternatives=_json_array)


def json_list_region(shape: JsonListCalls) -> CallRegion:
    close: list[Node] = [Ws(), Lit(shape.close, special=shape.special)] if shape.close else []

    def call(tool: Tool) -> Node:
        return seq(Ws(), Json(named_object(tool, "arguments")), *close)

    def listed(tools: Sequence[Tool], parallel: bool) -> Node:
        return seq(_json_array(tools, parallel), *close)

    return CallRegion(Lit(shape.opener, special=shape.special), call, Ws(), alternatives=listed)


def bare_json_list_region(shape: BareJsonListCalls) -> CallRegion:
    """The calls as one bare JSON list (xLAM-2), blanks allowed where the reader takes them."""
    def call(tool: Tool) -> Node:
        return seq(Ws(), Json(named_object(tool, "arguments")))

    return CallRegion(Lit("["), call, seq(Ws(), Lit(shape.separator.strip()), Ws()),
                      close=seq(Ws(), Lit("]")), reopen=False)


def recipient_region(shape: RecipientCalls) -> CallRegion:
    def call(tool: Tool) -> Node:
        return seq(Lit(f"{tool.name}\n"), Json(arguments_schema(tool)))

    def response(calls: Node, tool_choice: str, reasoning: bool) -> Node:
        begin, end = shape.reasoning
        others = tuple(m for m in shape.markers if m != shape.part)
        start = (seq(Lit(begin), Until(end), Opt(Lit("\n\n")), Lit(shape.part)) if reasoning
                 else Opt(Lit(shape.part)))
        if tool_choice != "auto":
            return seq(start, calls, Ws())
        text = Lit(f"{shape.content}\n")
        answer = seq(text, Opt(Free(shape.markers, first_not=" \t\r\n")))
        # Blanks after the calls are markup to the reader; text may follow in a part of its own.
        after = seq(Ws(), Opt(seq(Lit(shape.part), answer)))
        return seq(start, alt(answer, seq(text, Until(shape.part, others), calls, after),
                              seq(calls, after)))

    return CallRegion(Lit(shape.part), call, Lit(""), response=response)


def generic_json_region(shape: GenericJsonCalls) -> CallRegion:
    """One object is the whole response, so the region is the response (`CallRegion.response`):
    the calls under their key, one call under the single-call key, or the answer as a JSON
    string, with JSON's blanks anywhere between (llama.cpp's grammar writes them indented).
    Content goes on lines before the calls, as `render_calls` writes it."""
    def after_brace(key: str) -> Node:
        return seq(Ws(), Lit(f'"{key}"'), Ws(), Lit(":"), Ws())

    def call(tool: Tool) -> Node:
        # The keys in llama.cpp's order, spelled out: a schema with an optional key ("id")
        # would be any object to the dialects that cannot follow one (plain Lark's).
        call_id = seq(Ws(), Lit(","), after_brace("id"), Json({"type": "string"}))
        name = Lit(json.dumps(tool.name, ensure_ascii=False))
        return seq(Lit("{"), after_brace("name"), name, Ws(), Lit(","), after_brace("arguments"),
                   Json(arguments_schema(tool)), Opt(call_id), Ws(), Lit("}"))

    def response(calls: Node, tool_choice: str, reasoning: bool) -> Node:
        begin, end = shape.reasoning
        lead: list[Node] = [Lit(begin), Until(end), Ws()] if reasoning else []
        listed = seq(after_brace(shape.calls_key), Lit("["), Ws(), calls)
        one = seq(after_brace(shape.call_key), Ref("call"), Ws(), Lit("}"))
        if tool_choice != "auto":
            return seq(*lead, Lit("{"), alt(listed, one))
        answer = seq(after_brace(shape.response_key), Json({"type": "string"}), Ws(), Lit("}"))
        # Content as lines before the object, none opening with its brace (the reader would
        # read an object there); each line one greedy piece that stops at its line break.
        line = seq(Opt(Free(("\n",), first_not="{\n")), Lit("\n"))
        return seq(*lead, alt(seq(Lit("{"), answer),
                              seq(Rep(line), Lit("{"), alt(listed, one))))

    return CallRegion(Lit("{"), call, seq(Ws(), Lit(","), Ws()),
                      close=seq(Ws(), Lit("]"), Ws(), Lit("}")), reopen=False,
                      response=response)


def json_array_region(shape: JsonArrayCalls) -> CallRegion:
    """The array as the templates write it, or one call object per pair of markers."""
    close = Lit(shape.close, special=shape.special)

    def call(tool: Tool) -> Node:
        return seq(Ws(), Json(_call_object(shape, tool, "")), Ws(), close)

    def array(tools: Sequence[Tool], parallel: bool) -> Node:
        items = [_call_object(shape, tool, f"/items/anyOf/{index}")
                 for index, tool in enumerate(tools)]
        schema = {"type": "array", "items": {"anyOf": items}, "minItems": 1,
                  **({} if parallel else {"maxItems": 1})}
        return seq(Ws(), Json(schema), Ws(), close)

    return CallRegion(Lit(shape.opener, special=shape.special), call, Ws(), alternatives=array)


def _call_object(shape: JsonArrayCalls, tool: Tool, at: str) -> dict[str, Any]:
    """One call of the array at JSON pointer ``at``: ``{"name", "arguments"}``, or
    ``{NAME: {...}}`` with ``name_as_key``."""
    if not shape.name_as_key and shape.call_id:
        # two exact objects rather than an optional key, which a plain grammar cannot order
        with_id = named_object(tool, "arguments", f"{at}/anyOf/1")
        with_id["properties"]["id"] = {"type": "string"}
        with_id["required"].append("id")
        return {"anyOf": [named_object(tool, "arguments", f"{at}/anyOf/0"), with_id]}
    if not shape.name_as_key:
        return named_object(tool, "arguments", at)
    arguments = rebased(arguments_schema(tool), f"{at}/properties/{tool.name}")
    return {"type": "object", "properties": {tool.name: arguments}, "required": [tool.name],
            "additionalProperties": False}


def _json_array(tools: Sequence[Tool], parallel: bool) -> Node:
    """The calls as one JSON array of ``{"name", "arguments"}`` objects."""
    array = {
        "type": "array",
        "items": {"anyOf": [named_object(tool, "arguments", f"/items/anyOf/{index}")
                            for index, tool in enumerate(tools)]},
        "minItems": 1,
        **({} if parallel else {"maxItems": 1}),
    }
    return seq(Ws(), Json(array))


def keyed_json_list_region(shape: KeyedJsonListCalls) -> CallRegion:
    close = seq(Ws(), Lit(shape.close, special=True))

    def call(tool: Tool) -> Node:
        return seq(Ws(), Json(_keyed_object(shape, tool)), close)

    def listed(tools: Sequence[Tool], parallel: bool) -> Node:
        array = {
            "type": "array",
            "items": {"anyOf": [_keyed_object(shape, tool, f"/items/anyOf/{index}")
                                for index, tool in enumerate(tools)]},
            "minItems": 1,
            **({} if parallel else {"maxItems": 1}),
        }
        return seq(Ws(), Json(array), close)

    return CallRegion(Lit(shape.opener, special=True), call, Ws(), alternatives=listed)


def _keyed_object(shape: KeyedJsonListCalls, tool: Tool, at: str = "") -> dict[str, Any]:
    """One call object of `shape` (its id, if any, a string of digits) at JSON pointer `at`."""
    key = shape.arguments_key
    properties: dict[str, Any] = {shape.id_key: {"type": "string", "pattern": "^[0-9]+$"}
                                  } if shape.id_key else {}
    properties[shape.name_key] = {"const": tool.name}
    properties[key] = rebased(arguments_schema(tool), f"{at}/properties/{key}")
    return {"type": "object", "properties": properties, "required": list(properties),
            "additionalProperties": False}


BUILDERS: dict[type[Any], Callable[[Any], CallRegion]] = {
    JsonObjectCalls: json_object_region,
    JsonListCalls: json_list_region,
    JsonArrayCalls: json_array_region,
    TaggedJsonCalls: tagged_json_region,
    BareJsonCalls: bare_json_region,
    NameArgsCalls: name_args_region,
    RecipientCalls: recipient_region,
    BareJsonListCalls: bare_json_list_region,
    KeyedJsonListCalls: keyed_json_list_region,
    GenericJsonCalls: generic_json_region,
}
"""The region builder of each shape this module writes."""
