"""OpenAI Responses requests: checked as `_requests` checks Chat Completions ones (a wrong field
is a `RequestError` naming it) and translated into the equivalent Chat Completions request
(`chat_request_from_responses`), so one path serves every API.

The proxy keeps no conversation: a request must carry the whole of it in ``input``. So
``previous_response_id`` and ``conversation`` (a history the proxy would have to have stored)
are refused; ``store`` is accepted either way (no response is stored). An ``item_reference``
item is taken when it names an item the proxy wrote and still remembers (`Recall`, which
`_written_items` answers: clients on OpenAI's default ``store`` send earlier answers' text so),
else refused with what to do.

A pure function of JSON-decoded values: no HTTP, no starlette.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from . import _checks as check
from ._checks import RequestError
from ._requests import checked_function_tool

__all__ = ["Recall", "chat_request_from_responses"]

Recall = Callable[[str], dict[str, Any] | None]
"""The input item an id names (an item the proxy wrote), or None if it is not remembered."""

_STATEFUL: Final = ("previous_response_id", "conversation")
"""Fields that name a history stored at the server, which this proxy does not keep."""
_ROLES: Final = {"user": "user", "assistant": "assistant", "system": "system",
                 "developer": "system"}
_TEXT_PARTS: Final = {"input_text": "text", "output_text": "text", "refusal": "refusal"}
"""Text content parts, and the field their text is in."""
_CHOICES: Final = ("auto", "none", "required")
# Same name and meaning in both APIs.
_SAMPLING: Final[Mapping[str, Callable[[Any, str], Any]]] = {
    "temperature": check.number, "top_p": check.number, "parallel_tool_calls": check.boolean,
    "stream": check.boolean, "user": check.string,
}


def chat_request_from_responses(body: object, recall: Recall | None = None
                                ) -> dict[str, Any]:
    """A Responses request, checked, as the equivalent Chat Completions request.

    Checked (`RequestError` names the field): ``model``, ``input`` (required: a string, or
    items: messages with ``input_text``, ``output_text``, ``refusal`` and ``input_image``
    parts, ``function_call``, ``function_call_output``, ``reasoning``), ``instructions``,
    ``item_reference`` items (to the items `recall` finds), ``tools`` (function tools only:
    OpenAI's hosted tools run at OpenAI), ``tool_choice``,
    ``parallel_tool_calls``, ``max_output_tokens``, ``temperature``, ``top_p``, ``stream``,
    ``store``, ``metadata``, ``user``, ``text.format``. ``previous_response_id``,
    ``conversation`` and ``background`` need state the proxy does not keep, and are refused.
    Other fields (``include``, ``reasoning``, ``truncation``...) have no Chat Completions twin
    the proxy relies on and are left out.

    Translated: ``instructions`` -> a first system message (``system`` and ``developer``
    messages follow it as system messages); ``function_call`` items -> the ``tool_calls``
    of an assistant message (joined to the assistant's message just before, if any);
    ``function_call_output`` items -> ``tool`` messages (images in an output go in a user
    message right after, as tool messages take text only); ``reasoning`` items are dropped;
    ``tool_choice`` ``{"type": "function", "name"}`` -> the named function;
    ``max_output_tokens`` -> ``max_tokens``; ``text.format`` json_schema or json_object ->
    ``response_format``.
    """
    request = check.obj(body, "")
    _refuse_state(request)
    chat: dict[str, Any] = {
        "model": check.string(check.required(request, "model", ""), "model", empty=False),
        "messages": _instructions(request.get("instructions")),
    }
    chat["messages"] += _input(check.required(request, "input", ""), recall or _nothing)
    if request.get("tools") is not None:
        chat["tools"] = _tools(request["tools"])
    if request.get("tool_choice") is not None:
        names = [tool["function"]["name"] for tool in chat.get("tools", [])]
        chat["tool_choice"] = _tool_choice(request["tool_choice"], names)
    if request.get("max_output_tokens") is not None:
        chat["max_tokens"] = check.integer(request["max_output_tokens"], "max_output_tokens",
                                      minimum=1)
    for key, checker in _SAMPLING.items():
        if request.get(key) is not None:
            chat[key] = request[key]
            checker(request[key], key)
    if request.get("text") is not None:
        chat.update(_text_format(request["text"]))
    if request.get("store") is not None:
        check.boolean(request["store"], "store")  # accepted either way: no response is stored
    if request.get("metadata") is not None:
        check.obj(request["metadata"], "metadata")
    return chat


def _refuse_state(request: Mapping[str, Any]) -> None:
    for key in _STATEFUL:
        if request.get(key) is not None:
            raise RequestError(key, "the proxy keeps no state: send the whole conversation "
                               "in input (each earlier message, function_call and "
                               "function_call_output item), with store false")
    if request.get("background") is not None and check.boolean(request["background"], "background"):
        raise RequestError("background", "the proxy keeps no state to run a response in the "
                           "background: send it without background")


def _instructions(value: Any) -> list[dict[str, Any]]:
    if value is None:
        return []
    text = check.string(value, "instructions")
    return [{"role": "system", "content": text}] if text else []


def _nothing(ident: str) -> None:
    """Recalls no item: what a request is read with when no memory is given."""
    return None


def _input(value: Any, recall: Recall) -> list[dict[str, Any]]:
    if isinstance(value, str):
        return [{"role": "user", "content": value}]
    messages: list[dict[str, Any]] = []
    known: set[str] = set()  # function_call ids so far: an output must answer one
    for index, item in enumerate(check.array(value, "input", empty=False)):
        item = check.obj(item, f"input[{index}]")
        if item.get("type") == "item_reference":
            item = _referenced(item, f"input[{index}]", recall)
        _item(item, f"input[{index}]", messages, known)
    return messages


def _referenced(item: Mapping[str, Any], field: str, recall: Recall) -> dict[str, Any]:
    """The item an ``item_reference`` names, if the proxy wrote it and remembers it."""
    ident = check.string(check.required(item, "id", field), check.at(field, "id"), empty=False)
    found = recall(ident)
    if found is None:
        raise RequestError(check.at(field, "id"), f"the proxy does not remember an item {ident!r} "
                           "(it keeps no conversation, only the last items it wrote, in the "
                           "process that wrote them): send the item itself, e.g. with store "
                           "false (Vercel AI SDK: providerOptions: {openai: {store: false}})")
    return found


def _item(item: Mapping[str, Any], field: str, messages: list[dict[str, Any]],
          known: set[str]) -> None:
    """One input item (not a reference), added to `messages` as what it is in Chat
    Completions."""
    kind = item.get("type", "message")  # a message may leave its type out
    if kind == "message":
        messages += _message(item, field)
    elif kind == "function_call":
        call = _function_call(item, field)
        known.add(call["id"])
        _assistant_calls(messages).append(call)
    elif kind == "function_call_output":
        messages += _function_call_output(item, field, known)
    elif kind == "reasoning":
        # Dropped: the text a Chat Completions request sends is the answer, not earlier
        # reasoning (which OpenAI sends encrypted, for itself alone).
        _optional_list(item.get("summary"), check.at(field, "summary"))
    else:
        raise RequestError(check.at(field, "type"), f"{kind!r} items are not supported by the "
                           "proxy (it takes message, function_call, function_call_output, "
                           "reasoning and item_reference items)")


def _optional_list(value: Any, field: str) -> None:
    if value is not None:
        check.array(value, field)


def _assistant_calls(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The calls of the assistant message a call joins: the last message, if it is the
    assistant's, else a new one."""
    if not messages or messages[-1]["role"] != "assistant":
        messages.append({"role": "assistant", "content": ""})
    calls: list[dict[str, Any]] = messages[-1].setdefault("tool_calls", [])
    return calls


def _message(item: Mapping[str, Any], field: str) -> list[dict[str, Any]]:
    role = _ROLES[check.one_of(check.required(item, "role", field), check.at(field, "role"),
                               tuple(_ROLES))]
    content = check.required(item, "content", field)
    if isinstance(content, str):
        return [{"role": role, "content": content}]
    parts = [_part(part, check.at(check.at(field, "content"), index), role)
             for index, part in enumerate(check.array(content, check.at(field, "content")))]
    if role != "user" or all(part["type"] == "text" for part in parts):
        return [{"role": role, "content": "".join(part["text"] for part in parts)}]
    return [{"role": role, "content": parts}]


def _part(value: Any, field: str, role: str) -> dict[str, Any]:
    """A content part as a Chat Completions part (images only from the user)."""
    part = check.obj(value, field)
    kinds = (*_TEXT_PARTS, "input_image") if role == "user" else tuple(_TEXT_PARTS)
    kind = check.one_of(check.required(part, "type", field), check.at(field, "type"), kinds)
    if kind in _TEXT_PARTS:
        key = _TEXT_PARTS[kind]
        return {"type": "text", "text": check.string(check.required(part, key, field),
                                                     check.at(field, key))}
    if part.get("image_url") is None:
        raise RequestError(check.at(field, "image_url"), "is required (the proxy keeps no files: "
                           "send the image as a URL or a data: URL, not a file_id)")
    image: dict[str, Any] = {"url": check.string(part["image_url"], check.at(field, "image_url"),
                                            empty=False)}
    if part.get("detail") is not None:
        image["detail"] = check.one_of(part["detail"], check.at(field, "detail"),
                                       ("auto", "low", "high"))
    return {"type": "image_url", "image_url": image}


def _function_call(item: Mapping[str, Any], field: str) -> dict[str, Any]:
    id_ = check.string(check.required(item, "call_id", field), check.at(field, "call_id"),
                       empty=False)
    name = check.string(check.required(item, "name", field), check.at(field, "name"), empty=False)
    arguments = check.string(check.required(item, "arguments", field), check.at(field, "arguments"))
    check.json_object(arguments, check.at(field, "arguments"))
    return {"id": id_, "type": "function",
            "function": {"name": name, "arguments": arguments or "{}"}}


def _function_call_output(item: Mapping[str, Any], field: str, known: set[str]
                          ) -> list[dict[str, Any]]:
    """A tool message, and a user message with the output's images, if it has any."""
    id_ = check.string(check.required(item, "call_id", field), check.at(field, "call_id"),
                       empty=False)
    if id_ not in known:
        raise RequestError(check.at(field, "call_id"), f"no earlier function_call item has call_id "
                           f"{id_!r} (the proxy keeps no state: send the call too)")
    output = check.required(item, "output", field)
    if isinstance(output, str):
        return [{"role": "tool", "tool_call_id": id_, "content": output}]
    parts = [_part(part, check.at(check.at(field, "output"), index), "user")
             for index, part in enumerate(check.array(output, check.at(field, "output")))]
    text = "\n".join(part["text"] for part in parts if part["type"] == "text")
    messages: list[dict[str, Any]] = [{"role": "tool", "tool_call_id": id_, "content": text}]
    if images := [part for part in parts if part["type"] != "text"]:
        messages.append({"role": "user", "content": images})
    return messages


def _tools(value: Any) -> list[dict[str, Any]]:
    tools = [check.obj(tool, f"tools[{index}]")
             for index, tool in enumerate(check.array(value, "tools"))]
    hosted = sorted({str(tool.get("type")) for tool in tools if tool.get("type") != "function"})
    if hosted:
        raise RequestError("tools", f"the proxy serves function tools only; {', '.join(hosted)} "
                           "tools run at OpenAI, not behind this proxy: leave them out")
    converted: list[dict[str, Any]] = []
    for index, tool in enumerate(tools):
        converted.append(_function_tool(tool, f"tools[{index}]"))
        name = converted[-1]["function"]["name"]
        if any(known["function"]["name"] == name for known in converted[:-1]):
            raise RequestError(f"tools[{index}].name", f"two tools are named {name!r}")
    return converted


def _function_tool(tool: Mapping[str, Any], field: str) -> dict[str, Any]:
    """A flat function tool as a Chat Completions one, its schema checked by `Tool`."""
    function: dict[str, Any] = {
        "name": check.string(check.required(tool, "name", field), check.at(field, "name"),
                             empty=False),
        "parameters": {"type": "object", "properties": {}},
    }
    if tool.get("parameters") is not None:
        function["parameters"] = check.obj(tool["parameters"], check.at(field, "parameters"))
    if tool.get("description") is not None:
        function["description"] = check.string(tool["description"], check.at(field, "description"))
    if tool.get("strict") is not None:
        function["strict"] = check.boolean(tool["strict"], check.at(field, "strict"))
    return checked_function_tool(function, check.at(field, "parameters"))


def _tool_choice(value: Any, names: Sequence[str]) -> Any:
    if isinstance(value, str):
        return check.one_of(value, "tool_choice", _CHOICES)
    choice = check.obj(value, "tool_choice")
    kind = check.required(choice, "type", "tool_choice")
    if kind != "function":
        raise RequestError("tool_choice.type", f"the proxy takes a function tool choice (or "
                           f"'auto', 'none', 'required'), not {kind!r}")
    name = check.string(check.required(choice, "name", "tool_choice"), "tool_choice.name",
                        empty=False)
    if name not in names:
        raise RequestError("tool_choice.name", f"no tool named {name!r} in tools")
    return {"type": "function", "function": {"name": name}}


def _text_format(value: Any) -> dict[str, Any]:
    """``text.format`` as Chat Completions' ``response_format`` (none for plain text)."""
    text = check.obj(value, "text")
    if text.get("format") is None:
        return {}
    shape = check.obj(text["format"], "text.format")
    kind = check.one_of(check.required(shape, "type", "text.format"), "text.format.type",
                   ("text", "json_object", "json_schema"))
    if kind == "text":
        return {}
    if kind == "json_object":
        return {"response_format": {"type": "json_object"}}
    name = check.string(check.required(shape, "name", "text.format"), "text.format.name",
                        empty=False)
    schema: dict[str, Any] = {
        "name": name,
        "schema": check.obj(check.required(shape, "schema", "text.format"), "text.format.schema")}
    for key, checker in (("description", check.string), ("strict", check.boolean)):
        if shape.get(key) is not None:
            schema[key] = checker(shape[key], f"text.format.{key}")
    return {"response_format": {"type": "json_schema", "json_schema": schema}}
