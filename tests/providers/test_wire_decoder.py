"""`WireDecoder` (toolcalls/providers/_wire_decoder.py): SSE and NDJSON split anywhere give the
JSON of each event; what carries none is skipped, what cannot be read is an issue in its place."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolcalls
from toolcalls.parsing._models import ParseIssue
from toolcalls.providers._wire_decoder import WireDecoder

RECORDED = sorted((Path(__file__).resolve().parents[2] / "fixtures" / "providers").glob(
    "*/*.[sn][sd]*"))
"""The recorded streams (SSE and NDJSON) of every provider."""
EVENTS = [{"a": 1}, {"b": "é\nx"}, {"c": [1, 2]}]
SSE = "".join(f"data: {json.dumps(e, ensure_ascii=False)}\r\n\r\n" for e in EVENTS)
NDJSON = "".join(json.dumps(e) + "\n" for e in EVENTS)
MULTILINE = 'data: {"a":\ndata: 1}\n\n'  # one event, its data over two lines


def decoded(pieces: list[str | bytes]) -> tuple[list[dict[str, Any]], list[str]]:
    """The events, and the kinds of the issues: each in its place (an issue as its kind)."""
    wire = WireDecoder()
    found = [item for piece in pieces for item in wire.feed(piece)] + wire.finish()
    events = [item for item in found if not isinstance(item, ParseIssue)]
    return events, [item.kind if isinstance(item, ParseIssue) else "event" for item in found]


def events(pieces: list[str | bytes]) -> list[dict[str, Any]]:
    found, kinds = decoded(pieces)
    assert set(kinds) == {"event"}, kinds
    return found


def two_pieces(text: str | bytes) -> list[list[str | bytes]]:
    """`text` cut once at every place (inside a line, a UTF-8 character, a CRLF)."""
    return [[text[:cut], text[cut:]] for cut in range(len(text) + 1)]


def test_sse_and_ndjson_split_anywhere_give_every_event() -> None:
    for text in (SSE + "data: [DONE]\n\n", NDJSON):
        for pieces in two_pieces(text.encode()):
            assert events(pieces) == EVENTS


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
def test_every_line_end_the_sse_spec_allows_split_anywhere(end: str) -> None:
    """CR alone ends a line too (it lost every event); a CRLF split between two pieces is one
    line end, not two."""
    text = (SSE.replace("\r\n", "\n") + MULTILINE).replace("\n", end)
    for pieces in two_pieces(text):
        assert events(pieces) == [*EVENTS, {"a": 1}]
    pieces = [text[at:at + 3] for at in range(0, len(text), 3)]
    assert events(pieces) == [*EVENTS, {"a": 1}]


@pytest.mark.parametrize("text", [SSE, NDJSON], ids=["sse", "ndjson"])
def test_a_byte_order_mark_first_is_dropped_split_or_not(text: str) -> None:
    """A stream that starts with U+FEFF (a file saved by an editor) lost its first event."""
    for pieces in two_pieces(("\ufeff" + text).encode()):
        assert events(pieces) == EVENTS
    assert events(["\ufeff" + text]) == EVENTS
    assert events([text + "\ufeff" + text]) == EVENTS * 2  # two captures, one after the other


def test_an_empty_piece_inside_an_event_is_nothing() -> None:
    """An empty chunk between the ``data:`` lines of one event ended the event halfway."""
    head, tail = MULTILINE.split("data: 1}")
    assert events([head, "", "data: 1}" + tail]) == [{"a": 1}]
    assert events([head, b"", b"data: 1}" + tail.encode()]) == [{"a": 1}]
    assert events(["data: {", "", '"a": 1}\n\n']) == [{"a": 1}]  # "" not read as a blank line
    assert events(["data: {", "", '"a": 1', "}", "", "", "\n\n"]) == [{"a": 1}]


def test_comments_fields_and_data_without_a_space_carry_no_json() -> None:
    text = (': ping\nevent: x\nid: 1\nretry: 100\nevent\ndata:{"a":1}\n\n'
            'data:  {"b": 2}\n\ndata:\n\ndata: [DONE]\n\n')
    for pieces in two_pieces(text):
        assert events(pieces) == [{"a": 1}, {"b": 2}]


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("event: error\ndata: upstream overloaded, try later\n\n",
         {"message": "upstream overloaded, try later"}),
        ("event: error\n\n", {"message": "an SSE error event, empty"}),
        ('event: error\ndata: {"message": "Overloaded"}\n\n', {"message": "Overloaded"}),
        ("event: error\ndata: Internal\ndata: Server Error", {"message": "Internal\nServer Error"}),
    ],
    ids=["text", "empty", "object", "cut_off"],
)
def test_an_error_event_is_the_providers_error_whatever_its_data(
    text: str, error: dict[str, Any]
) -> None:
    """``event: error`` with data that is not the error object was dropped (not JSON) or read
    as an ordinary event (an object without ``error``)."""
    for pieces in two_pieces(text):
        assert events(pieces) == [{"error": error}]
    reader = toolcalls.read_stream("anthropic")
    reader.feed(text)
    reader.close()
    assert [issue.kind for issue in reader.result().issues] == ["provider_error"]
    assert reader.result().finish_reason == "error"


def test_an_error_event_that_is_the_error_object_is_read_once() -> None:
    text = ('event: error\ndata: {"type": "error", "error": {"message": "x"}}\n\n'
            'event: ping\ndata: {"type": "ping"}\n\n')
    for pieces in two_pieces(text):
        assert events(pieces) == [{"type": "error", "error": {"message": "x"}}, {"type": "ping"}]


def test_what_cannot_be_read_is_an_issue_in_its_place() -> None:
    text = 'not json\ndata: {"a": 1}\n\n{"broken"\ndata: [1]\n\nother: field\n{"b": 2}\n'
    expected = ([{"a": 1}, {"b": 2}],
                ["unread_stream_data", "event", "unread_stream_data", "unread_stream_data",
                 "unread_stream_data", "event"])
    for pieces in two_pieces(text):
        assert decoded(pieces) == expected


def test_an_issue_says_what_was_not_read_in_a_few_words() -> None:
    wire = WireDecoder()
    [issue] = wire.feed("x" * 10_000 + "\n")
    assert isinstance(issue, ParseIssue) and issue.span is None
    assert "not read (10000 characters: 'xxx" in issue.message and len(issue.message) < 200
    [issue] = wire.feed('{"a": ' + "1" * 10_000 + "x}\n")  # its start and its end
    assert isinstance(issue, ParseIssue) and issue.message.endswith("111x}')")


def test_json_nested_too_deep_is_an_issue_not_a_crash() -> None:
    deep = '{"a":' * 100_000 + "1" + "}" * 100_000
    assert decoded([f"data: {deep}\n\n", deep + "\n"])[1] == ["unread_stream_data"] * 2


_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(), lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=8)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.dictionaries(st.text(max_size=5), _VALUES, min_size=1, max_size=3),
                min_size=1, max_size=4),
       st.sampled_from(["\n", "\r\n", "\r"]), st.booleans(), st.booleans(), st.data())
def test_any_events_any_line_end_any_split(events_sent: list[dict[str, Any]], end: str,
                                           split_data: bool, ndjson: bool,
                                           data: st.DataObject) -> None:
    """Events as SSE (a ``data:`` line each, or each object's JSON over several ``data:``
    lines) or NDJSON, in bytes cut at any places after the first line break, and as the
    lines ``iter_lines()`` gives."""
    if ndjson:
        lines = [json.dumps(event, ensure_ascii=False) for event in events_sent]
    else:
        lines = ["".join(f"data: {part}{end}" for part in
                         (json.dumps(event, indent=1 if split_data else None,
                                     ensure_ascii=False).split("\n"))) for event in events_sent]
    raw = end.join([": comment", *lines, ""]).encode()
    first = raw.index(end.encode()) + len(end)
    cuts = sorted(data.draw(st.lists(st.integers(first, len(raw)), max_size=12)))
    pieces: list[str | bytes] = [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)],
                                                            strict=True)]
    assert events(pieces) == events_sent
    lines_given: list[str | bytes] = list(raw.decode().split(end)[:-1])  # as iter_lines()
    assert events(lines_given) == events_sent


# -- lines without their line break: what iter_lines() gives ------------------------------------

def test_lines_without_their_newline_are_read_whole() -> None:
    lines = [f"data: {json.dumps(e)}" for e in EVENTS]
    assert events([piece for line in lines for piece in (line, "")]) == EVENTS


def test_a_line_that_cannot_be_read_does_not_swallow_the_lines_after_it() -> None:
    """Held as the start of a line, a corrupt line had every later line glued to it."""
    sse = ['data: {"broken"', "", 'data: {"a": 1}', "", "event: x", 'data: {"b": 2}', ""]
    assert decoded(sse) == ([{"a": 1}, {"b": 2}], ["unread_stream_data", "event", "event"])
    ndjson = ['{"broken"', '{"a": 1}', "not json", '{"b": 2}']
    assert decoded(ndjson) == ([{"a": 1}, {"b": 2}],
                               ["unread_stream_data", "event", "unread_stream_data", "event"])


def test_an_event_over_several_lines_without_their_newline() -> None:
    assert events(['data: {"a":', "data: 1}", "", 'data: {"b": 2}', ""]) == [{"a": 1}, {"b": 2}]


def test_a_long_first_line_in_pieces_stays_one_line() -> None:
    """Before any line break came, pieces that go on a line (even one that starts with ``:``
    or ``{``) are joined, not read as lines of their own."""
    line = 'data: {"a": [{"b": 1}, {"b": 2}], "c": "d"}'
    for size in (1, 2, 3, 5, 8):
        pieces: list[str | bytes] = [line[at:at + size] for at in range(0, len(line), size)]
        assert events([*pieces, "\n\n"]) == [{"a": [{"b": 1}, {"b": 2}], "c": "d"}]
        assert events(pieces) == [{"a": [{"b": 1}, {"b": 2}], "c": "d"}]


def test_a_line_read_without_its_break_is_not_ended_twice() -> None:
    """A whole line read at once, then its line break in the next piece: the break ends that
    line, it is not a blank line that ends the event being read."""
    assert events(["event: x", "\r\n", MULTILINE]) == [{"a": 1}]
    assert events(['data: {"a": 1}', "\r", "\n", 'data: {"b": 2}\n']) == [{"a": 1}, {"b": 2}]


@pytest.mark.parametrize("saved", RECORDED, ids=lambda path: path.name)
def test_a_recorded_stream_reads_the_same_as_lines_and_as_bytes_with_cr(saved: Path) -> None:
    """Every recorded stream, given as ``iter_lines()`` gives it or as bytes with CR line ends
    in 5-byte pieces, reads as it does whole."""
    provider = {"openai_chat": "openai"}.get(saved.parent.name, saved.parent.name)
    text = saved.read_text(encoding="utf-8")
    cr = text.replace("\n", "\r").encode()

    def read(pieces: list[str] | list[bytes]) -> toolcalls.ParseResult:
        reader = toolcalls.read_stream(provider, format="auto")
        for piece in pieces:
            reader.feed(piece)
        reader.close()
        return reader.result()

    whole = read([text])
    assert [issue.kind for issue in whole.issues if "stream" in issue.kind] == []
    assert read(text.splitlines()) == whole
    assert read([cr[at:at + 5] for at in range(0, len(cr), 5)]) == whole


# -- the end of the stream ---------------------------------------------------------------------

CALL_START = ('data: {"object": "chat.completion.chunk", "model": "m", "choices": [{"index": 0, '
              '"delta": {"tool_calls": [{"index": 0, "id": "c1", "type": "function", '
              '"function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Par')


def test_a_last_event_cut_off_is_an_issue() -> None:
    assert decoded([SSE, CALL_START]) == (EVENTS, ["event"] * 3 + ["truncated_stream"])
    assert decoded([SSE, 'data: {"a":\ndata: 1']) == (EVENTS, ["event"] * 3
                                                       + ["truncated_stream"])
    assert decoded([SSE, 'data: {"a":\ndata: 1}\n']) == ([*EVENTS, {"a": 1}], ["event"] * 4)
    assert decoded([NDJSON + '{"a": 1}']) == ([*EVENTS, {"a": 1}], ["event"] * 4)


def test_a_call_cut_off_in_the_last_event_reaches_the_result_as_an_issue() -> None:
    """The event that started the call was held in the decoder and dropped without a word."""
    for pieces in two_pieces(CALL_START):
        reader = toolcalls.read_stream("openai")
        for piece in pieces:
            reader.feed(piece)
        reader.close()
        [issue] = reader.result().issues
        assert issue.kind == "truncated_stream" and "get_weather" in issue.message


# -- bytes ---------------------------------------------------------------------------------------

def test_invalid_utf8_is_read_as_replacement_characters_with_one_issue() -> None:
    raw = b'data: {"a": "\xff\xfe"}\n\ndata: {"b": "\xc3"}\n\n'
    for pieces in two_pieces(raw):
        wire = WireDecoder()
        found = [item for piece in pieces for item in wire.feed(piece)] + wire.finish()
        assert found[:2] == [{"a": "\ufffd\ufffd"}, {"b": "\ufffd"}]
        [issue] = found[2:]
        assert isinstance(issue, ParseIssue) and issue.kind == "invalid_utf8"
        assert "byte 0xff at offset 13" in issue.message


def test_text_after_bytes_that_ended_inside_a_character() -> None:
    """The unfinished character is read in its place (U+FFFD), not after everything else."""
    found, kinds = decoded([b'data: {"a": "\xc3', '"}\n\ndata: {"b": 2}\n\n'])
    assert found == [{"a": "\ufffd"}, {"b": 2}] and kinds == ["event", "event", "invalid_utf8"]


def test_a_stream_that_ends_inside_a_character() -> None:
    found, kinds = decoded([b'{"a": 1}\n{"b": "\xe2\x82'])
    assert found == [{"a": 1}] and kinds == ["event", "invalid_utf8", "truncated_stream"]


# -- linear work -----------------------------------------------------------------------------------

@pytest.mark.parametrize("size", [1, 7, 64])
def test_a_long_line_in_small_pieces_is_looked_at_a_few_times_not_once_a_piece(size: int) -> None:
    """Linear work, checked without a clock: the characters looked at stay within a few times
    the input however small the pieces (the line grew by concatenation: a 20 MB line in 1 KB
    pieces took 6.6 s). Pieces that start with ``{`` are tried as lines of their own once
    each. bench/wire_lines.py measures the time."""
    line = 'data: {"a": [' + ", ".join(['{"b": 1}'] * 4000) + "]}"
    for text in (line + "\n\n", line):  # with its line break, and cut off
        wire = WireDecoder()
        for at in range(0, len(text), size):
            wire.feed(text[at:at + size].encode())
        wire.finish()
        assert wire.scanned <= 4 * len(text)
