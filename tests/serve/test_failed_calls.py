"""Malformed and cut calls are honest, whole and streamed, with the real clients that used to
run them: the openai SDK (whole, and streamed with its stream helper), the anthropic SDK and
LiteLLM. A call that fails is never a call: the model's text comes back as content; a stream
the upstream ends without a finish reason ends with the API's error; a cut call sent back in
the history is taken as OpenAI takes it.
"""

from __future__ import annotations

import json
from typing import Any

import anthropic
import httpx
import openai
import pytest
from clients import TIMEOUT, anthropic_client, chat_stream_raw, openai_client
from upstream import FakeUpstream, corpus_rows

from toolcalls.serve._failed_calls import ISSUES_HEADER

litellm = pytest.importorskip("litellm")
pytestmark = [pytest.mark.filterwarnings("ignore:Item.*ReadOnly. qualifier:UserWarning"),
              pytest.mark.usefixtures("no_leftover_loop")]

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "The weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}
ANTHROPIC_TOOLS = [{"name": "get_weather", "description": "The weather in a city.",
                    "input_schema": WEATHER["function"]["parameters"]}]
MESSAGES = [{"role": "user", "content": "weather in Paris?"}]
BEFORE = "Let me check the weather."
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Par'
BROKEN = CALL + 'is"</tool_call>'
"""A call whose JSON is broken (the arguments' object never closed)."""
CUT = CALL
"""A call cut by the token limit."""
FAULTS = {  # name: (the model's text, the upstream's finish, OpenAI's finish, Anthropic's)
    "broken": (f"{BEFORE}\n{BROKEN}", "stop", "stop", "end_turn"),
    "cut": (f"{BEFORE}\n{CUT}", "length", "length", "max_tokens"),
}
SEEN = {name: BEFORE + call for name, call in (("broken", BROKEN), ("cut", CUT))}
"""What the client gets as content: the text, then the failed call's own text from its
opening marker on (the line break between them is the call's markup, as for a complete call)."""
ISSUE = {"broken": "invalid_arguments get_weather", "cut": "truncated_call get_weather"}


def _scripted(upstream: FakeUpstream, fault: str) -> None:
    text, finish, *_ = FAULTS[fault]
    upstream.script(text, finish_reason=finish, seed=3)


def _chat(**extra: Any) -> dict[str, Any]:
    return {"model": "hermes", "tools": [WEATHER], "messages": MESSAGES, **extra}


# --- the openai SDK ------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["repair", "prompt"])
@pytest.mark.parametrize("fault", FAULTS)
def test_openai_whole_gets_the_failed_call_as_text(start_proxy, upstream: FakeUpstream,
                                                   fault: str, mode: str) -> None:
    _scripted(upstream, fault)
    client = openai_client(start_proxy(mode=mode))
    raw = client.chat.completions.with_raw_response.create(**_chat())
    choice = raw.parse().choices[0]
    assert not choice.message.tool_calls
    assert choice.message.content == SEEN[fault]
    assert choice.finish_reason == FAULTS[fault][2]
    assert raw.headers[ISSUES_HEADER] == ISSUE[fault]


@pytest.mark.parametrize("mode", ["repair", "prompt"])
@pytest.mark.parametrize("fault", FAULTS)
def test_openai_stream_helper_gets_the_failed_call_as_text(start_proxy, upstream: FakeUpstream,
                                                           fault: str, mode: str) -> None:
    _scripted(upstream, fault)
    client = openai_client(start_proxy(mode=mode))
    with client.chat.completions.stream(**_chat()) as stream:
        kinds = [event.type for event in stream]
        try:
            final = stream.get_final_completion()
        except openai.LengthFinishReasonError as error:  # the SDK's word for a cut turn
            assert fault == "cut"
            final = error.completion
    assert not [kind for kind in kinds if kind.startswith("tool_calls.")]
    choice = final.choices[0]
    assert not choice.message.tool_calls
    assert choice.message.content == SEEN[fault]
    assert choice.finish_reason == FAULTS[fault][2]


