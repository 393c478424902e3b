"""toolcalls' own reading of a corpus case, in the terms a server's answer is compared in, and
the comparison the vLLM and SGLang tests both make.

The cases are the corpus's (fixtures/corpus, `tests/corpus.py`), each run with its format's
parser (``toolcalls_<format>``), and every fourth also with ``toolcalls_auto``. What toolcalls
reads, from `toolcalls.parse` and `toolcalls.stream`:

- whole: the complete calls, each with its arguments as the JSON text its stream's fragments
  join to; the content is the text of the content, reasoning and failed-call pieces of the
  parse (`ParseResult.segments`), in order: what a server shows when it has no reasoning parser
  (reasoning is then content) and a failed call is not a call;
- streamed: the same content; the calls are every call that started (a failed one too: its
  start was on the wire before it failed), each with its arguments as streamed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from corpus import load_cases

import toolcalls

AUTO_EVERY = 4


@dataclass(frozen=True)
class Run:
    id: str
    parser: str
    format: str
    text: str
    tools: Any
    reasoning_parser: str | None = None
    """vLLM's own reasoning parser before ours: its text is then only what follows reasoning."""

    def __str__(self) -> str:
        return f"{self.id}-{self.parser}" + (f"-{self.reasoning_parser}"
                                              if self.reasoning_parser else "")

    def request(self) -> dict[str, Any]:
        return {"parser": self.parser, "text": self.text, "tools": self.tools,
                "reasoning_parser": self.reasoning_parser}

    def after_reasoning(self) -> Run:
        """The run of the text vLLM's reasoning parser leaves to the tool parser."""
        return Run(self.id, self.parser, self.format, self.text.split("</think>", 1)[1],
                   self.tools)


def runs() -> list[Run]:
    found = []
    for number, case in enumerate(load_cases()):
        tools = case.row.get("tools") or None
        found.append(Run(case.id, f"toolcalls_{case.format}", case.format, case.text, tools))
        if number % AUTO_EVERY == 0:
            found.append(Run(case.id, "toolcalls_auto", "auto", case.text, tools))
    return found


def reasoning_runs() -> list[Run]:
    """The cases that offer tools and open with a whole ``<think>`` block, each run with vLLM's
    ``qwen3`` reasoning parser in front of ours. (A block the prompt opened, with no ``<think>``
    in the text, is the reasoning parser's to tell from the prompt: not toolcalls' business.)"""
    return [Run(case.id, f"toolcalls_{case.format}", case.format, case.text,
                case.row["tools"], "qwen3")
            for case in load_cases()
            if case.row.get("tools") and case.text.startswith("<think>")
            and "</think>" in case.text]


@dataclass
class Own:
    content: str
    calls: list[tuple[str, Any, str]]
    """Complete calls: name, arguments, arguments as JSON text."""
    started: list[tuple[str, str]]
    """Every call that started, with its streamed arguments."""


def own(run: Run) -> Own:
    result = toolcalls.parse(run.text, run.format, tools=run.tools)
    content = "".join(run.text[start:end] for kind, start, end in result.segments
                      if kind in ("content", "reasoning", "incomplete"))
    started: dict[int, tuple[str, list[str]]] = {}
    complete: list[int] = []
    if result.format != "none":
        for event in toolcalls.stream(result.format, tools=run.tools).close(run.text):
            if isinstance(event, toolcalls.ToolCallStart):
                started[event.index] = (event.name, [])
            elif isinstance(event, toolcalls.ArgumentsDelta):
                started[event.index][1].append(event.fragment)
            elif isinstance(event, toolcalls.ToolCallEnd):
                complete.append(event.index)
    streamed = [(name, "".join(fragments)) for name, fragments in started.values()]
    calls = [(call.name, call.arguments, "".join(started[index][1]))
             for call, index in zip(result.calls, complete, strict=True)]
    return Own(content, calls, streamed)


def shown(content: str | None) -> str:
    """Content as a client sees it: whitespace alone is none (servers drop it beside calls)."""
    return content if content and content.strip() else ""


def passed_through(run: Run) -> Own:
    """What vLLM answers a request that offers no tools (its ``tool_choice`` is then
    ``"none"``): the text as it is, no call, as with vLLM's own parsers."""
    return Own(run.text, [], [])


def differences(run: Run, answer: dict[str, Any], expected: Own | None = None) -> list[str]:
    """Where the server's answer (the driver's, whole and streamed) is not toolcalls' own
    (or `expected`)."""
    expected = expected or own(run)
    problems = []
    whole = answer["whole"]
    got = [(call["name"], json.loads(call["arguments"]), call["arguments"])
           for call in whole["calls"]]
    if got != expected.calls:
        problems.append(f"whole calls {got} != {expected.calls}")
    if shown(whole["content"]) != shown(expected.content):
        problems.append(f"whole content {whole['content']!r} != {expected.content!r}")
    for size, streamed in answer["streamed"].items():
        calls = [(call["name"], call["arguments"]) for call in streamed["calls"]]
        if calls != expected.started:
            problems.append(f"streamed in {size}s: calls {calls} != {expected.started}")
        if shown(streamed["content"]) != shown(expected.content):
            problems.append(f"streamed in {size}s: content {streamed['content']!r} != "
                            f"{expected.content!r}")
        if streamed.get("unstreamed"):
            problems.append(f"streamed in {size}s: the server would add {streamed['unstreamed']!r}")
    return problems
