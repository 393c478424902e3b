"""toolcalls.arrow.parse_array: row for row what `toolcalls.parse` and `read_response` give."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from corpus import load_cases

import toolcalls
from toolcalls.parsing import ParseResult

pa = pytest.importorskip("pyarrow")
from toolcalls.arrow import RESULT_TYPE, parse_array  # noqa: E402 - after the skip

PROVIDERS = Path(__file__).resolve().parents[2] / "fixtures" / "providers"
HERMES_CALL = '<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>'


def expected_row(result: ParseResult) -> dict[str, Any]:
    """A result as RESULT_TYPE's Python value, written out field by field."""

    def span(pair: tuple[int, int] | None) -> dict[str, int] | None:
        return None if pair is None else {"start": pair[0], "end": pair[1]}

    return {
        "format": result.format, "content": result.content, "reasoning": result.reasoning,
        "calls": [{"id": c.id, "name": c.name, "arguments": c.arguments_json(),
                   "span": span(c.span), "source": c.source} for c in result.calls],
        "incomplete": [{"name": i.name, "raw": i.raw, "span": span(i.span), "source": i.source}
                       for i in result.incomplete],
        "issues": [{"kind": i.kind, "message": i.message, "span": span(i.span)}
                   for i in result.issues],
        "provider": result.provider, "finish_reason": result.finish_reason,
        "usage": None if result.usage is None else json.dumps(result.usage, ensure_ascii=False),
        "error": None,
    }


def corpus_by_format() -> dict[str, list[Any]]:
    grouped: dict[str, list[Any]] = defaultdict(list)
    for case in load_cases():
        if not case.thinking:
            grouped[case.format].append(case)
    return grouped


@pytest.mark.parametrize("fmt", sorted(corpus_by_format()))
def test_corpus_rows_equal_per_row_parse(fmt: str) -> None:
    cases = corpus_by_format()[fmt]
    texts = [case.text for case in cases]
    parsed = parse_array(pa.array(texts), fmt)
    assert parsed.type == RESULT_TYPE
    assert parsed.to_pylist() == [expected_row(toolcalls.parse(t, fmt)) for t in texts]


def test_auto_detects_each_row_on_its_own() -> None:
    texts = [case.text for cases in corpus_by_format().values() for case in cases[:2]]
    parsed = parse_array(texts, "auto").to_pylist()
    assert parsed == [expected_row(toolcalls.parse(t, "auto")) for t in texts]
    assert len({row["format"] for row in parsed}) > 10


def test_null_rows_stay_null_and_tools_are_checked() -> None:
    tools = [{"type": "function", "function": {"name": "g", "parameters": {"type": "object"}}}]
    texts = pa.array([HERMES_CALL, None, "no call"], pa.large_string())
    parsed = parse_array(texts, "hermes", tools=tools)
    assert parsed.null_count == 1 and not parsed.is_valid()[1].as_py()
    rows = parsed.to_pylist()
    assert [issue["kind"] for issue in rows[0]["issues"]] == ["unknown_tool"]  # f is not g
    assert rows[2]["content"] == "no call" and rows[2]["calls"] == []


@pytest.mark.parametrize("arrow_type", ["string", "large_string", "string_view"])
def test_every_arrow_string_type(arrow_type: str) -> None:
    texts = pa.array([HERMES_CALL, None], getattr(pa, arrow_type)())
    assert parse_array(texts, "hermes").to_pylist()[0] == expected_row(
        toolcalls.parse(HERMES_CALL, "hermes"))


def test_a_chunked_column_stays_chunked_row_for_row() -> None:
    column = pa.chunked_array([[HERMES_CALL, "a"], [], [None, HERMES_CALL]])
    parsed = parse_array(column, "hermes")
    assert isinstance(parsed, pa.ChunkedArray)
    assert [len(chunk) for chunk in parsed.chunks] == [2, 0, 2]
    assert [row and row["content"] for row in parsed.to_pylist()] == ["", "a", None, ""]


def test_empty_input_gives_an_empty_array_of_the_type() -> None:
    parsed = parse_array([], "hermes")
    assert len(parsed) == 0 and parsed.type == RESULT_TYPE


def test_a_column_that_is_not_text_is_refused() -> None:
    with pytest.raises(TypeError, match="needs a column of text.*not int64"):
        parse_array(pa.array([1, 2]), "hermes")


