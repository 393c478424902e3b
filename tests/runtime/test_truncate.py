"""Results cut to a character budget: JSON stays valid, the whole result stays in details."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolcalls.runtime import Failed, Json, Text, ToolImage, ToolResult, truncate_result
from toolcalls.runtime._truncate import IMAGE_COST, content_size


def size(result: ToolResult) -> int:
    return content_size(result.content)


def test_result_under_the_limit_is_the_same_object() -> None:
    result = ToolResult.of("short", details={"took": 1})
    assert truncate_result(result, limit=5) is result
    assert truncate_result(result) is result


def test_truncate_cuts_text_with_a_visible_marker() -> None:
    result = truncate_result(ToolResult.of("a" * 5_000), limit=1_000)
    assert size(result) <= 1_000
    first, marker = result.content
    assert isinstance(first, Text) and first.text == "a" * len(first.text)
    assert len(first.text) >= 750
    assert isinstance(marker, Text)
    assert f"{5_000 - len(first.text):,} of 5,000 characters left out" in marker.text
    assert "full result was kept" in marker.text


def test_truncate_keeps_full_result_in_details() -> None:
    original = ToolResult((Text("x" * 300), Json({"k": "v"})), details={"took_ms": 12})
    result = truncate_result(original, limit=100)
    assert result.details["full_content"] == original.content
    assert result.details["full_size"] == size(original)
    assert result.details["details"] == {"took_ms": 12}
    assert "details" not in truncate_result(ToolResult.of("y" * 300), 100).details


def test_truncate_keeps_error_flag_and_error() -> None:
    original = ToolResult((Text("boom " * 1_000),), is_error=True, error=Failed("boom"))
    result = truncate_result(original, limit=200)
    assert result.is_error and result.error is original.error


@pytest.mark.parametrize("value", [
    list(range(5_000)),
    {f"key{i}": "v" * 50 for i in range(500)},
    {"rows": [{"id": i, "text": "é\"\\\n" * 30} for i in range(300)], "count": 300},
    "x" * 20_000,
    ["\u2028\"" * 4_000],
    [[[[["deep"] * 200] * 10] * 5]],
])
def test_truncate_keeps_json_valid(value: Any) -> None:
    result = truncate_result(ToolResult((Json(value),)), limit=1_000)
    assert size(result) <= 1_000
    cut = result.content[0]
    assert isinstance(cut, Json)
    text = json.dumps(cut.value, ensure_ascii=False)
    assert json.loads(text) == cut.value
    assert 0 < len(text) < len(json.dumps(value, ensure_ascii=False))
    assert isinstance(result.content[-1], Text) and "left out" in result.content[-1].text


def test_truncate_json_keeps_leading_elements_and_keys() -> None:
    result = truncate_result(ToolResult.of({"a": 1, "b": list(range(1_000)), "c": 3}), 500)
    cut = result.content[0]
    assert isinstance(cut, Json)
    assert cut.value["a"] == 1
    assert cut.value["b"] == list(range(len(cut.value["b"])))
    assert "c" not in cut.value


def test_truncate_long_string_keeps_start_and_end() -> None:
    result = truncate_result(ToolResult.of({"log": "START" + "-" * 10_000 + "END"}), 300)
    cut = result.content[0]
    assert isinstance(cut, Json)
    assert cut.value["log"].startswith("START") and cut.value["log"].endswith("END")
    assert "…" in cut.value["log"]


def test_truncate_one_megabyte_result() -> None:
    megabyte = "line of output\n" * 70_000
    result = truncate_result(ToolResult.of(megabyte))
    assert size(result) <= 10_000
    assert result.text().startswith("line of output\n")
    assert result.details["full_content"][0].text == megabyte
    rows = truncate_result(ToolResult.of([{"n": i, "s": "x" * 20} for i in range(40_000)]))
    assert size(rows) <= 10_000
    assert json.loads(json.dumps(rows.content[0].value)) == rows.content[0].value


def test_truncate_counts_images_as_a_fixed_cost() -> None:
    image = ToolImage("A" * 1_000_000)
    small = ToolResult((Text("see:"), image))
    assert truncate_result(small, limit=IMAGE_COST + 10) is small
    result = truncate_result(ToolResult((Text("x" * 400), image, Text("after"))), limit=300)
    assert image not in result.content
    assert "left out" in result.text()


def test_items_after_the_cut_are_left_out_and_counted() -> None:
    original = ToolResult((Text("a" * 600), Text("b" * 600)))
    result = truncate_result(original, limit=400)
    assert "b" not in result.text().split("[")[0]
    kept = size(result) - len(result.content[-1].text)
    assert f"{1_200 - kept:,} of 1,200" in result.content[-1].text


@pytest.mark.parametrize("limit", [1, 7, 40])
def test_tiny_limits_are_still_kept(limit: int) -> None:
    result = truncate_result(ToolResult.of({"a": "b" * 500}), limit)
    assert size(result) <= limit


def test_limit_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        truncate_result(ToolResult.of("x"), 0)
