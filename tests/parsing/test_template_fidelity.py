"""Prompt rendering matches the model's own chat template, character for character.

For every format with a ``fixtures/render/<format>/template.jinja`` (a real template, see
``fixtures/render/README.md``), each conversation of ``fixtures/render/cases.json`` (real tool
sets from ``fixtures/toolsets/``, calls whose values hold markup, quotes, newlines and unicode)
is rendered by the template with jinja2, set up the way Hugging Face ``transformers`` renders
chat templates. What `Format.render_tools`, `render_calls` and `render_result` write must
appear in that output exactly. An optional ``context.json`` next to a template holds the extra
variables its tokenizer would pass (``bos_token``...), and an optional ``options.json`` what the
harness must do for that template (`Options`).
"""

from __future__ import annotations

import difflib
import json
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from jinja2 import Template
from jinja2.exceptions import TemplateError
from jinja2.sandbox import SandboxedEnvironment

import toolcalls
from toolcalls import Tool, ToolCall
from toolcalls.parsing._chat_template import environment
from toolcalls.parsing.formats._template_json import tojson

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
RENDER = FIXTURES / "render"
TEMPLATE_FORMATS = sorted(path.parent.name for path in RENDER.glob("*/template.jinja"))
CASES: list[dict[str, Any]] = json.loads((RENDER / "cases.json").read_text(encoding="utf-8"))
# A fixed clock, so templates that print today's date render the same every day.
_NOW = datetime(2025, 1, 15, 12, 0, 0)


@cache
def options(fmt: str) -> dict[str, Any]:
    """What a template needs from the harness, from ``<format>/options.json``:

    ``call_id``: the ``str.format`` pattern of call ids (``name``, ``index``), when the template
    derives ids itself (Kimi: ``functions.{name}:{index}``); ``sandbox``: ``"mutable"`` for a
    template written for llama.cpp's minja that mutates lists; ``max_calls``: cases with more
    calls are skipped (the template writes only one call per message); ``compare``: which of
    ``tools``, ``calls``, ``results`` the template writes at all; ``content_with_calls``: false
    when the template moves or drops an assistant's text that comes with calls (gpt-oss, Llama
    3.1, Mistral Small 3.2, MiniMax-M1), so only the calls are compared; ``edge_newlines``:
    true when the template writes string values flush against their tags, where the reader drops
    one newline at each end of a value: a value that begins or ends with a newline is written
    with one more there (`_xmlrender.checked_value`), so the template is given it that way;
    ``json_containers``: true when the template writes objects and arrays as Python's ``str``
    (Seed-OSS: ``{'a': 1}``), which the reader does not read back when it holds a backslash:
    the renderer writes them as JSON, so the template is given them as JSON text;
    ``unrenderable``: case name -> why the real template raises on that case (Seed-OSS reads
    ``parameters.properties`` of every tool, and a tool without it is an error there): skipped;
    ``unreadable``: case name -> why the template's calls for that case do not read back (Olmo
    3 writes ``'`` + a string + ``'`` unescaped): the renderer writes what does, so the calls
    of that case are not compared, and the template's are checked not to read back;
    ``arguments_json``: true when the template writes a call's arguments as the string it is
    given (Functionary: ``'>' + arguments``), as OpenAI's messages carry them: the template is
    given them as JSON text.
    """
    path = RENDER / fmt / "options.json"
    found = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    return {
        "call_id": "call{index:05d}",
        "sandbox": "immutable",
        "max_calls": None,
        "compare": ["tools", "calls", "results"],
        "content_with_calls": True,
        "edge_newlines": False,
        "json_containers": False,
        "unrenderable": {},
        "unreadable": {},
        "arguments_json": False,
        **found,
    }


def _environment(sandbox: str) -> SandboxedEnvironment:
    # transformers renders chat templates in the immutable sandbox; "mutable" is the exception.
    return environment(mutable=sandbox != "immutable", now=_NOW)


@cache
def _template(fmt: str) -> Template:
    source = (RENDER / fmt / "template.jinja").read_text(encoding="utf-8")
    return _environment(options(fmt)["sandbox"]).from_string(source)


