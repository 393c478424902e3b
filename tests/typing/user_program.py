"""A typed user program that touches every public name of `toolcalls` (checked by mypy --strict
in tests/test_public_api.py): each name must have its real type, not ``object`` or ``Any``."""

from __future__ import annotations

from typing import Any, assert_type

import toolcalls
from toolcalls.budget import Session, count_tokens
from toolcalls.tools import import_tools

TEXT = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
TOOL_DICT = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}


def parse_whole() -> None:
    result = toolcalls.parse(TEXT, "hermes", tools=[TOOL_DICT])
    assert_type(result, toolcalls.ParseResult)
    call = result.calls[0]
    assert_type(call, toolcalls.ToolCall)
    assert_type(call.name, str)
    issue: toolcalls.ParseIssue | None = result.issues[0] if result.issues else None
    cut: toolcalls.IncompleteCall | None = result.incomplete[0] if result.incomplete else None
    print(call.name, issue, cut, result.tool_calls())


def parse_streamed() -> None:
    parser: toolcalls.StreamParser = toolcalls.stream("hermes")
    seen: list[toolcalls.Event] = [*parser.feed(TEXT), *parser.close()]
    for event in seen:
        if isinstance(event, toolcalls.TextDelta | toolcalls.ReasoningDelta):
            print(event.text)
        elif isinstance(event, toolcalls.ToolCallStart):
            print(event.index, event.name)
        elif isinstance(event, toolcalls.ArgumentsDelta):
            print(event.fragment)
        elif isinstance(event, toolcalls.ToolCallEnd):
            print(event.call.arguments)
        elif isinstance(event, toolcalls.ToolCallFailed):
            print(event.incomplete.raw)
    assert_type(parser.result(), toolcalls.ParseResult)


def bound_parser() -> None:
    bound: toolcalls.Parser = toolcalls.parser("hermes", tools=[TOOL_DICT])
    assert_type(bound.parse(TEXT), toolcalls.ParseResult)
    tools: list[toolcalls.Tool] = toolcalls.to_tools([TOOL_DICT])
    assert_type(tools[0], toolcalls.Tool)
    name: str | None = toolcalls.detect(TEXT)
    names: list[str] = toolcalls.list_formats()
    print(name, names, toolcalls.get_format("hermes").name, toolcalls.__version__)


def reading_a_response() -> None:
    response = {"model": "m", "choices": [{"finish_reason": "stop", "message": {
        "role": "assistant", "content": TEXT, "tool_calls": []}}]}
    result = toolcalls.read_response(response, "openai", format="hermes", tools=[TOOL_DICT])
    assert_type(result, toolcalls.ParseResult)
    print(result.provider, result.finish_reason, result.usage, result.calls[0].source)


def reading_a_stream() -> None:
    parser = toolcalls.read_stream("openai", format="hermes", tools=[TOOL_DICT])
    events: list[toolcalls.Event] = parser.feed(b'data: {"choices": [{"delta": {}}]}')
    events += parser.close()
    assert_type(parser.result(), toolcalls.ParseResult)
    print(events, repr(parser))


def rendering() -> None:
    tools = import_tools([TOOL_DICT])
    rendered = toolcalls.budget.render(tools, "hermes", budget=4_000)
    print(rendered.content, rendered.tokens, count_tokens("hello"), Session(tools))


def grammars() -> None:
    rules: str = toolcalls.decoding.grammar("hermes", [TOOL_DICT], dialect="gbnf",
                                            tool_choice="required")
    tag: dict[str, Any] = toolcalls.decoding.structural_tag("hermes", [TOOL_DICT], legacy=True)
    print(rules, tag)


def errors() -> None:
    caught: tuple[type[toolcalls.ToolCallsError], ...] = (
        toolcalls.ParseError,
        toolcalls.IncompleteToolCallError,
        toolcalls.InvalidArgumentsError,
        toolcalls.UnknownToolError,
        toolcalls.UnknownFormatError,
        toolcalls.ToolDefinitionError,
        toolcalls.ToolNotFoundError,
        toolcalls.budget.EncodingError,
    )
    try:
        toolcalls.parse(TEXT, "hermes", strict=True)
    except caught as error:
        print(error)
