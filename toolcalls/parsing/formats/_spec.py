"""A format described as data: the fields `toolcalls.parsing.declare_format` reads.

A format whose calls are one of the known shapes needs no module: its markers, the kind of
body between them and how its results and tools are written say everything the engine,
the renderer and the grammar export need. The description is a mapping (a dict, a TOML or a
JSON document), checked here field by field, so a mistake is named with where it is::

    name = "acme"
    model_ids = ["acme-ai/Acme-7B"]

    [calls]
    body = "json"               # json | json_list | name_json | pythonic
    start = "<tool_call>\\n"     # written as is; read with the blanks around it optional
    end = "\\n</tool_call>"

    [results]
    start = "<tool_response>\\n"
    end = "\\n</tool_response>"

``other_markers`` lists the other pairs models were seen to write around the same body (read,
never written); ``bare = true`` reads the body with no markers too, when it names a tool.

Bodies: ``json`` is one ``{"name": ..., "arguments": {...}}`` object per call between
``start`` and ``end``; ``json_list`` one JSON list of them between the two; ``name_json`` the
name, then ``name_end``, then the arguments object (``<function=f>{...}</function>``);
``pythonic`` a Python call list (``[f(a=1), g()]``), or with ``lines = true`` bare calls
one a line between ``start`` and ``end`` (Olmo 3); ``xml`` each argument between tags of its
own, ``start = "<function={name}>"``, ``parameter = ["<parameter={key}>", "</parameter>"]``,
``end = "</function>"``, values raw text typed by the tool's schema (Qwen3-Coder, GLM,
MiniMax-M2, Seed-OSS).
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = ["Body", "CallsSpec", "FormatSpec", "ResultsSpec", "ToolsSpec"]

Body = Literal["json", "json_list", "name_json", "pythonic", "xml"]
Marker = Annotated[str, Field(max_length=200)]
_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=False)


class CallsSpec(_Strict):
    """How calls are written: the body kind and the markers around it."""

    body: Body
    start: Marker = Field(description="Opens each call (json, name_json) or the call list "
                                      "(json_list, pythonic), written as is; blank only for "
                                      "bare JSON calls.")
    end: Marker = Field("", description="Closes what start opened ('' when nothing does).")
    name_end: Marker = Field("", description="name_json: what ends the name, before the "
                                             "arguments object.")
    separator: Marker = Field("\n", description="Between two calls each in its own markers.")
    before: Marker = Field("", description="Between an assistant turn's content and its "
                                           "first call.")
    name_key: Marker = Field("name", description="json, json_list: the key naming the tool.")
    arguments_key: Literal["arguments", "parameters"] = "arguments"
    section: tuple[Marker, Marker] | None = Field(
        None, description="json, name_json: markers around all of a turn's calls, each call in "
                          "its own start and end inside (DeepSeek's tool_calls_begin), or, "
                          "with a blank start, JSON objects one a line (MiniMax M1).")
    call_id: Marker = Field("", description="name_json: a marker after the name, then the "
                                            "call's id, before name_end (Mistral's [CALL_ID]).")
    name_prefix: Marker = Field("", description="name_json: written before every name and "
                                                "not part of it (Kimi's 'functions.').")
    index_separator: Marker = Field("", description="name_json: after the name, then the "
                                                    "call's index in the turn (Kimi's ':0').")
    parameter: tuple[Marker, Marker] | None = Field(
        None, description="xml: a parameter's open tag, {key} for its name (and the tag "
                          "its value opens with, if any), and its close tag.")
    section_per_call: bool = Field(False, description="xml: a section around each call "
                                                      "rather than one around all.")
    value_framing: Marker = Field("", description="xml: written on each side of every "
                                                  "value (Qwen3-Coder: a newline).")
    other_markers: tuple[tuple[Marker, Marker], ...] = Field(
        (), description="Other (start, end) pairs models were seen to write around the same "
                        "body: read as calls, never written.")
    after_text: Marker = Field("", description="Between an assistant turn's content and its "
                                               "first call, only when the content holds text "
                                               "(Nemotron's blank line).")
    grammar_list: bool = Field(False, description="json_list: constrained decoding writes "
                                                  "the list always, never one object bare.")
    list_only: bool = Field(False, description="json_list: read one list (or one object), "
                                              "never objects one after another, which "
                                              "another format may own (Jamba vs MiniMax-M1).")
    tokens: bool | None = Field(None, description="The call markers are special tokens of "
                                                  "the tokenizer (default: when written "
                                                  "<|...|>); the grammar export reads it.")
    bare: bool = Field(False, description="The body may also stand with no markers (a JSON "
                                          "object or list, a Python call list): a call only "
                                          "when it names a tool (a declared one, with tools).")
    name_as_key: bool = Field(False, description="json_list: each call is {NAME: ARGUMENTS}, "
                                                 "the tool's name its one key (Apertus).")
    lines: bool = Field(False, description="pythonic: bare calls one a line between start "
                                           "and end (Olmo 3's <function_calls>), not a list.")

    @model_validator(mode="after")
    def _body_fields(self) -> CallsSpec:
        lines = self.body == "json" and self.section is not None
        if not self.start.strip() and not lines and not (
                self.bare and self.body in ("json", "json_list", "pythonic")):
            raise ValueError("start must hold a marker (blanks alone mark nothing), unless "
                             "the calls stand bare (bare = true, body 'json', 'json_list' or "
                             "'pythonic') or one after another in a section (body 'json')")
        if self.body == "name_json" and not self.name_end.strip():
            raise ValueError("body 'name_json' needs name_end, the marker between the name "
                             "and the arguments (such as '>' in <function=f>{...})")
        if self.body != "name_json" and self.name_end:
            raise ValueError(f"name_end is read only with body 'name_json', not {self.body!r}")
        if self.body == "pythonic" and (self.name_key, self.arguments_key) != ("name",
                                                                              "arguments"):
            raise ValueError("name_key and arguments_key are JSON keys: body 'pythonic' has "
                             "none")
        if self.body == "json" and self.name_key != "name":
            raise ValueError("body 'json' reads the name under 'name'; a list of objects "
                             "naming the tool elsewhere is body 'json_list'")
        if self.body == "name_json" and self.bare:
            raise ValueError("body 'name_json' cannot stand bare: its start marker is what "
                             "tells a call from prose")
        if self.name_as_key and (self.body != "json_list" or self.bare):
            raise ValueError("name_as_key: calls {NAME: ARGUMENTS} in a list, body "
                             "'json_list', never bare")
        if self.lines and (self.body != "pythonic" or self.bare or not self.end.strip()):
            raise ValueError("lines: calls one a line of body 'pythonic', between start and "
                             "an end marker, never bare")
        if self.body == "xml":
            _check_xml(self)
        elif self.parameter is not None:
            raise ValueError(f"parameter is read only with body 'xml', not {self.body!r}")
        if self.section is not None and (self.body not in ("json", "name_json", "xml")
                                         or not self.section[0].strip()):
            raise ValueError("section: an opening marker around calls of body 'json', "
                             "'name_json' or 'xml', each call in its own start and end")
        named = {"call_id": self.call_id, "name_prefix": self.name_prefix,
                 "index_separator": self.index_separator}
        for field, value in named.items():
            if value and self.body != "name_json":
                raise ValueError(f"{field} is read only with body 'name_json', not "
                                 f"{self.body!r}")
        for field in ("list_only", "grammar_list"):
            if getattr(self, field) and self.body != "json_list":
                raise ValueError(f"{field} is read only with body 'json_list', not "
                                 f"{self.body!r}")
        if any(not start.strip() for start, _ in self.other_markers):
            raise ValueError("other_markers: each start must hold a marker")
        return self


def _check_xml(calls: CallsSpec) -> None:
    """An XML-parameter description: a call tag naming the tool, a parameter tag its key."""
    if calls.start.count("{name}") != 1 or not calls.start.split("{name}")[0].strip():
        raise ValueError("body 'xml' needs start to be the call's open tag with {name} once "
                         "where the name goes, such as '<function={name}>'")
    if calls.parameter is None or calls.parameter[0].count("{key}") != 1 or not (
            calls.parameter[1].strip()):
        raise ValueError("body 'xml' needs parameter = [open tag with {key} once, close tag], "
                         "such as ['<parameter={key}>', '</parameter>']")
    if not calls.end.strip():
        raise ValueError("body 'xml' needs end, the call's close tag, such as '</function>'")
    if calls.bare or calls.other_markers or calls.call_id:
        raise ValueError("body 'xml' takes no bare, other_markers or call_id")


class ResultsSpec(_Strict):
    """How a tool result is written into the history: between ``start`` and ``end``."""

    start: Marker
    end: Marker
    tokens: bool = Field(False, description="The markers are special tokens (a result region "
                                            "the model never writes) rather than tags it may "
                                            "name in prose.")
    escape: tuple[Marker, ...] = Field((), description="Other markers a result must not hold "
                                                       "as written (a call's start), escaped "
                                                       "like the end marker.")
    run: tuple[str, str, str] | None = Field(
        None, description="The results of one turn written together, inside one start ... "
                          "end: before the first, between two, after the last (Nemotron's "
                          "list); each result is then written bare, its markers escaped.")

    @model_validator(mode="after")
    def _markers_written(self) -> ResultsSpec:
        if not self.start.strip() or not self.end.strip():
            raise ValueError("results need both markers, start and end, each more than blanks")
        return self


class ToolsSpec(_Strict):
    """How the tools section is written: each tool as OpenAI's JSON, between ``start`` and
    ``end``, ``separator`` between two."""

    start: str = ""
    separator: str = "\n"
    end: str = ""
    template: str = Field("", description="The whole section, {tools} where the tools go "
                                          "(instead of start and end); other braces are text.")
    tool_object: Literal["openai", "function"] = Field(
        "openai", description="Each tool as OpenAI's {type, function} object, or only the "
                              "function (name, description, parameters).")
    indent: int | None = Field(None, ge=0, le=8, description="JSON indent of each tool "
                                                            "(none: one line).")
    ensure_ascii: bool = Field(False, description="Each tool's JSON with non-ASCII "
                                                  "characters escaped (\\u00e9).")

    @model_validator(mode="after")
    def _one_placeholder(self) -> ToolsSpec:
        if self.template and (self.template.count("{tools}") != 1 or self.start or self.end):
            raise ValueError("template needs {tools} once, and replaces start and end")
        return self


class FormatSpec(_Strict):
    """One format, described (see the module docstring)."""

    name: str = Field(description="Registry name: lowercase snake_case.")
    aliases: tuple[str, ...] = ()
    model_ids: tuple[str, ...] = Field((), description="Model ids or their prefixes.")
    models: str = Field("", description="The models, for people (one line).")
    wire: str = Field("", description="The calls' shape, for the README table (default: the "
                                      "markers).")
    example: str = Field("", description="A call as the model writes it (default: "
                                         "get_weather as the description writes it).")
    no_corpus_reason: str = Field("", description="Why no shared corpus rows test it.")
    reasoning: tuple[Marker, Marker] | None = ("<think>", "</think>")
    turn_ends: tuple[Marker, ...] = ()
    calls: CallsSpec
    results: ResultsSpec | None = None
    tools: ToolsSpec | None = None

    @field_validator("name")
    @classmethod
    def _snake_case(cls, value: str) -> str:
        if _NAME.fullmatch(value) is None:
            raise ValueError(f"{value!r} is no registry name: lowercase letters, digits and "
                             "'_', starting with a letter, at most 64 characters")
        return value

    @field_validator("reasoning", mode="before")
    @classmethod
    def _no_reasoning(cls, value: object) -> object:
        # TOML has no null: `reasoning = false` or `[]` says the format has no reasoning block.
        return None if value is False or value == [] or value == () else value
