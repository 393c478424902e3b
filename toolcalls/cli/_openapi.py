"""The ``openapi`` command of the ``toolcalls`` CLI (wired in `toolcalls.cli._main`).

    toolcalls openapi FILE|URL [--json] [--include ID|TAG ...] [--exclude ID|TAG ...]
                      [--deprecated]

What an OpenAPI document becomes as tools, before it is added to an agent: each tool's name,
method and path, the first line of its description and its argument names; the operations
skipped and why; and what the tool list costs per provider, in tokens. ``--json`` prints the
tool definitions instead (the list ``toolcalls budget`` and ``render`` read). A URL must be on
loopback and needs httpx (the ``openapi`` extra); a file is read as JSON.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from ..budget._counts import provider_cost
from ..runtime._openapi_load import fetch_document, is_url, load_document
from ..runtime._openapi_schema import OpenApiSpec, read_document
from ..tools._tool import Tool

__all__ = ["add_commands"]

_PROVIDERS = ("openai", "anthropic", "gemini")
"""The providers whose token cost is shown."""


def add_commands(commands: Any) -> None:
    """Add ``openapi`` to the CLI's subparsers."""
    o = commands.add_parser("openapi", help="list the tools an OpenAPI document becomes, and "
                            "their token cost per provider")
    o.add_argument("document", help="OpenAPI 3.x document: a JSON file, or a URL on loopback")
    o.add_argument("--json", action="store_true", help="print the tool definitions as JSON")
    o.add_argument("--include", nargs="+", default=[], metavar="ID|TAG",
                   help="only these operationIds or tags")
    o.add_argument("--exclude", nargs="+", default=[], metavar="ID|TAG",
                   help="leave out these operationIds or tags")
    o.add_argument("--deprecated", action="store_true", help="keep deprecated operations")
    o.set_defaults(run=_openapi_command)


def _openapi_command(args: argparse.Namespace) -> int:
    source = args.document
    document = fetch_document(source) if is_url(source) else load_document(source)
    spec = read_document(document, include=args.include, exclude=args.exclude,
                         include_deprecated=args.deprecated)
    tools = [operation.definition for operation in spec.operations]
    if args.json:
        print(json.dumps([_definition(tool) for tool in tools], indent=2, ensure_ascii=False))
        return 0
    print("\n".join(_report(spec, tools)))
    return 0


def _definition(tool: Tool) -> dict[str, Any]:
    return {"name": tool.name, "description": tool.description, "parameters": tool.parameters}


def _report(spec: OpenApiSpec, tools: Sequence[Tool]) -> list[str]:
    title = spec.title or "the document"
    lines = [f"{title}: {len(tools)} tools, {len(spec.skipped)} skipped", ""]
    width = max((len(tool.name) for tool in tools), default=0)
    for operation in spec.operations:
        tool = operation.definition
        summary = tool.description.strip().splitlines()[0] if tool.description.strip() else ""
        lines.append(f"{tool.name:<{width}}  {operation.method} {operation.path}  {summary}")
        arguments = ", ".join(tool.parameters.get("properties", {})) or "(none)"
        lines.append(f"{'':<{width}}  arguments: {arguments}")
    if spec.skipped:
        lines += ["", "skipped:"]
        lines += [f"  {s.name}  {s.method} {s.path}: {s.reason}" for s in spec.skipped]
    lines += ["", "tokens of the tool list: " + ", ".join(
        f"{provider} {provider_cost(provider)(tools):,}" for provider in _PROVIDERS)
        + " (anthropic's includes its tool-use system prompt)"]
    return lines
