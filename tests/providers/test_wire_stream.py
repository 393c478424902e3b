"""`WireDecoder` (toolcalls/providers/_wire_stream.py): SSE and NDJSON split anywhere give the
JSON of each event; what carries none is skipped, what cannot be read is kept in `unread`."""

from __future__ import annotations

import json
from typing import Any

from toolcalls.providers._wire_stream import WireDecoder

EVENTS = [{"a": 1}, {"b": "é\nx"}, {"c": [1, 2]}]
SSE = "".join(f"data: {json.dumps(e, ensure_ascii=False)}\r\n\r\n" for e in EVENTS)
NDJSON = "".join(json.dumps(e) + "\n" for e in EVENTS)


def decoded(pieces: list[str | bytes]) -> tuple[list[dict[str, Any]], list[str]]:
    wire = WireDecoder()
    found = [event for piece in pieces for event in wire.feed(piece)] + wire.finish()
    return found, wire.unread


def test_sse_and_ndjson_split_anywhere_give_every_event() -> None:
    for text in (SSE + "data: [DONE]\n\n", NDJSON):
        raw = text.encode()
        for cut in range(len(raw) + 1):  # inside a line, a UTF-8 character, a CRLF
            assert decoded([raw[:cut], raw[cut:]]) == (EVENTS, [])


def test_data_over_several_lines_comments_and_unreadable_lines() -> None:
    text = ': ping\nevent: x\nid: 1\ndata: {"a":\ndata: 1}\n\nnot json\n{"broken"\n'
    assert decoded([text]) == ([{"a": 1}], ["not json", '{"broken"'])


def test_lines_without_their_newline_are_read_whole() -> None:
    lines = [f"data: {json.dumps(e)}" for e in EVENTS]
    assert decoded([piece for line in lines for piece in (line, "")]) == (EVENTS, [])
