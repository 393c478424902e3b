"""A real MCP server for the tests, written with the SDK's `MCPServer` (FastMCP before mcp 2).

Run over stdio: ``python tests/runtime/mcp_server.py``; over streamable HTTP on loopback:
``python tests/runtime/mcp_server.py --http PORT`` (serves ``http://127.0.0.1:PORT/mcp``).
"""

from __future__ import annotations

import asyncio
import base64
import os
import sys
from pathlib import Path

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image
from pydantic import BaseModel

# a 1x1 transparent PNG
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")

server = MCPServer("testserver")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def fail(reason: str = "the disk is full") -> str:
    """Always raises."""
    raise ToolError(reason)


@server.tool()
async def hang(seconds: float = 600.0, marker: str = "") -> str:
    """Sleeps, by default longer than any test waits; when cancelled, writes `marker` (a path)."""
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        if marker:
            Path(marker).write_text("cancelled")
        raise
    return "woke up"


@server.tool()
async def progress(ctx: Context) -> str:
    """Reports progress three times, then answers."""
    for step in (1, 2, 3):
        await ctx.report_progress(step, 3, f"step {step}")
    return "done"


@server.tool()
def image() -> Image:
    """Returns a PNG."""
    return Image(data=PNG, format="png")


@server.tool()
def big() -> str:
    """Returns a megabyte of text."""
    return "x" * 1_000_000


class Weather(BaseModel):
    city: str
    celsius: float


@server.tool()
def structured(city: str) -> Weather:
    """Returns a typed result: structured content."""
    return Weather(city=city, celsius=21.5)


@server.tool()
def authorization(ctx: Context) -> str:
    """The Authorization header of the HTTP request that called it (empty over stdio)."""
    return (ctx.headers or {}).get("authorization", "")


@server.tool()
def pid() -> int:
    """This server's process id (a test kills it)."""
    return os.getpid()


@server.tool()
async def grow(ctx: Context) -> str:
    """Adds the tool `extra` and tells the client the tool list changed."""
    if "extra" not in {tool.name for tool in await server.list_tools()}:
        server.add_tool(extra)
    await ctx.session.send_tool_list_changed()
    return "grown"


def extra(word: str) -> str:
    """A tool that exists only after `grow` ran."""
    return word.upper()


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
