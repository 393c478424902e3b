"""Gemini: reading a whole ``GenerateContentResponse`` (`read_response`, for
`toolcalls.read_response`), its REST camelCase or the SDK's snake_case names, from
``candidates[0].content.parts`` in order:

    calls      ``functionCall`` parts: ``id`` where given (else ``call_<n>``), ``name``, ``args``
               as the object they are; a call whose arguments were streamed (Gemini 3's
               ``streamFunctionCallArguments``: a response assembled from such a stream holds
               its ``name`` + ``willContinue`` part, its ``partialArgs`` parts and its closing
               part) is read from its pieces as `toolcalls.read_stream` reads them
               (`_arguments`), placed where it started
    text       the ``text`` of parts that are not thoughts (a part that also holds a call: its
               text first), joined, parsed for calls in the text
    reasoning  ``text`` of the parts marked ``thought``; every part that carries a
               ``thoughtSignature`` (a thought, a call or text) goes to ``reasoning_blocks`` as
               it is, since Gemini wants the signature back on the same part; the signature
               in standard base64, as the API sends it (`signed_part`: the SDK's
               ``model_dump`` gives it base64url, or bytes)
    not calls  ``executableCode`` and ``codeExecutionResult`` parts (code Gemini runs itself)
               give a ``server_tool_call`` issue
    finish     ``candidates[0].finishReason`` (where no candidate came back,
               ``promptFeedback.blockReason``); ``usage`` is ``usageMetadata``; ``modelVersion``
    other      further candidates give an ``other_choices`` issue; a part of another kind
               (``inlineData``, ``fileData``...) an ``unread_part`` issue

The stream reader (`_stream`) reads each chunk's parts the same way, with `field` and
`signed_part` from here.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from .._fields import Json, NativeRead, brief, is_obj, items, member, obj, obj_or_none, string
from ._arguments import PartialArguments, continues, is_streamed, will_continue

__all__ = ["field", "read_response", "signed_part"]


def field(data: Mapping[str, Any], camel: str) -> Any:
    """A field by its REST (camelCase) name, or the SDK's snake_case one."""
    if camel in data:
        return data[camel]
    return data.get("".join(f"_{c.lower()}" if c.isupper() else c for c in camel))


def read_response(data: Json) -> NativeRead:
    """The pieces of a ``GenerateContentResponse`` (see the module docstring)."""
    read = NativeRead(model=string(field(data, "modelVersion")),
                      usage=obj_or_none(field(data, "usageMetadata")))
    candidates = items(read, data.get("candidates"), "candidates")
    if not candidates:
        read.finish_reason = string(field(obj(field(data, "promptFeedback")), "blockReason"))
        return read
    if len(candidates) > 1:
        read.issue("other_choices", f"{len(candidates)} candidates: only the first is read")
    candidate = member(read, candidates[0], "candidates[0]")
    read.finish_reason = string(field(candidate, "finishReason"))
    content = member(read, candidate.get("content"), "a candidate's content")
    opened: StreamedCall | None = None
    for part in items(read, content.get("parts"), "a candidate's parts"):
        if is_obj(part):
            opened = _read_part(part, read, opened)
        else:
            read.issue("unread_part", f"a part is {brief(part)}, not an object: not read")
    if opened is not None:  # the parts end inside a streamed call
        read.fail_call("truncated_call", f"native call {opened.ident(read)} ({opened.name}): the "
                       "stream ended before the provider closed the call", opened.name,
                       "".join(opened.arguments.text))
    return read


def signed_part(part: Mapping[str, Any]) -> Json:
    """A part that carries a ``thoughtSignature``, as kept in ``reasoning_blocks``: the
    signature in standard base64 with padding, as the API sends it.

    The signature is bytes (protobuf ``bytes``). The REST API sends it standard base64; the
    google-genai SDK holds bytes and its ``model_dump(mode="json")`` gives base64url, which
    the API also accepts (the SDK sends that). One spelling, so that a response read from the
    SDK object and from its raw JSON give the same signature; the API accepts it back.
    """
    kept = dict(part)
    for key in ("thoughtSignature", "thought_signature"):
        signature = kept.get(key)
        if isinstance(signature, bytes | bytearray):
            kept[key] = base64.b64encode(bytes(signature)).decode("ascii")
        elif isinstance(signature, str) and signature:
            standard = signature.replace("-", "+").replace("_", "/").rstrip("=")
            kept[key] = standard + "=" * (-len(standard) % 4)
    return kept


def _read_part(part: Mapping[str, Any], read: NativeRead,
               opened: StreamedCall | None) -> StreamedCall | None:
    """Read one part; return the streamed call still open after it."""
    if field(part, "thoughtSignature"):
        read.reasoning_blocks.append(signed_part(part))
    text = part.get("text")
    if isinstance(text, str):  # before a call in the same part: the text is said first
        (read.think if part.get("thought") else read.say)(text)
    call = field(part, "functionCall")
    if is_obj(call):
        return _read_call(call, read, opened)
    if call is not None:  # set but no object: noted, read as a call without a name; a
        # streamed call still open goes on (this is not its end)
        member(read, call, "a part's functionCall")
        read.call(None, None, None)
        return opened
    if isinstance(text, str):
        return opened
    if field(part, "executableCode") is not None or field(part, "codeExecutionResult"):
        read.issue("server_tool_call", "code executed by Gemini: not a call to run")
    elif not field(part, "thoughtSignature"):
        kinds = ", ".join(sorted(part)) or "empty"
        read.issue("unread_part", f"a part of kind {kinds} was not read")
    return opened


class StreamedCall:
    """A call whose arguments come in ``partialArgs`` pieces (`_arguments`), while open."""

    __slots__ = ("arguments", "given", "name", "said")

    def __init__(self, given: str | None, name: str | None, said: int) -> None:
        self.given = given
        self.name = name
        self.said = said
        """The length of the text read before the call started: its place among the text."""
        self.arguments = PartialArguments()

    def ident(self, read: NativeRead) -> str | None:
        """Its id in an issue, as a stream names it: the provider's, else ``call_<n>``."""
        return self.given or (f"call_{read.named}" if self.name else None)


def _read_call(call: Mapping[str, Any], read: NativeRead,
               opened: StreamedCall | None) -> StreamedCall | None:
    if opened is not None:
        if continues(opened.name, opened.given, call):
            opened.arguments.read(call)
            if will_continue(call):
                return opened
            _close(opened, read)
            return None
        _close(opened, read)  # another call starts: the open one ends there
    if not is_streamed(call):
        read.call(call.get("id"), call.get("name"), call.get("args"))
        return None
    started = StreamedCall(string(call.get("id")), string(call.get("name")), read.said)
    started.arguments.read(call)
    if will_continue(call):
        return started
    _close(started, read)
    return None


def _close(call: StreamedCall, read: NativeRead) -> None:
    arguments = call.arguments
    arguments.close()
    text = "".join(arguments.text)
    if arguments.problem and call.name:
        read.fail_call("invalid_arguments", f"native call {call.ident(read)} ({call.name}): "
                       f"{arguments.failure()}", call.name, text)
        return
    done = len(read.calls)
    read.call(call.given, call.name, text)
    if len(read.calls) > done:  # placed where it started, as a stream starts it
        read.call_places[-1] = (call.said, read.call_places[-1][1])
