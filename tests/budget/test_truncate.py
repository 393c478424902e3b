"""Tool-result truncation: caps respected, head and tail kept, the cut marked, JSON kept valid."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolcalls.budget._tokens import count_tokens
from toolcalls.budget._truncate import DEFAULT_RESULT_CHARS, MIN_RESULT_CHARS, truncate_result

# JSON values as tools return them: nested objects and arrays of strings, numbers and literals.
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**12), max_value=10**12)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=300),
    lambda children: st.lists(children, max_size=12)
    | st.dictionaries(st.text(max_size=12), children, max_size=12),
    max_leaves=60,
)


def test_a_result_within_the_cap_is_returned_unchanged() -> None:
    text = '{"b": 1,\n  "a": [1, 2]}'  # JSON, but not re-serialised when it fits
    assert truncate_result(text, 100) is text
    assert truncate_result("x" * DEFAULT_RESULT_CHARS) == "x" * DEFAULT_RESULT_CHARS


def test_plain_text_keeps_head_and_tail_and_says_how_much_was_cut() -> None:
    text = "".join(f"line {n}\n" for n in range(5000))
    cut = truncate_result(text, 1000)
    assert len(cut) <= 1000
    assert cut.startswith("line 0\nline 1\n") and cut.endswith("line 4998\nline 4999\n")
    head, marker, tail = cut.partition("\n…[")
    omitted = int(marker and tail.split(" characters truncated]")[0])
    assert len(head) + omitted + len(tail.split("]…\n", 1)[1]) == len(text)


def test_a_json_array_keeps_its_first_and_last_items() -> None:
    rows = [{"id": n, "title": f"issue {n}", "body": "words " * 80} for n in range(200)]
    cut = truncate_result(json.dumps(rows), 3000)
    kept = json.loads(cut)
    assert len(cut) <= 3000
    ids = [row["id"] for row in kept if isinstance(row, dict)]
    assert ids[0] == 0 and ids[-1] == 199
    markers = [row for row in kept if isinstance(row, str)]
    assert markers == [f"…[{200 - len(ids)} items truncated]…"]


def test_a_long_json_string_is_cut_inside_the_string() -> None:
    value = {"path": "a.txt", "content": "start " + "x" * 50_000 + " end"}
    kept = json.loads(truncate_result(json.dumps(value), 2000))
    assert kept["path"] == "a.txt"
    assert kept["content"].startswith("start ") and kept["content"].endswith(" end")
    assert "characters truncated]…" in kept["content"]


def test_a_wide_json_object_marks_the_members_it_drops() -> None:
    value = {f"key{n}": n for n in range(2000)}
    kept = json.loads(truncate_result(json.dumps(value), 500))
    assert "key0" in kept and "key1999" in kept
    (marker,) = [key for key in kept if key.startswith("…truncated")]
    assert kept[marker] == f"{2000 - len(kept) + 1} members omitted"


def test_the_marker_key_never_overwrites_a_real_member() -> None:
    value = {"…truncated": "mine", **{f"k{n}": "v" * 20 for n in range(500)}}
    kept = json.loads(truncate_result(json.dumps(value), 400))
    assert kept["…truncated"] == "mine"
    assert any(key.startswith("…truncated…") for key in kept)


@pytest.mark.parametrize("number", ["NaN", "Infinity", "1e999"])
def test_numbers_json_cannot_carry_make_the_result_plain_text(number: str) -> None:
    text = f'[{number}, "{"y" * 500}"]'  # Python reads these; JSON has no such values
    cut = truncate_result(text, 200)
    assert len(cut) <= 200 and cut.startswith(f"[{number}, ") and "\n…[" in cut


def test_a_cap_below_the_minimum_is_refused() -> None:
    with pytest.raises(ValueError, match=str(MIN_RESULT_CHARS)):
        truncate_result("x" * 1000, MIN_RESULT_CHARS - 1)


def test_a_token_cap_counts_tokens() -> None:
    text = json.dumps([{"n": n, "text": "lorem ipsum dolor " * 20} for n in range(300)])
    cut = truncate_result(text, None, max_tokens=500)
    assert count_tokens(cut) <= 500 < count_tokens(text)
    assert json.loads(cut)[0]["n"] == 0


def test_a_token_cap_that_nothing_can_meet_is_refused() -> None:
    with pytest.raises(ValueError, match="too small"):
        truncate_result("🙂" * 5000, None, max_tokens=3)


@given(json_values, st.integers(min_value=MIN_RESULT_CHARS, max_value=3000))
def test_any_json_value_stays_valid_json_within_any_cap(value: object, cap: int) -> None:
    text = json.dumps(value, ensure_ascii=False, indent=1)
    cut = truncate_result(text, cap)
    assert len(cut) <= cap
    parsed = json.loads(cut)
    if cut != text:
        assert type(parsed) in (type(value), str)  # a container only becomes a marker string


@given(st.text(min_size=1, max_size=4000), st.integers(min_value=MIN_RESULT_CHARS, max_value=2000))
def test_any_text_is_cut_to_the_cap_keeping_both_ends(text: str, cap: int) -> None:
    cut = truncate_result(text, cap)
    assert len(cut) <= cap
    if cut != text:
        head, _, rest = cut.partition("\n…[")
        tail = rest.split("]…\n", 1)[1]
        assert text.startswith(head) and text.endswith(tail)
        assert math.isclose(len(head), len(tail), abs_tol=1)


@given(json_values, st.integers(min_value=256, max_value=1500))
def test_any_json_value_fits_a_token_cap(value: object, cap: int) -> None:
    cut = truncate_result(json.dumps(value, ensure_ascii=False), None, max_tokens=cap)
    assert count_tokens(cut) <= cap
    json.loads(cut)


@pytest.mark.parametrize("depth", [250, 800, 3000, 100_000])
@pytest.mark.parametrize("shape", ["[", '{"a":'])
def test_json_nested_thousands_deep_is_cut_as_text(depth: int, shape: str) -> None:
    # 800 deep: RecursionError on main (json.loads read it, the cut recursed into it).
    closing = "]" if shape == "[" else "}"
    text = shape * depth + ("" if shape == "[" else "1") + closing * depth
    cut = truncate_result(text, 200)
    assert len(cut) <= 200
    assert "characters truncated" in cut
    assert truncate_result(text + " " * 10, max_chars=None, max_tokens=50) != ""
