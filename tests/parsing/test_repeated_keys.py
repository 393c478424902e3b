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

import toolcalls
from toolcalls import ToolCall

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
_CALL = ToolCall(id="call_0", name="f", arguments={"a": 1}, span=(0, 0))


def _rendered_envelope(fmt: str) -> str | None:
    """`fmt`'s rendered call with its JSON envelope replaced by ``{}`` (None: it has none)."""
    text = toolcalls.get_format(fmt).render_calls([_CALL])
    for key in ("arguments", "parameters"):
        envelope = json.dumps({"name": "f", key: {"a": 1}})
        if envelope in text:
            return text.replace(envelope, "{}")
    return None


# Every format whose calls are a {"name", "arguments"} envelope, as it renders them (with the
# spellings models were seen to write, Mistral's list among them).
WRAPPERS = {
    fmt: wrapper for fmt in toolcalls.list_formats() if (wrapper := _rendered_envelope(fmt))
} | {
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


def test_threads_reading_envelopes_at_once_each_get_their_own_members() -> None:
    """The whole-envelope decoder keeps each object's members as scratch space: one per
    thread, so bodies read at once in several threads never see each other's members."""
    texts = [WRAPPERS["hermes"].format(body) for body in BODIES]
    alone = [toolcalls.parse(text, "hermes").model_dump() for text in texts]

    def read_all(offset: int) -> list[tuple[int, dict[str, object]]]:
        order = texts[offset:] + texts[:offset]
        return [((offset + k) % len(texts), toolcalls.parse(t, "hermes").model_dump())
                for _ in range(3) for k, t in enumerate(order)]

    import sys
    from concurrent.futures import ThreadPoolExecutor

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can
    try:
        with ThreadPoolExecutor(max_workers=4) as pool:
            outcomes = list(pool.map(read_all, range(0, len(texts), len(texts) // 4 or 1)))
    finally:
        sys.setswitchinterval(interval)
    for results in outcomes:
        for index, dumped in results:
            assert dumped == alone[index], texts[index]
