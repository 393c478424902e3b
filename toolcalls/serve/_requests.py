"""What clients send the proxy, checked: OpenAI Chat Completions requests, and the format of
a model. Anthropic Messages and OpenAI Responses requests are checked and translated in
`_anthropic_request` and `_responses_request`, prompt mode's rewriting is `_prompt`.

* `validate_chat_request`: an OpenAI Chat Completions body checked for what the proxy relies
  on; a wrong field is a `RequestError` naming it (``messages[2].content: expected ...``),
  a `ProxyError` the app answers with 400 in the API's own error shape (the checks of JSON
  values are `_checks`, shared with the other APIs' requests).
* `format_for`: the format the proxy renders and parses with, for a model id.

Everything here is a pure function of JSON-decoded values: no HTTP, no starlette.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._errors import UnknownFormatError
from ..parsing._registry import get_format
from ..tools._importers import from_openai
from . import _checks as check
from ._checks import MAX_DEPTH, RequestError, check_strict_json

if TYPE_CHECKING:
    from ..parsing.formats._base import Format

__all__ = ["MAX_DEPTH", "RequestError", "check_strict_json", "checked_function_tool",
           "configured_format", "format_for", "validate_chat_request"]


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
    request = check.obj(body, "")
    check.string(check.required(request, "model", ""), "model", empty=False)
    messages = check.array(check.required(request, "messages", ""), "messages", empty=False)
    for index, message in enumerate(messages):
        _message(message, f"messages[{index}]")
    names = _tools(request)
    check.optional(request, "tool_choice", "",
                   lambda value, field: _tool_choice(value, field, names))
    for flag in ("stream", "parallel_tool_calls"):
        check.optional(request, flag, "", check.boolean)
    check.optional(request, "stream_options", "", _stream_options)
    if request.get("n") is not None and check.integer(request["n"], "n") != 1:
        raise RequestError("n", "the proxy answers with one choice: n must be 1")
    return request


def _message(value: Any, field: str) -> None:
    message = check.obj(value, field)
    role = check.one_of(check.required(message, "role", field), check.at(field, "role"), _ROLES)
    check.optional(message, "name", field, check.string)
    if role == "assistant":
        check.optional(message, "tool_calls", field, _tool_calls)
        if message.get("content") is not None:
            _content(message["content"], check.at(field, "content"), _PARTS[role])
        return
    _content(check.required(message, "content", field), check.at(field, "content"), _PARTS[role])
    if role == "tool":
        check.string(check.required(message, "tool_call_id", field),
                     check.at(field, "tool_call_id"), empty=False)


def _content(value: Any, field: str, parts: tuple[str, ...]) -> None:
    if isinstance(value, str):
        return
    if not isinstance(value, list):
        kinds = "a string or a list of parts" if len(parts) > 1 else "a string or text parts"
        raise RequestError(field, f"expected {kinds}, got {check.kind(value)}")
    for index, part in enumerate(value):
        _part(part, check.at(field, index), parts)


def _part(value: Any, field: str, parts: tuple[str, ...]) -> None:
    part = check.obj(value, field)
    kind = check.one_of(check.required(part, "type", field), check.at(field, "type"), parts)
    if kind in ("text", "refusal"):
        check.string(check.required(part, kind, field), check.at(field, kind))
    elif kind == "image_url":
        image = check.obj(check.required(part, "image_url", field), check.at(field, "image_url"))
        check.string(check.required(image, "url", check.at(field, "image_url")),
                     check.at(field, "image_url.url"), empty=False)
    else:  # input_audio, file: the upstream reads them
        check.obj(check.required(part, kind, field), check.at(field, kind))


def _tool_calls(value: Any, field: str) -> None:
    for index, item in enumerate(check.array(value, field)):
        at = check.at(field, index)
        call = check.obj(item, at)
        check.string(check.required(call, "id", at), check.at(at, "id"), empty=False)
        check.optional(call, "type", at,
                       lambda kind, where: check.one_of(kind, where, ("function",)))
        function = check.obj(check.required(call, "function", at), check.at(at, "function"))
        at = check.at(at, "function")
        check.string(check.required(function, "name", at), check.at(at, "name"), empty=False)
        # an opaque string, as OpenAI takes it: a call cut off (``{``) comes back as it went
        check.string(check.required(function, "arguments", at), check.at(at, "arguments"))


def _tools(request: Mapping[str, Any]) -> list[str]:
    """The names of the request's tools, each checked (`from_openai` reads them later)."""
    if request.get("tools") is None:
        return []
    names: list[str] = []
    for index, item in enumerate(check.array(request["tools"], "tools")):
        at = f"tools[{index}]"
        tool = check.obj(item, at)
        check.one_of(check.required(tool, "type", at), check.at(at, "type"), ("function",))
        function = check.obj(check.required(tool, "function", at), check.at(at, "function"))
        at = check.at(at, "function")
        name = check.string(check.required(function, "name", at), check.at(at, "name"), empty=False)
        check.optional(function, "description", at, check.string)
        check.optional(function, "parameters", at, check.obj)
        try:
            from_openai(tool)
        except ValueError as error:  # ToolDefinitionError: a schema Tool refuses
            raise RequestError(at, str(error).removeprefix("tool #0: ")) from None
        if name in names:
            raise RequestError(check.at(at, "name"), f"two tools are named {name!r}")
        names.append(name)
    return names


def _tool_choice(value: Any, field: str, names: Sequence[str]) -> None:
    if isinstance(value, str):
        check.one_of(value, field, _TOOL_CHOICES)
        return
    choice = check.obj(value, field)
    check.one_of(check.required(choice, "type", field), check.at(field, "type"), ("function",))
    function = check.obj(check.required(choice, "function", field), check.at(field, "function"))
    name = check.string(check.required(function, "name", check.at(field, "function")),
                        check.at(field, "function.name"), empty=False)
    if name not in names:
        raise RequestError(check.at(field, "function.name"), f"no tool named {name!r} in tools")


def _stream_options(value: Any, field: str) -> None:
    check.optional(check.obj(value, field), "include_usage", field, check.boolean)


# --- the format of a model ------------------------------------------------------------------------

_OWN_FORMAT = "xml"
"""This project's own prompt format: for a model whose format is not known."""


def checked_function_tool(function: dict[str, Any], schema_field: str) -> dict[str, Any]:
    """``function`` (name, parameters, description...) as a Chat Completions tool, its schema
    checked by `Tool` as every other tool is: a schema it refuses is a `RequestError` at
    `schema_field` (the inbound APIs translate their own tool shapes into this one)."""
    converted = {"type": "function", "function": function}
    try:
        from_openai(converted)
    except ValueError as error:  # ToolDefinitionError: a schema Tool refuses
        raise RequestError(schema_field, str(error).removeprefix("tool #0: ")) from None
    return converted


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
    configured = configured_format(model, model_formats or {})
    if configured is not None:
        return get_format(configured)
    if format != "auto":
        return get_format(format)
    try:
        return get_format(model)
    except UnknownFormatError:
        return get_format(_OWN_FORMAT)


def configured_format(model: str, model_formats: Mapping[str, str]) -> str | None:
    """The format name `model_formats` gives `model`, or None: an exact key first, then the
    first glob that matches, case-insensitively, the whole id or its last ``/`` part (the one
    rule for ``--model-format``, for the format and for the mode)."""
    if model in model_formats:
        return model_formats[model]
    lowered = model.strip().lower()
    names = (lowered, lowered.rsplit("/", 1)[-1])
    for pattern, name in model_formats.items():
        if any(fnmatch.fnmatchcase(candidate, pattern.lower()) for candidate in names):
            return name
    return None
