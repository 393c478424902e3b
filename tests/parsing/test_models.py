"""The models the engine builds without validation (`_models.built`) are indistinguishable from
validated ones, and every value the engine puts in them already has its field's type."""

from __future__ import annotations

import copy
import json
import pickle
from pathlib import Path

import pytest
from corpus import registered_name

import toolcalls
from toolcalls.parsing._build import built
from toolcalls.parsing._models import IncompleteCall, ParseIssue, ParseResult, ToolCall

CORPUS = Path(__file__).resolve().parents[2] / "fixtures" / "corpus"

_CALL = {"id": "call_0", "name": "get_weather", "arguments": {"city": "Paris", "n": 2},
         "span": (3, 40), "source": "text"}


def test_a_built_call_behaves_as_a_validated_one() -> None:
    validated = ToolCall(**_CALL)
    made = built(ToolCall, dict(_CALL))
    assert made == validated
    assert repr(made) == repr(validated)
    assert made.model_dump() == validated.model_dump()
    assert made.model_dump_json() == validated.model_dump_json()
    assert made.model_fields_set == validated.model_fields_set
    assert made.model_dump(exclude_unset=True) == validated.model_dump(exclude_unset=True)
    assert pickle.loads(pickle.dumps(made)) == validated
    assert copy.deepcopy(made) == validated
    assert made.model_copy(update={"name": "x"}).name == "x"
    made.name = "renamed"  # models are mutable, and a built one stays so
    assert made.name == "renamed" and validated.name == "get_weather"


def test_a_built_result_behaves_as_a_validated_one() -> None:
    call = ToolCall(**_CALL)
    fields = {"format": "hermes", "content": "hi", "reasoning": None, "calls": [call],
              "incomplete": [IncompleteCall(name=None, raw="<x", span=(40, 42))],
              "issues": [ParseIssue(kind="truncated_call", message="m", span=(40, 42))],
              "segments": [("content", 0, 2), ("markup", 2, 3), ("call", 3, 40),
                           ("incomplete", 40, 42)],
              "provider": None, "finish_reason": None, "usage": None, "reasoning_blocks": None}
    made = built(ParseResult, dict(fields))
    validated = ParseResult(**fields)
    assert made == validated
    assert made.model_dump_json() == validated.model_dump_json()
    assert made.tool_calls() == validated.tool_calls()


def test_a_text_parse_dumps_the_keys_it_always_had_then_the_response_keys_as_none() -> None:
    result = toolcalls.parse('hi <tool_call>{"name": "f", "arguments": {}}</tool_call>', "hermes")
    dump = result.model_dump()
    assert list(dump) == ["format", "content", "reasoning", "calls", "incomplete", "issues",
                          "segments", "provider", "finish_reason", "usage", "reasoning_blocks"]
    assert dump["provider"] is dump["finish_reason"] is dump["usage"] is None
    assert dump["reasoning_blocks"] is None
    assert dump["calls"] == [{"id": result.calls[0].id, "name": "f", "arguments": {},
                              "span": (3, 56), "source": "text"}]


def test_only_a_native_call_goes_without_a_span() -> None:
    native = ToolCall(id="call_1", name="f", arguments={}, source="native")
    assert native.span is None
    assert ToolCall.model_validate(native.model_dump()) == native
    with pytest.raises(ValueError, match="has a span"):
        ToolCall(id="call_1", name="f", arguments={})
    with pytest.raises(ValueError, match="has a span"):
        IncompleteCall(name="f", raw="{")
    assert IncompleteCall(name="f", raw="{", source="native").span is None
    assert ParseIssue(kind="invalid_arguments", message="m", span=None).span is None


def _corpus_texts() -> list[tuple[str, str]]:
    rows = []
    for path in sorted(CORPUS.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            text = row.get("text")
            if text is None:
                text = "".join(row.get("deltas", []))
            rows.append((registered_name(row["format"]) or row["format"], text))
    return rows


@pytest.mark.parametrize("fmt", toolcalls.list_formats())
def test_every_value_the_engine_builds_has_its_field_type(fmt: str) -> None:
    """Validating a result's own dump gives it back exactly: a list where a tuple belongs, an
    int where a str does, would differ after validation."""
    texts = [text for name, text in _corpus_texts() if name == fmt]
    texts += ["<tool_call>", "plain text", ""]  # cut-off and call-less results too
    for text in texts:
        result = toolcalls.parse(text, fmt)
        assert ParseResult.model_validate(result.model_dump()) == result, text
        streamed = toolcalls.stream(fmt)
        for char in text:
            streamed.feed(char)
        streamed.close()
        assert ParseResult.model_validate(streamed.result().model_dump()) == streamed.result()


def test_a_result_taken_mid_stream_does_not_change_as_the_stream_goes_on() -> None:
    parser = toolcalls.stream("hermes")
    parser.feed('<tool_call>{"name": "a", "arguments": {}}</tool_call> ')
    early = parser.result()
    parser.feed('<tool_call>{"name": "b", "arguments": {}}</tool_call>')
    parser.close()
    assert [call.name for call in early.calls] == ["a"]
    assert [call.name for call in parser.result().calls] == ["a", "b"]
