"""Fit a large tool set into a token budget, then run the lazy session that loads tools as the
model asks for them.

Run: python examples/budget.py [BUDGET]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import toolcalls

ROOT = Path(__file__).resolve().parent.parent
TOOLSET = ROOT / "fixtures" / "toolsets" / "github-mcp-server-all.json"  # the GitHub MCP server


def main(budget: int) -> None:
    catalog = toolcalls.tools.import_tools(json.loads(TOOLSET.read_text(encoding="utf-8")))
    rendering = toolcalls.budget.render(catalog, "openai", budget=budget)
    plan = rendering.plan
    sent = len(rendering.content["tools"])
    print(f"{len(catalog)} tools: {plan.full_tokens:,} tokens in full; budget {budget:,}: "
          f"{plan.mode} mode, {plan.tokens:,} tokens, {sent} tool{'' if sent == 1 else 's'} sent")
    if plan.mode != "lazy":
        return
    session = plan.session(catalog)
    # The model answers with a tool_search call (here as Hermes text); the session runs it.
    for arguments in ({"query": "merge a pull request"}, {"name": "merge_pull_request"}):
        reply = json.dumps({"name": "tool_search", "arguments": arguments})
        call = toolcalls.parse(f"<tool_call>{reply}</tool_call>", "hermes").calls[0]
        print(f"tool_search({arguments}) -> {json.dumps(session.run(call))[:100]}...")
    tools = session.request_tools()
    print(f"next request: {[tool.name for tool in tools]}, "
          f"{toolcalls.budget.count_openai_tools(tools):,} tokens")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
