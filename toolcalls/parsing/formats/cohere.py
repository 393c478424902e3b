"""Cohere Command R7B, Command A and North: ``<|START_ACTION|>`` then a JSON list of calls.

    <|START_THINKING|>I will look up the weather.<|END_THINKING|><|START_ACTION|>[
        {"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}}
    ]<|END_ACTION|>

Every marker is a special token. The reasoning (the model's "tool plan") is
``<|START_THINKING|>...<|END_THINKING|>``; an answer is ``<|START_RESPONSE|>...<|END_RESPONSE|>``
(Command R7B, Command A) or ``<|START_TEXT|>...<|END_TEXT|>`` (Cohere2MoE, North): those tokens
are markup, the answer between them content. The generation prompt of the reasoning models
opens ``<|START_THINKING|>`` itself, so their text starts inside reasoning: parse it with
``thinking=True`` (llama.cpp's Cohere2MoE tests).

Each element of the list is its own call, named by ``"tool_name"`` (``"name"`` is read too),
its arguments ``"parameters"``, streamed as they arrive; any name after the token makes a call
(an undeclared one with an ``unknown_tool`` issue). ``"tool_call_id"`` is the template's
running number, not kept: calls get the engine's ids. A list cut off after a complete call keeps
that call; one cut off inside a call reports it as incomplete, never as a call to run (llama.cpp's
partial mode makes one with ``{}`` arguments). Tool results in history
(``<|START_TOOL_RESULT|>[...]<|END_TOOL_RESULT|>``) are data, never calls.

Rendering follows Command R7B's chat template (fixtures/render/cohere/): the tool-use
instructions and the ``## Available Tools`` JSON block, calls as above with ``tool_call_id``
numbering the calls of the turn, each result an element of the ``<|START_TOOL_RESULT|>`` list
(`Cohere.result_run` writes the list around them). The template drops an assistant's text that
comes with calls; we write it before ``<|START_ACTION|>`` so that it reads back as content.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from ...tools._tool import Tool
from .._models import ToolCall
from .._text import skip_blanks
from ..reader import ReaderContext, ReaderFactory, Status
from ._base import Format
from ._jsonobjects import JsonCallsReader, JsonShape
from ._regions import KeyedJsonListCalls
from ._results import region_openers
from ._template_json import tojson

__all__ = ["Cohere"]

START_ACTION: Final = "<|START_ACTION|>"
END_ACTION: Final = "<|END_ACTION|>"
START_THINKING: Final = "<|START_THINKING|>"
END_THINKING: Final = "<|END_THINKING|>"
START_RESPONSE: Final = "<|START_RESPONSE|>"
END_RESPONSE: Final = "<|END_RESPONSE|>"
START_TEXT: Final = "<|START_TEXT|>"
END_TEXT: Final = "<|END_TEXT|>"
START_TOOL_RESULT: Final = "<|START_TOOL_RESULT|>"
END_TOOL_RESULT: Final = "<|END_TOOL_RESULT|>"
END_OF_TURN: Final = "<|END_OF_TURN_TOKEN|>"
RESULT_TURN: Final = f"<|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|>{START_TOOL_RESULT}[\n"

ANSWER_TOKENS: Final = (START_RESPONSE, END_RESPONSE, START_TEXT, END_TEXT)
"""The tokens around an answer: markup wherever they stand (special tokens are never prose)."""

CALLS: Final = JsonShape(
    prefix=True, arrays=True, wrapped=True, closer=END_ACTION, name_keys=("tool_name", "name")
)

TOOLS_INTRO: Final = """

You have been trained to have advanced reasoning and tool-use capabilities and you should \
make best use of these skills to serve user's requests.

## Tool Use
Think about how you can make best use of the provided tools to help with the task and come up \
with a high level plan that you will execute first.

0. Start by writing <|START_THINKING|> followed by a detailed step by step plan of how you will \
solve the problem. For each step explain your thinking fully and give details of required tool \
calls (if needed). Unless specified otherwise, you write your plan in natural language. When you \
finish, close it out with <|END_THINKING|>.
    You can optionally choose to skip this step when the user request is so straightforward to \
address that only a trivial plan would be needed.
    NOTE: You MUST skip this step when you are directly responding to the user's request \
without using any tools.

