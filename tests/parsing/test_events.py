"""The events the engine makes without their dataclass __init__ are the events __init__ makes."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from toolcalls.parsing import _build
from toolcalls.parsing._events import ArgumentsDelta, ReasoningDelta, TextDelta

MADE = [
    (_build.text_delta("héllo"), TextDelta("héllo")),
    (_build.reasoning_delta("hmm"), ReasoningDelta("hmm")),
    (_build.arguments_delta(3, '{"a": '), ArgumentsDelta(3, '{"a": ')),
]


@pytest.mark.parametrize(("made", "constructed"), MADE, ids=lambda e: type(e).__name__)
def test_a_made_event_is_the_constructed_one(made: object, constructed: object) -> None:
    assert type(made) is type(constructed)
    assert made == constructed and hash(made) == hash(constructed)
    assert repr(made) == repr(constructed)
    # every field is set (asdict reads them all): a field added to the class and not to its
    # maker fails here
    assert dataclasses.asdict(made) == dataclasses.asdict(constructed)  # type: ignore[call-overload]
    assert pickle.loads(pickle.dumps(made)) == constructed
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.kind = "other"  # type: ignore[attr-defined]


def test_made_events_match_their_class_patterns() -> None:
    match _build.arguments_delta(1, "x"):
        case ArgumentsDelta(index=1, fragment="x", kind="arguments_delta"):
            pass
        case _:
            pytest.fail("the made ArgumentsDelta did not match its pattern")
