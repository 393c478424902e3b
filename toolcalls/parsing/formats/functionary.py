"""Functionary v3.1 and v3.2 (MeetKai): two wire formats of one model family.

``functionary_v31`` (Llama 3.1 based): a call is ``<function=NAME>`` + JSON + ``</function>``,
several written back to back; the code interpreter is ``<|python_tag|>`` + raw code to the end
of the turn:

    Let me check.<function=get_weather>{"city": "Paris"}</function>

    <|python_tag|>print(sum(range(10)))

``functionary_v32`` (Llama 3 based): every part of a message is ``>>>`` + a recipient line +
its text. The recipient ``all`` is text for the user; any other is a call, its arguments JSON
(raw code for ``python``). The prompt ends with ``>>>``, so a response starts inside a recipient
line (see `_recipients`):

    all
    Let me check.>>>get_weather
    {"city": "Paris"}

Recovered: code after ``<|python_tag|>`` (or ``>>>python``) is the call ``python`` with
``{"code": ...}``, and a JSON object there its arguments, as the templates write a ``python``
call back from history; a ``<function=`` call whose close tag is missing ends where the next
call begins (``missing_close_tag``). A tool result in history (an ``ipython`` or ``tool`` turn)
is data, never calls (`_results`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from ...tools._tool import Tool
from .._models import ToolCall
from .._text import skip_blanks
from ..reader import Reader, ReaderContext, ReaderFactory, Status
from ._base import CODE_FENCE, Format
from ._functionary_schema import typescript_functions
from ._jsoncall import Header, JsonCall, JsonCallReader
from ._llama_prompt import EOT, ipython_turn, result_openers
from ._recipients import CONTENT_RECIPIENT, PART_START, PYTHON_TOOL, RecipientReader, code_arguments
from ._regions import RecipientCalls, TaggedJsonCalls
from ._results import protect, region_openers
from ._template_json import bare_tool, tojson

__all__ = ["FunctionaryV31", "FunctionaryV32", "PythonCodeReader"]

FUNCTION_START = "<function="
FUNCTION_HEADER_END = ">"
FUNCTION_END = "</function>"
PYTHON_TAG = "<|python_tag|>"
END_OF_MESSAGE = "<|eom_id|>"

_NAME: Final = re.compile(r"[^\s<>\"'{}=/]{1,200}")

V31_TOOLS_INTRO = "\nYou have access to the following functions:\n\n"
V31_TOOLS_INSTRUCTIONS = (
    "\nThink very carefully before calling functions.\nIf a you choose to call a function ONLY "
    "reply in the following format:\n<{start_tag}={function_name}>{parameters}{end_tag}\nwhere"
    "\n\nstart_tag => `<function`\nparameters => a JSON dict with the function argument name as "
    "key and function argument value as value.\nend_tag => `</function>`\n\nHere is an example,"
    '\n<function=example_function_name>{"example_name": "example_value"}</function>\n\n'
    "Reminder:\n- If looking for real time information use relevant functions before falling "
    "back to brave_search\n- Function calls MUST follow the specified format, start with "
    "<function= and end with </function>\n- Required parameters MUST be specified\n- Only call "
    "one function at a time\n- Put the entire function call reply on one line\n\n"
)


def function_name(text: str) -> Header | None:
    """The NAME of ``<function=NAME>`` (the text between ``=`` and ``>``, blanks around it
    allowed: the grammar lets a sampled call write them)."""
    name = text.strip()
    return Header(name) if _NAME.fullmatch(name) else None


class PythonCodeReader:
    """``<|python_tag|>`` + code: the ``python`` call, its code running to the end of the text.

    The code is taken whole at the end (`code_arguments`), so its arguments arrive with the
    call's end. Blanks after the code are markup.
    """

    def __init__(self, ctx: ReaderContext, opener: str) -> None:
        self.opener = opener
        self.parts: list[str] = []
        self.started = False

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        if not self.started:
            if skip_blanks(ctx.buf, ctx.pos + len(self.opener)) == len(ctx.buf):
                return Status.REJECT if eof else Status.MORE
            self.started = True
            ctx.consume("call", skip_blanks(ctx.buf, ctx.pos + len(self.opener)))
            ctx.start_call(PYTHON_TOOL)
        self.parts.append(ctx.buf[ctx.pos :])
        ctx.consume("call", len(ctx.buf))
        if not eof:
            return Status.MORE
        ctx.end_call(code_arguments("".join(self.parts).rstrip()))
        return Status.DONE


_FUNCTION_SHAPE: Final = JsonCall(
    close=(FUNCTION_END,),
    header_end=FUNCTION_HEADER_END,
    parse_header=function_name,
    max_header=200,
    terminators=(FUNCTION_START, PYTHON_TAG),
)


def _function_reader(ctx: ReaderContext, opener: str) -> JsonCallReader:
    return JsonCallReader(_FUNCTION_SHAPE, opener)


def _v31_call(call: ToolCall) -> str:
    if call.name == PYTHON_TOOL:
        return PYTHON_TAG + tojson(call.arguments)
    return f"{FUNCTION_START}{call.name}{FUNCTION_HEADER_END}{tojson(call.arguments)}{FUNCTION_END}"


class FunctionaryV31(Format):
    """Functionary v3.1. Rendering follows its chat template (MeetKai's ``v3-llama3.1``): the
    tools, each as ``Use the function 'NAME' to 'DESCRIPTION'`` and its JSON, then the call
    instructions; the calls right after the content; a result as an ``ipython`` turn."""

    name = "functionary_v31"
    aliases = ("functionary_v3.1", "functionary_llama31", "functionary31")
    model_prefixes = ("meetkai/functionary-small-v3.1", "meetkai/functionary-medium-v3.1")
    signatures = (FUNCTION_START,)  # <|python_tag|> and </function> are Llama 3.1's and Hermes'
    turn_ends = (EOT, END_OF_MESSAGE)
    example = '<function=get_weather>{"city": "Paris"}</function>'

    models = "Functionary v3.1"
    wire = '`<function=f>{…}</function>`'
    result_region_end = EOT
    call_region = TaggedJsonCalls(FUNCTION_START, "", FUNCTION_HEADER_END, "", "", FUNCTION_END)
    structural_tag_markers = (
        FUNCTION_START, FUNCTION_START + "{name}" + FUNCTION_HEADER_END, FUNCTION_END
    )
    result_run = ("", "", "")

    def call_openers(self) -> dict[str, ReaderFactory]:
        table: dict[str, ReaderFactory] = {
            FUNCTION_START: _function_reader, PYTHON_TAG: PythonCodeReader,
        }
        return table | result_openers()

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # the template writes no functions section
            return ""
        listed = "".join(
            f"Use the function '{tool.name}' to '{tool.description}'\n"
            f"{tojson(bare_tool(tool))}\n\n"
            for tool in tools
        )
        return V31_TOOLS_INTRO + listed + V31_TOOLS_INSTRUCTIONS

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        return content + "".join(map(_v31_call, calls))

    def render_result(self, call: ToolCall, result: str) -> str:
        return ipython_turn(result)


THINK = ("<think>", "</think>")
"""The default reasoning tags: Functionary writes none, but a server may add a block."""
TOOL_TURN = "<|start_header_id|>tool<|end_header_id|>"
"""v3.2 writes a tool's result as a ``tool`` turn (v3.1 as an ``ipython`` one)."""
V32_SYSTEM = (
    "You are capable of executing available function(s) if required.\nOnly execute "
    "function(s) when absolutely necessary.\nAsk for the required input to:recipient==all\n"
    "Use JSON for function arguments.\nRespond in this format:\n>>>${recipient}\n${content}\n"
    "Available functions:\n"
)
"""The v3.2 template's system prompt, which the tools' TypeScript namespace ends."""


_OPENING_PART: Final = re.compile(r"(?:all|python)\n|[\w.:-]{1,200}\n[ \t\r\n]*\{")
"""How a response begins when it starts inside the prompt's ``>>>`` (`detect`)."""
BARE_PART_SCORE: Final = 0.25
"""Below any marker's: a first line and a brace are a weaker sign than ``>>>``."""


def _v32_part(call: ToolCall) -> str:
    return f"{PART_START}{call.name}\n{tojson(call.arguments)}"


class FunctionaryV32(Format):
    """Functionary v3.2. Rendering follows its chat template (MeetKai's ``v3.llama3``): content
    as the part ``>>>all``, each call as a part of its own, a result as a ``tool`` turn."""

    name = "functionary_v32"
    aliases = ("functionary_v3.2", "functionary_llama3", "functionary32")
    model_prefixes = ("meetkai/functionary-small-v3.2", "meetkai/functionary-medium-v3.2")
    reasoning_tags = THINK
    signatures = (PART_START + CONTENT_RECIPIENT + "\n", PART_START)
    turn_ends = (EOT,)
    # As a server that keeps the prompt's ">>>" returns it (the model itself starts after it).
    example = '>>>get_weather\n{"city": "Paris"}'

    models = "Functionary v3.2"
    wire = '`>>>f\\n{…}`'
    result_region_end = EOT
    call_region = RecipientCalls(
        PART_START, CONTENT_RECIPIENT, (PART_START, TOOL_TURN, EOT, CODE_FENCE, *THINK), THINK
    )
    result_run = ("", "", "")

    def opened_block(self, ctx: ReaderContext) -> Reader | None:
        return RecipientReader(ctx, "")

    @classmethod
    def detect(cls, text: str) -> float:
        """The markers' score; else, for a response as the model writes it after the prompt's
        ``>>>`` (``all`` or a recipient line, then JSON or code), a bare call's score."""
        score = super(FunctionaryV32, cls).detect(text)  # noqa: UP008  # mypyc wants the class
        return score if score or not _OPENING_PART.match(text) else BARE_PART_SCORE

    def call_openers(self) -> dict[str, ReaderFactory]:
        table: dict[str, ReaderFactory] = {PART_START: RecipientReader}
        return table | region_openers({TOOL_TURN: EOT}, "tool_result_in_text")

    def render_tools(self, tools: Sequence[Tool]) -> str:
        # The template writes its system prompt and the (maybe empty) namespace with no tools too.
        return V32_SYSTEM + typescript_functions(tools)

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        text = f"{PART_START}{CONTENT_RECIPIENT}\n{content}" if content else ""
        return text + "".join(map(_v32_part, calls))

    def render_result(self, call: ToolCall, result: str) -> str:
        return f"{TOOL_TURN}\n\n{protect(result, EOT)}{EOT}"