def test_openai_a_good_call_then_a_cut_one_gets_the_good_one(start_proxy,
                                                              upstream: FakeUpstream) -> None:
    """The complete call is sent (the turn is a tool-calls turn); the cut one is text."""
    good = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>'
    upstream.script(f"{good}\n{CUT}", finish_reason="length", seed=3)
    client = openai_client(start_proxy(mode="repair"))
    whole = client.chat.completions.create(**_chat()).choices[0]
    with client.chat.completions.stream(**_chat()) as stream:
        streamed = stream.get_final_completion().choices[0]
    for choice in (whole, streamed):
        assert [(c.function.name, json.loads(c.function.arguments))
                for c in choice.message.tool_calls or []] == [("get_weather", {"city": "Oslo"})]
        assert choice.message.content == CUT and choice.finish_reason == "tool_calls"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_openai_whole_and_streamed_agree_on_a_cut_qwen3_coder_call(
        start_proxy, upstream: FakeUpstream, seed: int) -> None:
    """Streamed in random pieces, the text of the cut call is the same as whole: from its
    ``<function=`` on (the ``<tool_call>`` around it is the format's markup)."""
    row = corpus_rows("qwen3_coder", calls=2)[0]
    cut = row["text"][:row["text"].rindex("<parameter=") + 14]
    upstream.script(cut, finish_reason="length", seed=seed)
    client = openai_client(start_proxy(mode="repair"))
    request = {"model": "qwen3_coder", "tools": row["tools"], "messages": MESSAGES}
    whole = client.chat.completions.create(**request).choices[0]
    with client.chat.completions.stream(**request) as stream:
        streamed = stream.get_final_completion().choices[0]
    first = row["expected"]["calls"][0]
    for choice in (whole, streamed):
        assert [(c.function.name, json.loads(c.function.arguments))
                for c in choice.message.tool_calls or []] == [(first["name"], first["arguments"])]
    assert whole.message.content == streamed.message.content
    assert whole.message.content.endswith(cut[cut.rindex("<function="):])


@pytest.mark.parametrize("fault", FAULTS)
def test_live_a_failed_call_was_seen_as_a_call(start_proxy, upstream: FakeUpstream,
                                               fault: str) -> None:
    """The risk of ``stream_calls="live"``: the call's start and arguments so far were sent
    before it failed; it is left open (its text is not sent again as content), and the finish
    reason is the upstream's, never "tool_calls"."""
    _scripted(upstream, fault)
    answer = chat_stream_raw(openai_client(start_proxy(mode="repair", stream_calls="live")),
                             **_chat())
    assert [name for _, name, _ in answer["calls"]] == ["get_weather"]
    assert answer["calls"][0][2].startswith('{"city": "Par')
    assert answer["content"] == BEFORE and answer["finish"] == FAULTS[fault][2]


def test_a_call_said_natively_and_in_the_text_is_one_call_and_no_issue(
        start_proxy, upstream: FakeUpstream) -> None:
    """The native saying is the repetition (read once, not a failed call): no header."""
    text = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>'
    upstream.script(text, native_calls=[{"id": "x", "type": "function", "function": {
        "name": "get_weather", "arguments": '{"city": "Oslo"}'}}])
    raw = openai_client(start_proxy(mode="repair")).chat.completions.with_raw_response.create(
        **_chat())
    message = raw.parse().choices[0].message
    assert [c.function.name for c in message.tool_calls or []] == ["get_weather"]
    assert not message.content and ISSUES_HEADER not in raw.headers


# --- the anthropic SDK ---------------------------------------------------------------------------

@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("fault", FAULTS)
def test_anthropic_gets_the_failed_call_as_text(start_proxy, upstream: FakeUpstream,
                                                fault: str, stream: bool) -> None:
    _scripted(upstream, fault)
    client = anthropic_client(start_proxy(mode="repair"))
    request = {"model": "hermes", "max_tokens": 256, "tools": ANTHROPIC_TOOLS,
               "messages": MESSAGES}
    if stream:
        with client.messages.stream(**request) as events:
            kinds = [event.type for event in events]
            message = events.get_final_message()
        assert "input_json" not in kinds
    else:
        message = client.messages.create(**request)
    assert [block.type for block in message.content] == ["text"]
    assert message.content[0].text == SEEN[fault]
    assert message.stop_reason == FAULTS[fault][3]


# --- LiteLLM -------------------------------------------------------------------------------------

def _litellm(url: str, **extra: Any) -> Any:
    return litellm.completion(model="openai/hermes", api_base=f"{url}/v1", api_key="sk-x",
                              tools=[WEATHER], messages=MESSAGES, timeout=TIMEOUT,
                              num_retries=0, **extra)


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("fault", FAULTS)
def test_litellm_gets_the_failed_call_as_text(start_proxy, upstream: FakeUpstream, fault: str,
                                              stream: bool) -> None:
    _scripted(upstream, fault)
    url = start_proxy(mode="repair")
    if stream:
        response = litellm.stream_chunk_builder(list(_litellm(url, stream=True)),
                                                messages=MESSAGES)
    else:
        response = _litellm(url)
    choice = response.choices[0]
    assert not choice.message.tool_calls
    assert choice.message.content == SEEN[fault]
    assert choice.finish_reason == FAULTS[fault][2]


# --- an upstream stream that ends without a finish reason ----------------------------------------

