"""The usage of a streamed answer (`apis.InboundApi.usage_asked`): an OpenAI client gets the
usage chunk (``choices: []``) only when it asked (``stream_options.include_usage``), as from
OpenAI; an Anthropic client always has its usage in ``message_delta``."""

from __future__ import annotations

from clients import anthropic_client, openai_client
from upstream import USAGE, FakeUpstream, corpus_rows

HI = [{"role": "user", "content": "hi"}]


def test_a_hand_written_choices_loop_never_meets_an_empty_choices(
        start_proxy, upstream: FakeUpstream) -> None:
    row = corpus_rows("hermes", calls=1)[0]
    upstream.script(row["text"])
    client = openai_client(start_proxy(mode="prompt"))
    seen, finish = 0, None
    with client.chat.completions.create(model="hermes", messages=HI, tools=row["tools"],
                                        stream=True) as stream:
        for chunk in stream:
            choice = chunk.choices[0]  # an IndexError here is the bug
            finish = choice.finish_reason or finish
            assert chunk.usage is None
            seen += 1
    assert seen > 2 and finish == "tool_calls"
    # the proxy still asks the upstream for usage (its own access line, a lazy budget)
    assert upstream.requests[0]["stream_options"] == {"include_usage": True}


def test_the_usage_chunk_comes_when_asked(start_proxy, upstream: FakeUpstream) -> None:
    client = openai_client(start_proxy())
    with client.chat.completions.create(model="m", messages=HI, stream=True,
                                        stream_options={"include_usage": True}) as stream:
        chunks = list(stream)
    assert chunks[-1].choices == []
    assert chunks[-1].usage is not None
    assert chunks[-1].usage.total_tokens == USAGE["total_tokens"]
    assert all(chunk.choices for chunk in chunks[:-1])


def test_include_usage_false_is_not_asking(start_proxy, upstream: FakeUpstream) -> None:
    client = openai_client(start_proxy())
    with client.chat.completions.create(model="m", messages=HI, stream=True,
                                        stream_options={"include_usage": False}) as stream:
        chunks = list(stream)
    assert all(chunk.choices for chunk in chunks)


def test_an_anthropic_stream_still_reports_usage(start_proxy, upstream: FakeUpstream) -> None:
    client = anthropic_client(start_proxy())
    with client.messages.stream(model="m", max_tokens=50, messages=HI) as stream:
        message = stream.get_final_message()
    assert message.usage.output_tokens == USAGE["completion_tokens"]
