"""toolcalls.testing.fuzz: disagreements are found, classed, shrunk and written as JSONL."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import toolcalls
from toolcalls import Tool
from toolcalls.testing import classify, fuzz, normalize_calls

NUMBERED = [Tool(name="count", parameters={"type": "object", "properties": {
    "n": {"type": "integer"}, "label": {"type": "string"}}, "required": ["n"]})]


def drops_the_last_call(text: str) -> list[Any]:
    return toolcalls.parse(text, "hermes").calls[:-1]


def test_a_parser_that_agrees_yields_no_disagreement() -> None:
    def same(text: str, *, tools: list[dict[str, Any]]) -> list[Any]:
        return toolcalls.parse(text, "hermes", tools=[Tool.model_validate(t) for t in tools]).calls

    report = fuzz("hermes", same, seconds=20, max_examples=60)
    assert report.examples == 60 and report.counts == {} and report.reproducers == []


def test_missed_calls_are_found_and_shrunk(tmp_path: Path) -> None:
    out = tmp_path / "found.jsonl"
    report = fuzz("hermes", drops_the_last_call, seconds=20, max_examples=80, per_class=2,
                  out=str(out))
    assert {counted.split()[0] for counted in report.counts} == {"missed_calls"}
    assert "missed_calls (clean)" in report.counts
    found = report.reproducers[0]
    assert found.kind == "missed_calls" and len(found.toolcalls) == 1 and found.other == []
    assert len(found.text) <= len(found.original)
    # 1-minimal: removing any one character loses the call, changes its name or the issues
    def read(text: str) -> tuple[list[str], set[str]]:
        result = toolcalls.parse(text, "hermes")
        return [c.name for c in result.calls], {issue.kind for issue in result.issues}

    for at in range(len(found.text)):
        assert read(found.text[:at] + found.text[at + 1:]) != read(found.text)
    texts = [(one.kind, one.text) for one in report.reproducers]
    assert len(set(texts)) == len(texts), "a reproducer was kept twice"
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == len(report.reproducers) <= 2 * len(report.counts)
    assert {line["origin"] for line in lines} <= {"clean", "hostile", "truncated", "appended",
                                                    "mutated"}
    assert lines[0]["format"] == "hermes" and lines[0]["text"] == found.text


def test_type_slips_and_raises_get_their_own_class() -> None:
    def strings_every_value(text: str, *, format: str) -> list[dict[str, Any]]:
        assert format == "qwen3_coder"
        if "label" in text:
            raise ValueError("cannot read labels")
        return [{"name": c.name, "arguments": json.dumps({k: str(v) for k, v in
                                                          c.arguments.items()})}
                for c in toolcalls.parse(text, format, tools=NUMBERED).calls]

    report = fuzz("qwen3_coder", strings_every_value, tools=NUMBERED, seconds=30,
                  max_examples=150)
    assert {"argument_types", "raised"} <= {counted.split()[0] for counted in report.counts}
    raised = next(r for r in report.reproducers if r.kind == "raised")
    assert raised.other is None and "cannot read labels" in (raised.error or "")


def test_stream_mode_feeds_deltas() -> None:
    seen: list[list[str]] = []

    def reads_deltas(deltas: list[str], *, tools: list[dict[str, Any]]) -> list[Any]:
        assert isinstance(deltas, list)
        seen.append(deltas)
        offered = [Tool.model_validate(tool) for tool in tools]
        return toolcalls.parse("".join(deltas), "glm47", tools=offered).calls

    report = fuzz("glm47", reads_deltas, stream=True, seconds=20, max_examples=40)
    assert report.counts == {} and any(len(deltas) > 1 for deltas in seen)


@pytest.mark.parametrize(("ours", "other", "kind"), [
    ([{"name": "f", "arguments": {}}], [{"name": "f", "arguments": {}}], None),
    ([{"name": "f", "arguments": {}}], None, "raised"),
    ([{"name": "f", "arguments": {}}], [], "missed_calls"),
    ([], [{"name": "f", "arguments": {}}], "extra_calls"),
    ([{"name": "f", "arguments": {}}], [{"name": "g", "arguments": {}}], "wrong_name"),
    ([{"name": "f", "arguments": {"a": [1]}}], [{"name": "f", "arguments": {"a": "[1]"}}],
     "argument_types"),
    ([{"name": "f", "arguments": {"a": 1}}], [{"name": "f", "arguments": {"a": 2}}],
     "wrong_arguments"),
])  # fmt: skip
def test_classes(ours: list[dict[str, Any]], other: list[dict[str, Any]] | None,
                 kind: str | None) -> None:
    assert classify(ours, other) == kind


def test_calls_are_read_in_every_shape() -> None:
    call = toolcalls.parse('<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>',
                           "hermes").calls[0]
    shapes = [call, {"name": "f", "arguments": '{"a": 1}'}, ("f", {"a": 1}),
              {"type": "function", "function": {"name": "f", "arguments": {"a": 1}}},
              {"name": "f", "parameters": '{"a": 1}'}]
    assert normalize_calls(shapes) == [{"name": "f", "arguments": {"a": 1}}] * 5
    assert normalize_calls([{"name": "f", "arguments": "{oops"}]) == [
        {"name": "f", "arguments": "{oops"}]


def test_a_reproducer_is_one_line_whatever_its_text_holds() -> None:
    from toolcalls.testing import Disagreement

    found = Disagreement(kind="missed_calls", text="a\u2028b\nc\u0085", deltas=None,
                         toolcalls=[], other=[])
    line = found.to_json("hermes")
    assert len(line.splitlines()) == 1 and json.loads(line)["text"] == found.text
