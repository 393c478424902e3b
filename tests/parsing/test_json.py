"""The one serializer (`canonical`, `string_body` spell JSON as ``json.dumps`` does), and the
limit on how deep JSON arguments may nest."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolcalls
from toolcalls.parsing._json import (
    _FIRST_WINDOW,
    _NEAR,
    _SCAN,
    MAX_DEPTH,
    canonical,
    scan_value,
    string_body,
)

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


def _outcome(scan: Callable[[str, int], tuple[Any, int]], buf: str, i: int) -> str:
    try:
        return repr(scan(buf, i))  # repr: NaN is not equal to itself
    except (ValueError, StopIteration, RecursionError) as error:
        return type(error).__name__


JSONISH = st.lists(
    st.sampled_from(['{"a": ', '"x', '\\u00e9', "\\ud83d\\ude00", "\\", '"', "[", "]", "{", "}",
                     ", ", ": ", "1", "-1.5e3", "tru", "true", "NaN", "-Infinity", " ", "\n"]),
    max_size=40,
).map("".join)


@given(
    st.integers(_FIRST_WINDOW - 40, _FIRST_WINDOW + 10),
    JSONISH,
    st.sampled_from(["[", '{"k": ', ""]),
)
def test_a_value_far_into_the_text_is_scanned_as_in_the_whole_text(
    pad: int, tail: str, head: str
) -> None:
    """`scan_value` hands the C scanner a window of the text from `i` on (see there): same
    value, end or error as the scanner given the whole text, wherever the first window cuts
    the value: here, in `tail`."""
    i = _NEAR + 3000
    buf = "x" * i + head + '["' + "z" * pad + '", ' + tail + "]" * 3 + " " + tail
    scanned = _outcome(lambda text, at: scan_value(_SCAN, text, at), buf, i)
    assert scanned == _outcome(_SCAN, buf, i)


RICH = '["ab\\u00e9", "\\ud83d\\ude00", -Infinity, true, 12.5e3, {"k": null}, NaN, [], "x'


@pytest.mark.parametrize("closed", [True, False], ids=["whole", "unterminated"])
def test_a_window_cut_anywhere_in_a_value_scans_as_the_whole_text(closed: bool) -> None:
    """The first window of `scan_value` ends at every character of a value in turn."""
    value = RICH + ('"]' if closed else "")
    for shift in range(len(value) + 2):
        i = _NEAR + 3000
        buf = "x" * i + "[" + " " * (_FIRST_WINDOW - len(value) - 1 + shift) + value
        scanned = _outcome(lambda text, at: scan_value(_SCAN, text, at), buf, i)
        assert scanned == _outcome(_SCAN, buf, i), shift


def test_a_value_that_fails_far_into_the_text_counts_no_line_before_it() -> None:
    """Linear time, without a clock: a JSONDecodeError counts the lines of its document up to
    the error, so a failed value must not have the whole text before it as its document (each
    of llama3_json's and Ollama's candidates `{"` x n did: quadratic)."""
    buf = "\n" * 100_000 + '{"a" 1}'
    with pytest.raises(json.JSONDecodeError) as raised:
        scan_value(_SCAN, buf, 100_000)
    assert len(raised.value.doc) <= _FIRST_WINDOW and raised.value.lineno == 1
