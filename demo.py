"""Parse real model responses in several wire formats, whole and streamed, and show the calls.

The responses come from the test suites of vLLM, SGLang, llama.cpp and Ollama
(fixtures/corpus/, each row naming its source). Run: python demo.py
"""

from __future__ import annotations

import json
from pathlib import Path

import toolcalls

CORPUS = Path(__file__).resolve().parent / "fixtures" / "corpus"
CHUNK = 4  # characters per streamed delta


def pick_examples() -> list[dict]:
    """One real response with calls per implemented format, preferring one with content too."""
    chosen: dict[str, dict] = {}
    for path in sorted(CORPUS.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            fmt, text = row["format"], row.get("text")
            if fmt not in toolcalls.list_formats() or not text or row["kind"] != "valid":
                continue
            if not row["expected"]["calls"] or "scope" in row:
                continue
            better = fmt not in chosen or (row["expected"].get("content") and len(text) < 400)
            if better:
                chosen[fmt] = row
    return [chosen[f] for f in sorted(chosen)]


def streamed(fmt: str, text: str, tools: list | None) -> tuple[int, toolcalls.ParseResult]:
    parser = toolcalls.stream(fmt, tools=tools)
    events = 0
    for start in range(0, len(text), CHUNK):
        events += len(parser.feed(text[start : start + CHUNK]))
    events += len(parser.close())
    return events, parser.result()


def show(row: dict) -> bool:
    fmt, text, tools = row["format"], row["text"], row.get("tools")
    result = toolcalls.parse(text, fmt, tools=tools)
    events, live = streamed(fmt, text, tools)
    print(f"── {fmt}  ({row['source'].split(':')[0]})")
    print("   response: " + json.dumps(text[:160], ensure_ascii=False) + ("…" if len(text) > 160 else ""))
    if result.reasoning:
        print(f"   reasoning: {result.reasoning[:80]!r}")
    if result.content.strip():
        print(f"   content:   {result.content.strip()[:80]!r}")
    for call in result.calls:
        print(f"   call {call.id}: {call.name}({call.arguments_json()[:100]})")
    for issue in result.issues:
        print(f"   issue {issue.kind}: {issue.message}")
    same = live == result
    print(f"   streamed in {CHUNK}-char deltas: {events} events, same result as batch: {same}")
    return same


def main() -> None:
    examples = pick_examples()
    print(f"toolcalls {len(toolcalls.list_formats())} formats; {len(examples)} real responses\n")
    agree = sum(show(row) for row in examples)
    print(f"\nbatch == stream for {agree}/{len(examples)} responses")
    show_budget()


# -- token budget: what a real tool set costs in each mode, and a lazy session over it --------

TOOLSET = Path(__file__).resolve().parent / "fixtures" / "toolsets" / "github-mcp-server-all.json"
BUDGET = 5000  # tokens the tool definitions may take at session start


def show_budget() -> None:
    tools = toolcalls.tools.import_tools(json.loads(TOOLSET.read_text(encoding="utf-8")))
    print(f"\n── token budget: {TOOLSET.name} (the GitHub MCP server, all toolsets), "
          f"OpenAI tokens, budget {BUDGET:,}")
    report = toolcalls.budget.budget_report(tools, "o200k_base", BUDGET)
    for line in report.table(TOOLSET.name).splitlines()[1:]:
        print(f"   {line}")
    session = toolcalls.render(tools, "openai", budget=BUDGET).plan.session(tools)
    query = "merge a pull request"
    found = [hit["name"] for hit in session.tool_search(query=query)["tools"]]
    print(f"   tool_search(query={query!r}) → {', '.join(found[:4])}, … ({len(found)} tools)")
    session.tool_search(name=found[0])
    payload = toolcalls.providers.render_native(session.request_tools(), "openai")
    tokens = toolcalls.budget.count_openai_tools(session.request_tools())
    print(f"   tool_search(name={found[0]!r}) loads it: the next request sends "
          f"{len(payload['tools'])} tools, {tokens:,} tokens")


if __name__ == "__main__":
    main()
