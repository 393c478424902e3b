"""Parse real model responses in several wire formats, whole and streamed, and show the calls.

The responses come from the test suites of vLLM, SGLang, llama.cpp, Ollama and openai/harmony
(fixtures/corpus/, each row naming its source), chosen among the rows where toolcalls agrees
with the source (fixtures/corpus/disagreements.json lists where it does not, and why), and read
with the settings the source used (``thinking=True`` where its prompt opened the reasoning), as
tests/corpus.py reads them. Run: python demo.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import toolcalls

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "tests"))  # the corpus runner: the sources' settings per row
from corpus import Case, load_cases, load_disagreements  # noqa: E402

FEATURED = ("hermes", "qwen3_coder", "deepseek_v31", "glm45", "kimi_k2", "gpt_oss",
            "minimax_m2", "mistral", "pythonic")
"""The formats shown, most used first; `python tests/corpus.py` reports on all of them."""
CHUNK = 4  # characters per streamed delta
WIDTH = 96  # characters of a response, content or reasoning shown before an ellipsis


def pick_examples() -> list[Case]:
    """One response with calls per featured format that toolcalls reads as its source does,
    preferring one with content, reasoning and declared tools, and plain values; short first."""
    disagreed = load_disagreements()
    chosen: dict[str, tuple[tuple[int, int], Case]] = {}
    for case in load_cases(list(FEATURED)):
        row = case.row
        if row.get("kind") != "valid" or "scope" in row or case.id in disagreed:
            continue
        result = case.run()
        if not result.calls or result.issues or case.mismatches(result):
            continue
        if not all(_plain(call.arguments) for call in result.calls) or len(case.text) > 400:
            continue
        extras = _prose(result.content) + _prose(result.reasoning or "") + bool(row.get("tools"))
        worded = any(_words(call.arguments) for call in result.calls)  # "Paris", not 1
        rank = (-extras - 2 * worded, len(case.text))
        if case.format not in chosen or rank < chosen[case.format][0]:
            chosen[case.format] = (rank, case)
    return [chosen[fmt][1] for fmt in FEATURED if fmt in chosen]


def _plain(value: Any) -> bool:
    """No string with blanks around it (a value the source keeps verbatim, hard to read)."""
    if isinstance(value, str):
        return value == value.strip()
    if isinstance(value, dict):
        return all(_plain(item) for item in value.values())
    if isinstance(value, list):
        return all(_plain(item) for item in value)
    return True


def _prose(text: str) -> bool:
    """Words, not a placeholder such as "CONTENT"."""
    return any(char.islower() for char in text)


def _words(arguments: dict[str, Any]) -> bool:
    return any(isinstance(v, str) and v.replace(" ", "").isalpha() for v in arguments.values())


def cut(text: str, width: int = WIDTH) -> str:
    """`text` on one line, whole, or cut after a word (or at `width` in markup without
    spaces) and followed by an ellipsis."""
    text = " ".join(text.split())  # blanks and line breaks as single spaces
    if len(text) <= width:
        return text
    head = text[:width]
    space = text.rfind(" ", 0, width + 1)
    if space > width * 2 // 3:
        head = text[:space]
    return head.rstrip(",.;: ") + " …"


def streamed(case: Case) -> tuple[int, toolcalls.ParseResult]:
    parser = toolcalls.stream(case.format, **case.options())
    events = 0
    for start in range(0, len(case.text), CHUNK):
        events += len(parser.feed(case.text[start : start + CHUNK]))
    events += len(parser.close())
    return events, parser.result()


def show(case: Case) -> bool:
    options = case.options()
    result = toolcalls.parse(case.text, case.format, **options)
    events, live = streamed(case)
    settings = ", thinking=True" if options.get("thinking") else ""
    tools = len(options["tools"] or ())
    declared = f"{tools} tool{'' if tools == 1 else 's'} declared" if tools else "no tools given"
    print(f"── {case.format}{settings}  ({case.row['source'].split(':')[0]}; {declared})")
    print(f"   response:  {cut(case.text.replace(chr(10), '⏎'))}")
    if result.reasoning:
        print(f"   reasoning: {cut(result.reasoning)}")
    if result.content.strip():
        print(f"   content:   {cut(result.content)}")
    for call in result.calls:
        arguments = json.dumps(call.arguments, ensure_ascii=False)
        print(f"   call {call.id}: {call.name}({cut(arguments, WIDTH - len(call.name))})")
    same = live == result
    print(f"   streamed in {CHUNK}-character deltas: {events} events, the same result: {same}")
    return same


def main() -> None:
    examples = pick_examples()
    print(f"toolcalls reads {len(toolcalls.list_formats())} formats; {len(examples)} real "
          "responses, parsed whole and streamed\n")
    agree = sum(show(case) for case in examples)
    print(f"\nstreamed == parsed whole for {agree}/{len(examples)} responses; "
          "`python tests/corpus.py` checks every row")
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
