"""A call's header (from its opener to the tag that ends it) is read alike in one piece and one
character at a time, in every format: an opener followed by prose, blanks or half a header.

Found this way (LESSONS 3): in one piece, glm45 read ``<tool_call>\\nUse <tool_call>x`` as a
call named "Use", while streamed the opener was turned away as soon as ``\\nU`` showed; MiniMax-M2
and DSML read a tag broken by a newline in one piece only (``<invoke name=\\n"f">``); GLM read a
key followed by a newline (``<arg_key>city\\n</arg_key>``) in one piece only.
"""

from __future__ import annotations

import re

import pytest
from helpers import assert_events_consistent, assert_lossless, stream_chunks
from hypothesis import given
from hypothesis import strategies as st

import toolcalls
from toolcalls.parsing.formats.gpt_oss import MAX_HEADER

FORMATS = toolcalls.list_formats()
GAPS = ["", " ", "\t", "\n", "\n\n", "\r\n", "\\n"]
WORDS = ["Use", "get_time", "tags.", "Use this", "functions.get_time:0", 'name="get_time"',
         "name=", '"get_time"']  # fmt: skip
# Splits an example call at its tags, special tokens and punctuation.
TOKENS = re.compile(r"(<[^<>]*>|<｜[^｜]*｜>|<\|[^|]*\|>|\[[A-Z_]+\]|[\s\"'=:{}\[\](),.]|\\n)")


def _follows(fmt: str) -> tuple[list[str], list[str]]:
    """What may come after a header: the format's markers and tags, and any piece of its example
    or prose."""
    spec = toolcalls.get_format(fmt)
    example = [piece for piece in TOKENS.split(spec.example) if piece]
    tags = [piece for piece in example if len(piece) > 1 and TOKENS.fullmatch(piece)]
    markers = sorted({*spec.call_openers(), *type(spec).signatures, *tags, ">"})
    return markers, sorted({*markers, *spec.compiled_openers().factories, *example, "prose."})


def opener_then_header(fmt: str) -> st.SearchStrategy[str]:
    """Text, a call opener, words between blanks (a name, perhaps), then a tag and anything."""
    openers = sorted(toolcalls.get_format(fmt).call_openers())
    markers, pieces = _follows(fmt)
    gap, word = st.sampled_from(GAPS), st.sampled_from(WORDS)
    header = st.lists(st.tuples(gap, word).map("".join), min_size=1, max_size=2).map("".join)
    rest = st.lists(st.sampled_from(pieces), max_size=3).map("".join)
    parts = st.tuples(st.sampled_from(["", "Hi ", "text\n"]), st.sampled_from(openers), header,
                      gap, st.sampled_from(markers), rest)  # fmt: skip
    return parts.map("".join)


def assert_streams_to_batch(fmt: str, text: str) -> toolcalls.ParseResult:
    batch = toolcalls.parse(text, fmt)
    assert_lossless(text, batch)
    events, streamed = stream_chunks(fmt, list(text))
    assert streamed == batch
    assert_events_consistent(events, streamed)
    return batch


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_opener_followed_by_anything_streams_to_the_batch_result(fmt: str) -> None:
    @given(opener_then_header(fmt))
    def check(text: str) -> None:
        assert_streams_to_batch(fmt, text)

    check()


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_mid_line_fence_before_an_opener_streams_to_the_batch_result(fmt: str) -> None:
    """Found by the test above (CI, xlam): a fence mid-line, then prose and a marker. A chunk
    ending right after the fence made xLAM's fence reader decide later, when the text before
    it had gone, so it took the fence for one opening a line and the marker as quoted."""
    text = "Hi ``` Use<tool_call>"
    batch = toolcalls.parse(text, fmt)
    for cut in range(1, len(text)):
        _, streamed = stream_chunks(fmt, [text[:cut], text[cut:]])
        assert streamed == batch, cut


# Word boundaries, and places between two marks ('="', '">'): where a model might slip a blank.
BOUNDARY = re.compile(r"\b|(?<=[^\w\s])(?=[^\w\s])")


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_blank_anywhere_in_a_call_header_streams_to_the_batch_result(fmt: str) -> None:
    example = toolcalls.get_format(fmt).example
    cuts = sorted({found.start() for found in BOUNDARY.finditer(example, 0, 60)})
    assert cuts
    for cut in cuts:
        for blank in ("\n", " "):
            assert_streams_to_batch(fmt, example[:cut] + blank + example[cut:])


