"""What every provider reader shares: `NativeRead`, the pieces one response holds, and the
decoding of a native call's arguments.

A provider module's ``read_response(data)`` takes the response as JSON (a dict) and fills a
`NativeRead`: the native calls (complete, or incomplete with an issue), the text parts (to be
parsed for calls in the text), the reasoning, the reasoning pieces to send back, the finish
reason, the usage and the model id. `toolcalls.providers._response_reader` turns it into a
`ParseResult`.
Nothing of a response that is content, reasoning or a call is dropped: what a reader cannot
read becomes an issue (``span=None``: it is not in the text).

A response is untrusted input: any field may be of another shape (``tool_calls: 5``, a list
for an index or a type), nest thousands deep, or hold NaN or a lone surrogate. Readers take
lists through `items`, objects through `member` (a field of the wrong shape is an
``unread_part`` issue, read as empty), stream indices through `event_key`, and quote the
response in messages through `brief`; a call's arguments must be JSON every encoder and UTF-8
write back (`decode_arguments`), text with a lone surrogate is read as U+FFFD (`readable`), and
the usage and reasoning blocks kept as they came must be such JSON too (`json_problem`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any, Final, TypeGuard

from ..parsing._json import MAX_DEPTH, SURROGATE, deeper_than, finite_float
from ..parsing._models import IncompleteCall, ParseIssue, ToolCall
from ..parsing.issues import IssueKind

__all__ = ["Json", "NativeRead", "brief", "decode_arguments", "duplicate_id", "encodable",
           "error_message", "escape_surrogates", "event_key", "is_obj", "items", "json_problem",
           "load_json", "member", "obj", "obj_or_none", "raw", "string", "text_of"]

Json = dict[str, Any]


@dataclass
class NativeRead:
    """The pieces of one provider response, as its reader found them."""

    model: str | None = None
    finish_reason: str | None = None
    usage: Json | None = None
    calls: list[ToolCall] = field(default_factory=list)
    incomplete: list[IncompleteCall] = field(default_factory=list)
    issues: list[ParseIssue] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    """The text parts, in order: joined, they are the text parsed for calls."""
    reasoning: list[str] = field(default_factory=list)
    reasoning_blocks: list[Json] = field(default_factory=list)
    call_places: list[tuple[int, bool]] = field(default_factory=list)
    """For each of `calls`: the length of the text read before it, and whether the provider
    gave its id (`toolcalls.providers._response_reader` gives ids in the order calls come)."""
    calls_after_text: bool = False
    """Whether the calls come after all the text (a message's ``tool_calls`` beside its
    ``content``: they stream after it) rather than where they were read among the parts."""
    said: int = 0
    """The length of the text read so far."""
    named: int = 0
    """The native calls read so far that have a name, complete or not."""
    given_ids: set[str] = field(default_factory=set)
    """The ids the provider gave the calls read so far (one given twice is not kept twice)."""
    surrogates_noted: bool = False
    """Whether a lone surrogate in the text was noted (`readable`)."""

    def call(self, call_id: Any, name: Any, arguments: Any) -> None:
        """A native call as the provider gave it: the arguments an object, JSON text or nothing.

        A call without an id gets ``call_<n>``, n its place among the native calls that have a
        name (a stream starts those, and only those, as they come: it numbers them so).
        """
        number = self.named
        named = isinstance(call_id, str) and bool(call_id)
        ident = call_id if named else f"call_{number}"
        if named and not encodable(ident):
            named, ident = False, f"call_{number}"
            self.unwritable_id(ident, call_id)
        if not isinstance(name, str) or not name or not encodable(name):
            what = "a name UTF-8 cannot encode" if isinstance(name, str) and name else \
                "no function name"
            self.fail_call("malformed_call", f"native call {ident} has {what}",
                           name if isinstance(name, str) else None, raw(arguments))
            return
        if named and ident in self.given_ids:  # the id of a call before: given its own
            self.issue("duplicate_call_id", duplicate_id(ident, name))
            named = False
        elif named:
            self.given_ids.add(ident)
        decoded, problem = decode_arguments(arguments)
        if decoded is None:
            self.fail_call("invalid_arguments", f"native call {ident} ({name}): {problem}",
                           name, raw(arguments))
            return
        if problem:
            self.issue("arguments_as_string", f"native call {ident} ({name}): {problem}")
        self.calls.append(ToolCall(id=ident, name=name, arguments=decoded, source="native"))
        self.named += 1
        self.call_places.append((self.said, named))

    def unwritable_id(self, ident: str, given: str) -> None:
        """A call's id held a lone surrogate (no result holding it can be written): it has
        `ident` instead."""
        self.issue("lone_surrogate", f"native call {ident}: its id {brief(given)} holds a lone "
                                     "surrogate: given its own")

    def fail_call(self, kind: IssueKind, message: str, name: str | None, raw: str) -> None:
        """A native call that cannot be run: an incomplete call, with an issue saying why."""
        self.named += bool(name and encodable(name))  # as a stream starts calls (`_start`)
        name = name if name is None else escape_surrogates(name)
        self.incomplete.append(IncompleteCall(name=name, raw=escape_surrogates(raw),
                                              source="native"))
        self.issue(kind, message)

    def issue(self, kind: IssueKind, message: str) -> None:
        """An issue; a message that quotes the response has its lone surrogates escaped."""
        self.issues.append(ParseIssue(kind=kind, message=escape_surrogates(message), span=None))

    def error(self, error: Any) -> None:
        """The provider sent an error (its ``error`` field, or an error event): an issue
        with its message; the finish reason is ``"error"`` unless the provider gave its own
        (OpenRouter's error chunk may carry ``finish_reason: "length"``)."""
        self.issue("provider_error", error_message(error))
        if not self.finish_reason:
            self.finish_reason = "error"

    def think(self, text: Any) -> None:
        if isinstance(text, str) and text:
            self.reasoning.append(self.readable(text, "the reasoning"))
        else:
            self.not_text(text, "a piece of reasoning")

    def say(self, text: Any) -> None:
        if isinstance(text, str) and text:
            text = self.readable(text, "the text")
            self.text.append(text)
            self.said += len(text)
        else:
            self.not_text(text, "a piece of text")

    def not_text(self, value: Any, what: str) -> None:
        """Note a text field that is set but not a string (``unread_part``)."""
        if value is not None and not isinstance(value, str):
            self.issue("unread_part", f"{what} is {brief(value)}, not a string: not read")

    def readable(self, text: str, what: str) -> str:
        """`text`, each lone surrogate in it (UTF-8 cannot encode one, so no result holding it
        can be written) read as U+FFFD, as the CLI reads invalid UTF-8; the first gives an
        issue (once a response: a stream says it once however the text is split)."""
        found = None if text.isascii() else SURROGATE.search(text)
        if found is None:
            return text
        if not self.surrogates_noted:
            self.surrogates_noted = True
            self.issue("lone_surrogate", f"{what} holds a lone surrogate ({found.group()!r}): "
                                         "each read as U+FFFD")
        return SURROGATE.sub("\ufffd", text)


def duplicate_id(ident: str, name: str) -> str:
    """What a ``duplicate_call_id`` issue says (the call is renamed where ids are given)."""
    return (f"native call {ident} ({name}): an earlier call has this id: given one of its own "
            "(the next free call_<n>)")


def decode_arguments(arguments: Any) -> tuple[dict[str, Any] | None, str]:
    """A call's arguments as an object, and what was wrong with them (``""`` when nothing).

    An object is taken as it is; JSON text is decoded; ``""``, blank text and None mean
    ``{}``. JSON text holding JSON text of an object (encoded twice) is decoded twice, with a
    note. Anything else gives None and the reason, as do arguments no JSON encoder and UTF-8
    can write back, as the text readers refuse them (`toolcalls.parsing._json`): NaN,
    Infinity, a number that overflows a double, a lone surrogate, nesting deeper than
    `MAX_DEPTH`, or (in an object given decoded) a value that is not JSON at all.
    """
    if arguments is None:
        return {}, ""
    if isinstance(arguments, Mapping):
        decoded = dict(arguments)
        problem = json_problem(decoded)
        return (None, f"arguments {problem}") if problem else (decoded, "")
    if not isinstance(arguments, str):
        return None, f"arguments are a {type(arguments).__name__}, not a JSON object"
    if not arguments.strip():
        return {}, ""
    try:
        value, problem = _decoded(arguments)
    except ValueError as error:
        return None, f"arguments are not valid JSON ({error})"
    if problem:
        return None, f"arguments {problem}"
    if isinstance(value, str):
        inner, problem = decode_arguments(value)
        if inner is not None and not problem:
            return inner, "arguments were a JSON string holding the object: decoded"
    if isinstance(value, dict):
        return value, ""
    return None, f"arguments are a JSON {type(value).__name__}, not an object"


def json_problem(value: Any, *, strings: bool = True) -> str:
    """What keeps `value` from being JSON that ``json.dumps(..., allow_nan=False)`` writes and
    UTF-8 encodes, as it was read (``""`` when nothing); `strings` False where no string can
    hold a lone surrogate (decoded from text that held none and no escape). One iterative walk
    (any depth is ordinary input), a few type tests a value: 0.6 ms for 10,000 values."""
    if type(value) is not dict and type(value) is not list:
        return _scalar_problem(value, strings)
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth >= MAX_DEPTH:
            return f"nest deeper than {MAX_DEPTH}"
        if type(item) is dict:
            for name in item:
                if type(name) is not str:
                    return f"hold a {type(name).__name__} key, not a string"
                if strings and not encodable(name):
                    return _SURROGATE_PROBLEM
            members: Any = item.values()
        else:
            members = item
        for member in members:
            kind = type(member)
            if kind is dict or kind is list:
                stack.append((member, depth + 1))
            elif kind is not str and kind is not int and kind is not bool and member is not None \
                    or kind is str and strings:
                problem = _scalar_problem(member, strings)
                if problem:
                    return problem
    return ""


_SURROGATE_PROBLEM: Final = "hold a lone surrogate, which UTF-8 cannot encode"


def _scalar_problem(value: Any, strings: bool) -> str:
    if isinstance(value, str):
        return "" if not strings or encodable(value) else _SURROGATE_PROBLEM
    if isinstance(value, float):
        return "" if math.isfinite(value) else f"hold {value}, which is not a JSON number"
    if value is None or isinstance(value, int):  # bool is an int
        return ""
    return f"hold a {type(value).__name__}, which is not JSON"


def _refuse_constant(literal: str) -> Any:
    raise ValueError(f"{literal} is not JSON")


_DECODER: Final = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=finite_float)
"""JSON text of arguments, in C: NaN, Infinity and a number that overflows a double (1e400)
refused as it reads; depth and lone surrogates after (`_decoded`)."""


