"""Anthropic citations: a text block's ``citations`` and a streamed ``citations_delta`` are not
kept; the text is, whole and streamed alike, and no citation becomes text or an issue."""

from __future__ import annotations

import json
from typing import Any

from anthropic.types import Message
from stream_checks import read_all

import toolcalls

CITATION = {"type": "web_search_result_location", "url": "https://example.com/paris",
            "title": "Paris weather", "encrypted_index": "Eo8BCioIAhgBIiQ4",
            "cited_text": "Paris is 18°C and sunny today."}
BLOCKS: list[dict[str, Any]] = [
    {"type": "text", "text": "According to the forecast, "},
    {"type": "text", "text": "it is 18°C in Paris", "citations": [CITATION]},
    {"type": "text", "text": "."},
]


def message(blocks: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": "msg_1", "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5", "content": blocks, "stop_reason": "end_turn",
            "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 20}}


def test_a_text_blocks_citations_are_not_kept_its_text_is() -> None:
    whole = Message.model_validate(message(BLOCKS))  # the SDK takes this shape
    result = toolcalls.read_response(whole)
    assert result.content == "According to the forecast, it is 18°C in Paris."
    assert result.issues == [] and result.calls == []
    assert "example.com" not in result.model_dump_json()


def events() -> list[dict[str, Any]]:
    start = message([])
    start["stop_reason"] = None
    out: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for index, block in enumerate(BLOCKS):
        opened = {"type": "text", "text": ""}
        if "citations" in block:
            opened["citations"] = []
        out.append({"type": "content_block_start", "index": index, "content_block": opened})
        for citation in block.get("citations", []):
            out.append({"type": "content_block_delta", "index": index,
                        "delta": {"type": "citations_delta", "citation": citation}})
        out.append({"type": "content_block_delta", "index": index,
                    "delta": {"type": "text_delta", "text": block["text"]}})
        out.append({"type": "content_block_stop", "index": index})
    out.append({"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                "usage": {"output_tokens": 20}})
    out.append({"type": "message_stop"})
    return out


def test_a_citations_delta_adds_no_text_and_the_stream_reads_as_the_whole_message() -> None:
    sse = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events())
    stream_events, result = read_all("anthropic", [sse], None)
    assert result.content == "According to the forecast, it is 18°C in Paris."
    assert result.issues == []
    assert "".join(getattr(e, "text", "") for e in stream_events) == result.content
    expected = toolcalls.read_response(message(BLOCKS), format=None)
    assert result.model_dump(exclude={"usage"}) == expected.model_dump(exclude={"usage"})