@pytest.mark.parametrize(
    ("fmt", "text", "names"),
    [
        ("glm45", "<tool_call>\nUse <tool_call>x", []),
        ("glm47", "Calling: <tool_call>\n\nUse <tool_call> tags.\nThen <tool_call>get_time"
         "</tool_call>", ["get_time"]),
        ("glm45", "<tool_call>f\n<arg_key>city\n</arg_key>\n<arg_value>x</arg_value>\n"
         "</tool_call>", ["f"]),
        ("minimax_m2", '<minimax:tool_call>\n<invoke name=\n"f">\n</invoke>\n</minimax:tool_call>',
         []),
        ("deepseek_v32_dsml",
         "<｜DSML｜function_calls>\n<｜DSML｜invoke\nname=\"f\">\n</｜DSML｜invoke>\n"
         "</｜DSML｜function_calls>", []),
        ("qwen3_coder", "<tool_call>\n<function=\nget_time>\n</function>\n</tool_call>", []),
        ("kimi_k2", "<|tool_call_begin|>\n\nUse <|tool_call_begin|>x", []),
        ("deepseek_v31", "<｜tool▁call▁begin｜>\n\nUse <｜tool▁call▁begin｜>x", []),
    ],
)  # fmt: skip
def test_headers_found_by_the_property_stream_to_the_batch_result(
    fmt: str, text: str, names: list[str]
) -> None:
    result = assert_streams_to_batch(fmt, text)
    assert [call.name for call in result.calls] == names


@pytest.mark.parametrize(
    "text",
    ["<|channel|>commentary to=functions.f " + "a" * 300, "<|start|>" + "a" * 300,
     "<|channel|>a\n" * 40 + "1", "<|channel|>" * 40],
    ids=["long_recipient_header", "long_role", "repeated_channels", "repeated_openers"],
)
def test_a_gpt_oss_header_is_never_read_past_its_longest(text: str) -> None:
    """A harmony header is at most MAX_HEADER characters: where none ends within them, the opener
    is content, at the end of the text too, whole as streamed. Neither the header search nor
    its grammar reads further (each opener of a text of them repeated read the whole rest:
    13 KB of `<|channel|>a\\n` took 17.8 s)."""
    assert len(text) > MAX_HEADER
    batch = assert_streams_to_batch("gpt_oss", text)
    assert batch.content == text and batch.calls == batch.incomplete == []


@pytest.mark.parametrize(
    ("text", "names", "slips"),
    [
        ('[TOOL_CALLS]get_time{"tz": "UTC"}', ["get_time"], 1),
        ('[TOOL_CALLS]f{"a": 1}[TOOL_CALLS]g {"b": {"c": []}}', ["f", "g"], 2),
        ('[TOOL_CALLS] f{"a": 1}', [], 0),
        ('Sure.[TOOL_CALLS]f\n{"a": "{"} done', ["f"], 1),
        ('[TOOL_CALLS]f[ARGS]{"a": 1}[TOOL_CALLS]g{"b": 2}', ["f", "g"], 1),
        ('[TOOL_CALLS]f[CALL_ID]abcdefghi[ARGS]{"a": 1}', ["f"], 0),
        ('[TOOL_CALLS] [{"name": "f", "arguments": {}}]', ["f"], 0),
        ('[TOOL_CALLS]{"name": "f", "arguments": {}}', ["f"], 0),
        ('The [TOOL_CALLS] token {"a": 1}', [], 0),
        ("[TOOL_CALLS]get_time", [], 0),
    ],
)  # fmt: skip
def test_a_mistral_header_without_args_is_a_call_with_an_issue(
    text: str, names: list[str], slips: int
) -> None:
    # v11+ writes [TOOL_CALLS]name[ARGS]{...}; a server that strips special tokens drops [ARGS].
    result = assert_streams_to_batch("mistral", text)
    assert [call.name for call in result.calls] == names
    assert [i.kind for i in result.issues].count("recovered_slip") == slips


GPT_OSS_OPENERS = ["<|channel|>commentary to=functions.f ", "<|start|>", "<|channel|>final ",
                   " to=functions.f ", "<|channel|>analysis"]  # fmt: skip


@pytest.mark.parametrize("opener", GPT_OSS_OPENERS)
@pytest.mark.parametrize("size", [200, 240, 250, 256, 257, 262, 270, 300, 1000])
@pytest.mark.parametrize("end", ["", "<|mess", "<|message|>{}", " <|end|>"])
@pytest.mark.parametrize("before", ["", "Hi "])
def test_a_gpt_oss_header_of_any_length_streams_to_the_batch_result(
    before: str, opener: str, size: int, end: str
) -> None:
    # Streamed, a header with no token after 256 characters was content; in one piece the
    # end of the text made it a truncated call or markup (MAX_HEADER now counts in both).
    text = before + opener + "a" * (size - len(opener)) + end
    result = assert_streams_to_batch("gpt_oss", text)
    if size > 256:  # a header longer than MAX_HEADER is no header
        assert result.calls == [] and result.incomplete == [] and opener.strip() in result.content


@given(
    st.sampled_from(GPT_OSS_OPENERS),
    st.lists(st.sampled_from([" ", "\n", "json", "<|", "<|constrain|>", "to=x "]), max_size=6),
    st.integers(230, 300),
    st.sampled_from(["", "<", "<|message|>{}", "<|end|>", "<|call|>"]),
)
def test_long_gpt_oss_headers_stream_to_the_batch_result(
    opener: str, noise: list[str], size: int, end: str
) -> None:
    header = opener + "".join(noise)
    assert_streams_to_batch("gpt_oss", header + "a" * max(0, size - len(header)) + end)
