"""Writing results back through the dispatch (`toolcalls.providers._response_writer`):
every provider.

Each provider's own shapes are tested beside its module (test_openai_chat_write.py, ...).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from written import FULL, OPTIONS, RESULTS, validators

from toolcalls import read_response
from toolcalls.parsing._models import ParseResult, ToolCall
from toolcalls.providers import PROVIDERS, stream_text, write_response, write_stream


@pytest.mark.parametrize("entry", [write_response, write_stream])
def test_an_unknown_provider_is_refused_with_the_known_ones(entry: object) -> None:
    with pytest.raises(ValueError, match="unknown provider 'cohere'.*openai_responses"):
        entry(FULL, "cohere")  # type: ignore[operator]
    with pytest.raises(ValueError, match="unknown provider"):
        stream_text([], "cohere")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_written_responses_are_plain_json(provider: str) -> None:
    """What is written is JSON data (a proxy dumps it as it is), and the same for equal
    options: nothing depends on the time but ``created``, which the caller may give."""
    import json

    whole = write_response(FULL, provider, **OPTIONS)
    stream = write_stream(FULL, provider, **OPTIONS)
    assert json.loads(json.dumps(whole)) == whole
    assert json.loads(json.dumps(stream)) == stream
    assert write_response(FULL, provider, **OPTIONS) == whole
    assert stream_text(stream, provider) == stream_text(write_stream(FULL, provider, **OPTIONS),
                                                        provider)


# --- any result: what the SDKs accept ------------------------------------------------------------

_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30)
_JSON = st.recursive(st.none() | st.booleans() | st.integers() | _TEXT,
                     lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(_TEXT, inner, max_size=3), max_leaves=8)


@st.composite
def _results(draw: st.DrawFn) -> ParseResult:
    names = st.from_regex(r"[a-zA-Z_][a-zA-Z0-9_]{0,20}", fullmatch=True)
    calls = [ToolCall(id=f"call_{i}", name=draw(names), span=(0, 0),
                      arguments=draw(st.dictionaries(_TEXT, _JSON, max_size=4)))
             for i in range(draw(st.integers(0, 3)))]
    return ParseResult(format="hermes", content=draw(_TEXT),
                       reasoning=draw(st.none() | _TEXT.filter(bool)), calls=calls)


@pytest.mark.parametrize("provider", PROVIDERS)
@given(result=_results())
def test_any_result_is_written_as_the_sdk_types_accept(provider: str,
                                                       result: ParseResult) -> None:
    whole, chunk = validators()[provider]
    whole(write_response(result, provider, **OPTIONS))
    for event in write_stream(result, provider, **OPTIONS):
        chunk(event)


# --- the round trip: what is written reads back ---------------------------------------------------

def _same(read: ParseResult, written: ParseResult, provider: str) -> None:
    keep_ids = provider != "ollama"  # Ollama's calls carry no ids
    assert [(c.id if keep_ids else "", c.name, c.arguments) for c in read.calls] == [
        (c.id if keep_ids else "", c.name, c.arguments) for c in written.calls]
    assert (read.content, read.reasoning) == (written.content, written.reasoning)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_reading_a_written_response_gives_back_the_result(provider: str) -> None:
    for result in RESULTS.values():
        _same(read_response(write_response(result, provider, **OPTIONS), provider), result,
              provider)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_reading_a_written_stream_gives_back_the_result(provider: str) -> None:
    from toolcalls import read_stream

    for result in RESULTS.values():
        chunks = write_stream(result, provider, **OPTIONS)
        for feed in (chunks, [stream_text(chunks, provider)]):
            reader = read_stream(provider)
            for chunk in feed:
                reader.feed(chunk)
            reader.close()
            _same(reader.result(), result, provider)


def test_each_response_gets_a_fresh_id_prefixed_as_the_apis_are() -> None:
    for provider, prefix in [("openai", "chatcmpl-"), ("openai_responses", "resp_"),
                             ("anthropic", "msg_")]:
        first, second = (write_response(FULL, provider)["id"] for _ in range(2))
        assert first.startswith(prefix) and first != second
    gemini = [write_response(FULL, "gemini")["responseId"] for _ in range(2)]
    assert gemini[0] != gemini[1]
    assert len({chunk["id"] for chunk in write_stream(FULL, "openai")}) == 1  # one per stream
