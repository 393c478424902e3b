"""A JSON envelope that repeats a key ("name", "arguments"...) reads alike whole and streamed.

A stream commits to the first ``"name"`` it reads (the call has started) and to the first
arguments object (its fragments are out), so the first value of a repeated envelope key is the
one that counts, in a batch parse too. JSON decoders keep the last one; before this rule a
whole Hermes body gave ``name == "b"`` where the same text streamed gave ``"a"``.
"""

from __future__ import annotations

import itertools
import json

import pytest
from helpers import checked

MEMBERS = [
    '"name": "get_weather"',
    '"name": "get_time"',
    '"arguments": {"city": "Paris"}',
    '"arguments": {"city": "Rome"}',
    '"parameters": {"city": "Oslo"}',
    '"arguments": "{\\"city\\": \\"Lima\\"}"',
    '"id": "call_7"',
    '"n\\u0061me": "get_date"',
]
BODIES = sorted({
    "{" + ", ".join(members) + "}"
    for members in itertools.permutations(MEMBERS, 3)
})
WRAPPERS = {
    "hermes": "<tool_call>{}</tool_call>",
    "ollama": "<tool_call>{}</tool_call>",
    "llama3_json": "{}",
    "mistral": "[TOOL_CALLS] [{}]",
}


def _members(body: str) -> list[str]:
    return sorted((m for m in MEMBERS if m in body), key=body.index)  # each one at most once


@pytest.mark.parametrize("fmt", sorted(WRAPPERS))
def test_a_repeated_envelope_key_keeps_its_first_value(fmt: str) -> None:
    repeated = 0
    for body in BODIES[:: 7 if fmt != "hermes" else 1]:
        text = WRAPPERS[fmt].replace("{}", body)
        result = checked(fmt, text)  # whole == every chunking, events fold to the result
        names = [json.loads("{" + m + "}").get("name") for m in _members(body)]
        names = [name for name in names if name is not None]
        if result.calls and len(names) > 1:
            repeated += 1
            assert result.calls[0].name == names[0], text
    assert repeated > 0  # the grid did reach calls with two names


def test_the_first_arguments_object_is_the_one_streamed() -> None:
    text = '<tool_call>{"name": "f", "arguments": {"x": 1}, "arguments": {"y": 2}}</tool_call>'
    assert checked("hermes", text).calls[0].arguments == {"x": 1}
