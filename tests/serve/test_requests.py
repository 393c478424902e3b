"""Client requests checked and rewritten by the proxy (`toolcalls.serve._requests`).

Prompt mode against the real chat templates (fixtures/render/<format>/template.jinja, rendered
as tests/parsing/test_template_fidelity.py renders them): the upstream renders the request
`prompt_request` writes (no tools) with the model's own template; what it renders is compared
with what the same template renders for the original conversation with native tools.

* Exact for every template: the tools block, the assistant's calls and the run of results
  (`_RESULT_RUNS`) appear character for character in both. The tools block loses its trailing
  newlines where the template trims the system message (llama3_json, minimax_m1, pythonic).
* The whole prompt is identical for hermes and qwen3_coder (`WHOLE_PROMPT_SAME`), whose
  templates write the tools block at the end of the system message and results in a user turn.
* Elsewhere the role around a part differs, as a chat request can name no other role: the
  tools block goes into the system message where the template writes its own turn for it
  (kimi_k2 ``tool_declare``, minimax_m1 ``tool_setting``, gpt_oss's developer message, mistral
  ``[AVAILABLE_TOOLS]`` before the last user turn, llama3_json in the first user turn), and the
  results go in a user turn where the template writes them in a role of their own (glm
  ``<|observation|>``, kimi_k2 and minimax ``tool``, llama ``ipython``, gpt_oss ``functions.*``,
  seed_oss ``tool``, DeepSeek's results with no role at all); the results' own markers are
  inside it all the same. Templates that drop an assistant's text beside its calls (gpt_oss,
  llama3_json, mistral, minimax_m1) get it kept, as the text is the assistant's content here.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import openai
import pytest

import toolcalls
from toolcalls import UnknownFormatError
from toolcalls.serve._requests import (
    _RESULT_RUN,
    _RESULT_RUNS,
    RequestError,
    chat_request_from_messages,
    format_for,
    prompt_request,
    validate_chat_request,
)
from toolcalls.tools import from_openai

# The template harness of tests/parsing (importable there as a sibling module).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "parsing"))
from test_template_fidelity import (  # noqa: E402
    CASES,
    TEMPLATE_FORMATS,
    _context,
    _covered,
    _openai_tool,
    _template,
    case_calls,
    load_toolset,
    options,
    render_template,
)


def chat(**fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "Hi"}]}
    return body | fields


WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                       "required": ["city"]},
    },
}


def call(id_: str, name: str = "get_weather", arguments: str = '{"city": "Paris"}'
         ) -> dict[str, Any]:
    return {"id": id_, "type": "function", "function": {"name": name, "arguments": arguments}}


HISTORY: list[dict[str, Any]] = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": [
        {"type": "text", "text": "Weather?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}},
    ]},
    {"role": "assistant", "content": None,
     "tool_calls": [call("call_1"), call("call_2", arguments="")]},
    {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
    {"role": "tool", "tool_call_id": "call_2", "content": [{"type": "text", "text": "rainy"}]},
    {"role": "assistant", "content": "Sunny, then rain."},
]


# --- validate_chat_request ----------------------------------------------------------------------


def test_a_valid_request_comes_back_untouched_with_unknown_fields() -> None:
    body = chat(messages=HISTORY, tools=[WEATHER], tool_choice="required", stream=True,
                stream_options={"include_usage": True}, parallel_tool_calls=False, n=1,
                temperature=0.2, seed=7, some_extension={"kept": [1, 2]})
    before = copy.deepcopy(body)
    assert validate_chat_request(body) is body
    assert body == before


def test_a_named_tool_choice_and_null_optionals_are_valid() -> None:
    choice = {"type": "function", "function": {"name": "get_weather"}}
    validate_chat_request(chat(tools=[WEATHER], tool_choice=choice, stream=None, n=None))


@pytest.mark.parametrize(
    ("body", "field", "says"),
    [
        ([], "", "expected an object, got an array"),
        ({"messages": []}, "model", "is required"),
        (chat(model=""), "model", "non-empty"),
        (chat(model=3), "model", "expected a string, got a number"),
        ({"model": "m"}, "messages", "is required"),
        (chat(messages=[]), "messages", "at least one"),
        (chat(messages={"role": "user"}), "messages", "expected an array"),
        (chat(messages=["hi"]), "messages[0]", "expected an object, got a string"),
        (chat(messages=[{"content": "x"}]), "messages[0].role", "is required"),
        (chat(messages=[{"role": "robot", "content": "x"}]), "messages[0].role", "'robot'"),
        (chat(messages=[{"role": "user"}]), "messages[0].content", "is required"),
        (chat(messages=[{"role": "user", "content": 5}]), "messages[0].content",
         "expected a string or a list of parts, got a number"),
        (chat(messages=[{"role": "system", "content": {"text": "x"}}]), "messages[0].content",
         "expected a string or text parts"),
        (chat(messages=[{"role": "system", "content": [{"type": "image_url"}]}]),
         "messages[0].content[0].type", "expected one of 'text'"),
        (chat(messages=[{"role": "user", "content": [{"type": "text"}]}]),
         "messages[0].content[0].text", "is required"),
        (chat(messages=[{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}]),
         "messages[0].content[0].image_url.url", "is required"),
        (chat(messages=[{"role": "user", "content": "x", "name": 1}]), "messages[0].name",
         "expected a string"),
        (chat(messages=[{"role": "tool", "content": "x"}]), "messages[0].tool_call_id",
         "is required"),
        (chat(messages=[{"role": "assistant", "tool_calls": {}}]), "messages[0].tool_calls",
         "expected an array"),
        (chat(messages=[{"role": "assistant", "tool_calls": [{"type": "function"}]}]),
         "messages[0].tool_calls[0].id", "is required"),
        (chat(messages=[{"role": "assistant", "tool_calls": [call("c") | {"type": "code"}]}]),
         "messages[0].tool_calls[0].type", "'function'"),
        (chat(messages=[{"role": "assistant", "tool_calls": [{"id": "c", "function": {}}]}]),
         "messages[0].tool_calls[0].function.name", "is required"),
        (chat(messages=[HISTORY[0], {"role": "assistant", "tool_calls": [
            call("c", arguments='{"city": "Par')]}]),
         "messages[1].tool_calls[0].function.arguments", "JSON object in a string"),
        (chat(messages=[{"role": "assistant", "tool_calls": [call("c", arguments="[1]")]}]),
         "messages[0].tool_calls[0].function.arguments", "got an array"),
        (chat(messages=[{"role": "assistant", "tool_calls": [
            {"id": "c", "function": {"name": "f", "arguments": {"a": 1}}}]}]),
         "messages[0].tool_calls[0].function.arguments", "expected a string, got an object"),
        (chat(tools=WEATHER), "tools", "expected an array"),
        (chat(tools=[{"function": WEATHER["function"]}]), "tools[0].type", "is required"),
        (chat(tools=[{"type": "web_search"}]), "tools[0].type", "'function'"),
        (chat(tools=[{"type": "function", "function": {"description": "x"}}]),
         "tools[0].function.name", "is required"),
        (chat(tools=[{"type": "function", "function": {"name": "f", "parameters": "x"}}]),
         "tools[0].function.parameters", "expected an object"),
        (chat(tools=[{"type": "function", "function": {"name": "f", "parameters": {
            "type": "object", "properties": {"a": {"type": "nonsense"}}}}}]),
         "tools[0].function", "nonsense"),
        (chat(tools=[WEATHER, WEATHER]), "tools[1].function.name", "two tools"),
        (chat(tool_choice="always"), "tool_choice", "'required'"),
        (chat(tools=[WEATHER], tool_choice={"type": "function", "function": {"name": "nope"}}),
         "tool_choice.function.name", "no tool named 'nope'"),
        (chat(tool_choice={"type": "function"}), "tool_choice.function", "is required"),
        (chat(stream="yes"), "stream", "expected true or false"),
        (chat(parallel_tool_calls=0), "parallel_tool_calls", "expected true or false"),
        (chat(stream_options={"include_usage": "y"}), "stream_options.include_usage", "true"),
        (chat(n=2), "n", "n must be 1"),
        (chat(n=True), "n", "expected an integer"),
    ],
)
def test_a_wrong_field_is_named(body: Any, field: str, says: str) -> None:
    with pytest.raises(RequestError) as caught:
        validate_chat_request(body)
    assert caught.value.field == field
    assert says in caught.value.message
    assert str(caught.value) == (f"{field}: {caught.value.message}" if field else says)


def test_request_error_reads_field_colon_message() -> None:
    error = RequestError("messages[2].content", "expected a string or a list of parts")
    assert str(error) == "messages[2].content: expected a string or a list of parts"
    assert isinstance(error, ValueError)


# --- chat_request_from_messages -----------------------------------------------------------------

_MESSAGE = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": [],
            "stop_reason": "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1}}
_COMPLETION = {"id": "c", "object": "chat.completion", "created": 0, "model": "m", "choices": [
    {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": ""}}]}


def _captured(reply: dict[str, Any]) -> tuple[httpx2.Client, list[dict[str, Any]]]:
    """An HTTP client that answers `reply` and keeps the JSON bodies the SDK sent."""
    sent: list[dict[str, Any]] = []

    def handle(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        return httpx2.Response(200, json=reply)

    return httpx2.Client(transport=httpx2.MockTransport(handle)), sent


def sent_by_anthropic(**params: Any) -> dict[str, Any]:
    """The request body the real `anthropic` SDK sends for `messages.create(**params)`."""
    http, sent = _captured(_MESSAGE)
    client = anthropic.Anthropic(api_key="k", base_url="http://proxy.test", http_client=http)
    client.messages.create(**params)
    return sent[0]


def sent_by_openai(chat: dict[str, Any]) -> dict[str, Any]:
    """The body the real `openai` SDK sends for `chat`: its own fields as keyword arguments
    (an unknown keyword is a TypeError there), the others as ``extra_body``."""
    http, sent = _captured(_COMPLETION)
    client = openai.OpenAI(api_key="k", base_url="http://proxy.test/v1", http_client=http)
    own = {"model", "messages", "max_tokens", "tools", "tool_choice", "parallel_tool_calls",
           "stop", "temperature", "top_p", "stream", "user"}
    client.chat.completions.create(**{k: v for k, v in chat.items() if k in own},
                                   extra_body={k: v for k, v in chat.items() if k not in own})
    return sent[0]


PNG = {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}
ANTHROPIC_WEATHER = {"name": "get_weather", "description": "The weather in a city",
                     "input_schema": WEATHER["function"]["parameters"]}


def test_a_whole_anthropic_conversation_becomes_the_equivalent_chat_request() -> None:
    body = sent_by_anthropic(
        model="claude-x", max_tokens=256,
        system=[{"type": "text", "text": "Be brief."}, {"type": "text", "text": "Be kind."}],
        messages=[
            {"role": "user", "content": [{"type": "text", "text": "Weather here?"},
                                         {"type": "image", "source": PNG}]},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "Two cities.", "signature": "sig"},
                {"type": "redacted_thinking", "data": "xyz"},
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "toolu_1", "name": "get_weather",
                 "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "toolu_2", "name": "get_weather",
                 "input": {"city": "Zürich"}},
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"},
                {"type": "tool_result", "tool_use_id": "toolu_2", "is_error": True, "content": [
                    {"type": "text", "text": "no station"},
                    {"type": "image", "source": {"type": "url", "url": "https://x.test/a.png"}},
                ]},
                {"type": "text", "text": "And tomorrow?"},
            ]},
        ],
        tools=[ANTHROPIC_WEATHER],
        tool_choice={"type": "any", "disable_parallel_tool_use": True},
        stop_sequences=["END"], metadata={"user_id": "u-1"},
        # Older SDKs take these as arguments; this one has dropped them, clients still send them.
        extra_body={"temperature": 0.5, "top_p": 0.9, "top_k": 40},
    )
    chat = chat_request_from_messages(body)
    assert chat == {
        "model": "claude-x",
        "max_tokens": 256,
        "messages": [
            {"role": "system", "content": "Be brief.\nBe kind."},
            {"role": "user", "content": [
                {"type": "text", "text": "Weather here?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
            ]},
            {"role": "assistant", "content": "Checking.", "tool_calls": [
                call("toolu_1"), call("toolu_2", arguments='{"city": "Zürich"}')]},
            {"role": "tool", "tool_call_id": "toolu_1", "content": "sunny"},
            {"role": "tool", "tool_call_id": "toolu_2", "content": "Error: no station"},
            {"role": "user", "content": [
                {"type": "image_url", "image_url": {"url": "https://x.test/a.png"}},
                {"type": "text", "text": "And tomorrow?"},
            ]},
        ],
        "tools": [WEATHER],
        "tool_choice": "required",
        "parallel_tool_calls": False,
        "stop": ["END"],
        "temperature": 0.5,
        "top_p": 0.9,
        "top_k": 40,
        "user": "u-1",
    }
    assert validate_chat_request(chat) is chat
    assert sent_by_openai(chat) == chat


@pytest.mark.parametrize(
    ("choice", "fields"),
    [
        ({"type": "auto"}, {"tool_choice": "auto"}),
        ({"type": "none"}, {"tool_choice": "none"}),
        ({"type": "any"}, {"tool_choice": "required"}),
        ({"type": "tool", "name": "get_weather"},
         {"tool_choice": {"type": "function", "function": {"name": "get_weather"}}}),
        ({"type": "auto", "disable_parallel_tool_use": False}, {"tool_choice": "auto"}),
        ({"type": "auto", "disable_parallel_tool_use": True},
         {"tool_choice": "auto", "parallel_tool_calls": False}),
    ],
)
def test_tool_choice_is_translated(choice: dict[str, Any], fields: dict[str, Any]) -> None:
    body = sent_by_anthropic(model="m", max_tokens=5, tools=[ANTHROPIC_WEATHER],
                             tool_choice=choice, messages=[{"role": "user", "content": "Hi"}])
    chat = chat_request_from_messages(body)
    assert {k: chat[k] for k in ("tool_choice", "parallel_tool_calls") if k in chat} == fields
    validate_chat_request(chat)


def test_plain_strings_stay_strings_and_stream_is_kept() -> None:
    body = sent_by_anthropic(model="m", max_tokens=5, system="Be brief.", stream=True,
                             messages=[{"role": "user", "content": "Hi"},
                                       {"role": "assistant", "content": "Hello."},
                                       {"role": "user", "content": [{"type": "text",
                                                                     "text": "Bye"}]}])
    assert chat_request_from_messages(body) == {
        "model": "m", "max_tokens": 5, "stream": True,
        "messages": [{"role": "system", "content": "Be brief."},
                     {"role": "user", "content": "Hi"},
                     {"role": "assistant", "content": "Hello."},
                     {"role": "user", "content": "Bye"}],
    }


def test_fields_without_a_chat_twin_are_left_out() -> None:
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "Hi"}],
            "thinking": {"type": "enabled", "budget_tokens": 1024}, "service_tier": "auto"}
    assert set(chat_request_from_messages(body)) == {"model", "max_tokens", "messages"}


def _anthropic(**fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "m", "max_tokens": 5,
                            "messages": [{"role": "user", "content": "Hi"}]}
    return body | fields


def _used(then: Any) -> list[dict[str, Any]]:
    """A tool_use turn, then a user turn whose content is `then`."""
    use = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}
    return [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": [use]},
            {"role": "user", "content": then}]


@pytest.mark.parametrize(
    ("body", "field", "says"),
    [
        ("hi", "", "expected an object"),
        ({"max_tokens": 5, "messages": []}, "model", "is required"),
        (_anthropic(max_tokens=None), "max_tokens", "expected an integer"),
        ({"model": "m", "messages": [{"role": "user", "content": "Hi"}]}, "max_tokens",
         "is required"),
        (_anthropic(max_tokens=0), "max_tokens", "at least 1"),
        (_anthropic(messages=[]), "messages", "at least one"),
        (_anthropic(messages=[{"role": "system", "content": "x"}]), "messages[0].role",
         "'assistant'"),
        (_anthropic(messages=[{"role": "user"}]), "messages[0].content", "is required"),
        (_anthropic(messages=[{"role": "user", "content": 3}]), "messages[0].content",
         "expected an array"),
        (_anthropic(messages=[{"role": "user", "content": [{"type": "tool_use"}]}]),
         "messages[0].content[0].type", "'tool_result'"),
        (_anthropic(messages=[{"role": "user", "content": [{"type": "text"}]}]),
         "messages[0].content[0].text", "is required"),
        (_anthropic(messages=[{"role": "user", "content": [{"type": "image", "source": {
            "type": "file", "file_id": "f"}}]}]),
         "messages[0].content[0].source.type", "'base64'"),
        (_anthropic(messages=[{"role": "user", "content": [{"type": "image", "source": {
            "type": "base64", "data": "AA=="}}]}]),
         "messages[0].content[0].source.media_type", "is required"),
        (_anthropic(messages=[{"role": "user", "content": [{"type": "document", "source": {}}]}]),
         "messages[0].content[0].type", "document blocks"),
        (_anthropic(messages=[{"role": "assistant", "content": [{"type": "tool_result"}]}]),
         "messages[0].content[0].type", "'tool_use'"),
        (_anthropic(messages=[{"role": "assistant", "content": [
            {"type": "tool_use", "id": "t", "name": "f", "input": "{}"}]}]),
         "messages[0].content[0].input", "expected an object"),
        (_anthropic(messages=[{"role": "assistant", "content": [
            {"type": "thinking", "signature": "s"}]}]),
         "messages[0].content[0].thinking", "is required"),
        (_anthropic(messages=[{"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_9", "content": "x"}]}]),
         "messages[0].content[0].tool_use_id", "no earlier tool_use block"),
        (_anthropic(messages=_used([{"type": "tool_result", "tool_use_id": "toolu_1",
                                     "content": [{"type": "tool_use"}]}])),
         "messages[2].content[0].content[0].type", "'text'"),
        (_anthropic(messages=_used([{"type": "tool_result", "tool_use_id": "toolu_1",
                                     "is_error": "yes"}])),
         "messages[2].content[0].is_error", "true or false"),
        (_anthropic(system=5), "system", "expected an array"),
        (_anthropic(system=[{"type": "image"}]), "system[0].type", "'text'"),
        (_anthropic(tools=[{"type": "web_search_20250305", "name": "web_search"}]),
         "tools[0].input_schema", "server tool"),
        (_anthropic(tools=[{"name": "f", "input_schema": []}]), "tools[0].input_schema",
         "expected an object"),
        (_anthropic(tools=[{"input_schema": {"type": "object"}}]), "tools[0].name",
         "is required"),
        (_anthropic(tools=[ANTHROPIC_WEATHER, ANTHROPIC_WEATHER]), "tools[1].name", "two tools"),
        (_anthropic(tool_choice={"type": "required"}), "tool_choice.type", "'any'"),
        (_anthropic(tools=[ANTHROPIC_WEATHER], tool_choice={"type": "tool"}),
         "tool_choice.name", "is required"),
        (_anthropic(tools=[ANTHROPIC_WEATHER], tool_choice={"type": "tool", "name": "x"}),
         "tool_choice.name", "no tool named 'x'"),
        (_anthropic(tool_choice={"type": "auto", "disable_parallel_tool_use": 1}),
         "tool_choice.disable_parallel_tool_use", "true or false"),
        (_anthropic(stop_sequences="END"), "stop_sequences", "expected an array"),
        (_anthropic(stop_sequences=["a", 1]), "stop_sequences[1]", "expected a string"),
        (_anthropic(temperature="hot"), "temperature", "expected a number"),
        (_anthropic(top_k=0.5), "top_k", "expected an integer"),
        (_anthropic(stream="y"), "stream", "true or false"),
        (_anthropic(metadata=[]), "metadata", "expected an object"),
        (_anthropic(metadata={"user_id": 7}), "metadata.user_id", "expected a string"),
    ],
)
def test_a_wrong_anthropic_field_is_named(body: Any, field: str, says: str) -> None:
    with pytest.raises(RequestError) as caught:
        chat_request_from_messages(body)
    assert (caught.value.field, says in caught.value.message) == (field, True), caught.value


# --- prompt_request -----------------------------------------------------------------------------

HERMES = toolcalls.get_format("hermes")
TOOLS_BLOCK = HERMES.render_tools(from_openai([WEATHER]))


def test_the_tools_block_is_appended_to_the_system_message_and_tools_go_no_further() -> None:
    body = chat(messages=HISTORY, tools=[WEATHER], tool_choice="auto", parallel_tool_calls=True,
                stream=True, stream_options={"include_usage": True}, temperature=0.1, stop=["X"])
    before = copy.deepcopy(body)
    upstream = prompt_request(body, HERMES)
    assert body == before  # the client's request is not changed
    assert {k: v for k, v in upstream.items() if k != "messages"} == {
        "model": "m", "stream": True, "stream_options": {"include_usage": True},
        "temperature": 0.1, "stop": ["X"]}
    assert upstream["messages"] == [
        {"role": "system", "content": f"Be brief.\n\n{TOOLS_BLOCK}"},
        HISTORY[1],  # user parts (an image) pass through
        {"role": "assistant", "content":
            '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n'
            '<tool_call>\n{"name": "get_weather", "arguments": {}}\n</tool_call>'},
        {"role": "user", "content":
            "<tool_response>\nsunny\n</tool_response>\n<tool_response>\nrainy\n</tool_response>"},
        HISTORY[5],
    ]


def test_without_a_system_message_the_tools_block_is_a_new_first_one() -> None:
    upstream = prompt_request(chat(tools=[WEATHER]), HERMES)
    assert upstream["messages"] == [{"role": "system", "content": TOOLS_BLOCK},
                                    {"role": "user", "content": "Hi"}]


def test_system_text_parts_are_joined_before_the_tools_block() -> None:
    system = {"role": "system", "content": [{"type": "text", "text": "A."},
                                            {"type": "text", "text": "B."}], "name": "s"}
    upstream = prompt_request(chat(messages=[system, HISTORY[1]], tools=[WEATHER]), HERMES)
    assert upstream["messages"][0] == {"role": "system", "name": "s",
                                       "content": f"A.\nB.\n\n{TOOLS_BLOCK}"}


@pytest.mark.parametrize(
    ("fields", "lines"),
    [
        ({"tool_choice": "required"}, "You must call at least one of these tools."),
        ({"tool_choice": {"type": "function", "function": {"name": "get_weather"}}},
         "You must call the tool get_weather."),
        ({"parallel_tool_calls": False}, "Call at most one tool per turn."),
        ({"tool_choice": "required", "parallel_tool_calls": False},
         "You must call at least one of these tools.\nCall at most one tool per turn."),
    ],
)
def test_tool_choice_and_parallel_tool_calls_become_one_line_each(
        fields: dict[str, Any], lines: str) -> None:
    upstream = prompt_request(chat(tools=[WEATHER], **fields), HERMES)
    assert upstream["messages"][0]["content"] == f"{TOOLS_BLOCK}\n\n{lines}"
    assert not set(fields) & set(upstream)


def test_the_lines_follow_a_blank_line_after_a_block_that_ends_in_newlines() -> None:
    llama = toolcalls.get_format("llama3_json")
    block = llama.render_tools(from_openai([WEATHER]))
    assert block.endswith("\n\n")
    upstream = prompt_request(chat(tools=[WEATHER], tool_choice="required"), llama)
    required = "You must call at least one of these tools."
    assert upstream["messages"][0]["content"] == block + required


def test_tool_choice_none_writes_no_tools_but_still_rewrites_the_history() -> None:
    upstream = prompt_request(chat(messages=HISTORY, tools=[WEATHER], tool_choice="none"), HERMES)
    assert upstream["messages"][0] == HISTORY[0]
    assert upstream["messages"][2]["content"].startswith("<tool_call>")
    assert "tool_choice" not in upstream and "tools" not in upstream


def test_results_apart_are_separate_user_messages_and_may_answer_an_older_turn() -> None:
    messages = [
        {"role": "user", "content": "Go"},
        {"role": "assistant", "content": "One.", "tool_calls": [call("a")]},
        {"role": "tool", "tool_call_id": "a", "content": "first"},
        {"role": "user", "content": "More"},
        {"role": "assistant", "content": "", "tool_calls": [call("b")]},
        {"role": "tool", "tool_call_id": "b", "content": "second"},
        {"role": "tool", "tool_call_id": "a", "content": "late"},
    ]
    upstream = prompt_request(chat(messages=messages), HERMES)
    assert [m["role"] for m in upstream["messages"]] == ["user", "assistant", "user", "user",
                                                         "assistant", "user"]
    assert upstream["messages"][1]["content"].startswith("One.\n<tool_call>")
    assert upstream["messages"][2]["content"] == "<tool_response>\nfirst\n</tool_response>"
    assert upstream["messages"][5]["content"] == (
        "<tool_response>\nsecond\n</tool_response>\n<tool_response>\nlate\n</tool_response>")


def test_an_empty_tool_calls_list_is_dropped_and_a_developer_message_takes_the_block() -> None:
    messages = [{"role": "developer", "content": "Be brief."}, HISTORY[1],
                {"role": "assistant", "content": "Hello.", "tool_calls": []}]
    upstream = prompt_request(chat(messages=messages, tools=[WEATHER]), HERMES)
    assert upstream["messages"] == [
        {"role": "developer", "content": f"Be brief.\n\n{TOOLS_BLOCK}"}, HISTORY[1],
        {"role": "assistant", "content": "Hello."}]


def test_a_call_the_format_cannot_write_is_named() -> None:
    messages = [HISTORY[1], {"role": "assistant", "tool_calls": [call("a", name="a>b")]}]
    with pytest.raises(RequestError) as caught:
        prompt_request(chat(messages=messages), toolcalls.get_format("qwen3_coder"))
    assert caught.value.field == "messages[1].tool_calls"
    assert caught.value.message.startswith("cannot be written in the qwen3_coder format: ")


def test_a_result_for_an_unknown_call_id_is_named() -> None:
    messages = [HISTORY[1], {"role": "assistant", "tool_calls": [call("a")]},
                {"role": "tool", "tool_call_id": "b", "content": "x"}]
    with pytest.raises(RequestError) as caught:
        prompt_request(chat(messages=messages), HERMES)
    assert caught.value.field == "messages[2].tool_call_id"
    assert "'b'" in caught.value.message


def test_every_result_run_is_listed_for_a_registered_format() -> None:
    assert set(_RESULT_RUNS) <= set(toolcalls.list_formats())
    assert _RESULT_RUN == ("", "\n", "")


# The templates whose whole prompt is the same from the rewritten request as from native tools.
WHOLE_PROMPT_SAME = {"hermes", "qwen3_coder"}
# Templates that trim the system message, and so the tools block's trailing newlines.
TRIMS_SYSTEM = {"llama3_json", "minimax_m1", "pythonic"}


def _case_request(case: dict[str, Any], fmt: str) -> dict[str, Any]:
    """The case's conversation as a client sends it: arguments as JSON strings."""
    calls = case_calls(case, fmt)
    tool_calls = [call(c.id, c.name, json.dumps(c.arguments, ensure_ascii=False)) for c in calls]
    results = [{"role": "tool", "tool_call_id": c.id, "content": result}
               for c, result in zip(calls, case["results"], strict=True)]
    messages = [
        {"role": "system", "content": "You are a careful assistant."},
        {"role": "user", "content": "Please do what the task needs."},
        {"role": "assistant", "content": case["content"], "tool_calls": tool_calls},
        *results,
    ]
    tools = [_openai_tool(tool) for tool in load_toolset(case["toolset"])]
    return validate_chat_request({"model": "m", "messages": messages, "tools": tools})