Then carry out your plan by repeatedly executing the following steps.
1. Action: write <|START_ACTION|> followed by a list of JSON-formatted tool calls, with each one \
containing "tool_name" and "parameters" fields.
    When there are multiple tool calls which are completely independent of each other (i.e. \
they can be executed in parallel), you should list them out all together in one step. When you \
finish, close it out with <|END_ACTION|>.
2. Observation: you will then receive results of those tool calls in JSON format in the very \
next turn, wrapped around by <|START_TOOL_RESULT|> and <|END_TOOL_RESULT|>. Carefully observe \
those results and think about what to do next. Note that these results will be provided to you \
in a separate turn. NEVER hallucinate results.
    Every tool call produces a list of results (when a tool call produces no result or a single \
result, it'll still get wrapped inside a list). Each result is clearly linked to its originating \
tool call via its "tool_call_id".
3. Reflection: start the next turn by writing <|START_THINKING|> followed by what you've figured \
out so far, any changes you need to make to your plan, and what you will do next. When you \
finish, close it out with <|END_THINKING|>.
    You can optionally choose to skip this step when everything is going according to plan and \
no special pieces of information or reasoning chains need to be recorded.
    NOTE: You MUST skip this step when you are done with tool-use actions and are ready to \
respond to the user.

You can repeat the above 3 steps multiple times (could be 0 times too if no suitable tool calls \
are available or needed), until you decide it's time to finally respond to the user.

4. Response: then break out of the loop and write <|START_RESPONSE|> followed by a piece of \
text which serves as a response to the user's last request. Use all previous tool calls and \
results to help you when formulating your response. When you finish, close it out with \
<|END_RESPONSE|>.

## Available Tools
Here is the list of tools that you have available to you.
You can ONLY use the tools listed here. When a tool is not listed below, it is NOT available and \
you should NEVER attempt to use it.
Each tool is represented as a JSON object with fields like "name", "description", "parameters" \
(per JSON Schema), and optionally, "responses" (per JSON Schema).

```json
[
"""
"""Command R7B's tool-use instructions, from the blank line after its preamble to the list."""

_ENGINE_ID: Final = re.compile(r"call_(\d{1,9})")
_ESCAPED_TOKEN: Final = re.compile(r"<\|(?=[A-Z_]+\|>)")


class ActionReader:
    """The list after ``<|START_ACTION|>``: its calls (`JsonCallsReader`), or, when the list is
    empty (the model called nothing), markup, tokens and all."""

    def __init__(self, ctx: ReaderContext, opener: str) -> None:
        self.opener = opener
        self.empty: bool | None = None
        self.calls = JsonCallsReader(CALLS, opener)
        self.resume: int | None = None

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        if self.empty is None:
            self.empty = _empty_list_ahead(ctx.buf, ctx.pos + len(self.opener), eof)
            if self.empty is None:
                return Status.MORE
        if self.empty:
            return _empty_list(ctx, eof)
        status = self.calls.read(ctx, eof)
        self.resume = self.calls.resume
        return status


def _empty_list_ahead(buf: str, at: int, eof: bool) -> bool | None:
    """Whether ``[ ]`` comes at `at` (after blanks); None while the text cannot tell."""
    at = skip_blanks(buf, at)
    if at < len(buf) and buf[at] == "[":
        at = skip_blanks(buf, at + 1)
        if at < len(buf):
            return buf[at] == "]"
    return False if eof or at < len(buf) else None


def _empty_list(ctx: ReaderContext, eof: bool) -> Status:
    """The opener, ``[ ]`` and the ``<|END_ACTION|>`` after it, if any, as markup."""
    buf = ctx.buf
    end = buf.index("]", ctx.pos) + 1
    at = skip_blanks(buf, end)
    ahead = buf[at : at + len(END_ACTION)]
    if ahead == END_ACTION:
        ctx.consume("markup", at + len(ahead))
        return Status.DONE
    if END_ACTION.startswith(ahead) and at + len(ahead) == len(buf) and not eof:
        return Status.MORE
    ctx.consume("markup", end)
    return Status.DONE


class AnswerToken:
    """``<|START_RESPONSE|>`` and its kin: markup, whatever stands around it."""

    def __init__(self, ctx: ReaderContext, opener: str) -> None:
        self.opener = opener

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        ctx.consume("markup", ctx.pos + len(self.opener))
        return Status.DONE


def _tool_line(tool: Tool) -> str:
    # The template writes the name and description raw between quotes, the parameters as JSON.
    return (f'    {{"name": "{tool.name}", "description": "{tool.description}", '
            f'"parameters": {tojson(tool.parameters)}, "responses": null}}')


def _call_line(index: int, call: ToolCall) -> str:
    # The template writes the name raw between quotes; as JSON it is the same for any name a
    # quote, a backslash or a control character does not break, and reads back for those too.
    return (f'    {{"tool_call_id": "{index}", "tool_name": {tojson(call.name)}, '
            f'"parameters": {tojson(call.arguments)}}}')


def call_number(call: ToolCall) -> int:
    """The number the template gives a call: the place its engine id ``call_N`` says, else 0."""
    engine = _ENGINE_ID.fullmatch(call.id or "")
    return int(engine[1]) if engine else 0


def json_text(value: str) -> str:
    """`value` as a JSON string with every special token's ``|`` escaped (``<\\u007c...``): the
    same string to a JSON reader, but no ``<|END_TOOL_RESULT|>`` that could end the results."""
    return _ESCAPED_TOKEN.sub("<\\\\u007c", tojson(value))


class Cohere(Format):
    """Cohere Command R7B, Command A (and its reasoning model), North (Cohere2MoE)."""

    name = "cohere"
    aliases = ("command_r7b", "command_a", "cohere2", "cohere_command")
    model_prefixes = (
        "CohereForAI/c4ai-command-r7b",
        "CohereLabs/c4ai-command-r7b",
        "CohereForAI/c4ai-command-a",
        "CohereLabs/c4ai-command-a",
        "CohereLabs/command-a",
        "CohereLabs/north",
        "c4ai-command-r7b",
        "c4ai-command-a",
        "command-a",
        "command-r7b",
    )
    reasoning_tags = (START_THINKING, END_THINKING)
    signatures = (START_ACTION, END_ACTION, START_RESPONSE, START_TEXT, END_THINKING)
    turn_ends = (END_OF_TURN,)
    example = (f'{START_ACTION}[\n    {{"tool_call_id": "0", "tool_name": "get_weather", '
               f'"parameters": {{"city": "Paris"}}}}\n]{END_ACTION}')

    models = "Command R7B, Command A, North (Cohere2MoE)"
    wire = '`<|START_ACTION|>[{"tool_call_id": "0", "tool_name": …, "parameters": {…}}]…`'
    body_wrapper = (START_ACTION, END_ACTION)
    call_region = KeyedJsonListCalls(START_ACTION, END_ACTION, "tool_name", "parameters",
                                     id_key="tool_call_id")
    structural_tag_markers = (
        START_ACTION,
        START_ACTION + '[\n    {{"tool_call_id": "0", "tool_name": {name_json}, "parameters": ',
        "}\n]" + END_ACTION,
    )
    result_run = (RESULT_TURN, ",\n", f"\n]{END_TOOL_RESULT}{END_OF_TURN}")

    def call_openers(self) -> dict[str, ReaderFactory]:
        table: dict[str, ReaderFactory] = {START_ACTION: ActionReader}
        table |= dict.fromkeys(ANSWER_TOKENS, AnswerToken)
        return table | region_openers({START_TOOL_RESULT: END_TOOL_RESULT}, "tool_result_in_text")

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # the template writes no tool-use section
            return ""
        listed = ",\n".join(_tool_line(tool) for tool in tools)
        return f"{TOOLS_INTRO}{listed}\n]\n```\n"

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        if not calls:
            return content
        listed = ",\n".join(_call_line(index, call) for index, call in enumerate(calls))
        return f"{content}{START_ACTION}[\n{listed}\n]{END_ACTION}"

    def render_result(self, call: ToolCall, result: str) -> str:
        return (f'    {{\n        "tool_call_id": "{call_number(call)}",\n        "results": {{\n'
                f'            "0": {json_text(result)}\n        }},\n'
                f'        "is_error": null\n    }}')
