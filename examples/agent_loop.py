"""The whole tool loop, offline: a model that replays recorded responses, a local function tool,
the tools of an MCP server (the published time server, over stdio), and one call that asks first.

The model's first and last turns are gpt-4o-mini's own streamed responses, recorded by
pydantic-ai's test suite (fixtures/providers/openai_chat/README.md); its middle turn, a call to
the time server, is written by hand in the same shape. With a real model, only the first line
of `main` changes: ``model = OpenAIChatModel(openai.AsyncOpenAI(), "gpt-4o-mini")``.

Run: python examples/agent_loop.py
(needs the mcp extra and the time server: pip install 'toolcalls[mcp]' mcp-server-time)
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from toolcalls.runtime import (
    Agent,
    ApprovalNeeded,
    Finished,
    McpServer,
    Permissions,
    ScriptedModel,
    ToolFinished,
    ToolRegistry,
    tool,
)

RECORDED = Path(__file__).resolve().parent.parent / "fixtures" / "providers" / "openai_chat"
TIME_CALL = {"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
    "role": "assistant", "content": None, "tool_calls": [{
        "id": "call_time_1", "type": "function", "function": {
            "name": "time__get_current_time",
            "arguments": json.dumps({"timezone": "Europe/London"})}}]}}]}


@tool
def get_capital(country: str) -> str:
    """The capital city of a country."""
    return {"UK": "London", "France": "Paris"}.get(country, "unknown")


async def main() -> None:
    model = ScriptedModel([RECORDED / "gpt4o_mini_tool_call.sse", TIME_CALL,
                           RECORDED / "gpt4o_mini_text_after_tool.sse"])
    registry = ToolRegistry([get_capital])
    async with McpServer.stdio("time", sys.executable, ["-m", "mcp_server_time"]) as time_server:
        await time_server.install(registry)
        agent = Agent(model, registry, stream=True,
                      permissions=Permissions(ask=["time__*"]))  # the user approves clock reads
        events = agent.events("What is the capital of the UK, and the time there?")
        while True:
            async for event in events:
                show(event)
            if not agent.pending:
                break
            events = agent.resume_events({item.call.id: "yes" for item in agent.pending})
    print("tools:", registry.names())


def show(event: object) -> None:
    if isinstance(event, ApprovalNeeded):
        print(f"ask   {event.pending.call.name}({event.pending.call.arguments}): yes")
    elif isinstance(event, ToolFinished):
        print(f"tool  {event.result.call.name} -> {event.result.text()[:70]}")
    elif isinstance(event, Finished) and event.result.stop == "answer":
        print(f"model {event.result.answer}")


if __name__ == "__main__":
    asyncio.run(main())
