"""Tools the model creates: ``tool_create`` and ``tool_update``, with bodies that are templates.

A model may define a tool for itself (a search it repeats, an endpoint it calls often). It gives
a name, a description, a JSON Schema of the arguments and a body, and the body is never code:

- a **command template**, an argv list such as ``["grep", "-rn", "{pattern}", "{path}"]``: each
  ``{name}`` is replaced by that argument, always inside one argv element, and the program runs
  without a shell, so an argument cannot start a second command. The program (``argv[0]``) must
  be in the configured ``programs`` allow-list (empty by default: no command tools);
- an **HTTP template**: a method, a URL with ``{name}`` placeholders (percent-encoded into the
  URL), and an optional JSON body template. The URL, once filled, must start with one of the
  configured ``urls`` prefixes (empty by default: no HTTP tools); headers come from
  configuration (credentials among them), never from the model.

`DynamicTools` gives the two meta-tools as `RuntimeTool`s. They validate the definition
(name rules, a JSON Schema object, placeholders that name declared arguments, the allow-lists)
and answer a mistake with `InvalidArgs`, which the model can correct; a valid one is registered
with origin ``dynamic``. Created tools are ``is_dangerous`` by default, so their calls ask
first, and every permission rule applies to them as to any tool.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._errors import ToolDefinitionError
from ..tools._tool import Tool
from ._context import ToolContext
from ._registry import ToolRegistry
from ._results import Failed, InvalidArgs, Json, Text, ToolResult
from ._tool import RuntimeTool

__all__ = ["DynamicTools", "HttpTemplate", "ProgramTemplate", "url_allowed"]

_NAME = re.compile(r"^[a-zA-Z][a-zA-Z0-9_-]{0,63}$")
_OUTPUT_CAP = 100_000  # bytes of a command's output or an HTTP body kept for the result


_FIELD = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _placeholders(template: str) -> list[str]:
    """The names of ``template``'s ``{name}`` fields (``{{`` and ``}}`` are literal braces).

    Only plain names: no attribute access, index, conversion or format spec, which
    `str.format` would run on the values."""
    names = [match.group(1) for match in _FIELD.finditer(template) if match.group(1) is not None]
    bad = [name for name in names if not _IDENTIFIER.match(name)]
    if bad:
        raise ValueError(f"placeholders must be plain argument names, not {bad}")
    return names


def _fill(template: str, arguments: Mapping[str, Any], quote: Callable[[str], str]) -> str:
    def field(match: re.Match[str]) -> str:
        if match.group(1) is None:
            return match.group(0)[0]
        return quote(_as_text(arguments.get(match.group(1), "")))

    return _FIELD.sub(field, template)


def url_allowed(url: str, prefixes: Iterable[str]) -> bool:
    """Whether ``url`` lies under one of ``prefixes``: the same scheme, host and port, no user
    name or password, and a path under the prefix's path (whole segments, none of them ``.``
    or ``..``, even percent-encoded)."""
    target = urllib.parse.urlsplit(url)
    if target.username is not None or target.password is not None or not target.hostname:
        return False
    for prefix in prefixes:
        allowed = urllib.parse.urlsplit(prefix)
        if (target.scheme, target.hostname, target.port) != (
                allowed.scheme, allowed.hostname, allowed.port):
            continue
        base = allowed.path.rstrip("/") + "/"
        segments = [urllib.parse.unquote(part) for part in target.path.split("/")]
        if (target.path.rstrip("/") + "/").startswith(base) and not {".", ".."} & set(segments):
            return True
    return False


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class ProgramTemplate:
    """A program and its arguments, ``{name}`` placeholders filled per call, run without a
    shell."""

    argv: tuple[str, ...]
    working_dir: Path | None = None
    timeout: float = 60.0

    async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        argv = [_fill(part, arguments, str) for part in self.argv]
        process = await asyncio.create_subprocess_exec(
            *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
            cwd=self.working_dir or ctx.working_dir)
        def kill(_: str) -> None:
            with contextlib.suppress(ProcessLookupError):  # it may have ended already
                process.kill()

        stop = ctx.cancel.on_cancel(kill)
        try:
            output, _ = await asyncio.wait_for(process.communicate(), self.timeout)
        except BaseException:  # a timeout, or the call cancelled: no process left behind
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(process.wait()), 5)
            raise
        finally:
            stop()
        text = output[:_OUTPUT_CAP].decode("utf-8", "replace")
        if process.returncode:
            raise Failed(f"exit status {process.returncode}: {text.strip()[-2000:]}")
        return ToolResult((Text(text),), details={"argv": argv, "exit_status": 0})


@dataclass(frozen=True)
class HttpTemplate:
    """An HTTP request, ``{name}`` placeholders filled per call (percent-encoded in the URL)."""

    method: str
    url: str
    allowed: tuple[str, ...]
    """URL prefixes a filled URL must start with."""
    headers: Mapping[str, str] = field(default_factory=dict)
    """From configuration (credentials included), never from the model."""
    body: str | None = None
    """A JSON body template: placeholders are replaced by the arguments as JSON values."""
    timeout: float = 30.0

    def filled_url(self, arguments: Mapping[str, Any]) -> str:
        url = _fill(self.url, arguments, lambda text: urllib.parse.quote(text, safe=""))
        if not url_allowed(url, self.allowed):
            raise InvalidArgs("http", [f"the URL {url!r} is outside the allowed prefixes"])
        return url

    async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        url = self.filled_url(arguments)
        data = None
        if self.body is not None:
            data = _fill(self.body, arguments, lambda text: json.dumps(text)[1:-1]).encode()
        request = urllib.request.Request(url, data=data, method=self.method,
                                         headers={"Content-Type": "application/json",
                                                  **self.headers})
        status, payload = await asyncio.to_thread(self._send, request)
        text = payload[:_OUTPUT_CAP].decode("utf-8", "replace")
        if status >= 400:
            raise Failed(f"HTTP {status}: {text[:2000]}")
        try:
            return ToolResult((Json(json.loads(text)),), details={"status": status, "url": url})
        except ValueError:
            return ToolResult((Text(text),), details={"status": status, "url": url})

    def _send(self, request: urllib.request.Request) -> tuple[int, bytes]:
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310
                return int(response.status), response.read(_OUTPUT_CAP + 1)
        except urllib.error.HTTPError as error:
            return int(error.code), error.read(_OUTPUT_CAP + 1)


_BODY_SCHEMA = {
    "type": "object",
    "properties": {
        "command": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                    "description": "argv: program, then arguments; {name} fills an argument"},
        "http": {"type": "object", "properties": {
            "method": {"type": "string", "enum": ["GET", "POST", "PUT", "PATCH", "DELETE"]},
            "url": {"type": "string"},
            "body": {"type": "string", "description": "JSON text with {name} placeholders"}},
            "required": ["method", "url"]},
    },
}
_CREATE_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "Letters, digits, _ and -; a letter first"},
        "description": {"type": "string"},
        "parameters": {"type": "object", "description": "JSON Schema of the arguments"},
        "body": _BODY_SCHEMA,
    },
    "required": ["name", "description", "parameters", "body"],
}
_UPDATE_SCHEMA = {**_CREATE_SCHEMA, "required": ["name"]}


@dataclass
class DynamicTools:
    """The ``tool_create`` and ``tool_update`` meta-tools, registering into `register`."""

    registry: ToolRegistry
    """Where created tools go (and the meta-tools, by `install`)."""
    programs: Sequence[str] = ()
    """Programs a command template may run (``argv[0]``); none by default."""
    urls: Sequence[str] = ()
    """URL prefixes an HTTP template may reach; none by default."""
    headers: Mapping[str, str] = field(default_factory=dict)
    """Headers added to every HTTP template's request (credentials): configuration only."""
    dangerous: bool = True
    """Created tools ask before each call by default."""

    def install(self) -> list[RuntimeTool]:
        """Add the two meta-tools to the registry; returns them as registered."""
        return self.registry.add_all(self.tools())

    def tools(self) -> list[RuntimeTool]:
        """The two meta-tools."""
        create = Tool(name="tool_create", parameters=_CREATE_SCHEMA, is_dangerous=True,
                      description="Create a tool from a command or HTTP template.")
        update = Tool(name="tool_update", parameters=_UPDATE_SCHEMA, is_dangerous=True,
                      description="Change a tool made with tool_create.")
        return [RuntimeTool(create, _Meta(self.create)), RuntimeTool(update, _Meta(self.update))]

    def create(self, arguments: Mapping[str, Any]) -> str:
        name = str(arguments.get("name", ""))
        if self.registry.find(name) is not None:
            raise InvalidArgs("tool_create", [f"a tool named {name!r} exists: pick another "
                                              "name, or change yours with tool_update"])
        self.registry.add(self._built("tool_create", arguments), origin="dynamic")
        return f"Created the tool {name!r}: call it like any other tool."

    def update(self, arguments: Mapping[str, Any]) -> str:
        name = str(arguments.get("name", ""))
        existing = self.registry.find(name)
        if existing is None or existing.origin != "dynamic" or existing.name != name:
            raise InvalidArgs("tool_update", [f"{name!r} is not a tool made with tool_create"])
        old = existing.body
        merged = {"description": existing.definition.description,
                  "parameters": existing.definition.parameters,
                  "body": old.spec if isinstance(old, _Templated) else {}, **arguments}
        built = self._built("tool_update", merged)
        self.registry.remove(name)
        self.registry.add(built, origin="dynamic")
        return f"Updated the tool {name!r}."

    def _built(self, meta: str, arguments: Mapping[str, Any]) -> RuntimeTool:
        name = str(arguments.get("name", ""))
        if not _NAME.match(name):
            raise InvalidArgs(meta, [f"name {name!r}: use letters, digits, _ and - (a letter "
                                     "first, at most 64)"])
        try:
            definition = Tool(name=name, description=str(arguments.get("description", "")),
                              parameters=arguments.get("parameters", {}),
                              is_dangerous=self.dangerous, source="dynamic")
        except ToolDefinitionError as error:
            raise InvalidArgs(meta, [str(error)]) from None
        body = self._body(meta, arguments.get("body"), definition)
        return RuntimeTool(definition, body, origin="dynamic")

    def _body(self, meta: str, spec: Any, definition: Tool) -> _Templated:
        declared = set(definition.parameters.get("properties", {}))
        if isinstance(spec, Mapping) and isinstance(spec.get("command"), list):
            argv = tuple(str(part) for part in spec["command"])
            if not argv or argv[0] not in self.programs:
                allowed = ", ".join(self.programs) or "none are configured"
                raise InvalidArgs(meta, [f"command {argv[:1]}: the programs allowed are: "
                                         f"{allowed}"])
            _check_placeholders(meta, argv, declared)
            return _Templated(dict(spec), ProgramTemplate(argv))
        if isinstance(spec, Mapping) and isinstance(spec.get("http"), Mapping):
            http = spec["http"]
            template = HttpTemplate(str(http.get("method", "GET")).upper(),
                                    str(http.get("url", "")), tuple(self.urls), self.headers,
                                    http.get("body"))
            _check_placeholders(meta, [template.url, template.body or ""], declared)
            if not url_allowed(_fill(template.url, {}, str), self.urls):
                allowed = ", ".join(self.urls) or "none are configured"
                raise InvalidArgs(meta, [f"url {template.url!r}: the URLs allowed start with: "
                                         f"{allowed}"])
            return _Templated(dict(spec), template)
        raise InvalidArgs(meta, ["body: give {\"command\": [program, args...]} or "
                                 "{\"http\": {\"method\", \"url\"}}"])


def _check_placeholders(meta: str, parts: Iterable[str], declared: set[str]) -> None:
    try:
        named = {name for part in parts for name in _placeholders(part)}
    except ValueError as error:
        raise InvalidArgs(meta, [f"body: a template is malformed ({error}); write {{{{ and }}}} "
                                 "for literal braces"]) from None
    unknown = sorted(name for name in named if name not in declared)
    if unknown:
        raise InvalidArgs(meta, [f"body: placeholders {unknown} are not declared in "
                                 "parameters.properties"])


@dataclass(frozen=True)
class _Templated:
    """A created tool's body, keeping the definition it was made from (for tool_update)."""

    spec: dict[str, Any]
    template: ProgramTemplate | HttpTemplate

    async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return await self.template.execute(arguments, ctx)


@dataclass(frozen=True)
class _Meta:
    run: Callable[[Mapping[str, Any]], str]

    def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> str:
        return self.run(arguments)
