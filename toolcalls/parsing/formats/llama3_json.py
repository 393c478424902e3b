"""Llama 3.x JSON: a bare JSON object per call (Llama 3.1, 3.2, 3.3; vLLM ``llama3_json``).

    {"name": "get_weather", "parameters": {"city": "Paris"}}

``"arguments"`` may stand for ``"parameters"``; several calls are separated by ``;``; each may
follow ``<|python_tag|>``, which also introduces Llama 3.1's built-in tools written as Python
(``<|python_tag|>brave_search.call(query="...")``, read as a call to ``brave_search``).

Nothing but JSON marks a call, so every ``{`` is only a candidate (`JsonCallsReader`): the text
is held while it can still become a call and released as content, byte for byte, when it
cannot. With tools given, the object must name a declared tool; without, it needs a string
``"name"`` and an object ``"parameters"``/``"arguments"``. ``{"name": "Bingo", "age": 30}`` in
an answer stays content (llama.cpp #18183). After ``<|python_tag|>`` the JSON is a call even if
it names an undeclared tool (an ``unknown_tool`` issue says so).
"""

from __future__ import annotations

from collections.abc import Sequence

from ...tools._tool import Tool
from .._models import ToolCall
from .._text import skip_blanks
from ..reader import Reader, ReaderContext, ReaderFactory, Status
from ._base import Format
from ._jsonobjects import JsonCallsReader, JsonShape
from ._llama_prompt import ipython_turn, result_openers, tools_json
from ._pythonic_scan import is_name_start
from ._regions import BareJsonCalls
from ._template_json import tojson
from .pythonic import PythonicReader

__all__ = ["Llama3Json"]

PYTHON_TAG = "<|python_tag|>"

BARE = JsonShape(separator=";")
END_OF_MESSAGE = "<|eom_id|>"
"""Llama 3.1 ends a built-in tool call's message with it: markup when the text keeps it."""
TAGGED = JsonShape(prefix=True, closer=END_OF_MESSAGE, separator=";", wrapped=True)


def builtin_name(name: str) -> str:
    """``brave_search.call`` -> ``brave_search`` (Llama 3.1 built-in tool syntax)."""
    return name[: -len(".call")] if name.endswith(".call") else name


class PythonTagReader:
    """``<|python_tag|>``: a JSON call, or a built-in tool called in Python syntax."""

    def __init__(self, ctx: ReaderContext, opener: str) -> None:
        self.opener = opener
        self.inner: Reader | None = None

    @property
    def resume(self) -> int | None:
        return getattr(self.inner, "resume", None)

    def read(self, ctx: ReaderContext, eof: bool) -> Status:
        if self.inner is None:
            at = skip_blanks(ctx.buf, ctx.pos + len(self.opener))
            if at == len(ctx.buf):
                return Status.REJECT if eof else Status.MORE
            if ctx.buf[at] == "{":
                self.inner = JsonCallsReader(TAGGED, self.opener)
            elif is_name_start(ctx.buf[at]):
                self.inner = PythonicReader(self.opener, lists=False, bare=True,
                                            closer=END_OF_MESSAGE, rename=builtin_name)
            else:
                return Status.REJECT
        return self.inner.read(ctx, eof)


def _bare_reader(ctx: ReaderContext, opener: str) -> JsonCallsReader:
    return JsonCallsReader(BARE, opener)


# The Llama 3.1 template's tools block (tools in the first user message, its default).
TOOLS_INSTRUCTION = (
    "Given the following functions, please respond with a JSON for a function call with its "
    "proper arguments that best answers the given prompt.\n\n"
    'Respond in the format {"name": function name, "parameters": dictionary of argument name '
    'and its value}.Do not use variables.\n\n'
)
CALL_SEPARATOR = "; "


def _json_call(call: ToolCall) -> str:
    return f'{{"name": {tojson(call.name)}, "parameters": {tojson(call.arguments)}}}'


class Llama3Json(Format):
    """Llama 3.x JSON. Rendering follows Llama 3.1's template: the tools in the first user
    message, a call as ``{"name": ..., "parameters": ...}`` (the template takes one call per
    turn; several are joined with ``; ``, as the model writes them), a result as an ``ipython``
    turn holding it as a JSON string."""

    name = "llama3_json"
    aliases = ("llama3", "llama31", "llama32", "llama33", "llama4_json", "llama_json")
    model_prefixes = (
        "meta-llama/Llama-3.1",
        "meta-llama/Llama-3.2",
        "meta-llama/Llama-3.3",
        "meta-llama/Meta-Llama-3.1",
    )
    signatures = (PYTHON_TAG, '"parameters"', '"name"')
    # Llama-3.1-8B-Instruct.jinja: <|eot_id|> ends a turn, <|eom_id|> one that awaits a result.
    turn_ends = ("<|eot_id|>", END_OF_MESSAGE)
    example = '{"name": "get_weather", "parameters": {"city": "Paris"}}'

    bare_calls = True
    models = "Llama 3.x"
    wire = '`{"name": "f", "parameters": {…}}`'
    result_region_end = "<|eot_id|>"
    # The template writes "parameters"; the reader takes "arguments" too (vLLM's tests).
    call_region = BareJsonCalls(PYTHON_TAG, CALL_SEPARATOR.strip(), ("parameters", "arguments"))
    structural_tag_markers = ('{"name": ', '{{"name": {name_json}, "parameters": ', "}")
    result_run = ("", "", "")

    def call_openers(self) -> dict[str, ReaderFactory]:
        table: dict[str, ReaderFactory] = {"{": _bare_reader, PYTHON_TAG: PythonTagReader}
        return table | result_openers()

    def render_tools(self, tools: Sequence[Tool]) -> str:
        if not tools:  # no tools: servers pass none, and the template writes no section
            return ""
        return tools_json(TOOLS_INSTRUCTION, tools)

    def render_calls(self, calls: Sequence[ToolCall], content: str = "") -> str:
        return content + CALL_SEPARATOR.join(map(_json_call, calls))

    def render_result(self, call: ToolCall, result: str) -> str:
        return ipython_turn(tojson(result))
