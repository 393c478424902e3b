"""Conformance with the real corpus: run each row the way its source ran it, judge what it asserts.

Run ``python tests/corpus.py`` for the agreement table per format.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import toolcalls

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fixtures" / "corpus"
DISAGREEMENTS = CORPUS / "disagreements.json"

_THINKING_NOTES = (
    "enable_thinking=true",
    "thinking_forced_open=true",
    "thinking enabled",
    "starts with reasoning",
    "starts inside reasoning",
)


def registered_name(row_format: str) -> str | None:
    """The registered format a row's ``format`` names, by name or alias (``deepseek_v4_dsml``
    is an alias of ``deepseek_v32_dsml``); None for one toolcalls does not read (``olmo3``)."""
    if row_format in toolcalls.list_formats():
        return row_format
    try:
        return toolcalls.get_format(row_format).name
    except toolcalls.UnknownFormatError:
        return None


@dataclass
class Case:
    row: dict[str, Any]

    @property
    def id(self) -> str:
        return str(self.row["id"])

    @property
    def format(self) -> str:
        return registered_name(str(self.row["format"])) or str(self.row["format"])

    @property
    def text(self) -> str:
        text = self.row.get("text")
        if text is None:
            text = "".join(self.row["deltas"])
        if self.row.get("scope") == "tool_call_body":
            # Only the inside of a call block: the source's unit under test added the markers,
            # so we add them too, as the format declares them (`Format.body_wrapper`; one that
            # declares none fails tests/parsing/test_format_contract.py).
            before, after = toolcalls.get_format(self.format).body_wrapper or ("", "")
            text = before + text + after
        return str(text)

    @property
    def thinking(self) -> bool:
        """The source's prompt opened a reasoning block (its note says so, or it expects
        reasoning from a text with no start tag)."""
        note = self.row.get("note", "")
        if "thinking disabled" in note or "enable_thinking=false" in note:
            return False
        if "thinking enabled by default" in note:
            # ollama's parsers accept a <think> the model writes itself; the prompt did not
            # open the block, so a text without the tag is content.
            return False
        if any(flag in note for flag in _THINKING_NOTES):
            return True
        expected = self.row["expected"]
        # The format's own tags (Cohere's <|START_THINKING|>), <think> for one that has none.
        start, end = toolcalls.get_format(self.format).reasoning_tags or ("<think>", "</think>")
        if start in self.text or end not in self.text:
            return False
        # A bare end tag that the source strips from the content: its prompt opened the block.
        return bool(expected.get("reasoning")) or end not in (expected.get("content") or "")

    @property
    def asserted(self) -> list[str]:
        asserted = self.row.get("asserted")
        return ["calls", "content"] if asserted is None else list(asserted)

    def options(self) -> dict[str, Any]:
        """The parse options matching the source's settings."""
        options: dict[str, Any] = {"tools": self.row.get("tools") or None}
        if self.thinking and toolcalls.get_format(self.format).reasoning_tags is not None:
            options["thinking"] = True
        return options

    def run(self, chunk: int | None = None) -> toolcalls.ParseResult:
        options = self.options()
        fmt = self.format
        if chunk is None:
            return toolcalls.parse(self.text, fmt, **options)
        parser = toolcalls.stream(fmt, **options)
        text = self.text
        for start in range(0, len(text), chunk):
            parser.feed(text[start : start + chunk])
        parser.close()
        return parser.result()

    def mismatches(self, result: toolcalls.ParseResult) -> list[str]:
        """What differs from the source's expectation, limited to what the source asserts."""
        expected = self.row["expected"]
        problems = []
        if "calls" in self.asserted:
            ours = [{"name": c.name, "arguments": c.arguments} for c in result.calls]
            theirs = [{"name": c["name"], "arguments": c["arguments"]} for c in expected["calls"]]
            if ours != theirs:
                problems.append(f"calls {ours} != {theirs}")
        if "content" in self.asserted:
            ours_content = self._content(result)
            if ours_content.strip() != (expected.get("content") or "").strip():
                problems.append(f"content {ours_content!r} != {expected.get('content')!r}")
        if "reasoning" in self.asserted and not self._reasoning_in_content:
            if (result.reasoning or "").strip() != (expected.get("reasoning") or "").strip():
                problems.append(f"reasoning {result.reasoning!r} != {expected.get('reasoning')!r}")
        return problems

    @property
    def _reasoning_in_content(self) -> bool:
        note = self.row.get("note", "")
        # llama.cpp's legacy parser defaults to reasoning_format NONE.
        legacy_default = "legacy chat-format" in note and "reasoning_format=" not in note
        return (
            legacy_default
            or "reasoning_format=NONE" in note
            or "reasoning_in_content=true" in note
        )

    def _content(self, result: toolcalls.ParseResult) -> str:
        if not self._reasoning_in_content:
            return result.content
        # That setting keeps the reasoning block, tags and all, inside the content; the other
        # markup (call sections and their separators) is still not content.
        text = self.text
        tags = toolcalls.get_format(self.format).reasoning_tags or ()
        tags_and_space = re.compile("(?:\\s|" + "|".join(map(re.escape, tags)) + ")*")
        kept = []
        for kind, start, end in result.segments:
            if kind in ("content", "reasoning"):
                kept.append(text[start:end])
            elif kind == "markup":  # merged markup: keep its leading reasoning tags and space
                kept.append(tags_and_space.match(text, start, end).group())  # type: ignore[union-attr]
        return "".join(kept)


def load_cases(formats: list[str] | None = None) -> list[Case]:
    cases = []
    for path in sorted(CORPUS.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            fmt = registered_name(row["format"])
            if fmt is not None and (formats is None or fmt in formats):
                cases.append(Case(row))
    return cases


def load_disagreements() -> dict[str, str]:
    return dict(json.loads(DISAGREEMENTS.read_text(encoding="utf-8")))


def report(formats: list[str] | None = None) -> dict[str, tuple[int, int]]:
    """Agreement per format: (agreeing rows, rows)."""
    table: dict[str, tuple[int, int]] = {}
    for case in load_cases(formats):
        fmt = case.format
        try:
            ok = not case.mismatches(case.run())
        except Exception:  # noqa: BLE001 - the report counts a crash as a disagreement
            ok = False
        good, total = table.get(fmt, (0, 0))
        table[fmt] = (good + ok, total + 1)
    return table


if __name__ == "__main__":
    counts = report(sys.argv[1:] or None)
    good_all = sum(g for g, _ in counts.values())
    total_all = sum(t for _, t in counts.values())
    print("| format | agree | rows | % |\n|---|---:|---:|---:|")
    for fmt, (good, total) in sorted(counts.items()):
        print(f"| {fmt} | {good} | {total} | {100 * good / total:.1f} |")
    print(f"| **all** | {good_all} | {total_all} | {100 * good_all / max(total_all, 1):.1f} |")
