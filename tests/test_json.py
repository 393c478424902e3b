"""The one serializer: `canonical` and `string_body` spell JSON as ``json.dumps`` does."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from toolcalls._json import canonical, string_body

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