_STRINGS_AND_PLAIN: Final = re.compile(r'[^\[\]{}"]+|"[^"\\]*(?:\\.[^"\\]*)*"')
"""What is not a bracket of the structure: strings (well formed: the text decoded), the rest."""
_STEP: Final = {"[": 1, "{": 1, "]": -1, "}": -1}
_SURROGATE_ESCAPE: Final = re.compile(r"\\u[dD][89a-fA-F]")


def _decoded(text: str) -> tuple[Any, str]:
    """JSON text of arguments, decoded, and what keeps it from being written back (``""``
    when nothing); ValueError where it is not JSON. What the text shows cannot be there is not
    looked for in the value: C scans of the text, where the walk costs about 1 µs a value."""
    try:
        value = _DECODER.decode(text)
    except RecursionError:  # the C decoder counts its depth: reliable
        raise ValueError(f"nesting deeper than {MAX_DEPTH}") from None
    if text.count("[") + text.count("{") > MAX_DEPTH:
        brackets = _STRINGS_AND_PLAIN.sub("", text)
        if max(accumulate(map(_STEP.__getitem__, brackets)), default=0) > MAX_DEPTH:
            return value, f"nest deeper than {MAX_DEPTH}"
    # A lone surrogate comes from the text itself, or from a \u escape of one.
    if not encodable(text) or ("\\u" in text and _SURROGATE_ESCAPE.search(text)):
        return value, json_problem(value)
    return value, ""


