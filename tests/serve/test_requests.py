"""Chat Completions requests checked (`toolcalls.serve._requests`) and the format of a model;
the Anthropic translation is tested in test_anthropic_request.py, prompt mode in
test_prompt_request.py (both use this module's requests: `chat`, `WEATHER`, `call`, `HISTORY`)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from typing import Any

import pytest

from toolcalls import UnknownFormatError
from toolcalls.serve._requests import (
    MAX_DEPTH,
    RequestError,
    check_strict_json,
    format_for,
    validate_chat_request,
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


def test_the_request_modules_need_no_http_package() -> None:
    """The core never imports the serve extra: only the app does (`_requests`,
    `_anthropic_request` and `_prompt` are pure)."""
    program = ("import sys, toolcalls.serve._requests, toolcalls.serve._anthropic_request, "
               "toolcalls.serve._prompt; "
               "print(sorted({m.split('.')[0] for m in sys.modules} & "
               "{'starlette', 'uvicorn', 'httpx', 'httpx2', 'anthropic', 'openai'}))")
    found = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                           check=True)
    assert found.stdout.strip() == "[]"


def test_strict_json_takes_what_json_writes_and_names_what_it_cannot() -> None:
    fine = json.loads('{"a": ["\\ud83d\\ude00 é", 1e300, -0.0, {"b": null}], "ü": true}')
    check_strict_json(fine)  # a surrogate pair is one character: 😀
    nested: object = []
    for _ in range(MAX_DEPTH):
        nested = [nested]
    check_strict_json(nested)
    with pytest.raises(RequestError, match=r"^x\[0\]" + r"\[0\]" * MAX_DEPTH + ": JSON nested"):
        check_strict_json([nested], "x")
    with pytest.raises(RequestError, match=r"^a\[1\]\.b: NaN is not"):
        check_strict_json({"a": [0, {"b": float("nan")}]})