def test_a_row_that_is_not_text_gets_an_error_and_the_rest_go_on() -> None:
    rows = parse_array([HERMES_CALL, 42, HERMES_CALL], "hermes").to_pylist()
    assert rows[1]["error"] == "a row of text is a string, not int"
    assert rows[1]["calls"] == [] and rows[0]["calls"] and rows[2]["calls"]


def test_a_lone_surrogate_is_escaped_and_said() -> None:
    text = "before \ud800 after" + HERMES_CALL
    row = parse_array([text], "hermes").to_pylist()[0]
    assert row["content"] == "before \\ud800 after"
    assert [issue["kind"] for issue in row["issues"]] == ["lone_surrogate"]
    assert row["calls"][0]["name"] == "f"


def test_deep_nesting_and_nan_are_ordinary_rows() -> None:
    deep = '<tool_call>{"name": "f", "arguments": ' + "[" * 50_000 + "]" * 50_000 + "}</tool_call>"
    nan = '<tool_call>{"name": "f", "arguments": {"x": NaN}}</tool_call>'
    rows = parse_array([deep, nan], "hermes").to_pylist()
    assert rows == [expected_row(toolcalls.parse(t, "hermes")) for t in (deep, nan)]


# -- provider logs (issue 30, item 5) --------------------------------------------------------

def fixture(path: str) -> str:
    return (PROVIDERS / path).read_text(encoding="utf-8")


def test_saved_responses_read_as_read_response_reads_them() -> None:
    saved = [fixture("anthropic/claude_haiku45_parallel_tool_use.json"),
             fixture("gemini/gemini25pro_function_call_thought_signature.json")]
    rows = parse_array(saved, provider="auto").to_pylist()
    assert rows == [expected_row(toolcalls.read_response(s, format="auto")) for s in saved]
    assert [row["provider"] for row in rows] == ["anthropic", "gemini"]
    assert all(row["calls"] for row in rows)


def test_a_captured_stream_reads_as_read_stream_reads_it() -> None:
    captured = fixture("anthropic/claude_sonnet4_text_and_tool_use.sse")
    reader = toolcalls.read_stream("anthropic", format="auto")
    reader.feed(captured)
    reader.close()
    row = parse_array([captured], provider="anthropic").to_pylist()[0]
    assert row == expected_row(reader.result())
    assert row["calls"] and row["finish_reason"]


def test_a_stream_as_a_json_list_of_chunks() -> None:
    chunks = [{"type": "message_start", "message": {"id": "m", "type": "message", "role":
               "assistant", "content": [], "model": "claude", "usage": {"input_tokens": 3}}},
              {"type": "content_block_start", "index": 0,
               "content_block": {"type": "text", "text": "hi"}},
              {"type": "message_stop"}]
    row = parse_array([json.dumps(chunks)], provider="anthropic").to_pylist()[0]
    assert row["content"] == "hi" and row["error"] is None


def test_bad_provider_rows_get_errors_and_never_stop_the_rest() -> None:
    good = fixture("anthropic/claude_haiku45_parallel_tool_use.json")
    rows = parse_array(["not json at all", '{"no": "provider"}', good, "[1, 2]"],
                       provider="auto").to_pylist()
    assert "does not say which provider" in rows[0]["error"]
    assert "cannot tell the provider" in rows[1]["error"]
    assert rows[2]["error"] is None and rows[2]["calls"]
    assert rows[3]["error"]


def test_hostile_provider_rows_never_raise() -> None:
    deep_list = "[" * 100_000 + "]" * 100_000  # deeper than Python's JSON decoder goes
    deep_object = '{"a":' * 100_000 + "1" + "}" * 100_000
    repeated_ids = json.dumps({"choices": [{"message": {"content": "\ud800 x", "tool_calls": [
        {"id": "a", "function": {"name": "f", "arguments": "{}"}}] * 2}}]})
    rows = parse_array([deep_list, deep_object, {"choices": float("nan")}, repeated_ids,
                        b'data: {"choices": [{"delta": {"content": "hi"}}]}\n\n'],
                       provider="openai").to_pylist()
    assert [row["error"] for row in rows] == [None] * 5
    assert rows[0]["issues"] and rows[1]["issues"]  # read as a stream that never was: said
    assert len({call["id"] for call in rows[3]["calls"]}) == 2  # the repeat got its own
    assert {"duplicate_call_id", "lone_surrogate"} <= {i["kind"] for i in rows[3]["issues"]}
    assert rows[4]["content"] == "hi"
