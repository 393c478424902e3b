"""Prompt mode's upstream requests (`toolcalls.serve._prompt`).

Prompt mode against the real chat templates (fixtures/render/<format>/template.jinja, rendered
as tests/parsing/test_template_fidelity.py renders them): the upstream renders the request
`prompt_request` writes (no tools) with the model's own template; what it renders is compared
with what the same template renders for the original conversation with native tools.

* Exact for every template: the tools block, the assistant's calls and the run of results
  (`Format.result_run`) appear character for character in both. The tools block loses its trailing
  newlines where the template trims the system message (llama3_json, minimax_m1, pythonic).
* The whole prompt is identical for hermes, qwen3_coder and reka (`WHOLE_PROMPT_SAME`), whose
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
import sys
from pathlib import Path
from typing import Any

import pytest
from test_requests import HISTORY, WEATHER, call, chat

import toolcalls
from toolcalls.serve._prompt import prompt_request
from toolcalls.serve._requests import RequestError, validate_chat_request
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


@pytest.mark.parametrize("ids", [("call_abc", "toolu_xyz"), ("call_7", "call_3")])
def test_kimi_results_name_the_id_the_calls_were_written_with(ids: tuple[str, str]) -> None:
    # Kimi names a result "## Return of functions.NAME:N": N must be the call's place in its
    # turn, as render_calls wrote it, whatever the client's ids (call_7 is not place 7)
    messages = [
        {"role": "user", "content": "Go"},
        {"role": "assistant", "content": "", "tool_calls": [
            call(ids[0]), call(ids[1], name="get_time", arguments='{"zone": "UTC"}')]},
        {"role": "tool", "tool_call_id": ids[1], "content": "noon"},
        {"role": "tool", "tool_call_id": ids[0], "content": "sunny"},
    ]
    upstream = prompt_request(chat(messages=messages), toolcalls.get_format("kimi_k2"))
    written = upstream["messages"][1]["content"]
    results = upstream["messages"][2]["content"]
    assert "functions.get_weather:0<|tool_call_argument_begin|>" in written
    assert "functions.get_time:1<|tool_call_argument_begin|>" in written
    assert results == (
        "<|im_system|>get_time<|im_middle|>## Return of functions.get_time:1\nnoon<|im_end|>"
        "<|im_system|>get_weather<|im_middle|>## Return of functions.get_weather:0\n"
        "sunny<|im_end|>")


# The templates whose whole prompt is the same from the rewritten request as from native tools.
WHOLE_PROMPT_SAME = {"granite4", "hermes", "qwen3_coder", "reka"}
# Templates that trim the system message, and so the tools block's trailing newlines.
TRIMS_SYSTEM = {"firefunction_v2", "llama3_json", "minimax_m1", "phi4_mini", "pythonic", "xlam"}
# Templates that trim an assistant message's text: a turn whose calls the template writes after
# a blank (FireFunction's " functools[") loses that blank when prompt mode passes it as text.
TRIMS_ASSISTANT = {"firefunction_v2"}


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

    before, between, after = format_.result_run
    run = before + between.join(format_.render_result(c, result)
                                for c, result in zip(calls, case["results"], strict=True)) + after
    assert run in native, "the results are not joined as the template joins them"
    assert run in prompted

    written = format_.render_calls(calls, case["content"])
    assert (written.strip() if fmt in TRIMS_ASSISTANT else written) in prompted
    content = case["content"] if options(fmt)["content_with_calls"] else ""
    if "calls" in options(fmt)["compare"] and case["name"] not in options(fmt)["unreadable"]:
        assert format_.render_calls(calls, content) in native

    block = format_.render_tools(load_toolset(case["toolset"]))
    if fmt in TRIMS_SYSTEM:
        block = block.rstrip("\n")
    assert block in prompted
