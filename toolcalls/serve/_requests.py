"""What clients send the proxy: requests checked, translated and rewritten, without HTTP.

* `validate_chat_request`: an OpenAI Chat Completions body checked for what the proxy relies
  on; a wrong field is a `RequestError` naming it (``messages[2].content: expected ...``),
  which the app answers with 400 in the API's own error shape.
* `chat_request_from_messages`: an Anthropic Messages request checked the same way and
  translated into the equivalent Chat Completions request, so one path serves both APIs.
* `prompt_request`: prompt mode, for an upstream that has no tool calling of its own: the
  tools go into the system prompt and the history's calls and results into text, each as the
  model's own chat template writes them (`Format.render_tools`, `render_calls`,
  `render_result`).
* `format_for`: the format the proxy renders and parses with, for a model id.

Everything here is a pure function of JSON-decoded values: no HTTP, no starlette.
"""

from __future__ import annotations

import fnmatch
import functools
import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._errors import UnknownFormatError
from ..parsing._models import ToolCall
from ..parsing._registry import get_format
from ..tools._importers import from_openai

if TYPE_CHECKING:
    from ..parsing.formats._base import Format

__all__ = [
    "RequestError", "chat_request_from_messages", "format_for", "prompt_request",
    "validate_chat_request",
]


class RequestError(ValueError):
    """A request the proxy cannot take: `field` is where (``messages[2].content``), `message`
    what is wrong; ``str()`` reads ``"messages[2].content: expected a string or ..."``."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message


# --- checking JSON values ------------------------------------------------------------------------


def _object(value: Any, field: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RequestError(field, f"expected an object, got {_kind(value)}")
    return value


def _list(value: Any, field: str, *, empty: bool = True) -> list[Any]:
    if not isinstance(value, list):
        raise RequestError(field, f"expected an array, got {_kind(value)}")
    if not empty and not value:
        raise RequestError(field, "expected at least one item")
    return value


def _string(value: Any, field: str, *, empty: bool = True) -> str:
    if not isinstance(value, str):
        raise RequestError(field, f"expected a string, got {_kind(value)}")
    if not empty and not value:
        raise RequestError(field, "expected a non-empty string")
    return value


def _boolean(value: Any, field: str) -> bool:
    if not isinstance(value, bool):
        raise RequestError(field, f"expected true or false, got {_kind(value)}")
    return value


def _integer(value: Any, field: str, *, minimum: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise RequestError(field, f"expected an integer, got {_kind(value)}")
    if minimum is not None and value < minimum:
        raise RequestError(field, f"expected an integer of at least {minimum}, got {value}")
    return value


def _number(value: Any, field: str) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise RequestError(field, f"expected a number, got {_kind(value)}")
    return float(value)


def _one_of(value: Any, field: str, allowed: Sequence[str]) -> str:
    if value not in allowed:
        listed = ", ".join(repr(choice) for choice in allowed)
        raise RequestError(field, f"expected one of {listed}, got {_shown(value)}")
    return str(value)


def _required(body: Mapping[str, Any], key: str, field: str) -> Any:
    if key not in body:
        raise RequestError(_at(field, key), "is required")
    return body[key]


def _optional(body: Mapping[str, Any], key: str, field: str,
              check: Callable[[Any, str], Any]) -> None:
    """`check` the value of `key` when it is there (null counts as absent, as OpenAI's)."""
    if body.get(key) is not None:
        check(body[key], _at(field, key))


def _at(field: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{field}[{key}]"
    return f"{field}.{key}" if field else key


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
             int: "a number", float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _shown(value: Any) -> str:
    return repr(value) if isinstance(value, str | int | float | bool) else _kind(value)


def _json_object(text: str, field: str) -> dict[str, Any]:
    """Call arguments as a JSON string: an object (an empty string is no arguments)."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError as error:
        raise RequestError(field, f"expected a JSON object in a string: {error}") from None
    if not isinstance(value, dict):
        raise RequestError(field, f"expected a JSON object in a string, got {_kind(value)}")
    return value


# --- OpenAI Chat Completions ---------------------------------------------------------------------

_ROLES = ("system", "developer", "user", "assistant", "tool")
_TOOL_CHOICES = ("none", "auto", "required")
# The part types each role may send; the proxy reads the text of every role but the user's.
_PARTS: Mapping[str, tuple[str, ...]] = {
    "system": ("text",), "developer": ("text",), "tool": ("text",),
    "assistant": ("text", "refusal"), "user": ("text", "image_url", "input_audio", "file"),
}


def validate_chat_request(body: object) -> dict[str, Any]:
    """`body`, a JSON-decoded Chat Completions request, checked for what the proxy relies on.

    Checked: ``model``; ``messages`` (roles, content shapes, ``tool_calls`` with arguments
    that are a JSON object in a string, ``tool_call_id``); ``tools`` (function tools whose
    schemas `Tool` accepts); ``tool_choice``; ``stream``, ``stream_options``,
    ``parallel_tool_calls``; ``n`` (1: the proxy parses one choice). Returned as it came: fields
    the proxy does not use pass through untouched. Raises `RequestError` naming the field.
    """
    request = _object(body, "")
    _string(_required(request, "model", ""), "model", empty=False)
    messages = _list(_required(request, "messages", ""), "messages", empty=False)
    for index, message in enumerate(messages):
        _message(message, f"messages[{index}]")
    names = _tools(request)
    _optional(request, "tool_choice", "", lambda value, field: _tool_choice(value, field, names))
    for flag in ("stream", "parallel_tool_calls"):
        _optional(request, flag, "", _boolean)
    _optional(request, "stream_options", "", _stream_options)
    if request.get("n") is not None and _integer(request["n"], "n") != 1:
        raise RequestError("n", "the proxy answers with one choice: n must be 1")
    return request


def _message(value: Any, field: str) -> None:
    message = _object(value, field)
    role = _one_of(_required(message, "role", field), _at(field, "role"), _ROLES)
    _optional(message, "name", field, _string)
    if role == "assistant":
        _optional(message, "tool_calls", field, _tool_calls)
        if message.get("content") is not None:
            _content(message["content"], _at(field, "content"), _PARTS[role])
        return
    _content(_required(message, "content", field), _at(field, "content"), _PARTS[role])
    if role == "tool":
        _string(_required(message, "tool_call_id", field), _at(field, "tool_call_id"), empty=False)


def _content(value: Any, field: str, parts: tuple[str, ...]) -> None:
    if isinstance(value, str):
        return
    if not isinstance(value, list):
        kinds = "a string or a list of parts" if len(parts) > 1 else "a string or text parts"
        raise RequestError(field, f"expected {kinds}, got {_kind(value)}")
    for index, part in enumerate(value):
        _part(part, _at(field, index), parts)


def _part(value: Any, field: str, parts: tuple[str, ...]) -> None:
    part = _object(value, field)
    kind = _one_of(_required(part, "type", field), _at(field, "type"), parts)
    if kind in ("text", "refusal"):
        _string(_required(part, kind, field), _at(field, kind))
    elif kind == "image_url":
        image = _object(_required(part, "image_url", field), _at(field, "image_url"))
        _string(_required(image, "url", _at(field, "image_url")), _at(field, "image_url.url"),
                empty=False)
    else:  # input_audio, file: the upstream reads them
        _object(_required(part, kind, field), _at(field, kind))


def _tool_calls(value: Any, field: str) -> None:
    for index, item in enumerate(_list(value, field)):
        at = _at(field, index)
        call = _object(item, at)
        _string(_required(call, "id", at), _at(at, "id"), empty=False)
        _optional(call, "type", at, lambda kind, where: _one_of(kind, where, ("function",)))
        function = _object(_required(call, "function", at), _at(at, "function"))
        at = _at(at, "function")
        _string(_required(function, "name", at), _at(at, "name"), empty=False)
        arguments = _string(_required(function, "arguments", at), _at(at, "arguments"))
        _json_object(arguments, _at(at, "arguments"))


def _tools(request: Mapping[str, Any]) -> list[str]:
    """The names of the request's tools, each checked (`from_openai` reads them later)."""
    if request.get("tools") is None:
        return []
    names: list[str] = []
    for index, item in enumerate(_list(request["tools"], "tools")):
        at = f"tools[{index}]"
        tool = _object(item, at)
        _one_of(_required(tool, "type", at), _at(at, "type"), ("function",))
        function = _object(_required(tool, "function", at), _at(at, "function"))
        at = _at(at, "function")
        name = _string(_required(function, "name", at), _at(at, "name"), empty=False)
        _optional(function, "description", at, _string)
        _optional(function, "parameters", at, _object)
        try:
            from_openai(tool)
        except ValueError as error:  # ToolDefinitionError: a schema Tool refuses
            raise RequestError(at, str(error).removeprefix("tool #0: ")) from None
        if name in names:
            raise RequestError(_at(at, "name"), f"two tools are named {name!r}")
        names.append(name)
    return names


def _tool_choice(value: Any, field: str, names: Sequence[str]) -> None:
    if isinstance(value, str):
        _one_of(value, field, _TOOL_CHOICES)
        return
    choice = _object(value, field)
    _one_of(_required(choice, "type", field), _at(field, "type"), ("function",))
    function = _object(_required(choice, "function", field), _at(field, "function"))
    name = _string(_required(function, "name", _at(field, "function")),
                   _at(field, "function.name"), empty=False)
    if name not in names:
        raise RequestError(_at(field, "function.name"), f"no tool named {name!r} in tools")


def _stream_options(value: Any, field: str) -> None:
    _optional(_object(value, field), "include_usage", field, _boolean)


# --- Anthropic Messages -------------------------------------------------------------------------

_ANTHROPIC_CHOICES = ("auto", "any", "tool", "none")
_USER_BLOCKS = ("text", "image", "tool_result", "document")
_ASSISTANT_BLOCKS = ("text", "tool_use", "thinking", "redacted_thinking")
_RESULT_BLOCKS = ("text", "image")
# Sampling fields with the same name and meaning in both APIs (top_k: llama.cpp and vLLM
# take it beside the OpenAI fields).
_SAMPLING: Mapping[str, Callable[[Any, str], Any]] = {
    "temperature": _number, "top_p": _number, "top_k": _integer,
}


def chat_request_from_messages(body: object) -> dict[str, Any]:
    """An Anthropic Messages request, checked, as the equivalent Chat Completions request.

    Checked (`RequestError` names the field): ``model``, ``max_tokens`` (required),
    ``messages`` (roles user and assistant; blocks text, image, tool_use, tool_result,
    thinking, redacted_thinking), ``system`` (a string or text blocks), ``tools`` (with
    ``input_schema``), ``tool_choice``, ``stop_sequences``, ``temperature``, ``top_p``,
    ``top_k``, ``stream``, ``metadata``. Other fields (``thinking``, ``service_tier``...) have
    no Chat Completions twin and are left out.

    Translated: ``system`` -> a first system message; ``tool_use`` blocks -> the assistant's
    ``tool_calls`` (ids kept, ``input`` as a JSON string); ``tool_result`` blocks -> ``tool``
    messages, their text prefixed ``Error: `` when ``is_error``; images -> ``image_url`` parts
    with ``data:`` URLs (an image in a tool result goes in a user message right after the
    results, as tool messages take text only); ``tool_choice`` any -> ``"required"``, tool ->
    the named function, ``disable_parallel_tool_use`` -> ``parallel_tool_calls: false``;
    ``stop_sequences`` -> ``stop``; ``metadata.user_id`` -> ``user``.
    """
    request = _object(body, "")
    chat: dict[str, Any] = {
        "model": _string(_required(request, "model", ""), "model", empty=False),
        "messages": _system(request.get("system")),
        "max_tokens": _integer(_required(request, "max_tokens", ""), "max_tokens", minimum=1),
    }
    messages = _list(_required(request, "messages", ""), "messages", empty=False)
    known: set[str] = set()  # tool_use ids so far: a tool_result must answer one
    for index, message in enumerate(messages):
        chat["messages"] += _anthropic_message(message, f"messages[{index}]", known)
    if request.get("tools") is not None:
        chat["tools"] = _anthropic_tools(request["tools"])
    if request.get("tool_choice") is not None:
        names = [tool["function"]["name"] for tool in chat.get("tools", [])]
        chat.update(_anthropic_choice(request["tool_choice"], names))
    if request.get("stop_sequences") is not None:
        stops = _list(request["stop_sequences"], "stop_sequences")
        chat["stop"] = [_string(stop, f"stop_sequences[{i}]") for i, stop in enumerate(stops)]
    for key, check in _SAMPLING.items():
        if request.get(key) is not None:
            check(request[key], key)
            chat[key] = request[key]
    if request.get("stream") is not None:
        chat["stream"] = _boolean(request["stream"], "stream")
    if request.get("metadata") is not None:
        metadata = _object(request["metadata"], "metadata")
        if metadata.get("user_id") is not None:
            chat["user"] = _string(metadata["user_id"], "metadata.user_id")
    return chat


def _system(value: Any) -> list[dict[str, Any]]:
    if value is None:
        return []
    if isinstance(value, str):
        return [{"role": "system", "content": value}] if value else []
    blocks = _list(value, "system")
    texts = [_text_block(block, f"system[{i}]") for i, block in enumerate(blocks)]
    return [{"role": "system", "content": "\n".join(texts)}] if texts else []


def _text_block(value: Any, field: str) -> str:
    block = _object(value, field)
    _one_of(_required(block, "type", field), _at(field, "type"), ("text",))
    return _string(_required(block, "text", field), _at(field, "text"))


def _anthropic_message(value: Any, field: str, known: set[str]) -> list[dict[str, Any]]:
    message = _object(value, field)
    role = _one_of(_required(message, "role", field), _at(field, "role"), ("user", "assistant"))
    content = _required(message, "content", field)
    if isinstance(content, str):
        return [{"role": role, "content": content}]
    blocks = _list(content, _at(field, "content"))
    if role == "assistant":
        return [_assistant(blocks, _at(field, "content"), known)]
    return _user(blocks, _at(field, "content"), known)


def _assistant(blocks: list[Any], field: str, known: set[str]) -> dict[str, Any]:
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for index, value in enumerate(blocks):
        at = _at(field, index)
        block = _object(value, at)
        kind = _one_of(_required(block, "type", at), _at(at, "type"), _ASSISTANT_BLOCKS)
        if kind == "text":
            texts.append(_string(_required(block, "text", at), _at(at, "text")))
        elif kind == "tool_use":
            calls.append(_tool_use(block, at))
            known.add(calls[-1]["id"])
        elif kind == "thinking":
            _string(_required(block, "thinking", at), _at(at, "thinking"))
        else:
            _string(_required(block, "data", at), _at(at, "data"))
        # Thinking blocks are dropped: they carry Anthropic's signatures, which no upstream
        # can verify, and a Chat Completions request has no place for earlier reasoning.
    message: dict[str, Any] = {"role": "assistant", "content": "".join(texts)}
    if calls:
        message["tool_calls"] = calls
    return message


def _tool_use(block: Mapping[str, Any], field: str) -> dict[str, Any]:
    id_ = _string(_required(block, "id", field), _at(field, "id"), empty=False)
    name = _string(_required(block, "name", field), _at(field, "name"), empty=False)
    arguments = _object(_required(block, "input", field), _at(field, "input"))
    function = {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)}
    return {"id": id_, "type": "function", "function": function}


def _user(blocks: list[Any], field: str, known: set[str]) -> list[dict[str, Any]]:
    """Tool results become tool messages; the rest, in order, one user message after them."""
    messages: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    for index, value in enumerate(blocks):
        at = _at(field, index)
        block = _object(value, at)
        kind = _one_of(_required(block, "type", at), _at(at, "type"), _USER_BLOCKS)
        if kind == "tool_result":
            message, images = _tool_result(block, at, known)
            messages.append(message)
            parts += images
        elif kind == "document":
            raise RequestError(_at(at, "type"), "document blocks are not supported by the proxy")
        else:
            parts.append(_part_of(block, at))
    if parts:
        only_text = len(parts) == 1 and parts[0]["type"] == "text"
        messages.append({"role": "user", "content": parts[0]["text"] if only_text else parts})
    return messages


def _part_of(block: Mapping[str, Any], field: str) -> dict[str, Any]:
    """A text or image block as a Chat Completions content part."""
    if block["type"] == "text":
        return {"type": "text", "text": _string(_required(block, "text", field),
                                                 _at(field, "text"))}
    source = _object(_required(block, "source", field), _at(field, "source"))
    at = _at(field, "source")
    kind = _one_of(_required(source, "type", at), _at(at, "type"), ("base64", "url"))
    if kind == "url":
        url = _string(_required(source, "url", at), _at(at, "url"), empty=False)
    else:
        media = _string(_required(source, "media_type", at), _at(at, "media_type"), empty=False)
        data = _string(_required(source, "data", at), _at(at, "data"), empty=False)
        url = f"data:{media};base64,{data}"
    return {"type": "image_url", "image_url": {"url": url}}


def _tool_result(block: Mapping[str, Any], field: str, known: set[str]
                 ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A tool message, and the images of the result (a tool message takes text only)."""
    id_ = _string(_required(block, "tool_use_id", field), _at(field, "tool_use_id"), empty=False)
    if id_ not in known:
        raise RequestError(_at(field, "tool_use_id"), f"no earlier tool_use block has id {id_!r}")
    content = block.get("content", "")
    texts: list[str] = []
    images: list[dict[str, Any]] = []
    if isinstance(content, str):
        texts.append(content)
    else:
        for index, value in enumerate(_list(content, _at(field, "content"))):
            at = _at(_at(field, "content"), index)
            part = _object(value, at)
            _one_of(_required(part, "type", at), _at(at, "type"), _RESULT_BLOCKS)
            converted = _part_of(part, at)
            if converted["type"] == "text":
                texts.append(converted["text"])
            else:
                images.append(converted)
    text = "\n".join(texts)
    if block.get("is_error") is not None and _boolean(block["is_error"], _at(field, "is_error")):
        text = f"Error: {text}"
    return {"role": "tool", "tool_call_id": id_, "content": text}, images


def _anthropic_tools(value: Any) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = []
    for index, item in enumerate(_list(value, "tools")):
        at = f"tools[{index}]"
        tool = _object(item, at)
        if "input_schema" not in tool:
            kind = tool.get("type", "?")
            raise RequestError(_at(at, "input_schema"),
                               f"is required (a server tool of type {kind!r} runs at "
                               "Anthropic, not behind this proxy)")
        function: dict[str, Any] = {
            "name": _string(_required(tool, "name", at), _at(at, "name"), empty=False),
            "parameters": _object(tool["input_schema"], _at(at, "input_schema")),
        }
        if tool.get("description") is not None:
            function["description"] = _string(tool["description"], _at(at, "description"))
        converted = {"type": "function", "function": function}
        try:
            from_openai(converted)
        except ValueError as error:  # ToolDefinitionError: a schema Tool refuses
            raise RequestError(_at(at, "input_schema"),
                               str(error).removeprefix("tool #0: ")) from None
        if any(known["function"]["name"] == function["name"] for known in tools):
            raise RequestError(_at(at, "name"), f"two tools are named {function['name']!r}")
        tools.append(converted)
    return tools


def _anthropic_choice(value: Any, names: Sequence[str]) -> dict[str, Any]:
    choice = _object(value, "tool_choice")
    kind = _one_of(_required(choice, "type", "tool_choice"), "tool_choice.type",
                   _ANTHROPIC_CHOICES)
    fields: dict[str, Any] = {"tool_choice": {"any": "required"}.get(kind, kind)}
    if kind == "tool":
        name = _string(_required(choice, "name", "tool_choice"), "tool_choice.name", empty=False)
        if name not in names:
            raise RequestError("tool_choice.name", f"no tool named {name!r} in tools")
        fields["tool_choice"] = {"type": "function", "function": {"name": name}}
    flag = choice.get("disable_parallel_tool_use")
    if flag is not None and _boolean(flag, "tool_choice.disable_parallel_tool_use"):
        fields["parallel_tool_calls"] = False
    return fields


# --- prompt mode ----------------------------------------------------------------------------------

# How each family's template writes the results that answer one assistant turn: before the
# first, between two, after the last (fixtures/render/<format>/template.jinja; the family's
# `render_result` writes each result's own markers). Formats not listed: a newline between.
_RESULT_RUNS: Mapping[str, tuple[str, str, str]] = {
    "deepseek_v3": ("", "", ""),
    "deepseek_v31": ("", "", ""),
    "deepseek_v32_dsml": ("<function_results>\n", "\n", "\n</function_results>"),
    "glm47": ("", "", ""),
    "gpt_oss": ("", "", ""),
    "kimi_k2": ("", "", ""),
    "llama3_json": ("", "", ""),
    "mistral": ("", "", ""),
    "pythonic": ("", "", ""),
    "qwen3_coder": ("", "\n", "\n"),
    "seed_oss": ("", "", ""),
}
_RESULT_RUN = ("", "\n", "")
_NOT_UPSTREAM = ("tools", "tool_choice", "parallel_tool_calls")


def prompt_request(chat: dict[str, Any], fmt: Format) -> dict[str, Any]:
    """The upstream body for `chat` (a validated Chat Completions request) in prompt mode.

    No ``tools``, ``tool_choice`` or ``parallel_tool_calls`` go upstream. Instead the tools
    block (``fmt.render_tools``) is appended to the first system (or developer) message, or is
    a new first system message, with one line for ``tool_choice`` ``"required"`` or a named
    function and one for ``parallel_tool_calls: false``; with ``tool_choice: "none"`` no tools
    are written. The history is rewritten either way: an assistant message with ``tool_calls``
    becomes the text ``fmt.render_calls(calls, content)``; each ``tool`` message
    ``fmt.render_result(call, content)``, the call found by ``tool_call_id`` among the earlier
    assistant calls (an unknown id is a `RequestError`), and the results that follow one
    another are one user message, joined as the family's template joins them (`_RESULT_RUNS`).
    Every other field and message passes through as it came; `chat` itself is not changed.

    Where the upstream's template then writes other than the model's template would have
    with native tools (the role around the tools block and the results, which a template
    with native tools writes in a role of its own) is listed in tests/serve/test_requests.py.
    """
    upstream = {key: value for key, value in chat.items() if key not in _NOT_UPSTREAM}
    messages = _history(chat["messages"], fmt)
    block = _tools_block(chat, fmt)
    upstream["messages"] = _with_system(messages, block) if block else messages
    return upstream


def _tools_block(chat: Mapping[str, Any], fmt: Format) -> str:
    tools = from_openai(chat.get("tools") or [])
    choice = chat.get("tool_choice") or "auto"
    if not tools or choice == "none":
        return ""
    lines: list[str] = []
    if choice == "required":
        lines.append("You must call at least one of these tools.")
    elif isinstance(choice, Mapping):
        lines.append(f"You must call the tool {choice['function']['name']}.")
    if chat.get("parallel_tool_calls") is False:
        lines.append("Call at most one tool per turn.")
    block = _rendered(functools.partial(fmt.render_tools, tools), "tools", fmt)
    if not lines:
        return block
    # The rendered block is kept whole (the template's own text); a blank line, then the lines.
    ending = len(block) - len(block.rstrip("\n"))
    return block + "\n" * max(0, 2 - ending) + "\n".join(lines)


def _with_system(messages: list[dict[str, Any]], block: str) -> list[dict[str, Any]]:
    for index, message in enumerate(messages):
        if message["role"] in ("system", "developer"):  # developer: OpenAI's newer name
            text = _text(message.get("content"))
            merged = {**message, "content": f"{text}\n\n{block}" if text else block}
            return [*messages[:index], merged, *messages[index + 1:]]
    return [{"role": "system", "content": block}, *messages]


def _history(messages: Sequence[Mapping[str, Any]], fmt: Format) -> list[dict[str, Any]]:
    calls: dict[str, ToolCall] = {}  # by id: the calls of the assistant turns so far
    rewritten: list[dict[str, Any]] = []
    results: list[str] = []  # the run of results being read
    for index, message in enumerate(messages):
        if message["role"] == "tool":
            results.append(_result(message, f"messages[{index}]", calls, fmt))
            continue
        if results:
            rewritten.append(_results_message(results, fmt))
            results = []
        if message["role"] == "assistant" and "tool_calls" in message:
            turn = [_history_call(item, f"messages[{index}].tool_calls[{number}]")
                    for number, item in enumerate(message["tool_calls"] or [])]
            calls.update((call.id, call) for call in turn)
            # An empty list or null is dropped too: the upstream is told of no tool calling.
            kept = {key: value for key, value in message.items() if key != "tool_calls"}
            if turn:
                write = functools.partial(fmt.render_calls, turn, _text(message.get("content")))
                kept["content"] = _rendered(write, f"messages[{index}].tool_calls", fmt)
            rewritten.append(kept)
        else:
            rewritten.append(dict(message))
    if results:
        rewritten.append(_results_message(results, fmt))
    return rewritten


def _rendered(render: Callable[[], str], field: str, fmt: Format) -> str:
    """What `render` writes; a name or value the format cannot write names the field."""
    try:
        return render()
    except ValueError as error:  # such as a call name that would not read back as a tag
        raise RequestError(field, f"cannot be written in the {fmt.name} format: {error}") from None


def _history_call(item: Mapping[str, Any], field: str) -> ToolCall:
    function = item["function"]
    arguments = _json_object(function["arguments"], f"{field}.function.arguments")
    return ToolCall(id=item["id"], name=function["name"], arguments=arguments, source="native")


def _result(message: Mapping[str, Any], field: str, calls: Mapping[str, ToolCall],
            fmt: Format) -> str:
    call = calls.get(message["tool_call_id"])
    if call is None:
        raise RequestError(_at(field, "tool_call_id"),
                           f"no earlier assistant tool call has id {message['tool_call_id']!r}")
    return fmt.render_result(call, _text(message["content"]))


def _results_message(results: Sequence[str], fmt: Format) -> dict[str, Any]:
    before, between, after = _RESULT_RUNS.get(fmt.name, _RESULT_RUN)
    return {"role": "user", "content": before + between.join(results) + after}


def _text(content: Any) -> str:
    """A message's text: content parts joined by newlines, as servers join them."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "\n".join(part.get("text") or part.get("refusal") or "" for part in content)


# --- the format of a model ------------------------------------------------------------------------

_OWN_FORMAT = "xml"
"""This project's own prompt format: for a model whose format is not known."""


def format_for(model: str, *, format: str = "auto",
               model_formats: Mapping[str, str] | None = None) -> Format:
    """The format the proxy renders tools in and parses `model`'s output with.

    In order: `model_formats` (``--model-format MODEL=FORMAT``), an exact key first, then the
    first glob that matches (``qwen*=hermes``; case-insensitive, against the whole id or its
    last ``/`` part, as model ids are matched by `get_format`); then `format` unless it is
    ``"auto"``; then the model id through `get_format`; else ``xml``, with no error. A format
    name that is not registered (in `model_formats` or `format`) is a configuration mistake:
    `UnknownFormatError`.
    """
    configured = _configured(model, model_formats or {})
    if configured is not None:
        return get_format(configured)
    if format != "auto":
        return get_format(format)
    try:
        return get_format(model)
    except UnknownFormatError:
        return get_format(_OWN_FORMAT)


def _configured(model: str, model_formats: Mapping[str, str]) -> str | None:
    if model in model_formats:
        return model_formats[model]
    lowered = model.strip().lower()
    names = (lowered, lowered.rsplit("/", 1)[-1])
    for pattern, name in model_formats.items():
        if any(fnmatch.fnmatchcase(candidate, pattern.lower()) for candidate in names):
            return name
    return None