def _context(fmt: str) -> dict[str, Any]:
    path = RENDER / fmt / "context.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


@cache
def load_toolset(name: str) -> tuple[Tool, ...]:
    """A real tool set copied into ``fixtures/toolsets/`` (its file names the source)."""
    data = json.loads((FIXTURES / "toolsets" / f"{name}.json").read_text(encoding="utf-8"))
    return tuple(Tool.model_validate(tool) for tool in data["tools"])


def _edge_newlines(value: Any) -> Any:
    """A string value as written flush with one newline added on a side where it has one."""
    if not isinstance(value, str):
        return value
    lead = "\n" if value.startswith(("\n", "\r\n")) else ""
    return lead + value + ("\n" if value.endswith("\n") else "")


def _written(value: Any, fmt: str) -> Any:
    """A value as the renderer writes it (``json_containers``, ``edge_newlines``)."""
    if options(fmt)["json_containers"] and isinstance(value, dict | list):
        value = tojson(value)
    return _edge_newlines(value) if options(fmt)["edge_newlines"] else value


def case_calls(case: dict[str, Any], fmt: str, *, written: bool = False) -> list[ToolCall]:
    """The case's calls; `written`: with values as the renderer writes them (`_written`)."""
    # Nine-character ids by default: the strictest template (Mistral's) accepts nothing else.
    pattern = options(fmt)["call_id"]
    return [
        ToolCall(
            id=pattern.format(name=call["name"], index=index),
            name=call["name"],
            arguments={k: _written(v, fmt) for k, v in call["arguments"].items()}
            if written
            else call["arguments"],
            span=(0, 0),
        )
        for index, call in enumerate(case["calls"])
    ]


def _openai_tool(tool: Tool) -> dict[str, Any]:
    function = {"name": tool.name, "description": tool.description, "parameters": tool.parameters}
    return {"type": "function", "function": function}


def conversation(case: dict[str, Any], fmt: str) -> list[dict[str, Any]]:
    """System, user, the assistant's calls and one tool message per result: HF message dicts."""
    calls = case_calls(case, fmt, written=True)
    as_text = options(fmt)["arguments_json"]
    tool_calls = [
        {"id": c.id, "type": "function", "function": {
            "name": c.name, "arguments": tojson(c.arguments) if as_text else c.arguments}}
        for c in calls
    ]
    results = [
        {"role": "tool", "tool_call_id": c.id, "name": c.name, "content": result}
        for c, result in zip(calls, case["results"], strict=True)
    ]
    return [
        {"role": "system", "content": "You are a careful assistant."},
        {"role": "user", "content": "Please do what the task needs."},
        {"role": "assistant", "content": case["content"], "tool_calls": tool_calls},
        *results,
    ]


def render_template(fmt: str, case: dict[str, Any], **variables: Any) -> str:
    """The case rendered by the format's template; `variables` override its ``context.json``
    (a template that reads the tools from a variable of its server's, such as llama.cpp's)."""
    tools = [_openai_tool(tool) for tool in load_toolset(case["toolset"])]
    return _template(fmt).render(
        messages=conversation(case, fmt),
        tools=tools,
        add_generation_prompt=True,
        **(_context(fmt) | variables),
    )


def assert_written(expected: str, output: str, what: str) -> None:
    """`expected` appears in `output` exactly; otherwise show the closest slice, diffed."""
    if expected in output:
        return
    matcher = difflib.SequenceMatcher(None, output, expected, autojunk=False)
    block = matcher.find_longest_match(0, len(output), 0, len(expected))
    start = max(0, block.a - block.b)
    nearest = output[start : start + len(expected) + 40]
    diff = "\n".join(
        difflib.unified_diff(
            nearest.splitlines(), expected.splitlines(), "template", "ours", lineterm=""
        )
    )
    pytest.fail(f"{what} is not what the template writes:\n{diff}")


