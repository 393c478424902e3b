"""Ollama's /api/chat written back (`toolcalls.providers.ollama`), checked with the ollama
SDK's ChatResponse."""

from __future__ import annotations

import json

import pytest
from ollama import ChatResponse
from written import FULL, OPTIONS, RESULTS

from toolcalls.parsing._models import ParseResult
from toolcalls.providers import stream_text, write_response, write_stream


def _read(chunks: list[ChatResponse]) -> tuple[str, str | None, list[object]]:
    content = "".join(c.message.content or "" for c in chunks)
    thinking = "".join(c.message.thinking or "" for c in chunks)
    calls = [(call.function.name, dict(call.function.arguments))
             for c in chunks for call in c.message.tool_calls or []]
    return content, thinking or None, calls


def _expected(result: ParseResult) -> tuple[str, str | None, list[object]]:
    """Ollama's calls carry no ids."""
    return result.content, result.reasoning, [(c.name, c.arguments) for c in result.calls]


@pytest.mark.parametrize("name", RESULTS)
def test_the_response_is_a_chat_response_with_the_result(name: str) -> None:
    response = ChatResponse.model_validate(write_response(RESULTS[name], "ollama", **OPTIONS))
    assert (response.model, response.done, response.done_reason) == ("m-1", True, "stop")
    assert response.created_at == "2023-11-14T22:13:20Z"
    assert _read([response]) == _expected(RESULTS[name])


@pytest.mark.parametrize("name", RESULTS)
def test_the_stream_ends_with_one_done_chunk(name: str) -> None:
    chunks = [ChatResponse.model_validate(c)
              for c in write_stream(RESULTS[name], "ollama", **OPTIONS)]
    assert [c.done for c in chunks] == [False] * (len(chunks) - 1) + [True]
    assert _read(chunks) == _expected(RESULTS[name])


def test_the_wire_is_one_json_object_a_line() -> None:
    chunks = write_stream(FULL, "ollama", **OPTIONS)
    text = stream_text(chunks, "ollama")
    assert [json.loads(line) for line in text.splitlines()] == chunks
    assert text.endswith("}\n") and "Zürich" in text
