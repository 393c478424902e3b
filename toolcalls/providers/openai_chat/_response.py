"""OpenAI Chat Completions: reading a whole ``chat.completion`` (`read_response`, for
`toolcalls.read_response`), from ``choices[0]``:

    calls      ``message.tool_calls[*]``: ``id`` kept, ``function.name``, ``function.arguments``
               decoded from JSON text (``""``, null or missing: ``{}``; invalid: an
               incomplete call with an ``invalid_arguments`` issue); a ``custom`` tool's call
               (free text, not JSON) is an incomplete call with a ``custom_tool_call`` issue;
               the legacy ``message.function_call`` as a call without id
    text       ``message.content`` (a string, or a list of text parts), then
               ``message.refusal``: both content, parsed for calls in the text
    reasoning  ``message.reasoning_content`` (DeepSeek, vLLM), ``message.reasoning`` (vLLM,
               OpenRouter, Groq) where it differs; OpenRouter's ``reasoning_details`` (which
               carry the signatures of Anthropic models) go to ``reasoning_blocks``
    finish     ``choices[0].finish_reason``; ``usage`` as it is; ``model`` names the format
               for ``format="auto"``
    other      further choices (``n`` > 1) are not read: an ``other_choices`` issue says so;
               ``message.audio`` and content parts that are not text: an ``unread_part`` issue
               each; ``annotations`` (citations of the content) are not kept
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._fields import (
    Json,
    NativeRead,
    brief,
    is_obj,
    items,
    member,
    obj,
    obj_or_none,
    raw,
    string,
    text_of,
)

__all__ = ["not_text_part", "read_message", "read_response"]


def read_response(data: Json) -> NativeRead:
    """The pieces of a ``chat.completion`` (see the module docstring)."""
    read = NativeRead(model=string(data.get("model")), usage=obj_or_none(data.get("usage")))
    choices = items(read, data.get("choices"), "choices")
    if not choices:
        return read
    if len(choices) > 1:
        read.issue("other_choices", f"{len(choices)} choices: only the first is read")
    choice = member(read, choices[0], "choices[0]")
    read.finish_reason = string(choice.get("finish_reason"))
    read_message(member(read, choice.get("message"), "choices[0].message"), read)
    return read


def _unread_parts(message: Mapping[str, Any], read: NativeRead) -> None:
    """Say what of the message is neither text, reasoning nor a call: nothing goes unnoticed."""
    if message.get("audio"):
        read.issue("unread_part", "message.audio (a spoken reply) is not read: ask for text")
    content = message.get("content")
    if content is not None and not isinstance(content, str | list):
        read.issue("unread_part", f"message.content is {brief(content)}, not text: not read")
    parts = content if isinstance(content, list) else []
    for part in parts:
        if not (is_obj(part) and isinstance(part.get("text"), str)):
            read.issue("unread_part", not_text_part(part))


def not_text_part(part: Any) -> str:
    """What an ``unread_part`` issue says of a content part that is not text."""
    kind = brief(part.get("type")) if is_obj(part) else type(part).__name__
    return f"a content part of type {kind} is not text: not read"


def read_message(message: Mapping[str, Any], read: NativeRead) -> None:
    """An assistant message's calls, text and reasoning, into `read`."""
    read.calls_after_text = True  # tool_calls stream after the content
    for call in items(read, message.get("tool_calls"), "message.tool_calls"):
        if not is_obj(call):
            read.issue("malformed_call", f"a tool_calls entry is not an object: {brief(call)}")
            continue
        if call.get("type", "function") == "function":
            function = member(read, call.get("function"), "a tool call's function")
            read.call(call.get("id"), function.get("name"), function.get("arguments"))
        else:  # a custom tool: free text in, not a JSON object
            kind = call.get("type")
            body = obj(call.get(kind)) if isinstance(kind, str) else {}
            read.fail_call("custom_tool_call", f"native call {brief(call.get('id'))} is a "
                           f"{brief(kind)} call, not a function call",
                           string(body.get("name")), raw(body.get("input")))
    legacy = message.get("function_call")
    if is_obj(legacy):
        read.call(None, legacy.get("name"), legacy.get("arguments"))
    read.say(text_of(message.get("content")))
    _unread_parts(message, read)
    read.say(message.get("refusal"))
    reasoning = message.get("reasoning_content")
    read.think(reasoning)
    if message.get("reasoning") != reasoning:
        read.think(message.get("reasoning"))
    for detail in items(read, message.get("reasoning_details"), "message.reasoning_details"):
        if is_obj(detail):
            read.reasoning_blocks.append(dict(detail))