def _upstream_prompt(case: dict[str, Any], fmt: str) -> str:
    """What the upstream renders from `prompt_request`, with the model's template, no tools."""
    upstream = prompt_request(_case_request(case, fmt), toolcalls.get_format(fmt))
    assert set(upstream) == {"model", "messages"}
    return _template(fmt).render(messages=upstream["messages"], add_generation_prompt=True,
                                 **_context(fmt))


FIDELITY = [(fmt, case) for fmt in TEMPLATE_FORMATS for case in CASES]
FIDELITY_IDS = [f"{fmt}-{case['name']}" for fmt, case in FIDELITY]


@pytest.mark.parametrize(("fmt", "case"), FIDELITY, ids=FIDELITY_IDS)
def test_prompt_mode_writes_what_the_real_template_writes(fmt: str, case: dict[str, Any]) -> None:
    _covered(fmt, case, "results")  # the cases the template can render at all
    native, prompted = render_template(fmt, case), _upstream_prompt(case, fmt)
    format_ = toolcalls.get_format(fmt)
    calls = case_calls(case, fmt)
    assert (native == prompted) == (fmt in WHOLE_PROMPT_SAME)

    before, between, after = _RESULT_RUNS.get(fmt, _RESULT_RUN)
    run = before + between.join(format_.render_result(c, result)
                                for c, result in zip(calls, case["results"], strict=True)) + after
    assert run in native, "the results are not joined as the template joins them"
    assert run in prompted

    assert format_.render_calls(calls, case["content"]) in prompted
    content = case["content"] if options(fmt)["content_with_calls"] else ""
    if "calls" in options(fmt)["compare"]:
        assert format_.render_calls(calls, content) in native

    block = format_.render_tools(load_toolset(case["toolset"]))
    if fmt in TRIMS_SYSTEM:
        block = block.rstrip("\n")
    assert block in prompted


