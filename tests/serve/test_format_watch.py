"""A model configured with another format than the one it writes
(`toolcalls.serve._format_watch`): its markup comes back as text, and the log says, once per
model, which format to configure; nothing is said where the format is right or the text holds
no markup."""

from __future__ import annotations

import logging

import pytest
from clients import chat_stream_raw, chat_whole, openai_client
from upstream import FakeUpstream, corpus_rows

from toolcalls.parsing._events import TextDelta
from toolcalls.parsing._registry import get_format
from toolcalls.serve._format_watch import KEPT, FormatWatch, markers

HI = [{"role": "user", "content": "hi"}]
ROW = corpus_rows("minimax_m2", calls=1)[0]


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records
            if record.levelno == logging.WARNING and "writes" in record.getMessage()]


@pytest.mark.parametrize("stream", [False, True])
def test_markup_of_another_format_is_warned_about_once_per_model(
        start_proxy, upstream: FakeUpstream, caplog, stream: bool) -> None:
    upstream.script(ROW["text"])
    client = openai_client(start_proxy(mode="prompt", model_formats={"misread-*": "hermes"}))
    ask = chat_stream_raw if stream else chat_whole
    model = f"misread-{'streamed' if stream else 'whole'}"
    with caplog.at_level(logging.INFO, logger="toolcalls.serve"):
        for _ in range(2):
            answer = ask(client, model=model, messages=HI, tools=ROW["tools"])
            assert answer["calls"] == [] and "<invoke name=" in answer["content"]
    assert _warnings(caplog) == [
        f"model {model!r} writes minimax_m2 markup, but its answers are parsed as hermes, "
        f"so its calls come back as text: configure --model-format '{model}=minimax_m2'"]


def test_nothing_is_said_when_the_format_is_right_or_there_is_no_markup(
        start_proxy, upstream: FakeUpstream, caplog) -> None:
    client = openai_client(start_proxy(mode="prompt", model_formats={"right-*": "minimax_m2",
                                                                     "plain-*": "hermes"}))
    with caplog.at_level(logging.INFO, logger="toolcalls.serve"):
        upstream.script(ROW["text"])
        assert chat_whole(client, model="right-1", messages=HI, tools=ROW["tools"])["calls"]
        upstream.script("No call needed: it is 4.")
        chat_whole(client, model="plain-1", messages=HI, tools=ROW["tools"])
        chat_stream_raw(client, model="plain-2", messages=HI, tools=ROW["tools"])
    assert _warnings(caplog) == []


def test_a_marker_split_across_pieces_is_seen_and_the_kept_text_is_bounded() -> None:
    watch = FormatWatch("split-model", get_format("hermes"))
    for piece in ["Let me look. <func", "tion=get_weather>\n", "x" * (2 * KEPT)]:
        watch.see(TextDelta(piece))
    assert watch.kept is not None and watch.kept.startswith("<function=")
    assert len(watch.kept) == KEPT


def test_markers_leave_out_what_ordinary_text_holds() -> None:
    assert "<tool_call>" in markers() and "[TOOL_CALLS]" in markers()
    assert '"name"' not in markers() and "```json" not in markers()


def test_repair_mode_reading_any_markup_is_not_watched() -> None:
    assert not FormatWatch("m", "auto").active and not FormatWatch("m", None).active
