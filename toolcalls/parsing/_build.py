"""Models and events the parser makes from values it typed itself, without validating them.

Split from the engine so that both the reader context (`reader`) and the engine (`_engine`) make
them. tests/parsing/test_models.py and tests/parsing/test_events.py check that what these make is
indistinguishable from what the models' and events' own constructors make.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, TypeVar

from ._events import ArgumentsDelta, ReasoningDelta, TextDelta

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["arguments_delta", "built", "reasoning_delta", "text_delta"]

_Model = TypeVar("_Model", bound="BaseModel")
# Final: compiled, a final module name is read from a C static, not looked up in the module's
# dict on every use (five lookups per `built`, two `built` per short parse).
_new: Final = object.__new__
_set_slot: Final = object.__setattr__


def built(model: type[_Model], fields: dict[str, Any]) -> _Model:
    """An instance of `model` from `fields` the parser made itself, already of their types.

    The engine builds every `ToolCall`, `ParseResult`, `IncompleteCall` and `ParseIssue` from
    values it typed itself (str, int spans, dicts decoded from JSON), so validating them again
    is wasted work: this is what pydantic's `model_construct` does, without its Python loop
    over defaults (0.8 instead of 1.5 µs for a `ToolCall` validated, 2.0 with `model_construct`;
    a short parse makes two). `fields` must name every field; it becomes the instance's dict.
    tests/parsing/test_models.py checks that the result is indistinguishable from a validated one.
    """
    instance: _Model = _new(model)  # pydantic models have no __new__ of their own
    _set_slot(instance, "__dict__", fields)
    _set_slot(instance, "__pydantic_fields_set__", set(fields))
    _set_slot(instance, "__pydantic_extra__", None)
    _set_slot(instance, "__pydantic_private__", None)
    return instance


# The events a stream makes one of per delta, made without their dataclass __init__: a Python
# frame that sets each frozen field through object.__setattr__ (340-430 ns, a fifth of streaming
# a long Hermes value in 4-character deltas). The slots are set directly instead, as __init__
# sets them; tests/parsing/test_events.py checks the events are equal, alike and frozen all
# the same.
_set_text: Final = TextDelta.__dict__["text"].__set__
_set_text_kind: Final = TextDelta.__dict__["kind"].__set__
_set_reasoning: Final = ReasoningDelta.__dict__["text"].__set__
_set_reasoning_kind: Final = ReasoningDelta.__dict__["kind"].__set__
_set_index: Final = ArgumentsDelta.__dict__["index"].__set__
_set_fragment: Final = ArgumentsDelta.__dict__["fragment"].__set__
_set_fragment_kind: Final = ArgumentsDelta.__dict__["kind"].__set__


def text_delta(text: str) -> TextDelta:
    """``TextDelta(text)``, made without its dataclass __init__."""
    event: TextDelta = _new(TextDelta)
    _set_text(event, text)
    _set_text_kind(event, "text")
    return event


def reasoning_delta(text: str) -> ReasoningDelta:
    """``ReasoningDelta(text)``, made without its dataclass __init__."""
    event: ReasoningDelta = _new(ReasoningDelta)
    _set_reasoning(event, text)
    _set_reasoning_kind(event, "reasoning")
    return event


def arguments_delta(index: int, fragment: str) -> ArgumentsDelta:
    """``ArgumentsDelta(index, fragment)``, made without its dataclass __init__."""
    event: ArgumentsDelta = _new(ArgumentsDelta)
    _set_index(event, index)
    _set_fragment(event, fragment)
    _set_fragment_kind(event, "arguments_delta")
    return event