def error_message(error: Any) -> str:
    """What the provider said went wrong: the kind of error (``type``, ``status`` or ``code``)
    and its ``message``; Ollama's error is the message itself."""
    if isinstance(error, str):
        return f"the provider sent an error: {escape_surrogates(error)}"
    if not isinstance(error, Mapping):
        return f"the provider sent an error: {raw(error)}"
    kinds = [_said(error[name]) for name in ("type", "status", "code")
             if _said(error.get(name)) not in ("", "error")]
    message = error.get("message")
    said = escape_surrogates(message) if isinstance(message, str) and message else raw(dict(error))
    if not kinds:
        return f"the provider sent an error: {said}"
    return f"the provider sent an error ({', '.join(dict.fromkeys(kinds))}): {said}"


def _said(value: Any) -> str:
    """A kind of error (``type``, ``status``, ``code``) as the message names it."""
    if value is None or isinstance(value, str | int | float | bool):
        return escape_surrogates(str(value)) if value is not None else ""
    return brief(value)


def raw(arguments: Any) -> str:
    """The arguments as the provider sent them, as text (an IncompleteCall's ``raw``) that
    UTF-8 encodes: a lone surrogate as its ``\\u`` escape; an object too deep to write out is
    named, not written (the issue says why the call failed)."""
    if arguments is None:
        return ""
    if not isinstance(arguments, str):
        if deeper_than(arguments, MAX_DEPTH):
            return f"<a {type(arguments).__name__} nested deeper than {MAX_DEPTH}>"
        arguments = json.dumps(arguments, ensure_ascii=False, default=str)
    return escape_surrogates(arguments)


