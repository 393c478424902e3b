"""What toolcalls does, on real data: run ``python demo.py``.

1. Real model responses in several wire formats, parsed whole and streamed. They come from the
   test suites of vLLM, SGLang, llama.cpp, Ollama and openai/harmony (fixtures/corpus/, each
   row naming its source), one per format, chosen among the rows where toolcalls agrees with
   the source; the demo prints the agreement over the whole corpus too, and
   fixtures/corpus/disagreements.json lists the rest with reasons. Each is read with the
   settings its source used (``thinking=True`` where its prompt opened the reasoning), as
   tests/corpus.py reads them.
2. A malformed call and a cut-off one from the same corpus: what the parse reports.
3. A recorded Anthropic response read as it came (fixtures/providers/).
4. A short differential fuzz run against a toy parser, and what it found.
5. A large real tool set under a token budget.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import toolcalls

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "tests"))  # the corpus runner: the sources' settings per row
from corpus import Case, load_cases, load_disagreements, report  # noqa: E402

FEATURED = ("hermes", "qwen3_coder", "deepseek_v31", "glm45", "kimi_k2", "gpt_oss",
            "minimax_m2", "mistral", "pythonic")
"""The formats shown, most used first; `python tests/corpus.py` reports on all of them."""
CHUNK = 4  # characters per streamed delta
WIDTH = 96  # characters of content or reasoning shown before an ellipsis
WRAP = 92  # a response's lines are wrapped at this width, never cut: the markup is the point


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


def wrapped(text: str, indent: str = "   │ ") -> str:
    """`text` as it is, line by line (a line break shown as ⏎ at the end of its line), each
    line wrapped at `WRAP` characters."""
    lines = []
    for line in text.split("\n"):
        pieces = [line[start:start + WRAP] for start in range(0, len(line), WRAP)] or [""]
        lines += pieces
        lines[-1] += "⏎"
    lines[-1] = lines[-1][:-1]  # the text's last line has no break after it
    return "\n".join(indent + line for line in lines)


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
    print("   response:")
    print(wrapped(case.text))
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
    agreed, rows = corpus_agreement()
    print(f"toolcalls reads {len(toolcalls.list_formats())} formats. Below, one real response "
          f"per format for {len(examples)} of them, chosen among the corpus rows toolcalls reads "
          f"as their source does; over all {rows} rows it agrees on {agreed} "
          f"({agreed / rows:.0%}), the rest listed with reasons in "
          "fixtures/corpus/disagreements.json\n")
    agree = sum(show(case) for case in examples)
    print(f"\nstreamed == parsed whole for {agree}/{len(examples)} responses; "
          "`python tests/corpus.py` checks every row")
    show_failures()
    show_provider_response()
    show_fuzz()
    show_budget()


def corpus_agreement() -> tuple[int, int]:
    counts = report()
    return sum(good for good, _ in counts.values()), sum(total for _, total in counts.values())


# -- when the model gets it wrong: a malformed call and a cut-off one, from the corpus ---------

def pick_failure(kind: str) -> Case:
    """A corpus row of `kind` ("malformed", "partial") in a featured format that toolcalls
    reads as its source does, where the parse keeps a named call as incomplete and says why:
    the shortest of those with some text before the call."""
    disagreed = load_disagreements()
    found = []
    for case in load_cases(list(FEATURED)):
        if case.row.get("kind") != kind or case.id in disagreed or "scope" in case.row:
            continue
        result = case.run()
        if case.mismatches(result) or not any(piece.name for piece in result.incomplete):
            continue
        found.append((not _prose(result.content), len(case.text), case))
    return min(found, key=lambda entry: entry[:2])[2]


def show_failures() -> None:
    print("\n── when the model gets it wrong: nothing raises, nothing is dropped")
    for kind in ("malformed", "partial"):
        case = pick_failure(kind)
        result = toolcalls.parse(case.text, case.format, **case.options())
        print(f"   {kind}, {case.format} ({case.row['source'].split(':')[0]}):")
        print(wrapped(case.text))
        for call in result.calls:
            print(f"   call {call.id}: {call.name}({json.dumps(call.arguments)})")
        for piece in result.incomplete:
            print(f"   incomplete: {piece.name} at {piece.span}, kept as raw text")
        for issue in result.issues:
            print(f"   issue {issue.kind} at {issue.span}: {cut(issue.message, WIDTH - 20)}")


# -- a provider's response, as recorded -----------------------------------------------------------

RESPONSE = ROOT / "fixtures" / "providers" / "anthropic" / "claude_haiku45_parallel_tool_use.json"


def show_provider_response() -> None:
    result = toolcalls.read_response(RESPONSE.read_text(encoding="utf-8"))
    print(f"\n── a provider's response: {RESPONSE.name} (recorded from Anthropic's API)")
    print(f"   read_response: provider {result.provider}, finish_reason {result.finish_reason}")
    print(f"   usage:     {cut(json.dumps(result.usage))}")
    if result.content.strip():
        print(f"   content:   {cut(result.content)}")
    for call in result.calls:
        print(f"   call {call.id}: {call.name}({json.dumps(call.arguments, ensure_ascii=False)})"
              f"  [{call.source}]")


# -- differential fuzzing: a toy parser against toolcalls -----------------------------------------

def naive_hermes(text: str) -> list[dict[str, Any]]:
    """The parser many people write first: a regular expression and json.loads."""
    calls = []
    for body in re.findall(r"<tool_call>(.*?)</tool_call>", text, re.DOTALL):
        try:
            calls.append(json.loads(body))
        except ValueError:
            continue
    return calls


ORIGIN_WORDS = {"clean": "calls rendered as the model writes them",
                "hostile": "the format's markup inside values and prose",
                "truncated": "cut off", "appended": "prose after the calls",
                "mutated": "edited at random"}
ORIGINS = list(ORIGIN_WORDS)
"""How the fuzzer made a response (`toolcalls.testing.Disagreement.origin`), most telling first."""


def show_fuzz() -> None:
    print("\n── fuzzing a toy Hermes parser (a regex and json.loads) against toolcalls, 3 s")
    try:
        from toolcalls.testing import fuzz
    except ImportError:  # the testing extra (hypothesis): the README's demo command installs it
        print("   skipped: pip install 'toolcalls[testing]' to run it")
        return
    found = fuzz("hermes", naive_hermes, seconds=3, per_class=1)
    print("\n".join("   " + line for line in found.summary().splitlines()))
    if found.reproducers:  # well-formed responses the toy misreads say most: shown first
        first = min(found.reproducers, key=lambda found: (
            found.kind.startswith("toolcalls_wrong"), ORIGINS.index(found.origin)))
        print(f"   one of them, shrunk: {first.kind}, from a {first.origin} response "
              f"({ORIGIN_WORDS[first.origin]})")
        print(wrapped(first.text))
        print(f"   toolcalls: {cut(json.dumps(first.toolcalls, ensure_ascii=False))}")
        print(f"   toy:       {cut(json.dumps(first.other, ensure_ascii=False))}")


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
    session = toolcalls.budget.render(tools, "openai", budget=BUDGET).plan.session(tools)
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
