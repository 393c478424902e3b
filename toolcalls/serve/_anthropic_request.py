"""Anthropic Messages requests: checked as `_requests` checks Chat Completions ones (a wrong
field is a `RequestError` naming it) and translated into the equivalent Chat Completions
request (`chat_request_from_messages`), so one path serves both APIs.

A pure function of JSON-decoded values: no HTTP, no starlette.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from . import _checks as check
from ._checks import RequestError
from ._requests import checked_function_tool

__all__ = ["ThreadsNotKept", "chat_request_from_messages"]


class ThreadsNotKept(RequestError):
    """A request with a ``thread`` (the message-threads beta: the server keeps the
    conversation, and a turn sends only what is new). The proxy keeps no conversation, so it
    answers as a server that cannot thread the request: the Anthropic SDK's threads and its
    ``tool_runner`` then drop ``thread`` and send the whole history, and any other client is
    told to."""

    def __init__(self) -> None:
        super().__init__("thread", "this server keeps no message threads: send the whole "
                         "conversation in messages, without thread (the Anthropic SDK's "
                         "tool_runner does so by itself on this answer)")
        self.details = {"error_code": "thread_unsupported_request", "unsupported": ["thread"]}


_ANTHROPIC_CHOICES = ("auto", "any", "tool", "none")
_USER_BLOCKS = ("text", "image", "tool_result", "document")
_ASSISTANT_BLOCKS = ("text", "tool_use", "thinking", "redacted_thinking")
_RESULT_BLOCKS = ("text", "image")
# Sampling fields with the same name and meaning in both APIs (top_k: llama.cpp and vLLM
# take it beside the OpenAI fields).
_SAMPLING: Mapping[str, Callable[[Any, str], Any]] = {
    "temperature": check.number, "top_p": check.number, "top_k": check.integer,
}


def chat_request_from_messages(body: object) -> dict[str, Any]:
    """An Anthropic Messages request, checked, as the equivalent Chat Completions request.

    Checked (`RequestError` names the field): ``model``, ``max_tokens`` (required),
    ``messages`` (roles user and assistant; blocks text, image, tool_use, tool_result,
    thinking, redacted_thinking), ``system`` (a string or text blocks), ``tools`` (with
    ``input_schema``), ``tool_choice``, ``stop_sequences``, ``temperature``, ``top_p``,
    ``top_k``, ``stream``, ``metadata``; a ``thread`` is refused (`ThreadsNotKept`). Other
    fields (``thinking``, ``service_tier``...) have no Chat Completions twin and are left out.

    Translated: ``system`` -> a first system message; ``tool_use`` blocks -> the assistant's
    ``tool_calls`` (ids kept, ``input`` as a JSON string); ``tool_result`` blocks -> ``tool``
    messages, their text prefixed ``Error: `` when ``is_error``; images -> ``image_url`` parts
    with ``data:`` URLs (an image in a tool result goes in a user message right after the
    results, as tool messages take text only); ``tool_choice`` any -> ``"required"``, tool ->
    the named function, ``disable_parallel_tool_use`` -> ``parallel_tool_calls: false``;
    ``stop_sequences`` -> ``stop``; ``metadata.user_id`` -> ``user``.
    """
    request = check.obj(body, "")
    if request.get("thread") is not None:
        raise ThreadsNotKept()
    chat: dict[str, Any] = {
        "model": check.string(check.required(request, "model", ""), "model", empty=False),
        "messages": _system(request.get("system")),
        "max_tokens": check.integer(check.required(request, "max_tokens", ""), "max_tokens",
                                    minimum=1),
    }
    messages = check.array(check.required(request, "messages", ""), "messages", empty=False)
    known: set[str] = set()  # tool_use ids so far: a tool_result must answer one
    for index, message in enumerate(messages):
        chat["messages"] += _anthropic_message(message, f"messages[{index}]", known)
    if request.get("tools") is not None:
        chat["tools"] = _anthropic_tools(request["tools"])
    if request.get("tool_choice") is not None:
        names = [tool["function"]["name"] for tool in chat.get("tools", [])]
        chat.update(_anthropic_choice(request["tool_choice"], names))
    if request.get("stop_sequences") is not None:
        stops = check.array(request["stop_sequences"], "stop_sequences")
        chat["stop"] = [check.string(stop, f"stop_sequences[{i}]") for i, stop in enumerate(stops)]
    for key, checker in _SAMPLING.items():
        if request.get(key) is not None:
            checker(request[key], key)
            chat[key] = request[key]
    if request.get("stream") is not None:
        chat["stream"] = check.boolean(request["stream"], "stream")
    if request.get("metadata") is not None:
        metadata = check.obj(request["metadata"], "metadata")
        if metadata.get("user_id") is not None:
            chat["user"] = check.string(metadata["user_id"], "metadata.user_id")
    return chat


def _system(value: Any) -> list[dict[str, Any]]:
    if value is None:
        return []
    if isinstance(value, str):
        return [{"role": "system", "content": value}] if value else []
    blocks = check.array(value, "system")
    texts = [_text_block(block, f"system[{i}]") for i, block in enumerate(blocks)]
    return [{"role": "system", "content": "\n".join(texts)}] if texts else []


def _text_block(value: Any, field: str) -> str:
    block = check.obj(value, field)
    check.one_of(check.required(block, "type", field), check.at(field, "type"), ("text",))
    return check.string(check.required(block, "text", field), check.at(field, "text"))


def _anthropic_message(value: Any, field: str, known: set[str]) -> list[dict[str, Any]]:
    message = check.obj(value, field)
    role = check.one_of(check.required(message, "role", field), check.at(field, "role"),
                        ("user", "assistant"))
    content = check.required(message, "content", field)
    if isinstance(content, str):
        return [{"role": role, "content": content}]
    blocks = check.array(content, check.at(field, "content"))
    if role == "assistant":
        return [_assistant(blocks, check.at(field, "content"), known)]
    return _user(blocks, check.at(field, "content"), known)


def _assistant(blocks: list[Any], field: str, known: set[str]) -> dict[str, Any]:
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for index, value in enumerate(blocks):
        at = check.at(field, index)
        block = check.obj(value, at)
        kind = check.one_of(check.required(block, "type", at), check.at(at, "type"),
                            _ASSISTANT_BLOCKS)
        if kind == "text":
            texts.append(check.string(check.required(block, "text", at), check.at(at, "text")))
        elif kind == "tool_use":
            calls.append(_tool_use(block, at))
            known.add(calls[-1]["id"])
        elif kind == "thinking":
            check.string(check.required(block, "thinking", at), check.at(at, "thinking"))
        else:
            check.string(check.required(block, "data", at), check.at(at, "data"))
        # Thinking blocks are dropped: they carry Anthropic's signatures, which no upstream
        # can verify, and a Chat Completions request has no place for earlier reasoning.
    message: dict[str, Any] = {"role": "assistant", "content": "".join(texts)}
    if calls:
        message["tool_calls"] = calls
    return message


def _tool_use(block: Mapping[str, Any], field: str) -> dict[str, Any]:
    id_ = check.string(check.required(block, "id", field), check.at(field, "id"), empty=False)
    name = check.string(check.required(block, "name", field), check.at(field, "name"), empty=False)
    arguments = check.obj(check.required(block, "input", field), check.at(field, "input"))
    function = {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)}
    return {"id": id_, "type": "function", "function": function}


def _user(blocks: list[Any], field: str, known: set[str]) -> list[dict[str, Any]]:
    """Tool results become tool messages; the rest, in order, one user message after them."""
    messages: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    for index, value in enumerate(blocks):
        at = check.at(field, index)
        block = check.obj(value, at)
        kind = check.one_of(check.required(block, "type", at), check.at(at, "type"), _USER_BLOCKS)
        if kind == "tool_result":
            message, images = _tool_result(block, at, known)
            messages.append(message)
            parts += images
        elif kind == "document":
            raise RequestError(check.at(at, "type"),
                               "document blocks are not supported by the proxy")
        else:
            parts.append(_part_of(block, at))
    if parts:
        only_text = len(parts) == 1 and parts[0]["type"] == "text"
        messages.append({"role": "user", "content": parts[0]["text"] if only_text else parts})
    return messages


def _part_of(block: Mapping[str, Any], field: str) -> dict[str, Any]:
    """A text or image block as a Chat Completions content part."""
    if block["type"] == "text":
        return {"type": "text", "text": check.string(check.required(block, "text", field),
                                                 check.at(field, "text"))}
    source = check.obj(check.required(block, "source", field), check.at(field, "source"))
    at = check.at(field, "source")
    kind = check.one_of(check.required(source, "type", at), check.at(at, "type"), ("base64", "url"))
    if kind == "url":
        url = check.string(check.required(source, "url", at), check.at(at, "url"), empty=False)
    else:
        media = check.string(check.required(source, "media_type", at), check.at(at, "media_type"),
                             empty=False)
        data = check.string(check.required(source, "data", at), check.at(at, "data"), empty=False)
        url = f"data:{media};base64,{data}"
    return {"type": "image_url", "image_url": {"url": url}}


def _tool_result(block: Mapping[str, Any], field: str, known: set[str]
                 ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A tool message, and the images of the result (a tool message takes text only)."""
    id_ = check.string(check.required(block, "tool_use_id", field), check.at(field, "tool_use_id"),
                       empty=False)
    if id_ not in known:
        raise RequestError(check.at(field, "tool_use_id"),
                           f"no earlier tool_use block has id {id_!r}")
    content = block.get("content", "")
    texts: list[str] = []
    images: list[dict[str, Any]] = []
    if isinstance(content, str):
        texts.append(content)
    else:
        for index, value in enumerate(check.array(content, check.at(field, "content"))):
            at = check.at(check.at(field, "content"), index)
            part = check.obj(value, at)
            check.one_of(check.required(part, "type", at), check.at(at, "type"), _RESULT_BLOCKS)
            converted = _part_of(part, at)
            if converted["type"] == "text":
                texts.append(converted["text"])
            else:
                images.append(converted)
    text = "\n".join(texts)
    is_error = block.get("is_error")
    if is_error is not None and check.boolean(is_error, check.at(field, "is_error")):
        text = f"Error: {text}"
    return {"role": "tool", "tool_call_id": id_, "content": text}, images