def encodable(text: str) -> bool:
    """Whether UTF-8 encodes `text` (it holds no lone surrogate)."""
    return text.isascii() or not SURROGATE.search(text)


def escape_surrogates(text: str) -> str:
    if encodable(text):
        return text
    return SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


_BRIEF: Final = 80
"""How many characters of a value a message shows."""
_BRIEF_DEPTH: Final = 8
"""A value nested deeper is named in a message, not written out."""


def load_json(text: str | bytes | bytearray) -> Any:
    """`json.loads`, with nesting too deep for it a ValueError as any other JSON it cannot
    read (the C decoder raises RecursionError, reliably: it counts its own depth)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("JSON nested too deep to read") from None


def brief(value: Any, limit: int = _BRIEF) -> str:
    """A short, safe rendering of a piece of a response for a message: its JSON (cut at
    `limit` characters, lone surrogates escaped), or what it is when it nests too deep to
    write out."""
    if isinstance(value, dict | list) and deeper_than(value, _BRIEF_DEPTH):
        return f"a {type(value).__name__} nested deeper than {_BRIEF_DEPTH}"
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    except TypeError:  # keys that do not sort (a caller's dict, not JSON)
        text = json.dumps(value, ensure_ascii=False, default=str)
    text = escape_surrogates(text)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def event_key(value: Any) -> object:
    """A stream event's index or id as a dict key: itself where it is a JSON scalar, else its
    `brief` JSON text (a list or an object is no key, and must not stop the stream)."""
    return value if value is None or isinstance(value, str | int | float) else brief(value)


def member(read: NativeRead, value: Any, what: str) -> Json:
    """An object field's value; one that is set but not an object is noted (``unread_part``)
    and read as ``{}``."""
    if isinstance(value, Mapping):
        return dict(value)
    if value is not None:
        read.issue("unread_part", f"{what} is {brief(value)}, not an object: not read")
    return {}


def items(read: NativeRead, value: Any, what: str) -> list[Any]:
    """A list field's entries; a field that is set but not a list is noted (``unread_part``)
    and read as empty."""
    if isinstance(value, list):
        return value
    if value is not None and value != "":
        read.issue("unread_part", f"{what} is {brief(value)}, not a list: not read")
    return []


def text_of(content: Any) -> str | None:
    """Message content as text: a string, or a list of ``{"type": "text", "text"}`` parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [part.get("text") for part in content if isinstance(part, Mapping)]
        return "".join(text for text in texts if isinstance(text, str))
    return None


def is_obj(value: Any) -> TypeGuard[Mapping[str, Any]]:
    """Whether a piece of the response is a JSON object (a reader skips what is not)."""
    return isinstance(value, Mapping)


def string(value: Any) -> str | None:
    """A string field's value, or None where it is missing or not a string."""
    return value if isinstance(value, str) else None


def obj(value: Any) -> Json:
    """A JSON object field's value, or ``{}`` where it is missing or not an object."""
    return dict(value) if isinstance(value, Mapping) else {}


def obj_or_none(value: Any) -> Json | None:
    """A JSON object field's value, or None where it is missing or not an object."""
    return dict(value) if isinstance(value, Mapping) else None
