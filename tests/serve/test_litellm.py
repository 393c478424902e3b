"""A second real client of the proxy: LiteLLM, its ``openai/`` provider pointed at the proxy
(as a user puts toolcalls serve behind a LiteLLM-based app): whole and streamed calls come back
as its ``tool_calls``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from clients import TIMEOUT, expected
from upstream import FakeUpstream, corpus_rows

litellm = pytest.importorskip("litellm")

# LiteLLM imports its providers lazily, at the first call; pydantic warns about one of their
# TypedDicts there (LiteLLM's, nothing of the proxy's).
pytestmark = [pytest.mark.filterwarnings("ignore:Item.*ReadOnly. qualifier:UserWarning"),
              pytest.mark.usefixtures("no_leftover_loop")]

ROWS = [row for fmt in ("qwen3_coder", "hermes", "kimi_k2")
        for row in (corpus_rows(fmt, calls=2) or corpus_rows(fmt, calls=1))[:1]]
MESSAGES = [{"role": "user", "content": "go"}]


@pytest.fixture(scope="module", autouse=True)
def close_cached_clients() -> Iterator[None]:
    """LiteLLM keeps the sync clients it made in its cache, their keep-alive connections open
    to the end of the session (an unclosed-socket warning at exit): closed after this file."""
    yield
    cache = litellm.in_memory_llm_clients_cache
    for client in list(cache.cache_dict.values()):
        if callable(getattr(client, "close", None)) and not asyncio.iscoroutinefunction(
                client.close):
            client.close()
    cache.flush_cache()


def _completion(url: str, row: dict[str, Any], **extra: Any) -> Any:
    return litellm.completion(model=f"openai/{row['format']}", api_base=f"{url}/v1",
                              api_key="sk-litellm", tools=row["tools"], messages=MESSAGES,
                              timeout=TIMEOUT, num_retries=0, **extra)


def _calls(message: Any) -> list[tuple[str, dict[str, Any]]]:
    return [(call.function.name, json.loads(call.function.arguments))
            for call in message.tool_calls or []]


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row["id"])
def test_litellm_reads_the_calls_of_a_whole_answer(start_proxy, upstream: FakeUpstream,
                                                   row) -> None:
    upstream.script(row["text"])
    response = _completion(start_proxy(mode="repair", forward_credentials=True), row)
    content, calls = expected(row["text"], row["format"], row["tools"])
    assert _calls(response.choices[0].message) == calls
    assert (response.choices[0].message.content or "") == content
    assert response.choices[0].finish_reason == "tool_calls"
    assert all(call.id.startswith("call_") for call in response.choices[0].message.tool_calls)
    assert upstream.headers[0]["authorization"] == "Bearer sk-litellm"


@pytest.mark.parametrize("calls", ["live", "whole"])
@pytest.mark.parametrize("row", ROWS, ids=lambda row: row["id"])
def test_litellm_assembles_the_calls_of_a_streamed_answer(start_proxy, upstream: FakeUpstream,
                                                          row, calls: str) -> None:
    upstream.script(row["text"], seed=6)
    chunks = list(_completion(start_proxy(mode="repair", stream_calls=calls), row,
                              stream=True))
    response = litellm.stream_chunk_builder(chunks, messages=MESSAGES)
    content, expected_calls = expected(row["text"], row["format"], row["tools"])
    assert _calls(response.choices[0].message) == expected_calls
    assert (response.choices[0].message.content or "") == content
    assert response.choices[0].finish_reason == "tool_calls"
    ids = [call.id for call in response.choices[0].message.tool_calls]
    assert len(set(ids)) == len(ids) and all(ident.startswith("call_") for ident in ids)
