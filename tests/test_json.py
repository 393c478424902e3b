"""The one serializer (`canonical`, `string_body` spell JSON as ``json.dumps`` does), and the
limit on how deep JSON arguments may nest."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolcalls
from toolcalls._json import MAX_DEPTH, canonical, string_body

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(json_values)
def test_canonical_is_json_dumps_without_ascii_escapes(value: object) -> None:
    assert canonical(value) == json.dumps(value, ensure_ascii=False)


@given(st.text())
def test_string_body_is_the_quoted_string_without_its_quotes(text: str) -> None:
    assert string_body(text) == json.dumps(text, ensure_ascii=False)[1:-1]
    assert json.loads('"' + string_body(text) + '"') == text


DEEP_CALLS = {
    "hermes": lambda args: '<tool_call>{"name": "f", "arguments": ' + args + "}</tool_call>",
    "kimi_k2": lambda args: "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0"
    "<|tool_call_argument_begin|>" + args + "<|tool_call_end|><|tool_calls_section_end|>",
}


@pytest.mark.parametrize("fmt", sorted(DEEP_CALLS))
@pytest.mark.parametrize("extra", [0, 1, 2])
def test_json_deeper_than_the_limit_is_refused_whole_and_streamed_alike(
    fmt: str, extra: int
) -> None:
    """MAX_DEPTH containers (the envelope counts) are read; one more is refused, by the whole
    decoder and the incremental reader alike, however short or padded the text is."""
    envelope = 1 if fmt == "hermes" else 0
    depth = MAX_DEPTH - envelope + extra - 1  # arrays inside the arguments object
    for padding in ("", " " * 300):
        args = '{"a": ' + "[" * depth + padding + "]" * depth + "}"
        text = DEEP_CALLS[fmt](args)
        result = toolcalls.parse(text, fmt)
        streamed = toolcalls.stream(fmt)
        for start in range(0, len(text), 7):
            streamed.feed(text[start : start + 7])
        streamed.close()
        assert streamed.result() == result
        if extra == 0:
            assert len(result.calls) == 1 and not result.issues
        else:
            assert not result.calls
            assert [issue.kind for issue in result.issues] == ["invalid_arguments"]
