"""MCP servers as tools: real servers on this machine, over stdio and streamable HTTP.

The test server (`tests/runtime/mcp_server.py`, written with the SDK) runs as a subprocess;
`mcp-server-time` is the published reference server, installed from PyPI.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp import types  # noqa: E402

from toolcalls import ToolCall  # noqa: E402
from toolcalls.runtime import (  # noqa: E402
    CancelToken,
    Executor,
    Failed,
    Json,
    McpConnectError,
    McpServer,
    Text,
    TimedOut,
    ToolContext,
    ToolImage,
    ToolRegistry,
    ToolResult,
)
from toolcalls.runtime._mcp_content import call_result  # noqa: E402

SERVER = Path(__file__).with_name("mcp_server.py")
WAIT = 30.0  # seconds any wait may take on a loaded machine


def stdio_server(**options: Any) -> McpServer:
    return McpServer.stdio("test", sys.executable, [str(SERVER)], **options)


def run(body: Callable[[], Awaitable[Any]]) -> Any:
    return asyncio.run(asyncio.wait_for(body(), 4 * WAIT))


def call(name: str, arguments: dict[str, Any] | None = None, id: str = "c1") -> ToolCall:
    return ToolCall(id=id, name=name, arguments=arguments or {}, source="native")


async def one(executor: Executor, name: str, arguments: dict[str, Any] | None = None,
              cancel: CancelToken | None = None) -> ToolResult:
    batch = await executor.run([call(name, arguments)], cancel=cancel)
    return batch.results[0]


async def executor_for(server: McpServer, **options: Any) -> Executor:
    registry = ToolRegistry()
    await server.install(registry)
    return Executor(registry, **options)


# -- the server over streamable HTTP ---------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_for_port(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the MCP test server exited with {process.returncode}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise TimeoutError(f"the MCP test server did not listen on {port} within {WAIT} s")


def _start_http(port: int) -> subprocess.Popen[bytes]:
    process = subprocess.Popen([sys.executable, str(SERVER), "--http", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for_port(port, process)
    except BaseException:
        _stop(process)
        raise
    return process


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(WAIT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(WAIT)


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    port = _free_port()
    process = _start_http(port)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        _stop(process)


# -- listing and importing -------------------------------------------------------------------

def test_tools_keep_the_server_input_schema_exactly() -> None:
    async def body() -> Any:
        async with stdio_server() as server:
            return {tool.name: tool for tool in await server.tools()}

    tools = run(body)
    assert {"add", "fail", "hang", "progress", "image", "big", "structured"} <= set(tools)
    add = tools["add"]
    assert add.definition.parameters == {
        "properties": {"a": {"title": "A", "type": "integer"},
                       "b": {"title": "B", "type": "integer"}},
        "required": ["a", "b"], "title": "addArguments", "type": "object"}
    assert add.definition.description == "Add two integers."
    assert (add.origin, add.server) == ("mcp", "test")


def test_install_namespaces_tools_with_the_server_name() -> None:
    async def body() -> ToolRegistry:
        registry = ToolRegistry()
        async with stdio_server() as server:
            await server.install(registry)
        return registry

    registry = run(body)
    assert "test__add" in registry.names()
    assert {tool.origin for tool in registry} == {"mcp"}
    assert {tool.server for tool in registry} == {"test"}
    assert registry.without_source("test").names() == []


# -- calls through the executor, over stdio and HTTP -------------------------------------------

@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_call_returns_the_server_result(transport: str, request: pytest.FixtureRequest) -> None:
    server = (stdio_server() if transport == "stdio"
              else McpServer.http("test", request.getfixturevalue("http_url")))

    async def body() -> ToolResult:
        async with server:
            return await one(await executor_for(server), "test__add", {"a": 2, "b": 40})

    result = run(body)
    assert not result.is_error
    assert result.text() == "42"


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_raising_tool_is_failed_error_result_with_server_text(
        transport: str, request: pytest.FixtureRequest) -> None:
    server = (stdio_server() if transport == "stdio"
              else McpServer.http("test", request.getfixturevalue("http_url")))

    async def body() -> ToolResult:
        async with server:
            return await one(await executor_for(server), "test__fail", {"reason": "no disk"})

    result = run(body)
    assert result.is_error
    assert isinstance(result.error, Failed)
    assert "no disk" in result.text()
    assert "test__fail" in result.text()


def test_configured_http_headers_reach_the_server(http_url: str) -> None:
    server = McpServer.http("test", http_url, headers={"Authorization": "Bearer s3cret"})

    async def body() -> ToolResult:
        async with server:
            return await one(await executor_for(server), "test__authorization")

    assert run(body).text() == "Bearer s3cret"


def test_invalid_arguments_are_checked_against_the_server_schema() -> None:
    async def body() -> ToolResult:
        async with stdio_server() as server:
            return await one(await executor_for(server), "test__add", {"a": "two"})

    result = run(body)
    assert result.is_error
    assert result.error is not None and result.error.kind == "invalid_arguments"


def test_hang_times_out_and_the_connection_survives() -> None:
    async def body() -> tuple[ToolResult, ToolResult]:
        async with stdio_server() as server:
            executor = await executor_for(server)
            executor.registry = ToolRegistry([
                tool if tool.name != "test__hang" else _with_timeout(tool, 0.5)
                for tool in executor.registry])  # type: ignore[union-attr]
            hung = await one(executor, "test__hang")
            return hung, await one(executor, "test__add", {"a": 1, "b": 1})

    hung, after = run(body)
    assert isinstance(hung.error, TimedOut)
    assert after.text() == "2"


def _with_timeout(tool: Any, seconds: float) -> Any:
    return replace(tool, timeout=seconds)


def _wait_for_file(path: Path) -> str:
    deadline = time.monotonic() + WAIT
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return path.read_text() if path.exists() else "never written"


def test_cancel_reaches_the_server_as_notifications_cancelled(tmp_path: Path) -> None:
    marker = tmp_path / "cancelled"

    async def body() -> ToolResult:
        async with stdio_server() as server:
            executor = await executor_for(server)
            token = CancelToken()
            running = asyncio.create_task(
                one(executor, "test__hang", {"marker": str(marker)}, cancel=token))
            await asyncio.sleep(1.0)  # the request reaches the server first
            token.cancel()
            result = await running
            # the server stops its handler when the notification arrives; keep it alive for it
            await asyncio.to_thread(_wait_for_file, marker)
            return result

    result = run(body)
    assert result.error is not None and result.error.kind == "cancelled"
    assert _wait_for_file(marker) == "cancelled"


def test_cancel_token_gives_cancelled_and_the_connection_survives() -> None:
    async def body() -> tuple[ToolResult, ToolResult]:
        async with stdio_server() as server:
            executor = await executor_for(server)
            token = CancelToken()
            running = asyncio.create_task(one(executor, "test__hang", cancel=token))
            await asyncio.sleep(0.5)  # let the request reach the server; not needed to pass
            token.cancel("the user pressed stop")
            cancelled = await running
            return cancelled, await one(executor, "test__add", {"a": 3, "b": 4})

    cancelled, after = run(body)
    assert cancelled.error is not None and cancelled.error.kind == "cancelled"
    assert "the user pressed stop" in cancelled.text()
    assert after.text() == "7"


def test_progress_notifications_reach_the_context() -> None:
    seen: list[tuple[str, float, float | None, str | None]] = []

    async def body() -> ToolResult:
        async with stdio_server() as server:
            executor = await executor_for(
                server, on_progress=lambda c, done, total, message: seen.append(
                    (c.id, done, total, message)))
            return await one(executor, "test__progress")

    result = run(body)
    assert result.text() == "done"
    assert seen == [("c1", 1.0, 3.0, "step 1"), ("c1", 2.0, 3.0, "step 2"),
                    ("c1", 3.0, 3.0, "step 3")]


def test_image_content_becomes_tool_image() -> None:
    async def body() -> ToolResult:
        async with stdio_server() as server:
            return await one(await executor_for(server), "test__image")

    result = run(body)
    images = [item for item in result.content if isinstance(item, ToolImage)]
    assert len(images) == 1
    assert images[0].media_type == "image/png"
    assert images[0].data.startswith("iVBORw0KGgo")


def test_structured_content_becomes_json_once() -> None:
    async def body() -> ToolResult:
        async with stdio_server() as server:
            return await one(await executor_for(server), "test__structured", {"city": "Oslo"})

    result = run(body)
    assert result.content == (Json({"city": "Oslo", "celsius": 21.5}),)
    assert result.value() == {"city": "Oslo", "celsius": 21.5}


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_one_megabyte_result_is_truncated_with_full_text_in_details(
        transport: str, request: pytest.FixtureRequest) -> None:
    server = (stdio_server() if transport == "stdio"
              else McpServer.http("test", request.getfixturevalue("http_url")))

    async def body() -> ToolResult:
        async with server:
            return await one(await executor_for(server, result_limit=5_000), "test__big")

    result = run(body)
    assert len(result.text()) <= 5_000
    assert result.text().startswith("xxxx")
    full = result.details["full_content"]
    assert full == (Text("x" * 1_000_000),)


def test_server_killed_mid_call_is_failed_then_a_reconnect_works() -> None:
    async def body() -> tuple[ToolResult, ToolResult, int, int]:
        async with stdio_server() as server:
            executor = await executor_for(server)
            first_pid = int((await one(executor, "test__pid")).text())
            hanging = asyncio.create_task(one(executor, "test__hang"))
            await asyncio.sleep(0.5)  # the call is in flight (or not yet: both fail the same)
            os.kill(first_pid, signal.SIGKILL)
            died = await hanging
            second_pid = int((await one(executor, "test__pid")).text())
            return died, await one(executor, "test__add", {"a": 5, "b": 5}), first_pid, second_pid

    died, after, first_pid, second_pid = run(body)
    assert died.is_error and isinstance(died.error, Failed)
    assert "connection" in died.text()
    assert second_pid != first_pid
    assert after.text() == "10"


def test_http_server_that_goes_away_is_failed_then_a_restarted_one_is_reached() -> None:
    port = _free_port()
    processes = [_start_http(port)]

    async def body() -> tuple[ToolResult, ToolResult, ToolResult]:
        async with McpServer.http("test", f"http://127.0.0.1:{port}/mcp") as server:
            executor = await executor_for(server, timeout=WAIT)
            before = await one(executor, "test__add", {"a": 1, "b": 2})
            await asyncio.to_thread(_stop, processes[0])
            gone = await one(executor, "test__add", {"a": 1, "b": 2})
            processes.append(await asyncio.to_thread(_start_http, port))
            return before, gone, await one(executor, "test__add", {"a": 2, "b": 2})

    try:
        before, gone, back = run(body)
    finally:
        for process in processes:
            _stop(process)
    assert before.text() == "3"
    assert gone.is_error and isinstance(gone.error, Failed)
    assert back.text() == "4"


def test_list_changed_notification_makes_the_new_tool_callable() -> None:
    async def body() -> tuple[ToolResult, ToolResult, list[str]]:
        changed = asyncio.Event()
        async with stdio_server(on_tools_changed=lambda tools: changed.set()) as server:
            executor = await executor_for(server)
            before = await one(executor, "test__extra", {"word": "hi"})
            await one(executor, "test__grow")
            await asyncio.wait_for(changed.wait(), WAIT)
            after = await one(executor, "test__extra", {"word": "hi"})
            return before, after, executor.registry.names()  # type: ignore[union-attr]

    before, after, names = run(body)
    assert before.error is not None and before.error.kind == "not_found"
    assert after.text() == "HI"
    assert names.count("test__extra") == 1


def test_sync_removes_vanished_tools_and_adds_new_ones() -> None:
    async def body() -> tuple[list[str], list[str], list[str]]:
        registry = ToolRegistry()
        async with stdio_server() as server:
            await server.install(registry)
            gone = [tool for tool in registry if tool.name == "test__add"][0]
            registry.remove("test__add")
            registry.add(_renamed(gone, "old_tool"), origin="mcp", server="test")
            added, removed = await server.sync(registry)
        return added, removed, registry.names()

    added, removed, names = run(body)
    assert added == ["test__add"]
    assert removed == ["test__old_tool"]
    assert "test__old_tool" not in names and "test__add" in names


def _renamed(tool: Any, name: str) -> Any:
    return replace(tool, definition=tool.definition.model_copy(update={"name": name}))


def test_server_that_fails_to_start_raises_connect_error() -> None:
    async def body() -> None:
        async with McpServer.stdio("broken", sys.executable, ["-c", "import sys; sys.exit(3)"]):
            pass

    with pytest.raises(McpConnectError, match="broken"):
        run(body)


def test_call_while_server_cannot_start_is_failed_result_not_exception() -> None:
    async def body() -> ToolResult:
        server = McpServer.stdio("broken", sys.executable, ["-c", "import sys; sys.exit(3)"],
                                 connect_timeout=WAIT)
        return await server.call("anything", {}, ToolContext("c1", "broken__anything"))

    result = run(body)
    assert result.is_error and isinstance(result.error, Failed)
    assert "broken" in result.text()


def test_server_needs_either_a_command_or_a_url() -> None:
    with pytest.raises(ValueError, match="either command"):
        McpServer("nothing")


# -- the published reference server ----------------------------------------------------------

def test_reference_time_server_lists_and_answers_get_current_time() -> None:
    async def body() -> tuple[list[str], ToolResult]:
        server = McpServer.stdio("time", sys.executable, ["-m", "mcp_server_time",
                                                          "--local-timezone", "UTC"])
        async with server:
            executor = await executor_for(server)
            names = executor.registry.names()  # type: ignore[union-attr]
            return names, await one(executor, "time__get_current_time",
                                    {"timezone": "Asia/Tokyo"})

    names, result = run(body)
    assert {"time__get_current_time", "time__convert_time"} <= set(names)
    assert not result.is_error
    answer = result.value()
    answer = json.loads(answer) if isinstance(answer, str) else answer
    assert answer["timezone"] == "Asia/Tokyo"
    assert "+09:00" in answer["datetime"]


# -- content mapping (what the SDK parsed, as the model reads it) ------------------------------

def test_embedded_resources_and_links_keep_their_uri() -> None:
    answer = types.CallToolResult(content=[
        types.EmbeddedResource(type="resource", resource=types.TextResourceContents(
            uri="file:///notes.txt", mime_type="text/plain", text="buy milk")),
        types.EmbeddedResource(type="resource", resource=types.BlobResourceContents(
            uri="file:///data.bin", mime_type="application/octet-stream", blob="AAAA")),
        types.ResourceLink(type="resource_link", uri="file:///big.csv", name="big.csv",
                           mime_type="text/csv"),
    ])
    text, blob, link = call_result(answer).content
    assert text == Text("Resource file:///notes.txt (text/plain):\nbuy milk")
    assert blob == Json({"resource": "file:///data.bin", "mime_type": "application/octet-stream",
                         "bytes": 3, "note": "binary content not shown"})
    assert link == Json({"resource_link": "file:///big.csv", "name": "big.csv",
                         "mime_type": "text/csv"})


def test_embedded_image_blob_becomes_tool_image_and_audio_is_left_out_with_a_note() -> None:
    answer = types.CallToolResult(content=[
        types.EmbeddedResource(type="resource", resource=types.BlobResourceContents(
            uri="file:///dot.png", mime_type="image/png", blob="iVBORw0KGgo=")),
        types.AudioContent(type="audio", data="AAAA", mime_type="audio/wav"),
    ])
    image, audio = call_result(answer).content
    assert image == ToolImage("iVBORw0KGgo=", "image/png")
    assert isinstance(audio, Text) and "audio/wav left out" in audio.text


def test_is_error_is_a_failed_result_with_the_server_text() -> None:
    result = call_result(types.CallToolResult(
        content=[types.TextContent(type="text", text="quota exceeded")], is_error=True))
    assert result.is_error and isinstance(result.error, Failed)
    assert result.error.message == "quota exceeded"


def test_structured_content_beside_other_text_goes_to_details() -> None:
    result = call_result(types.CallToolResult(
        content=[types.TextContent(type="text", text="3")], structured_content={"result": 3}))
    assert result.content == (Text("3"),)
    assert result.details == {"structured_content": {"result": 3}}


# -- the extra ---------------------------------------------------------------------------------

def test_importing_the_runtime_does_not_import_the_sdk() -> None:
    code = "import sys, toolcalls.runtime; print('mcp' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=WAIT)
    assert out.stdout.strip() == "False"


def test_without_the_sdk_mcp_server_raises_setup_error_naming_the_extra() -> None:
    code = ("import sys; sys.modules['mcp'] = None\n"
            "import toolcalls.runtime as r\n"
            "try:\n    r.McpServer\nexcept r.McpSetupError as error:\n    print(error)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=WAIT)
    assert "pip install 'toolcalls[mcp]'" in out.stdout
