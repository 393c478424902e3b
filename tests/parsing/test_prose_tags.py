"""Prose that names a reasoning tag or a code fence never loses a real call (`formats._base`).

A model explaining its own protocol writes the tags in sentences (``Use the <think> tag to
reason.``, ``Wrap code in ``` fences.``); the call it makes after that is still a call. Each
case is checked whole, one character at a time and at every 2-way split (`checked`), in every
format where the rule applies.
"""

from __future__ import annotations

import pytest
from helpers import checked, stream_chunks

import toolcalls
from toolcalls import ReasoningDelta, TextDelta, ToolCall

CALL = ToolCall(id="call00000", name="get_weather", arguments={"city": "Paris"}, span=(0, 0))
WITH_REASONING = [n for n in toolcalls.list_formats() if toolcalls.get_format(n).reasoning_tags]
WITH_FENCES = [n for n in toolcalls.list_formats() if toolcalls.get_format(n).code_fence]
# Where a call in reasoning is reasoning (not Kimi K2's: `Format.calls_in_reasoning`).
REHEARSING = [n for n in WITH_REASONING if not toolcalls.get_format(n).calls_in_reasoning]


def _call(fmt: str) -> str:
    return toolcalls.get_format(fmt).render_calls([CALL])


def _tags(fmt: str) -> tuple[str, str]:
    tags = toolcalls.get_format(fmt).reasoning_tags
    assert tags is not None
    return tags


def _calls(result: toolcalls.ParseResult) -> list[tuple[str, object]]:
    return [(call.name, call.arguments) for call in result.calls]


# -- a reasoning block opened mid-text ends at a call ------------------------------------------


@pytest.mark.parametrize("fmt", WITH_REASONING)
def test_a_reasoning_tag_named_in_prose_loses_no_call(fmt: str) -> None:
    start, _ = _tags(fmt)
    result = checked(fmt, f"Use the {start} tag to reason.\n{_call(fmt)}")
    assert _calls(result) == [("get_weather", {"city": "Paris"})]
    assert result.content == "Use the" and not result.incomplete


@pytest.mark.parametrize("fmt", WITH_REASONING)
def test_a_second_reasoning_tag_after_a_closed_block_loses_no_call(fmt: str) -> None:
    start, end = _tags(fmt)
    text = f"{start}Weather wanted.{end}Now. Models write {start} tags.\n{_call(fmt)}"
    result = checked(fmt, text)
    assert _calls(result) == [("get_weather", {"city": "Paris"})]
    assert (result.reasoning or "").startswith("Weather wanted.")


@pytest.mark.parametrize("fmt", REHEARSING)
def test_the_call_that_ends_a_mid_text_reasoning_block_is_reported(fmt: str) -> None:
    start, end = _tags(fmt)
    result = checked(fmt, f"Answer.\n{start}maybe\n{_call(fmt)}\nthen{end}done")
    assert _calls(result) == [("get_weather", {"city": "Paris"})]
    assert result.reasoning == "maybe"
    kinds = [issue.kind for issue in result.issues]
    assert kinds == ["reasoning_ended_by_call", "stray_reasoning_end"]
    assert result.content == f"Answer.\nthen{end}done"


@pytest.mark.parametrize("fmt", WITH_REASONING)
def test_a_mid_text_reasoning_block_that_closes_first_is_reasoning(fmt: str) -> None:
    # GLM's interleaved thinking: a second block between content and the call (corpus glm45).
    start, end = _tags(fmt)
    result = checked(fmt, f"Hello.\n{start}Checking the city.{end}\n{_call(fmt)}")
    assert result.reasoning == "Checking the city." and not result.issues
    assert _calls(result) == [("get_weather", {"city": "Paris"})]


def test_a_call_opener_its_reader_rejects_stays_in_the_reasoning() -> None:
    result = checked("hermes", "Answer.\n<think>use <tool_call> tags here</think>done")
    assert result.reasoning == "use <tool_call> tags here"
    assert result.content == "Answer.done" and not result.issues


def test_a_stray_token_inside_mid_text_reasoning_does_not_end_it() -> None:
    text = "Answer.\n<think>a <｜end▁of▁sentence｜> b</think>done"
    result = checked("deepseek_v32_dsml", text)
    assert result.reasoning is not None and result.reasoning.endswith("b")
    assert "reasoning_ended_by_call" not in [issue.kind for issue in result.issues]


@pytest.mark.parametrize("fmt", REHEARSING)
def test_a_reasoning_block_that_opens_the_text_keeps_a_call_inside_as_reasoning(fmt: str) -> None:
    # The rule only covers blocks opened mid-text: the response's own reasoning may rehearse a
    # call, closed or cut off (LESSONS 20), with the tag in the text or opened by the prompt.
    start, _ = _tags(fmt)
    for text, thinking in ((f"{start}maybe {_call(fmt)}", False), (f"maybe {_call(fmt)}", True)):
        result = checked(fmt, text, thinking=thinking)
        assert not result.calls and not result.incomplete and not result.issues


def test_a_mid_text_reasoning_block_streams_without_waiting_for_its_end() -> None:
    parser = toolcalls.stream("hermes")
    events = parser.feed("Answer.\n<think>" + "long thought " * 100)
    streamed = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
    assert len(streamed) >= len("long thought " * 99)


# -- a fence opens a code block at the start of a line ----------------------------------------


@pytest.mark.parametrize("fmt", WITH_FENCES)
def test_a_fence_named_in_prose_loses_no_call(fmt: str) -> None:
    result = checked(fmt, f"Wrap code in ``` fences.\n{_call(fmt)}")
    assert _calls(result) == [("get_weather", {"city": "Paris"})]
    assert result.content == "Wrap code in ``` fences." and not result.issues


@pytest.mark.parametrize(
    "text",
    [
        "Example:\n```\n{call}\n```\nDone.",
        "Example:\n   ```json\n{call}\n```",
        "Action: ```json\n{call}\n```",
        "Action: ```\n{call}\n```",
        "<think>Show it.</think>```\n{call}\n```",
    ],
    ids=["line_start", "indented", "mid_line_language_tag", "mid_line_bare", "after_tag"],
)
def test_a_fence_that_opens_a_code_block_still_quotes_the_call(text: str) -> None:
    result = checked("hermes", text.format(call=_call("hermes")))
    assert not result.calls and [i.kind for i in result.issues] == ["call_in_code_fence"]


def test_a_mid_line_fence_is_decided_within_a_language_tag_length() -> None:
    parser = toolcalls.stream("hermes")
    events = parser.feed("Wrap ```" + "x" * 40)
    shown = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert shown.startswith("Wrap ```xxx")


@pytest.mark.parametrize("cut", range(1, 12))
def test_the_text_before_a_fence_is_read_the_same_in_any_chunking(cut: int) -> None:
    # `starts_line` reads the character before the fence, which the buffer drops on the next
    # chunk: a fence waiting for its language tag must keep the first verdict.
    text = f"Say ``` fences.\n{_call('hermes')}"
    _, streamed = stream_chunks("hermes", [text[:cut], text[cut:]])
    assert streamed == toolcalls.parse(text, "hermes") and len(streamed.calls) == 1
