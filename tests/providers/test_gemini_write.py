"""Gemini written back (`toolcalls.providers.gemini`), checked with the google-genai SDK:
its types (which forbid unknown fields) and its SSE line splitter."""

from __future__ import annotations

import json

import pytest
from google.genai._api_client import _iter_sse_lines
from google.genai.types import GenerateContentResponse
from written import FULL, OPTIONS, RESULTS, arguments

from toolcalls.parsing._models import ParseResult
from toolcalls.providers import stream_text, write_response, write_stream


def _read(responses: list[GenerateContentResponse]) -> tuple[str, str | None, list[object]]:
    parts = [part for r in responses for part in r.candidates[0].content.parts]  # type: ignore[index, union-attr]
    text = "".join(p.text for p in parts if p.text is not None and not p.thought)
    thought = "".join(p.text for p in parts if p.text is not None and p.thought)
    calls = [(p.function_call.id, p.function_call.name, p.function_call.args)
             for p in parts if p.function_call]
    return text, thought or None, calls


@pytest.mark.parametrize("name", RESULTS)
def test_the_response_is_a_generate_content_response_with_the_result(name: str) -> None:
    result: ParseResult = RESULTS[name]
    response = GenerateContentResponse.model_validate(
        write_response(result, "gemini", **OPTIONS))
    assert (response.response_id, response.model_version) == ("resp_1", "m-1")
    assert response.candidates[0].finish_reason == "STOP"  # type: ignore[index]
    assert _read([response]) == (result.content, result.reasoning, arguments(result.calls))


@pytest.mark.parametrize("name", RESULTS)
def test_the_stream_is_a_chunk_per_part_the_last_one_finishing(name: str) -> None:
    chunks = [GenerateContentResponse.model_validate(c)
              for c in write_stream(RESULTS[name], "gemini", **OPTIONS)]
    whole = GenerateContentResponse.model_validate(
        write_response(RESULTS[name], "gemini", **OPTIONS))
    assert _read(chunks) == _read([whole])
    assert [c.candidates[0].finish_reason for c in chunks][-1] == "STOP"  # type: ignore[index]
    assert all(c.candidates[0].finish_reason is None for c in chunks[:-1])  # type: ignore[index]
    assert chunks[-1].usage_metadata is not None


def test_the_wire_is_sse_data_lines() -> None:
    chunks = write_stream(FULL, "gemini", **OPTIONS)
    lines = list(_iter_sse_lines(iter([stream_text(chunks, "gemini").encode()])))
    data = [json.loads(line.removeprefix("data: ")) for line in lines if line]
    assert data == chunks
    assert all(line.startswith("data: ") for line in lines if line)