# --- format_for ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "options_", "expected"),
    [
        ("Qwen/Qwen3-Coder-30B-A3B-Instruct", {}, "qwen3_coder"),  # the model id
        ("NousResearch/Hermes-3-Llama-3.1-8B", {}, "hermes"),
        ("my-finetune", {}, "xml"),  # unknown: our own prompt format, no error
        ("gpt-4o", {}, "xml"),
        ("my-finetune", {"format": "glm45"}, "glm45"),  # a name beats the model id
        ("Qwen/Qwen3-Coder-30B-A3B-Instruct", {"format": "hermes"}, "hermes"),
        ("Qwen/Qwen3-Coder-30B-A3B-Instruct", {"format": "auto"}, "qwen3_coder"),
        ("Qwen/Qwen3-Coder-30B-A3B-Instruct",  # a configured model beats `format`
         {"format": "glm45", "model_formats": {"qwen*": "hermes"}}, "hermes"),
        ("qwen2.5-7b", {"model_formats": {"Qwen*": "hermes"}}, "hermes"),  # any case
        ("local/qwen2.5-7b", {"model_formats": {"qwen*": "hermes"}}, "hermes"),  # last part
        ("local/qwen2.5-7b", {"model_formats": {"local/*": "mistral"}}, "mistral"),  # whole id
        ("llama3.1:8b", {"model_formats": {"llama3.1:8b": "pythonic", "llama*": "llama3_json"}},
         "pythonic"),
        ("llama3.1:8b", {"model_formats": {"llama*": "llama3_json", "llama3.1:8b": "pythonic"}},
         "pythonic"),  # an exact key wins over a glob listed before it
        ("llama3.1:8b", {"model_formats": {"llama3*": "pythonic", "llama*": "llama3_json"}},
         "pythonic"),  # the first glob that matches
        ("mistralai/Mistral-Small-3.2", {"model_formats": {"qwen*": "hermes"}}, "mistral"),
    ],
)
def test_format_for_picks_configured_then_named_then_model_id_then_xml(
        model: str, options_: dict[str, Any], expected: str) -> None:
    assert format_for(model, **options_).name == expected


@pytest.mark.parametrize("options_", [{"format": "nope"}, {"model_formats": {"m*": "nope"}}])
def test_a_configured_format_that_does_not_exist_is_an_error(options_: dict[str, Any]) -> None:
    with pytest.raises(UnknownFormatError):
        format_for("model", **options_)


def test_the_request_module_needs_no_http_package() -> None:
    """The core never imports the serve extra: only the app does (`_requests` is pure)."""
    program = ("import sys, toolcalls.serve._requests; "
               "print(sorted({m.split('.')[0] for m in sys.modules} & "
               "{'starlette', 'uvicorn', 'httpx', 'httpx2', 'anthropic', 'openai'}))")
    found = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                           check=True)
    assert found.stdout.strip() == "[]"
