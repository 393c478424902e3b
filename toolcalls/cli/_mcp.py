"""The ``mcp`` command of the ``toolcalls`` CLI: what an MCP server's tools cost, before adding it.

    toolcalls mcp list [--json] [--name NAME] [--header 'Name: value'] --url URL
    toolcalls mcp list [--json] [--name NAME] --stdio CMD [ARGS...]

``--stdio`` takes the rest of the line as the command, so it comes last. The server is started
(or reached), its tools listed and the connection closed. Each tool is shown as a registry names
it (``NAME__tool``), with a one-line description and the tokens its definition costs at each
provider (`toolcalls.budget._counts.provider_cost`); the total is the whole list sent at once,
with the provider's per-request wrapping, so it is not the sum of the tools' lines.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import urllib.parse
from typing import Any

from .. import runtime
from .._errors import ToolCallsError
from ..budget._counts import provider_cost
from ..runtime._registry import ToolRegistry, sanitize_name
from ..tools._tool import Tool

__all__ = ["add_commands"]

PROVIDERS = ("openai", "anthropic", "gemini")
"""The providers a listing counts for."""


class _McpOptionError(ToolCallsError):
    """An option of ``toolcalls mcp`` that cannot be used."""


class McpListError(ToolCallsError):
    """The server was reached but did not give its tool list."""


def add_commands(commands: Any) -> None:
    """Add ``mcp list`` to the CLI's subparsers."""
    mcp = commands.add_parser("mcp", help="MCP servers: list a server's tools and their cost")
    actions = mcp.add_subparsers(required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="a server's tools and their tokens per provider")
    listing.add_argument("--json", action="store_true", help="print the listing as JSON")
    listing.add_argument("--name", help="the server's name in a registry (the tools' prefix; "
                         "default: from the command or host)")
    listing.add_argument("--header", action="append", default=[], metavar="'NAME: VALUE'",
                         help="an HTTP header for --url (authorization), repeatable")
    listing.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS",
                         help="seconds to start or reach the server (default 30)")
    where = listing.add_mutually_exclusive_group(required=True)
    where.add_argument("--url", help="a streamable HTTP endpoint (http://127.0.0.1:8000/mcp)")
    where.add_argument("--stdio", nargs=argparse.REMAINDER, metavar="CMD",
                       help="run this command (and the arguments after it) as a stdio server")
    listing.set_defaults(run=_list_command)


def _list_command(args: argparse.Namespace) -> int:
    # the SDK loads here: without it, McpSetupError says how to install it (one line, exit 2)
    server = runtime.McpServer(_name(args), **_where(args), connect_timeout=args.timeout)
    try:
        definitions = asyncio.run(_definitions(server))
    except ToolCallsError:
        raise
    except Exception as error:  # noqa: BLE001 - the server broke off the listing: its fault
        raise McpListError(f"the MCP server {server.name!r} failed while listing its tools: "
                           f"{type(error).__name__}: {error}") from None
    listing = _listing(server.name, definitions)
    print(json.dumps(listing, indent=2, ensure_ascii=False) if args.json else _table(listing))
    return 0


def _where(args: argparse.Namespace) -> dict[str, Any]:
    if args.url is not None:
        return {"url": args.url, "headers": dict(_header(text) for text in args.header)}
    if not args.stdio:
        raise _McpOptionError("--stdio needs a command: toolcalls mcp list --stdio CMD [ARGS...]")
    if args.header:
        raise _McpOptionError("--header is for --url: a stdio server takes no HTTP headers")
    return {"command": args.stdio[0], "args": tuple(args.stdio[1:])}


def _header(text: str) -> tuple[str, str]:
    name, colon, value = text.partition(":")
    if not colon or not name.strip():
        raise _McpOptionError(f"--header {text!r}: write it as 'Name: value'")
    return name.strip(), value.strip()


def _name(args: argparse.Namespace) -> str:
    if args.name is not None:
        wanted = args.name
    elif args.url is not None:
        wanted = urllib.parse.urlsplit(args.url).hostname or "server"
    else:
        wanted = _command_name(list(args.stdio or ["server"]))
    name = sanitize_name(wanted)
    if name is None and args.name is not None:
        raise _McpOptionError(f"--name {wanted!r} has no letter to start a tool name with")
    return name or "server"  # a host such as 127.0.0.1


def _command_name(command: list[str]) -> str:
    """``python -m mcp_server_time`` is mcp_server_time, ``python server.py`` server, ``npx
    @scope/server-x`` server-x, else the program's name."""
    if "-m" in command[:-1]:
        return command[command.index("-m") + 1]
    scripts = [arg for arg in command[1:] if not arg.startswith("-")]
    program = scripts[0] if scripts and os.path.basename(command[0]) in _LAUNCHERS else command[0]
    return os.path.splitext(os.path.basename(program))[0]


_LAUNCHERS = {"python", "python3", "node", "npx", "uvx", "uv", "deno", "bun"}


async def _definitions(server: Any) -> list[Tool]:
    registry = ToolRegistry()
    async with server:
        await server.install(registry)
    return registry.definitions()


def _listing(server: str, tools: list[Tool]) -> dict[str, Any]:
    costs = {provider: provider_cost(provider) for provider in PROVIDERS}
    rows = [{"name": tool.name, "description": _first_line(tool.description),
             "tokens": {provider: cost([tool]) for provider, cost in costs.items()}}
            for tool in tools]
    total = {provider: cost(tools) for provider, cost in costs.items()}
    return {"server": server, "tools": rows, "total": total}


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _table(listing: dict[str, Any]) -> str:
    rows = listing["tools"]
    width = max([len("total"), *(len(row["name"]) for row in rows)])
    head = f"{'TOOL':<{width}}  " + "  ".join(f"{p:>9}" for p in PROVIDERS) + "  DESCRIPTION"
    lines = [f"{listing['server']}: {len(rows)} tools", head]
    for row in rows:
        counts = "  ".join(f"{row['tokens'][p]:>9}" for p in PROVIDERS)
        lines.append(f"{row['name']:<{width}}  {counts}  {_cut(row['description'], 60)}")
    totals = "  ".join(f"{listing['total'][p]:>9}" for p in PROVIDERS)
    lines.append(f"{'total':<{width}}  {totals}  (all tools in one request)")
    return "\n".join(lines)


def _cut(text: str, length: int) -> str:
    return text if len(text) <= length else text[:length - 1] + "…"
