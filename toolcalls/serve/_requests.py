"""What clients send the proxy, checked: OpenAI Chat Completions requests, and the format of
a model. Anthropic Messages and OpenAI Responses requests are checked and translated in
`_anthropic_request` and `_responses_request`, prompt mode's rewriting is `_prompt`.

* `validate_chat_request`: an OpenAI Chat Completions body checked for what the proxy relies
  on; a wrong field is a `RequestError` naming it (``messages[2].content: expected ...``),
  a `ProxyError` the app answers with 400 in the API's own error shape. The checks of JSON
  values here (``_object``, ``_string``...) serve `_anthropic_request` too.
* `format_for`: the format the proxy renders and parses with, for a model id.

Everything here is a pure function of JSON-decoded values: no HTTP, no starlette.
"""

from __future__ import annotations

import fnmatch
import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._errors import UnknownFormatError
from ..parsing._registry import get_format
from ..tools._importers import from_openai
from ._errors import ProxyError

if TYPE_CHECKING:
    from ..parsing.formats._base import Format

__all__ = ["MAX_DEPTH", "RequestError", "check_strict_json", "checked_function_tool",
           "configured_format", "format_for", "validate_chat_request"]


class RequestError(ProxyError, ValueError):
    """A request the proxy cannot take (400): `field` is where (``messages[2].content``),
    `message` what is wrong; ``str()`` reads ``"messages[2].content: expected a string or
    ..."``."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(400, f"{field}: {message}" if field else message,
                         param=field or None)
        self.field = field
        self.message = message

    @property
    def said(self) -> str:
        return str(self) if self.field else f"the request body: {self}"


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
    except RecursionError:
        raise RequestError(field, f"JSON nested more than {MAX_DEPTH} deep") from None
    except ValueError as error:
        raise RequestError(field, f"expected a JSON object in a string: {error}") from None
    if not isinstance(value, dict):
        raise RequestError(field, f"expected a JSON object in a string, got {_kind(value)}")
    check_strict_json(value, field)
    return value


MAX_DEPTH = 128
"""How deep a request's JSON may nest (objects and arrays): tool schemas nest a few levels,
and the code that reads them (schemas, prompts) recurses."""


def check_strict_json(value: Any, field: str = "") -> None:
    """`value` (JSON as Python decodes it) is strict JSON: no NaN or Infinity (nor a number too
    large for a float, which decodes as infinity), no lone surrogate in a string or key, nested
    at most `MAX_DEPTH` deep. Python's json reads all of these; the proxy could not write them
    on as JSON, nor as UTF-8. Raises `RequestError` naming the first field that is not."""
    stack: list[tuple[Any, str, int]] = [(value, field, 0)]
    while stack:
        node, at, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise RequestError(at, f"JSON nested more than {MAX_DEPTH} deep")
        if isinstance(node, dict):
            items: Any = node.items()
        elif isinstance(node, list):
            items = enumerate(node)
        else:
            _check_scalar(node, at)
            continue
        for key, item in items:
            if isinstance(key, str) and not _utf8(key):
                raise RequestError(at, f"the key {key!r} holds a lone surrogate (not UTF-8)")
            if isinstance(item, dict | list):
                stack.append((item, _at(at, key), depth + 1))
            else:
                _check_scalar(item, at, key)


def _check_scalar(value: Any, at: str, key: str | int | None = None) -> None:
    if isinstance(value, str):
        if not _utf8(value):
            raise RequestError(at if key is None else _at(at, key),
                               "holds a lone surrogate: not text UTF-8 can carry")
    elif isinstance(value, float) and not math.isfinite(value):
        said = "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"
        raise RequestError(at if key is None else _at(at, key),
                           f"{said} is not a JSON number (nor is one too large for a float)")


def _utf8(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


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
        # an opaque string, as OpenAI takes it: a call cut off (``{``) comes back as it went
        _string(_required(function, "arguments", at), _at(at, "arguments"))


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
