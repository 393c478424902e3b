"""What every format's call region is built from: `CallRegion`, and the schema and value
helpers that the per-format builders share (`_formats` and the ``_regions_*`` modules)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..parsing._coerce import _types as value_types
from ..parsing.formats._xmlparams import XmlTags
from ..tools._tool import Tool
from ._ir import Lit, Node, Number, Opt, Until, alt, seq

__all__ = [
    "CallRegion", "arguments_schema", "bare_number", "named_object", "properties_of", "raw_value",
    "structural_tags",
]


@dataclass(frozen=True)
class CallRegion:
    """How one format writes its calls: ``opener`` begins the region; ``call(tool)`` is one
    call after it (the opener not included); ``next_call`` goes between two calls (before
    the next opener, with ``reopen``)."""

    opener: Lit
    call: Callable[[Tool], Node]
    next_call: Node
    close: Node = Lit("")
    alternatives: Callable[[Sequence[Tool], bool], Node] | None = None
    """Other shapes of the whole call region after the opener (Mistral's JSON array), given
    the tools and ``parallel``."""
    reasoning_lead: Node = Lit("")
    """What the model writes before its reasoning block (GLM: a line break after the
    template's ``<|assistant|>``)."""
    other_sections: tuple[tuple[Lit, Node], ...] = ()
    """Other (opener, close) pairs around the same calls (DeepSeek V4's DSML block name)."""
    reopen: bool = True
    """Whether each call stands after its own opener (``<tool_call>``); False: the opener
    begins one section holding every call, which ``close`` ends (DeepSeek, Kimi,
    MiniMax-M2's ``<minimax:tool_call>``), or the calls share one region (pythonic's list,
    MiniMax M1's block), ``next_call`` alone between them."""
    wrapper: tuple[Lit, Lit] | None = None
    """Tags a region may stand between, the close optional (Llama 4's ``<|python_start|>``
    ... ``<|python_end|>`` around a pythonic list); with a one-character or token opener."""
    response: Callable[[Node, str, bool], Node] | None = None
    """The whole response, for a format that is not content then a call region (gpt-oss's
    messages), given the calls, ``tool_choice`` and ``reasoning``."""


def arguments_schema(tool: Tool) -> dict[str, Any]:
    """The tool's parameters as a JSON schema closed to other keys (unless it says otherwise):
    a sampled call must pass `validate` with no ``unknown_argument``."""
    schema = dict(tool.parameters) or {"type": "object"}
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    schema.setdefault("additionalProperties", False)
    return schema


def properties_of(tool: Tool) -> tuple[list[tuple[str, Mapping[str, Any]]], set[str]]:
    schema = tool.parameters
    properties = schema.get("properties")
    listed = [
        (name, sub if isinstance(sub, Mapping) else {})
        for name, sub in (properties.items() if isinstance(properties, Mapping) else ())
    ]
    required = schema.get("required")
    return listed, set(required) if isinstance(required, list) else set()


def structural_tags(tags: XmlTags) -> tuple[str, ...]:
    """The tags a raw value may not hold: the reader takes each as the value's end (a close
    tag gone missing), so a value holding one would lose its tail."""
    found = (tags.call_open, tags.call_close, tags.param_open, *tags.section_opens,
             *tags.section_closes)
    return tuple(sorted({_first_tag(tag) for tag in found if tag}))


def _first_tag(marker: str) -> str:
    """A marker of two tags (Step-3's ``</steptml:invoke><｜tool_call_end｜>``) as its first:
    a value without that one holds no marker, and the value grammars bar tags one by one."""
    second = marker.find("<", 1)
    return marker[:second] if second > 0 else marker


def raw_value(
    schema: Mapping[str, Any], end: str, exclude: tuple[str, ...] = ()
) -> Node | None:
    """A value the XML-parameter readers keep as a string, written raw up to ``end`` (its
    close tag); None when it is written as JSON."""
    choices = schema.get("enum", [schema["const"]] if "const" in schema else None)
    if isinstance(choices, list):
        if choices and all(isinstance(choice, str) for choice in choices):
            # The reader strips one line break on each side of a raw value, no other blank.
            newline = Opt(alt(Lit("\r\n"), Lit("\n")))
            return seq(newline, alt(*(Lit(choice) for choice in choices)), newline, Lit(end))
        return None
    return Until(end, exclude) if schema.get("type") == "string" else None


def string_or_more(schema: Mapping[str, Any]) -> bool:
    """Whether ``schema`` is a union of a string with other types (``anyOf: [string,
    integer]``, ``type: [string, null]``), no ``enum`` or ``const``: `render_calls` writes a
    string value of it raw, and the XML-parameter readers keep raw text as the string unless
    it reads as a value of another of the types, so raw text up to the close tag is a value."""
    types = value_types(dict(schema))
    return "string" in types and len(types) > 1 and "enum" not in schema and (
        "const" not in schema)


_NUMERIC_KEYWORDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
                     "enum", "const")


def bare_number(schema: Mapping[str, Any]) -> Node | None:
    """A number or integer value with no other constraint, as a finite number (`Number`):
    in ``%json`` llguidance writes any exponent, ``1e400`` too, which the readers refuse."""
    kind = schema.get("type")
    if kind not in ("number", "integer") or any(key in schema for key in _NUMERIC_KEYWORDS):
        return None
    return Number(integer=kind == "integer")


def named_object(tool: Tool, key: str, at: str = "") -> dict[str, Any]:
    """``{"name": NAME, key: ARGUMENTS}`` as a JSON schema standing at JSON pointer ``at`` of
    the grammar's schema: the arguments' local refs are moved to where their ``$defs`` are."""
    return {
        "type": "object",
        "properties": {"name": {"const": tool.name},
                       key: rebased(arguments_schema(tool), f"{at}/properties/{key}")},
        "required": ["name", key],
        "additionalProperties": False,
    }


_DATA_KEYWORDS = frozenset({"const", "enum", "default", "examples"})
_NAMED_SCHEMAS = frozenset({"properties", "patternProperties", "$defs", "definitions",
                            "dependentSchemas"})


def rebased(schema: Any, at: str) -> Any:
    """``schema`` with its local refs (``#/$defs/Node``) pointing into it where it stands, at
    JSON pointer ``at`` of a larger schema; values (``const``, ``enum``...) are left alone.
    Iterative: a tool's schema may be deep."""
    top: dict[str, Any] = {"": schema}
    stack: list[tuple[Any, Any, bool]] = [(top, "", False)]  # a place, and if it maps names
    while stack:
        holder, slot, names = stack.pop()
        node = holder[slot]
        if isinstance(node, Mapping):
            copied = dict(node)
            holder[slot] = copied
            for key, value in node.items():
                if names:  # a property (or def) of any name is a schema
                    stack.append((copied, key, False))
                elif key == "$ref" and isinstance(value, str) and (
                        value == "#" or value.startswith("#/")):
                    copied[key] = f"#{at}{value[1:]}"
                elif key not in _DATA_KEYWORDS:
                    stack.append((copied, key, key in _NAMED_SCHEMAS))
        elif isinstance(node, list):
            items = list(node)
            holder[slot] = items
            stack.extend((items, index, False) for index in range(len(items)))
    return top[""]
