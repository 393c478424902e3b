"""The call regions of the formats whose arguments are one JSON object: the region builders of
the `JsonObjectCalls`, `JsonListCalls`, `TaggedJsonCalls`, `BareJsonCalls` and `NameArgsCalls`
shapes.

* `JsonObjectCalls`: ``{"name": ..., "arguments": {...}}`` after an opener, closed per call
  (Hermes' ``<tool_call>``, Ollama's first prefix) or one section holding every call, one
  object per line (MiniMax M1's ``<tool_calls>``; parallel calls share the block);
* `JsonListCalls`: Granite 3.x's ``<|tool_call|>`` then a JSON list of such objects, or one;
* `KeyedJsonListCalls`: Cohere's ``<|START_ACTION|>`` then a JSON list of ``{"tool_call_id",
  "tool_name", "parameters"}`` objects (or one), then ``<|END_ACTION|>``;
* `TaggedJsonCalls`: ``<name>NAME</name><arguments>{...}</arguments>`` in ``<tool_call>``;
* `BareJsonCalls`: bare ``{"name": ..., "parameters": {...}}``, each maybe after Llama's
  ``<|python_tag|>``, the template's key or the others its reader takes;
* `NameArgsCalls`: Mistral v11+'s ``[TOOL_CALLS]NAME[ARGS]{...}``, or the JSON array of
  ``{"name", "arguments"}`` objects written before v11 (Mistral 7B v0.3, Nemo, Small 3.1).

Blanks go where the templates write a line break; the readers take any there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..parsing.formats._regions import (
    BareJsonCalls,
    JsonListCalls,
    JsonObjectCalls,
    KeyedJsonListCalls,
    NameArgsCalls,
    TaggedJsonCalls,
)
from ..tools._tool import Tool
from ._ir import Json, Lit, Node, Opt, Ws, seq
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
    def call(tool: Tool) -> Node:
        return seq(Ws(), Json(named_object(tool, "arguments")))

    return CallRegion(Lit(shape.opener, special=True), call, Ws(), alternatives=_json_array)


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
    TaggedJsonCalls: tagged_json_region,
    BareJsonCalls: bare_json_region,
    NameArgsCalls: name_args_region,
    KeyedJsonListCalls: keyed_json_list_region,
}
"""The region builder of each shape this module writes."""
