"""What every provider reader shares: `NativeRead`, the pieces one response holds, and the
decoding of a native call's arguments.

A provider module's ``read_response(data)`` takes the response as JSON (a dict) and fills a
`NativeRead`: the native calls (complete, or incomplete with an issue), the text parts (to be
parsed for calls in the text), the reasoning, the reasoning pieces to send back, the finish
reason, the usage and the model id. `toolcalls.providers._read` turns it into a `ParseResult`.
Nothing of a response that is content, reasoning or a call is dropped: what a reader cannot
read becomes an issue (``span=None``: it is not in the text).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from ..parsing._models import IncompleteCall, ParseIssue, ToolCall
from ..parsing.issues import IssueKind

__all__ = ["Json", "NativeRead", "decode_arguments", "duplicate_id", "error_message", "is_obj",
           "obj", "obj_or_none", "string", "text_of"]

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
    gave its id (`toolcalls.providers._read` gives ids in the order calls come)."""
    calls_after_text: bool = False
    """Whether the calls come after all the text (a message's ``tool_calls`` beside its
    ``content``: they stream after it) rather than where they were read among the parts."""
    said: int = 0
    """The length of the text read so far."""
    named: int = 0
    """The native calls read so far that have a name, complete or not."""
    given_ids: set[str] = field(default_factory=set)
    """The ids the provider gave the calls read so far (one given twice is not kept twice)."""

    def call(self, call_id: Any, name: Any, arguments: Any) -> None:
        """A native call as the provider gave it: the arguments an object, JSON text or nothing.

        A call without an id gets ``call_<n>``, n its place among the native calls that have a
        name (a stream starts those, and only those, as they come: it numbers them so).
        """
        number = self.named
        named = isinstance(call_id, str) and bool(call_id)
        ident = call_id if named else f"call_{number}"
        if not isinstance(name, str) or not name:
            self.fail_call("malformed_call", f"native call {ident} has no function name",
                           name if isinstance(name, str) else None, _raw(arguments))
            return
        if named and ident in self.given_ids:  # the id of a call before: given its own
            self.issue("duplicate_call_id", duplicate_id(ident, name))
            named = False
        elif named:
            self.given_ids.add(ident)
        decoded, problem = decode_arguments(arguments)
        if decoded is None:
            self.fail_call("invalid_arguments", f"native call {ident} ({name}): {problem}",
                           name, _raw(arguments))
            return
        if problem:
            self.issue("arguments_as_string", f"native call {ident} ({name}): {problem}")
        self.calls.append(ToolCall(id=ident, name=name, arguments=decoded, source="native"))
        self.named += 1
        self.call_places.append((self.said, named))

    def fail_call(self, kind: IssueKind, message: str, name: str | None, raw: str) -> None:
        """A native call that cannot be run: an incomplete call, with an issue saying why."""
        self.incomplete.append(IncompleteCall(name=name, raw=raw, source="native"))
        self.issue(kind, message)
        self.named += name is not None

    def issue(self, kind: IssueKind, message: str) -> None:
        self.issues.append(ParseIssue(kind=kind, message=message, span=None))

    def error(self, error: Any) -> None:
        """The provider sent an error (its ``error`` field, or an error event): an issue
        with its message; the finish reason is ``"error"`` unless the provider gave its own
        (OpenRouter's error chunk may carry ``finish_reason: "length"``)."""
        self.issue("provider_error", error_message(error))
        if not self.finish_reason:
            self.finish_reason = "error"

    def think(self, text: Any) -> None:
        if isinstance(text, str) and text:
            self.reasoning.append(text)

    def say(self, text: Any) -> None:
        if isinstance(text, str) and text:
            self.text.append(text)
            self.said += len(text)


def duplicate_id(ident: str, name: str) -> str:
    """What a ``duplicate_call_id`` issue says (the call is renamed where ids are given)."""
    return (f"native call {ident} ({name}): an earlier call has this id: given one of its own "
            "(the next free call_<n>)")


def decode_arguments(arguments: Any) -> tuple[dict[str, Any] | None, str]:
    """A call's arguments as an object, and what was wrong with them (``""`` when nothing).

    An object is taken as it is; JSON text is decoded; ``""``, blank text and None mean
    ``{}``. JSON text holding JSON text of an object (encoded twice) is decoded twice, with a
    note. Anything else gives None and the reason.
    """
    if arguments is None:
        return {}, ""
    if isinstance(arguments, Mapping):
        return dict(arguments), ""
    if not isinstance(arguments, str):
        return None, f"arguments are a {type(arguments).__name__}, not a JSON object"
    if not arguments.strip():
        return {}, ""
    try:
        value = json.loads(arguments)
    except ValueError as error:
        return None, f"arguments are not valid JSON ({error})"
    if isinstance(value, str):
        inner, problem = decode_arguments(value)
        if inner is not None and not problem:
            return inner, "arguments were a JSON string holding the object: decoded"
    if isinstance(value, dict):
        return value, ""
    return None, f"arguments are a JSON {type(value).__name__}, not an object"


def error_message(error: Any) -> str:
    """What the provider said went wrong: the kind of error (``type``, ``status`` or ``code``)
    and its ``message``; Ollama's error is the message itself."""
    if isinstance(error, str):
        return f"the provider sent an error: {error}"
    if not isinstance(error, Mapping):
        return f"the provider sent an error: {_raw(error)}"
    kinds = [str(error[key]) for key in ("type", "status", "code")
             if error.get(key) not in (None, "", "error")]
    message = error.get("message")
    said = message if isinstance(message, str) and message else _raw(dict(error))
    if not kinds:
        return f"the provider sent an error: {said}"
    return f"the provider sent an error ({', '.join(dict.fromkeys(kinds))}): {said}"


def _raw(arguments: Any) -> str:
    """The arguments as the provider sent them, as text (an IncompleteCall's ``raw``)."""
    if isinstance(arguments, str):
        return arguments
    if arguments is None:
        return ""
    return json.dumps(arguments, ensure_ascii=False, default=str)


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