def _anthropic_tools(value: Any) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = []
    for index, item in enumerate(check.array(value, "tools")):
        at = f"tools[{index}]"
        tool = check.obj(item, at)
        if "input_schema" not in tool:
            kind = tool.get("type", "?")
            raise RequestError(check.at(at, "input_schema"),
                               f"is required (a server tool of type {kind!r} runs at "
                               "Anthropic, not behind this proxy)")
        function: dict[str, Any] = {
            "name": check.string(check.required(tool, "name", at), check.at(at, "name"),
                                 empty=False),
            "parameters": check.obj(tool["input_schema"], check.at(at, "input_schema")),
        }
        if tool.get("description") is not None:
            function["description"] = check.string(tool["description"], check.at(at, "description"))
        converted = checked_function_tool(function, check.at(at, "input_schema"))
        if any(known["function"]["name"] == function["name"] for known in tools):
            raise RequestError(check.at(at, "name"), f"two tools are named {function['name']!r}")
        tools.append(converted)
    return tools


def _anthropic_choice(value: Any, names: Sequence[str]) -> dict[str, Any]:
    choice = check.obj(value, "tool_choice")
    kind = check.one_of(check.required(choice, "type", "tool_choice"), "tool_choice.type",
                   _ANTHROPIC_CHOICES)
    fields: dict[str, Any] = {"tool_choice": {"any": "required"}.get(kind, kind)}
    if kind == "tool":
        name = check.string(check.required(choice, "name", "tool_choice"), "tool_choice.name",
                            empty=False)
        if name not in names:
            raise RequestError("tool_choice.name", f"no tool named {name!r} in tools")
        fields["tool_choice"] = {"type": "function", "function": {"name": name}}
    flag = choice.get("disable_parallel_tool_use")
    if flag is not None and check.boolean(flag, "tool_choice.disable_parallel_tool_use"):
        fields["parallel_tool_calls"] = False
    return fields