def _covered(fmt: str, case: dict[str, Any], part: str) -> None:
    """Skip what this template does not write (see `options`)."""
    why = options(fmt)["unrenderable"].get(case["name"])
    if why is not None:
        pytest.skip(f"the {fmt} template cannot render this case: {why}")
    limit = options(fmt)["max_calls"]
    if limit is not None and len(case["calls"]) > limit:
        pytest.skip(f"the {fmt} template writes at most {limit} call(s) per message")
    if part not in options(fmt)["compare"]:
        pytest.skip(f"the {fmt} template writes no {part}")


def _implemented(call: Any) -> Any:
    try:
        return call()
    except NotImplementedError as missing:
        pytest.skip(str(missing))


PARAMS = [(fmt, case) for fmt in TEMPLATE_FORMATS for case in CASES]
IDS = [f"{fmt}-{case['name']}" for fmt, case in PARAMS]


def test_every_template_folder_names_a_registered_format() -> None:
    assert TEMPLATE_FORMATS, "no fixtures/render/<format>/template.jinja found"
    assert set(TEMPLATE_FORMATS) <= set(toolcalls.list_formats())


@pytest.mark.parametrize(("fmt", "case"), PARAMS, ids=IDS)
def test_tools_block_is_the_templates(fmt: str, case: dict[str, Any]) -> None:
    _covered(fmt, case, "tools")
    tools = load_toolset(case["toolset"])
    ours = _implemented(lambda: toolcalls.get_format(fmt).render_tools(tools))
    assert_written(ours, render_template(fmt, case), "the tools block")


@pytest.mark.parametrize(("fmt", "case"), PARAMS, ids=IDS)
def test_assistant_calls_are_the_templates(fmt: str, case: dict[str, Any]) -> None:
    _covered(fmt, case, "calls")
    why = options(fmt)["unreadable"].get(case["name"])
    if why is not None:
        pytest.skip(f"the {fmt} template writes calls that do not read back here: {why}")
    fmt_ = toolcalls.get_format(fmt)
    content = case["content"] if options(fmt)["content_with_calls"] else ""
    ours = _implemented(lambda: fmt_.render_calls(case_calls(case, fmt), content))
    assert_written(ours, render_template(fmt, case), "the assistant turn")


@pytest.mark.parametrize(("fmt", "case"), PARAMS, ids=IDS)
def test_tool_results_are_the_templates(fmt: str, case: dict[str, Any]) -> None:
    _covered(fmt, case, "results")
    fmt_ = toolcalls.get_format(fmt)
    output = render_template(fmt, case)
    for call, result in zip(case_calls(case, fmt), case["results"], strict=True):
        ours = _implemented(lambda: fmt_.render_result(call, result))  # noqa: B023
        assert_written(ours, output, f"the result of {call.name}")


@pytest.mark.parametrize("fmt", TEMPLATE_FORMATS)
def test_cases_listed_unrenderable_really_fail_in_the_template(fmt: str) -> None:
    for case in CASES:
        if case["name"] in options(fmt)["unrenderable"]:
            with pytest.raises(TemplateError):
                render_template(fmt, case)


@pytest.mark.parametrize("fmt", TEMPLATE_FORMATS)
def test_cases_listed_unreadable_really_do_not_read_back(fmt: str) -> None:
    fmt_ = toolcalls.get_format(fmt)
    for case in CASES:
        if case["name"] in options(fmt)["unreadable"]:
            output = render_template(fmt, case)
            read = [(c.name, c.arguments) for c in fmt_.parse(output).calls]
            assert read != [(c.name, c.arguments) for c in case_calls(case, fmt)], case["name"]


def test_template_output_differs_when_a_value_differs() -> None:
    """The comparison has teeth: one changed character in a value is caught."""
    case = CASES[1]
    changed = json.loads(json.dumps(case))
    changed["calls"][0]["arguments"]["path"] += "x"
    for fmt in TEMPLATE_FORMATS:
        if case["name"] in options(fmt)["unrenderable"]:  # the template raises on it
            continue
        fmt_ = toolcalls.get_format(fmt)
        try:
            ours = fmt_.render_calls(case_calls(changed, fmt), changed["content"])
        except NotImplementedError:
            continue
        assert ours not in render_template(fmt, case), fmt