COMPLETE = f'{BEFORE}\n<tool_call>\n{{"name": "get_weather", "arguments": {{"city": "Paris"}}}}' \
           "\n</tool_call>"
ENDS = ["truncate", "disconnect"]
"""Half the stream, then a clean end with no finish reason, or a dropped connection."""


@pytest.mark.parametrize("end", ENDS)
def test_a_stream_ended_early_is_an_error_on_the_wire(start_proxy, upstream: FakeUpstream,
                                                      end: str) -> None:
    upstream.script(COMPLETE, fault=end, seed=3)
    response = httpx.post(f"{start_proxy(mode='repair')}/v1/chat/completions", timeout=TIMEOUT,
                          json=_chat(stream=True))
    chunks = [json.loads(line.removeprefix("data: ")) for line in response.text.splitlines()
              if line.startswith("data: ")]
    assert "upstream" in chunks[-1]["error"]["message"] and "[DONE]" not in response.text
    choices = [choice for chunk in chunks[:-1] for choice in chunk["choices"]]
    assert not any(choice["finish_reason"] for choice in choices)
    assert not any(choice["delta"].get("tool_calls") for choice in choices)


@pytest.mark.parametrize("end", ENDS)
def test_a_stream_ended_early_raises_in_the_openai_stream_helper(
        start_proxy, upstream: FakeUpstream, end: str) -> None:
    upstream.script(COMPLETE, fault=end, seed=3)
    client = openai_client(start_proxy(mode="repair"))
    kinds: list[str] = []
    with pytest.raises(openai.APIError, match="upstream"), \
            client.chat.completions.stream(**_chat()) as stream:
        kinds.extend(event.type for event in stream)
    assert not [kind for kind in kinds if kind.startswith("tool_calls.")]


@pytest.mark.parametrize("end", ENDS)
def test_a_stream_ended_early_raises_in_the_anthropic_sdk(start_proxy, upstream: FakeUpstream,
                                                          end: str) -> None:
    upstream.script(COMPLETE, fault=end, seed=3)
    client = anthropic_client(start_proxy(mode="repair"))
    kinds: list[str] = []
    with pytest.raises(anthropic.APIStatusError, match="upstream"), client.messages.stream(
            model="hermes", max_tokens=256, tools=ANTHROPIC_TOOLS, messages=MESSAGES) as events:
        kinds.extend(event.type for event in events)
    assert "input_json" not in kinds and "message_stop" not in kinds


@pytest.mark.parametrize("end", ENDS)
def test_a_stream_ended_early_raises_in_litellm(start_proxy, upstream: FakeUpstream,
                                                end: str) -> None:
    upstream.script(COMPLETE, fault=end, seed=3)
    chunks: list[Any] = []
    with pytest.raises(Exception, match="upstream"):  # noqa: B017 - LiteLLM's own wrapping
        chunks.extend(_litellm(start_proxy(mode="repair"), stream=True))
    assert not any(choice.delta.tool_calls for chunk in chunks for choice in chunk.choices)
    assert not any(choice.finish_reason for chunk in chunks for choice in chunk.choices)


# --- a cut call sent back in the history ---------------------------------------------------------

def _history(arguments: str) -> list[dict[str, Any]]:
    return [*MESSAGES,
            {"role": "assistant", "content": None, "tool_calls": [{
                "id": "call_1", "type": "function",
                "function": {"name": "get_weather", "arguments": arguments}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "no city given"}]


@pytest.mark.parametrize("arguments", ["{", '{"city": "Par', '{"city": NaN}', "[1]",
                                       "[" * 2000 + "]" * 2000])
def test_repair_passes_history_arguments_on_as_the_string_they_are(
        start_proxy, upstream: FakeUpstream, arguments: str) -> None:
    answer = openai_client(start_proxy(mode="repair")).chat.completions.create(
        **_chat(messages=_history(arguments)))
    assert answer.choices[0].message.content == "Hello!"
    sent = upstream.requests[0]["messages"][1]["tool_calls"][0]["function"]["arguments"]
    assert sent == arguments


@pytest.mark.parametrize(("model", "written"), [
    ("hermes", '<tool_call>\n{"name": "get_weather", "arguments": {}\n</tool_call>'),
    ("qwen3_coder", "<function=get_weather>\n</function>"),  # no place for them: none
])
def test_prompt_writes_history_arguments_as_written(start_proxy, upstream: FakeUpstream,
                                                    model: str, written: str) -> None:
    client = openai_client(start_proxy(mode="prompt"))
    answer = client.chat.completions.create(**_chat(model=model, messages=_history("{")))
    assert answer.choices[0].message.content == "Hello!"
    assistant = upstream.requests[0]["messages"][2]
    assert assistant["role"] == "assistant" and written in assistant["content"]
