"""Call regions of gpt-oss (harmony), MiniMax M1, pythonic and Ollama's prompt-based JSON.

Every marker comes from the reader's own module, as in `_formats`. What each region writes:

* ``minimax_m1``: ``<tool_calls>``, one ``{"name", "arguments"}`` object per line, then
  ``</tool_calls>`` (vLLM's template); parallel calls share the block.
* ``pythonic``: ``[f(a=1, b='x'), g()]``, values as Python literals built from the schema's
  types (`_python_values`); the list bare (Llama 3.2, LFM2) or in Llama 4's
  ``<|python_start|>`` ... ``<|python_end|>`` (the close optional, as the reader takes it).
* ``ollama``: the registered format's first prefix and its closer, one call per tag pair
  (``<tool_call>{"name": ..., "arguments": ...}</tool_call>``), as `Ollama.render_calls`
  writes; the other prefixes and bare JSON, which the reader also takes, are left out.
* ``gpt_oss``: harmony messages, all markup special tokens: an optional ``analysis`` message
  (required with ``reasoning=True``: gpt-oss reasons before it answers at any effort), then a
  ``final`` message, or an optional ``commentary`` preamble and the calls, each its own message
  ``<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{...}<|call|>`` (the
  model's header order, or the template's ``to=`` first). The last message's end token is
  optional: it is the stop token, which servers strip. Message text holds no token's text.
"""

from __future__ import annotations

from ..parsing.formats import gpt_oss as _gpt_oss
from ..parsing.formats import minimax_m1 as _minimax_m1
from ..parsing.formats import ollama as _ollama
from ..parsing.formats import pythonic as _pythonic
from ..tools._tool import Tool
from ._ir import Free, Json, Lit, Node, Opt, Ws, alt, seq
from ._python_values import python_arguments
from ._region import CallRegion, arguments_schema, named_object

__all__ = ["REGIONS", "TAGGED"]


# -- minimax_m1: <tool_calls>\n{"name": ..., "arguments": {...}}\n...</tool_calls> ------------


def _minimax_m1_call(tool: Tool) -> Node:
    # The template writes one object per line; the reader takes any blanks between them.
    return seq(Ws(), Json(named_object(tool, "arguments")))


# -- pythonic: [f(a=1, b='x'), g()] -----------------------------------------------------------


def _pythonic_call(tool: Tool) -> Node:
    return seq(Lit(f"{tool.name}("), python_arguments(tool), Lit(")"))


# -- ollama: <tool_call>{"name": ..., "arguments": {...}}</tool_call> -------------------------

_OLLAMA_PREFIX = _ollama.DEFAULT_PREFIXES[0]
_OLLAMA_CLOSER = _ollama.closer_for(_OLLAMA_PREFIX) or ""


def _ollama_call(tool: Tool) -> Node:
    return seq(Ws(), Json(named_object(tool, "arguments")), Ws(), Lit(_OLLAMA_CLOSER))


# -- gpt_oss: harmony messages ----------------------------------------------------------------


def _token(text: str) -> Lit:
    return Lit(text, special=True)


_TEXT = Opt(Free(_gpt_oss.TOKENS))
"""A message's text: the reader ends it at any token's text, written as tokens or not."""
_NEXT_MESSAGE = seq(_token(_gpt_oss.START), Lit("assistant"))
_JSON_TYPE = alt(seq(Opt(Lit(" ")), _token(_gpt_oss.CONSTRAIN), Lit("json")), Lit(" json"))


def _message(channel: str, end: str) -> Node:
    """A whole text message that another message follows."""
    return seq(_token(_gpt_oss.CHANNEL), Lit(channel), _token(_gpt_oss.MESSAGE), _TEXT,
               _token(end), _NEXT_MESSAGE)


def _gpt_oss_call(tool: Tool) -> Node:
    """One call message without its end token: the recipient after the channel (as gpt-oss
    writes it) or before it (as the chat template does)."""
    recipient = Lit(f" to={_gpt_oss.NAMESPACE}{tool.name}")
    channel = seq(_token(_gpt_oss.CHANNEL), Lit("commentary"))
    return seq(
        alt(seq(channel, recipient), seq(recipient, channel)),
        Opt(_JSON_TYPE),
        _token(_gpt_oss.MESSAGE),
        Json(arguments_schema(tool)),
    )


def _gpt_oss_response(calls: Node, tool_choice: str, reasoning: bool) -> Node:
    analysis = _message("analysis", _gpt_oss.END)
    # The prompt ends with <|start|>assistant; a model may write it again.
    start: list[Node] = [Opt(_NEXT_MESSAGE), analysis if reasoning else Opt(analysis)]
    # The last call ends with <|call|> (or <|end|>, as OpenAI's harmony guide writes it).
    last_end = Opt(alt(_token(_gpt_oss.CALL), _token(_gpt_oss.END)))
    if tool_choice != "auto":
        return seq(*start, calls, last_end)
    answer = seq(
        _token(_gpt_oss.CHANNEL), alt(Lit("final"), Lit("commentary")),
        _token(_gpt_oss.MESSAGE), _TEXT,
        Opt(alt(_token(_gpt_oss.RETURN), _token(_gpt_oss.END))),
    )
    # An answer may follow the calls (a server that did not stop at <|call|>): the reader
    # keeps it as content.
    after = alt(last_end, seq(_token(_gpt_oss.CALL), _NEXT_MESSAGE, answer))
    preamble = Opt(_message("commentary", _gpt_oss.END))
    return seq(*start, alt(answer, seq(preamble, calls, after)))


REGIONS: dict[str, CallRegion] = {
    "minimax_m1": CallRegion(
        Lit(_minimax_m1.OPEN), _minimax_m1_call, Lit(""),
        close=seq(Ws(), Lit(_minimax_m1.CLOSE)), reopen=False,
    ),
    "pythonic": CallRegion(
        Lit("["), _pythonic_call, seq(Lit(","), Ws()), close=Lit("]"), reopen=False,
        wrapper=(_token(_pythonic.PYTHON_START), _token(_pythonic.PYTHON_END)),
    ),
    "ollama": CallRegion(Lit(_OLLAMA_PREFIX), _ollama_call, Ws()),
    "gpt_oss": CallRegion(
        Lit(""), _gpt_oss_call, seq(_token(_gpt_oss.CALL), _NEXT_MESSAGE),
        response=_gpt_oss_response,
    ),
}
"""gpt-oss, MiniMax M1, pythonic and Ollama, by registry name."""



# A call object's head up to its arguments (the begin is a str.format template: braces doubled).
_NAMED = '{{"name": {name_json}, "arguments": '
TAGGED: dict[str, tuple[str, str, str]] = {
    # pythonic is absent: its values are Python literals, not JSON.
    "minimax_m1": (_minimax_m1.OPEN, f"{_minimax_m1.OPEN}\n{_NAMED}", f"}}\n{_minimax_m1.CLOSE}"),
    "ollama": (_OLLAMA_PREFIX, f"{_OLLAMA_PREFIX}{_NAMED}", f"}}{_OLLAMA_CLOSER}"),
    # The header as gpt-oss writes it (vLLM's harmony tags too); <|call|> is its stop token.
    "gpt_oss": (
        f"{_gpt_oss.CHANNEL}commentary to=",
        f"{_gpt_oss.CHANNEL}commentary to={_gpt_oss.NAMESPACE}{{name}} "
        f"{_gpt_oss.CONSTRAIN}json{_gpt_oss.MESSAGE}",
        _gpt_oss.CALL,
    ),
}
"""`structural_tag`'s trigger, begin (a template of ``{name}`` / ``{name_json}``) and end."""
