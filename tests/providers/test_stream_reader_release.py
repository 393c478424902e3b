"""`ProviderStream.release` (`toolcalls.providers._stream_reader`): a reader whose events are passed
on lets go of the text, reasoning and calls they gave; the events do not change."""

from __future__ import annotations

import json

from toolcalls.providers._stream_reader import read_stream

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}]


def _chunk(delta: dict, finish: str | None = None) -> str:
    return "data: " + json.dumps({"id": "c", "object": "chat.completion.chunk", "created": 1,
                                  "model": "m", "choices": [{"index": 0, "delta": delta,
                                                             "finish_reason": finish}]}) + "\n\n"


CHUNKS = [
    _chunk({"reasoning_content": "Think"}), _chunk({"reasoning_content": "ing."}),
    _chunk({"content": "Say <tool_call>\n"}),
    _chunk({"content": '{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'}),
    _chunk({"tool_calls": [{"index": 0, "id": "call_n", "type": "function", "function": {
        "name": "get_weather", "arguments": '{"city": "Rome"}'}}]}),
    _chunk({}, "tool_calls"),
    'data: {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m", '
    '"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 2, '
    '"total_tokens": 5}}\n\n',
    "data: [DONE]\n\n",
]


def _read(release: bool) -> tuple[list[object], object]:
    reader = read_stream("openai", format="hermes", tools=TOOLS)
    events: list[object] = []
    for chunk in CHUNKS:
        events += reader.feed(chunk)
        if release:
            reader.release()
    return events + reader.close(), reader.result()


def test_release_changes_no_event_and_keeps_finish_usage_and_issues() -> None:
    kept_events, kept = _read(False)
    released_events, released = _read(True)
    assert released_events == kept_events
    assert len(kept.calls) == 2 and kept.reasoning == "Thinking."  # type: ignore[attr-defined]
    assert released.calls == [] and released.content == ""  # type: ignore[attr-defined]
    assert not released.reasoning  # type: ignore[attr-defined]
    assert (released.finish_reason, released.usage, released.issues) == (  # type: ignore[attr-defined]
        kept.finish_reason, kept.usage, kept.issues)  # type: ignore[attr-defined]
