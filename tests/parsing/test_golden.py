"""Golden cases: fixtures/<format>/<case>.txt (raw text) with <case>.json (expected parse)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import assert_events_consistent, assert_lossless, random_chunks, stream_chunks

import toolcalls

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
GOLDENS = sorted(
    path for path in FIXTURES.glob("*/*.txt") if path.parent.name in toolcalls.list_formats()
)


def _expected(path: Path) -> dict[str, Any]:
    return dict(json.loads(path.with_suffix(".json").read_text(encoding="utf-8")))


def _summary(result: toolcalls.ParseResult) -> dict[str, Any]:
    return {
        "content": result.content,
        "reasoning": result.reasoning,
        "calls": [{"name": c.name, "arguments": c.arguments} for c in result.calls],
        "incomplete": [c.name for c in result.incomplete],
        "issues": sorted({i.kind for i in result.issues}),
    }


@pytest.mark.parametrize("path", GOLDENS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_golden(path: Path, request: pytest.FixtureRequest) -> None:
    text = path.read_text(encoding="utf-8")
    expected = _expected(path)
    options = {k: v for k, v in expected.get("options", {}).items() if v is not None}
    result = toolcalls.parse(text, path.parent.name, **options)
    assert_lossless(text, result)
    if request.config.getoption("--update-goldens"):
        expected.update(_summary(result))
        path.with_suffix(".json").write_text(
            json.dumps(expected, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        return
    actual = _summary(result)
    for key in ("content", "reasoning", "calls", "incomplete"):
        assert actual[key] == expected[key], key
    assert actual["issues"] == sorted(set(expected["issues"]))


@pytest.mark.parametrize("path", GOLDENS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_golden_streams_the_same_in_any_chunking(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    options = {k: v for k, v in _expected(path).get("options", {}).items() if v is not None}
    batch = toolcalls.parse(text, path.parent.name, **options)
    chunkings = [list(text), *(random_chunks(text, seed) for seed in range(6))]
    chunkings += [
        [text[:cut], text[cut:]] for cut in range(0, len(text) + 1, max(1, len(text) // 40))
    ]
    for chunks in chunkings:
        events, result = stream_chunks(path.parent.name, chunks, **options)
        assert result == batch
        assert_events_consistent(events, result)
