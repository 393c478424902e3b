"""Long values read in many pieces: the text a reader grows in place must be exactly the value.

`toolcalls.parsing._json.JsonReader` and the XML-parameter reader fold the pieces of a value into
one text every few dozen pieces (to hold a long value once, see ``bench/resources.py``); these
values run to hundreds of pieces, with escapes, surrogate pairs and framing newlines at the
piece boundaries, so every fold point is crossed.
"""

from __future__ import annotations

import json
from typing import Any

from helpers import assert_events_consistent, split_at, stream_chunks
from hypothesis import given, settings
from hypothesis import strategies as st

from toolcalls import get_format, to_tools
from toolcalls.parsing._json import JsonReader

TOOLS = [
    {
        "name": "write_file",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        },
    }
]
LONG_TEXT = st.text(
    alphabet=st.sampled_from(["a", " ", "\n", "\r", '"', "\\", "é", "€", "😀", "<", "/"]),
    min_size=100,
    max_size=400,
)


def _read_in_pieces(text: str, sizes: list[int]) -> tuple[Any, str]:
    """The value a `JsonReader` reads from `text` fed in pieces, and its fragments joined."""
    reader, buf, pos, fragments = JsonReader(), "", 0, []
    start = 0
    for size in [*sizes, len(text)]:
        buf, pos = buf[pos:] + text[start : start + size], 0
        start += size
        pos = reader.feed(buf, pos, start >= len(text))
        fragments += reader.take_fragments()
        if start >= len(text):
            break
    return reader.value, "".join(fragments)


@settings(max_examples=60)
@given(LONG_TEXT, st.lists(st.integers(1, 3), min_size=200, max_size=400))
def test_a_long_json_string_read_in_pieces_is_the_value(value: str, sizes: list[int]) -> None:
    text = json.dumps({"content": value, "n": [value[:50], 1]})
    read, streamed = _read_in_pieces(text, sizes)
    assert read == json.loads(text)
    assert json.loads(streamed) == read


@settings(max_examples=40)
@given(LONG_TEXT, st.sampled_from(["\n", "\r\n"]), st.integers(1, 3))
def test_a_long_framed_xml_value_streamed_is_the_batch_value(
    value: str, newline: str, step: int
) -> None:
    """Qwen3-Coder frames values with newlines; the ones dropped sit at the ends of the text."""
    text = (
        f"<tool_call>\n<function=write_file>\n<parameter=content>{newline}{value}{newline}"
        "</parameter>\n</function>\n</tool_call>"
    )
    batch = get_format("qwen3_coder").parse(text, tools=to_tools(TOOLS))
    chunks = split_at(text, list(range(step, len(text), step)))
    events, streamed = stream_chunks("qwen3_coder", chunks, tools=TOOLS)
    assert streamed == batch
    assert_events_consistent(events, streamed)
    if not (newline == "\n" and value.endswith("\r")):  # else "\r\n" is the framing
        assert batch.calls[0].arguments["content"] == value
