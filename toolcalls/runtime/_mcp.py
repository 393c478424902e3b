"""MCP servers as tools: connect over stdio or streamable HTTP, import their tools, run calls.

Needs the extra: ``pip install 'toolcalls[mcp]'`` (the official ``mcp`` SDK)::

    async with McpServer.stdio("time", sys.executable, ["-m", "mcp_server_time"]) as time:
        registry = ToolRegistry()
        await time.install(registry)          # time__get_current_time, time__convert_time
        batch = await Executor(registry).run(calls)

A tool keeps the server's input schema exactly (the executor checks arguments against it).
A call forwards the context's cancel token (the SDK tells the server with
``notifications/cancelled``) and its progress notifications (``ToolContext.on_progress``);
the executor's timeout stops it the same way. What the server answers becomes a `ToolResult`
(`toolcalls.runtime._mcp_content`). A server that dies or a transport that fails mid-call
gives the model a `Failed` result, never an exception, and the next call connects again.
When the server says its tool list changed, every registry the server was added to is
re-synced (`sync`): new tools are added, vanished or changed ones removed or replaced.

Connections speak the initialize handshake (``mode="legacy"`` in SDK 2.x), which every
server of the 2024-2025 protocol revisions answers and which carries unsolicited
``notifications/tools/list_changed``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..tools._tool import Tool
from ._context import ToolContext
from ._mcp_content import call_result
from ._mcp_errors import McpConnectError, McpSetupError
from ._registry import ToolRegistry
from ._results import Cancelled, Failed, ToolResult
from ._tool import RuntimeTool

try:
    import anyio
    import httpx2
    from mcp import Client, StdioServerParameters, types
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.dispatcher import ProgressFnT
    from mcp.shared.exceptions import MCPError
except ModuleNotFoundError as missing:  # the extra is not installed
    raise McpSetupError(f"MCP servers need the mcp SDK ({missing.name} is missing): "
                        "pip install 'toolcalls[mcp]'", name=missing.name) from None

__all__ = ["McpServer"]

_log = logging.getLogger("toolcalls.runtime.mcp")
_CONNECTION_CLOSED = -32000  # the SDK's code for a connection that went away
_TRANSPORT_ERRORS = (OSError, httpx2.TransportError, anyio.ClosedResourceError,
                     anyio.BrokenResourceError, anyio.EndOfStream)
"""Failures of the connection itself: the call fails and the next one connects again."""
_MAX_EVENT = 64 * 1024 * 1024  # bytes of one streamed HTTP message: a big result is still one


@dataclass
class McpServer:
    """One MCP server: where it is, and the live connection to it while one is open."""

    name: str
    """The server's name in a registry: its tools are registered as ``name__tool``."""
    command: str | None = None
    """The program that runs a stdio server."""
    args: Sequence[str] = ()
    env: Mapping[str, str] | None = None
    """The stdio server's environment (None: the SDK's safe default set of variables)."""
    cwd: str | Path | None = None
    url: str | None = None
    """The endpoint of a streamable HTTP server (``http://127.0.0.1:8000/mcp``)."""
    headers: Mapping[str, str] = field(default_factory=dict)
    """HTTP headers sent with every request (authorization): configuration, never the model."""
    connect_timeout: float = 30.0
    """Seconds to start or reach the server and finish the handshake."""
    on_tools_changed: Callable[[list[RuntimeTool]], None] | None = None
    """Called with the new tool list after the server said it changed (and registries synced)."""
    _client: Client | None = field(default=None, init=False, repr=False)
    _stop: asyncio.Event | None = field(default=None, init=False, repr=False)
    _runner: asyncio.Task[None] | None = field(default=None, init=False, repr=False)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock, init=False, repr=False)
    _registries: list[ToolRegistry] = field(default_factory=list, init=False, repr=False)
    _background: set[asyncio.Task[Any]] = field(default_factory=set, init=False, repr=False)

    def __post_init__(self) -> None:
        if (self.command is None) == (self.url is None):
            raise ValueError(f"MCP server {self.name!r}: give either command= (stdio) or url= "
                             "(streamable HTTP), not both or neither")

    @classmethod
    def stdio(cls, name: str, command: str, args: Sequence[str] = (), **options: Any) -> McpServer:
        """A server run as a subprocess that speaks MCP on its stdin and stdout."""
        return cls(name, command=command, args=tuple(args), **options)

    @classmethod
    def http(cls, name: str, url: str, **options: Any) -> McpServer:
        """A server reached over streamable HTTP at ``url``."""
        return cls(name, url=url, **options)

    # -- lifetime ------------------------------------------------------------------------------

    async def __aenter__(self) -> McpServer:
        await self.connect()
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()

    @property
    def connected(self) -> bool:
        """Whether a connection is open now (calls open one when it is not)."""
        return self._client is not None

    async def connect(self) -> None:
        """Start (or reach) the server and finish the handshake; nothing when connected.
        Raises `McpConnectError` when it fails."""
        async with self._lock:
            if self._client is not None:
                return
            ready: asyncio.Future[Client] = asyncio.get_running_loop().create_future()
            self._stop = asyncio.Event()
            # the SDK's task groups must be left in the task that entered them: one task holds
            # the connection for its whole life, and calls from any task use it
            self._runner = asyncio.create_task(self._hold(ready, self._stop))
            try:
                self._client = await asyncio.wait_for(asyncio.shield(ready), self.connect_timeout)
            except BaseException as error:
                await self._end()
                if isinstance(error, McpConnectError | asyncio.CancelledError):
                    raise
                raise McpConnectError(f"MCP server {self.name!r} did not answer within "
                                      f"{self.connect_timeout:g} s ({self._where()})") from None

    async def close(self) -> None:
        """Close the connection (a stdio server is stopped); the next call connects again."""
        async with self._lock:
            await self._end()
        for task in list(self._background):
            task.cancel()

    async def _hold(self, ready: asyncio.Future[Client], stop: asyncio.Event) -> None:
        held: Client | None = None
        try:
            async with Client(self._target(), mode="legacy", cache=None,
                              message_handler=self._on_message) as held:
                ready.set_result(held)
                await stop.wait()
        except Exception as error:  # noqa: BLE001 - told to whoever waits, or logged
            self._failed(ready, error)
        finally:
            if held is not None and self._client is held:
                self._client = None  # the server went away: the next call connects again

    def _failed(self, ready: asyncio.Future[Client], error: Exception) -> None:
        if not ready.done():
            ready.set_exception(McpConnectError(
                f"cannot connect to MCP server {self.name!r} ({self._where()}): "
                f"{_describe(error)}"))
        else:
            _log.debug("MCP server %r: the connection ended: %s", self.name, error)

    async def _end(self) -> None:
        runner, self._runner, self._client = self._runner, None, None
        if self._stop is not None:
            self._stop.set()
        if runner is not None:
            with contextlib.suppress(Exception):  # it ended badly: already logged
                await asyncio.wait_for(runner, self.connect_timeout)

    def _target(self) -> str | StdioServerParameters | Any:
        if self.command is not None:
            return StdioServerParameters(command=self.command, args=list(self.args),
                                         env=dict(self.env) if self.env is not None else None,
                                         cwd=self.cwd)
        assert self.url is not None
        client = httpx2.AsyncClient(headers=dict(self.headers),
                                    timeout=httpx2.Timeout(30.0, read=300.0))
        return _HttpTransport(self.url, client)

    def _where(self) -> str:
        if self.command is not None:
            return " ".join([self.command, *self.args])
        return str(self.url)

    # -- tools ---------------------------------------------------------------------------------

    async def tools(self) -> list[RuntimeTool]:
        """The server's tools, as `RuntimeTool`s whose bodies call the server."""
        client = await self._connected()
        listed: list[types.Tool] = []
        cursor: str | None = None
        while True:
            page = await client.list_tools(cursor=cursor)
            listed += page.tools
            cursor = page.next_cursor
            if not cursor:
                return [self._runtime_tool(tool) for tool in listed]

    async def install(self, registry: ToolRegistry) -> list[RuntimeTool]:
        """Register the server's tools in ``registry`` (origin ``mcp``, server `name`); the
        registry is re-synced when the server says its tool list changed."""
        added = registry.add_all(await self.tools(), origin="mcp", server=self.name)
        if not any(known is registry for known in self._registries):
            self._registries.append(registry)
        return added

    async def sync(self, registry: ToolRegistry,
                   tools: Sequence[RuntimeTool] | None = None) -> tuple[list[str], list[str]]:
        """Make ``registry`` hold this server's current tools: adds new ones, removes vanished
        ones, replaces changed ones. Returns (names added, names removed)."""
        current = {tool.name: tool for tool in (tools if tools is not None else await self.tools())}
        removed: list[str] = []
        for registered in [tool for tool in registry if tool.server == self.name]:
            fresh = current.get(registry.plain_name(registered.name))
            if fresh is not None and _same(fresh.definition, registered.definition):
                del current[fresh.name]
                continue
            registry.remove(registered.name)
            removed.append(registered.name)
        added = registry.add_all(current.values(), origin="mcp", server=self.name)
        return [tool.name for tool in added], removed

    def _runtime_tool(self, tool: types.Tool) -> RuntimeTool:
        hints = tool.annotations
        definition = Tool(name=tool.name, description=tool.description or tool.title or "",
                          parameters=dict(tool.input_schema),
                          result_schema=dict(tool.output_schema) if tool.output_schema else None,
                          is_dangerous=bool(hints is not None and hints.destructive_hint))
        return RuntimeTool(definition, _McpBody(self, tool.name), origin="mcp", server=self.name)

    # -- calls ---------------------------------------------------------------------------------

    async def call(self, tool: str, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Call the server's ``tool``: its result, or an error result when the server fails."""
        try:
            client = await self._connected()
        except McpConnectError as error:
            return ToolResult.failure(Failed(str(error)))
        call = asyncio.ensure_future(client.call_tool(
            tool, arguments, progress_callback=_progress_to(ctx)))
        loop = asyncio.get_running_loop()

        def stop(_: str) -> None:
            loop.call_soon_threadsafe(call.cancel)

        forget = ctx.cancel.on_cancel(stop)
        try:
            return call_result(await call)
        except asyncio.CancelledError:
            if not ctx.cancel.cancelled or not call.cancelled():
                raise  # the caller itself is cancelled (the executor's timeout or stop)
            raise Cancelled(ctx.cancel.reason or "cancelled") from None
        except _TRANSPORT_ERRORS as error:
            return await self._lost(client, error)
        except MCPError as error:
            if error.code == _CONNECTION_CLOSED:
                return await self._lost(client, error)
            return ToolResult.failure(Failed(f"the MCP server refused the call: {error}"))
        except Exception as error:  # noqa: BLE001 - an answer the SDK could not use (schema)
            return ToolResult.failure(Failed(f"the MCP server's answer is unusable: "
                                             f"{_describe(error)}"))
        finally:
            forget()
            if not call.done():
                call.cancel()

    async def _connected(self) -> Client:
        if self._client is None:
            await self.connect()
        client = self._client
        if client is None:  # it went away again between the handshake and now
            raise McpConnectError(f"MCP server {self.name!r} closed the connection as soon as "
                                  f"it was made ({self._where()})")
        return client

    async def _lost(self, client: Client, error: BaseException) -> ToolResult:
        async with self._lock:
            if self._client is client:  # not yet replaced by another call's reconnect
                await self._end()
        return ToolResult.failure(Failed(
            f"the connection to the MCP server {self.name!r} was lost ({_describe(error)}); "
            "it will be reconnected on the next call"))

    # -- notifications -------------------------------------------------------------------------

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            # not awaited here: this runs on the connection's reading task, which must keep
            # reading to receive the tools/list answer
            task = asyncio.get_running_loop().create_task(self._tools_changed())
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    async def _tools_changed(self) -> None:
        try:
            tools = await self.tools()
            for registry in self._registries:
                await self.sync(registry, tools)
        except Exception as error:  # noqa: BLE001 - the next list_changed or call tries again
            _log.warning("MCP server %r: cannot refresh its tools: %s", self.name, error)
            return
        if self.on_tools_changed is not None:
            try:
                self.on_tools_changed(tools)
            except Exception:  # noqa: BLE001 - the program's callback: logged, not lost
                _log.exception("MCP server %r: on_tools_changed failed", self.name)


@dataclass(frozen=True)
class _McpBody:
    """A tool body that forwards the call to its server."""

    server: McpServer
    tool: str

    async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return await self.server.call(self.tool, arguments, ctx)


class _HttpTransport:
    """The SDK's streamable HTTP transport, with our HTTP client (headers) and event size."""

    def __init__(self, url: str, client: httpx2.AsyncClient) -> None:
        self._url, self._client = url, client
        self._stack = contextlib.AsyncExitStack()

    async def __aenter__(self) -> Any:
        await self._stack.enter_async_context(self._client)
        return await self._stack.enter_async_context(
            streamable_http_client(self._url, http_client=self._client,
                                   max_sse_event_size=_MAX_EVENT))

    async def __aexit__(self, *exc: Any) -> bool | None:
        return await self._stack.__aexit__(*exc)


def _progress_to(ctx: ToolContext) -> ProgressFnT:
    async def report(progress: float, total: float | None, message: str | None) -> None:
        ctx.on_progress(progress, total, message)

    return report


def _same(one: Tool, other: Tool) -> bool:
    return (one.description, one.parameters) == (other.description, other.parameters)


def _describe(error: BaseException) -> str:
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
