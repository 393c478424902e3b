"""Call regions of pythonic, Olmo 3 and gpt-oss (harmony): the region builders of the
`PythonListCalls`, `PythonLineCalls` and `HarmonyCalls` shapes, every marker from the shape
the format fills with its own constants.

* ``pythonic``: ``[f(a=1, b='x'), g()]``, values as Python literals built from the schema's
  types (`_python_values`); the list bare (Llama 3.2) or in Llama 4's
  ``<|python_start|>`` ... ``<|python_end|>`` or LFM2's ``<|tool_call_start|>`` ...
  ``<|tool_call_end|>`` (the close optional, as the reader takes it); LFM2.5 writes lists and
  dicts as JSON.
* ``olmo3``: ``<function_calls>`` then each call on its own line, then ``</function_calls>``,
  the values written as pythonic's.
* ``gpt_oss``: harmony messages, all markup special tokens: an optional ``analysis`` message
  (required with ``reasoning=True``: gpt-oss reasons before it answers at any effort), then a
  ``final`` message, or an optional ``commentary`` preamble and the calls, each its own message
  ``<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{...}<|call|>`` (the
  model's header order, or the template's ``to=`` first). The last message's end token is
  optional: it is the stop token, which servers strip. Message text holds no token's text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..parsing.formats._regions import HarmonyCalls, PythonLineCalls, PythonListCalls
from ..tools._tool import Tool
from ._ir import Free, Json, Lit, Node, Opt, Ws, alt, seq
from ._python_values import python_arguments
from ._region import CallRegion, arguments_schema

__all__ = ["BUILDERS", "harmony_region", "python_lines_region", "python_list_region"]


def _token(text: str) -> Lit:
    """A special token of the model's tokenizer."""
    return Lit(text, special=True)


# -- pythonic: [f(a=1, b='x'), g()] -----------------------------------------------------------


def _pythonic_call(tool: Tool, *, json_containers: bool = False) -> Node:
    arguments = python_arguments(tool, json_containers=json_containers)
    return seq(Lit(f"{tool.name}("), arguments, Lit(")"))


def python_list_region(shape: PythonListCalls) -> CallRegion:
    def call(tool: Tool) -> Node:
        return _pythonic_call(tool, json_containers=shape.json_containers)

    return CallRegion(
        Lit("["), call, seq(Lit(","), Ws()), close=Lit("]"), reopen=False,
        wrapper=(_token(shape.start), _token(shape.end)),
    )


def python_lines_region(shape: PythonLineCalls) -> CallRegion:
    """One section of calls, each on its own line as Olmo 3's template writes them; any blanks
    (or none) before each call and the close, as the reader takes them."""
    return CallRegion(
        Lit(shape.start), lambda tool: seq(Ws(), _pythonic_call(tool)), Lit(""),
        close=seq(Ws(), Lit(shape.end)), reopen=False,
    )


# -- gpt_oss: harmony messages ----------------------------------------------------------------


def harmony_region(shape: HarmonyCalls) -> CallRegion:
    """gpt-oss's whole response (`CallRegion.response`), its calls chained by ``<|call|>`` and
    the next message's start."""
    messages = _Harmony(shape)
    return CallRegion(
        Lit(""), messages.call, seq(_token(shape.call), messages.next_message),
        response=messages.response,
    )


class _Harmony:
    """The pieces of a harmony response, from the format's tokens."""

    def __init__(self, shape: HarmonyCalls) -> None:
        self.shape = shape
        self.text = Opt(Free(shape.tokens))
        """A message's text: the reader ends it at any token's text, written as tokens or not."""
        self.next_message = seq(_token(shape.start), Lit("assistant"))
        self.json_type = alt(seq(Opt(Lit(" ")), _token(shape.constrain), Lit("json")),
                             Lit(" json"))

    def message(self, channel: str, end: str) -> Node:
        """A whole text message that another message follows."""
        shape = self.shape
        return seq(_token(shape.channel), Lit(channel), _token(shape.message), self.text,
                   _token(end), self.next_message)

    def call(self, tool: Tool) -> Node:
        """One call message without its end token: the recipient after the channel (as gpt-oss
        writes it) or before it (as the chat template does)."""
        shape = self.shape
        recipient = Lit(f" to={shape.namespace}{tool.name}")
        channel = seq(_token(shape.channel), Lit("commentary"))
        return seq(
            alt(seq(channel, recipient), seq(recipient, channel)),
            Opt(self.json_type),
            _token(shape.message),
            Json(arguments_schema(tool)),
        )

    def response(self, calls: Node, tool_choice: str, reasoning: bool) -> Node:
        shape = self.shape
        analysis = self.message("analysis", shape.end)
        # The prompt ends with <|start|>assistant; a model may write it again.
        start: list[Node] = [Opt(self.next_message), analysis if reasoning else Opt(analysis)]
        # The last call ends with <|call|> (or <|end|>, as OpenAI's harmony guide writes it).
        last_end = Opt(alt(_token(shape.call), _token(shape.end)))
        if tool_choice != "auto":
            return seq(*start, calls, last_end)
        answer = seq(
            _token(shape.channel), alt(Lit("final"), Lit("commentary")),
            _token(shape.message), self.text,
            Opt(alt(_token(shape.return_), _token(shape.end))),
        )
        # An answer may follow the calls (a server that did not stop at <|call|>): the reader
        # keeps it as content.
        after = alt(last_end, seq(_token(shape.call), self.next_message, answer))
        preamble = Opt(self.message("commentary", shape.end))
        return seq(*start, alt(answer, seq(preamble, calls, after)))


BUILDERS: dict[type[Any], Callable[[Any], CallRegion]] = {
    PythonListCalls: python_list_region,
    PythonLineCalls: python_lines_region,
    HarmonyCalls: harmony_region,
}
"""The region builder of each shape this module writes."""
