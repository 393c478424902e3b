"""Hermes: a JSON object naming the call, inside ``<tool_call>`` tags (Hermes 2/3, Qwen2.5, Qwen3).

    <tool_call>
    {"name": "get_weather", "arguments": {"city": "Paris"}}
    </tool_call>

Also read, each a known variant: ``"parameters"`` instead of ``"arguments"``, arguments given as
a JSON *string*, the wrappers ``<function_call>``, ``<tools>``, ``<tool>``, ``<response>``,
``<json>`` and ``<xml>`` that Hermes 2 Pro was seen to emit, and
``<function=NAME>{arguments}</function>`` or ``<function name="NAME">``. A wrapper counts only
when a JSON object follows it, so prose that mentions ``<tool_call>`` stays content.
"""

from __future__ import annotations

from lark.exceptions import LarkError

from .._engine import Engine, ReaderFactory
from .._grammar import load_grammar
from ._base import Format
from ._jsoncall import Header, JsonCall, JsonCallReader

__all__ = ["Hermes"]

TOOL_CALL_START = "<tool_call>"
TOOL_CALL_END = "</tool_call>"
# Other wrappers Hermes-style models were seen to use, each with its closing tag.
OTHER_WRAPPERS = {
    "<function_call>": "</function_call>",
    "<tools>": "</tools>",
    "<tool>": "</tool>",
    "<response>": "</response>",
    "<json>": "</json>",
    "<JSON>": "</JSON>",
    "<xml>": "</xml>",
}
FUNCTION_TAG = "<function"


def parse_function_tag(text: str) -> Header | None:
    """The name in ``<function=NAME>`` or ``<function name="NAME">`` (text between the two)."""
    try:
        token = load_grammar("hermes").parse(text).children[0]
    except LarkError:
        return None
    name = str(token)
    return Header(name[1:-1] if name[0] in "\"'" else name)


def _wrapped(closer: str, slip: str | None = None) -> ReaderFactory:
    shape = JsonCall(close=(closer,), envelope=True, tentative=True, slip=slip)
    return lambda ctx, opener: JsonCallReader(shape, opener)


_FUNCTION_SHAPE = JsonCall(
    close=("</function>",), header_end=">", parse_header=parse_function_tag, max_header=200
)


class Hermes(Format):
    name = "hermes"
    aliases = ("qwen", "qwen2.5", "qwen3", "nous", "hermes2", "hermes3", "json_in_xml")
    model_prefixes = (
        "NousResearch/Hermes",
        "Qwen/Qwen2.5",
        "Qwen/Qwen3-",
        "Qwen/QwQ",
        "Hermes-",
    )
    signatures = (TOOL_CALL_START, '"name"', TOOL_CALL_END)
    example = (
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    )

    def call_openers(self) -> dict[str, ReaderFactory]:
        table = {TOOL_CALL_START: _wrapped(TOOL_CALL_END)}
        for opener, closer in OTHER_WRAPPERS.items():
            table[opener] = _wrapped(closer, f"the call was wrapped in {opener} instead of "
                                     f"{TOOL_CALL_START}")
        table[FUNCTION_TAG] = _function_reader
        return table


def _function_reader(ctx: Engine, opener: str) -> JsonCallReader:
    return JsonCallReader(_FUNCTION_SHAPE, opener)
