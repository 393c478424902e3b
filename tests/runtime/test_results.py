"""ToolResult, its content items and the error taxonomy the model reads."""

from __future__ import annotations

import pytest

from toolcalls import ToolCall
from toolcalls.runtime import (
    Cancelled,
    Denied,
    Failed,
    InvalidArgs,
    Json,
    NotFound,
    RateLimited,
    Text,
    TimedOut,
    ToolImage,
    ToolResult,
)

CALL = ToolCall(id="c1", name="fs_write", arguments={}, source="native")


@pytest.mark.parametrize(("value", "content"), [
    ("hello", (Text("hello"),)),
    ({"a": 1}, (Json({"a": 1}),)),
    ([1, 2], (Json([1, 2]),)),
    (None, ()),
    (ToolImage("AAAA"), (ToolImage("AAAA"),)),
    (["see", ToolImage("AAAA")], (Text("see"), ToolImage("AAAA"))),
    (Text("x"), (Text("x"),)),
])
def test_result_of_whatever_a_tool_returns(value: object, content: tuple[object, ...]) -> None:
    assert ToolResult.of(value).content == content


def test_result_value_is_what_provider_writers_take() -> None:
    assert ToolResult.of({"a": 1}).value() == {"a": 1}
    assert ToolResult.of("text").value() == "text"
    assert ToolResult.of(["a", Json([1])]).value() == "a\n[1]"
    image = ToolImage("AAAA")
    assert ToolResult.of(["a", image]).value() == ["a", image]


def test_result_text_joins_items() -> None:
    result = ToolResult((Text("a"), Json({"k": "é"}), ToolImage("AAAA", "image/jpeg")))
    assert result.text() == 'a\n{"k": "é"}\n[image: image/jpeg]'


@pytest.mark.parametrize(("error", "says"), [
    (Failed.from_exception(OSError("disk full")), ["failed", "OSError: disk full"]),
    (NotFound("fs_wrte", ["fs_write"]), ["no tool named 'fs_wrte'", "Did you mean 'fs_write'"]),
    (NotFound("x", (), ["a", "b"]), ["available tools are: a, b"]),
    (InvalidArgs("fs_write", ["path: required"]),
     ["- path: required", "Do not retry with the same arguments"]),
    (Cancelled("the user pressed stop"), ["cancelled", "the user pressed stop"]),
    (Denied("outside the project", rule="fs_write(~/p/**)"), ["denied by the rule", "outside"]),
    (RateLimited("10 calls per 60 s", retry_after=3.0), ["10 calls per 60 s", "3.0 s"]),
    (TimedOut(2.5), ["within 2.5 s", "stopped"]),
])
def test_every_error_reads_as_a_result_the_model_can_act_on(error: Exception,
                                                            says: list[str]) -> None:
    assert isinstance(error, Exception)
    result = ToolResult.failure(error, CALL)  # type: ignore[arg-type]
    assert result.is_error and result.error is error and result.call == CALL
    for words in says:
        assert words in result.text()


def test_error_raised_without_a_call_names_its_tool_once_answered() -> None:
    result = ToolResult.failure(Denied("no")).for_call(CALL)
    assert "'fs_write'" in result.text() and result.call == CALL


def test_error_result_keeps_the_partial_output_a_tool_gave() -> None:
    partial = ToolResult((Text("line 1\nline 2"),), is_error=True, error=TimedOut(5))
    answered = partial.for_call(CALL)
    assert answered.content[0] == Text(TimedOut(5).for_model("fs_write"))
    assert answered.content[1:] == (Text("line 1\nline 2"),) and answered.is_error
