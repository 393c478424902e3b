"""`read_response`: a provider's whole response as one `ParseResult`, native calls first.

The response may be the provider SDK's object (read through its own ``to_dict()`` where it
has one, which gives the fields the API sent, else ``model_dump()``: no SDK is imported here),
a dict, or its JSON text. The provider is named or detected from the shape
(`_registry.detect_provider`), and its class's `Provider.read_response` reads it. Then the text
parts are parsed in `format`:

- a format name (or alias, model id, `Format`): parsed in it;
- ``"auto"``: the format the response's ``model`` id names (`toolcalls.get_format`); where
  it names none, or its format reads no call in the text, the format detected from the markup
  if that one reads calls (a server may name one model and serve another's markup);
- None: the text is not parsed for calls (``<think>`` is still kept apart; format "none").

The result: the native calls, then the text's calls; the native incomplete calls, then the text's;
the issues likewise (a native one has ``span=None``); ``content`` is the text parts joined,
markup removed, as `parse` gives it; ``segments`` tile that joined text; ``reasoning`` is the
native reasoning then the text's, joined; ``provider``, ``finish_reason``, ``usage`` and
``reasoning_blocks`` as the response gave them. With `tools`, a native call to a tool not
declared gets an ``unknown_tool`` issue, and one naming a tool by one of its `Tool.aliases`
carries the tool's own name with an ``alias_used`` issue, as a text call does.

An error the provider sent instead of (or with) a response, a body ``{"error": ...}`` (Anthropic
``{"type": "error", "error": ...}``, Ollama ``{"error": "text"}``, a Responses ``Response``
whose ``error`` is set), is read as a result, not raised: a ``provider_error`` issue with the
provider's message, ``finish_reason`` ``"error"`` (unless the body gives its own: OpenRouter's
``"length"``, a failed ``Response``'s status ``"failed"``), and whatever else the body holds.
That is what `toolcalls.read_stream` gives for an error sent mid-stream (OpenRouter sends error
chunks after content), where raising would lose what came before; a caller checks for a
``provider_error`` issue. An error body alone is detected as such:
``type: "error"`` Anthropic, a string Ollama, an error with a ``status`` Gemini, else OpenAI.

Call ids are unique in the result (`ordered_ids`). A provider's own ids are kept, but for one
it gave an earlier call too (a ``duplicate_call_id`` issue: that call is given one as below).
The others, a text call's engine id (``call_0``...) and the ``call_<n>`` given to a native call
without one, are given in the order the calls come, as a stream gives them
(`toolcalls.read_stream` names each call in its `ToolCallStart` and cannot rename it later):
one whose id a provider id or an earlier call already has gets the first free ``call_<m>``. The
order: a message's ``tool_calls`` (Chat Completions, Ollama) after its content; the parts or
blocks of the other APIs as they come; under ``"auto"`` with a model id naming no format, the
native calls first (the stream holds that text back to its end), and so where the text was read
by its markers because the format the model id names read no call in it (the stream reads it
so at its end).

A call said twice, in the native calls and in the text (a server that leaves the markup it
parsed in the content; a model that writes its native call out too), is read once: of a native
call and a text call to the same tool with the same arguments, the one that comes first in that
order is the call, the other an incomplete call with a ``duplicate_call`` issue naming it, so a
host does not run it twice (`toolcalls.providers._duplicates`; `toolcalls.read_stream` does the
same: the repetition fails where it would have ended). Text calls that repeat no native call
are read as calls, beside the native ones.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from .._errors import UnknownFormatError
from ..parsing._api import _no_format, parse
from ..parsing._models import IncompleteCall, ParseIssue, ParseResult, ToolCall
from ..parsing._registry import get_format
from ..parsing.reader import _tool_table
from ..tools._read import read_tools
from ._duplicates import Repeats
from ._fields import Json, NativeRead, brief, escape_surrogates, json_problem, load_json
from ._registry import detect_provider, get_provider

if TYPE_CHECKING:
    from ..parsing.formats._base import Format
    from ..tools._read import ToolsLike
    from ..tools._tool import Tool

__all__ = ["CallIds", "alias_names", "arrival", "as_json", "assemble", "canonical",
           "detect_provider", "model_format", "ordered_ids", "parse_text", "read_response",
           "with_repeats"]

_Call = TypeVar("_Call", ToolCall, IncompleteCall)

def read_response(
    response: Any,
    provider: str | None = None,
    *,
    format: str | Format | None = None,  # noqa: A002 - the concept is called "format" everywhere
    tools: ToolsLike = None,
) -> ParseResult:
    """Read one whole response of a provider API: its native calls, then calls in its text.

    Args:
        response: the SDK's response object, or the same as a dict or JSON text.
        provider: "openai" (Chat Completions and compatible servers), "openai_responses",
            "anthropic", "gemini" or "ollama"; None detects it from the shape.
        format: the format to parse the text parts in, "auto", or None not to parse them.
        tools: the tools offered to the model; enables name checks and typed text arguments.
    """
    data = as_json(response)
    name = get_provider(provider).name if provider else detect_provider(data)
    native = get_provider(name).read_response(data)
    error = data.get("error")
    if error:
        native.error(error)
    declared = read_tools(tools)
    text, natives_first = _read_text("".join(native.text), format, native.model, declared)
    calls = ordered_ids(native, text.calls, natives_first)
    if not (native.calls and text.calls):  # no call can repeat one of the other source
        return assemble(native, name, text, declared, calls)
    repeats = _drop_repeats(native, calls, arrival(native, text.calls, natives_first),
                            alias_names(declared))
    result = assemble(native, name, text, declared, calls)
    return with_repeats(result, repeats, result.calls)


def _drop_repeats(native: NativeRead, calls: list[ToolCall], order: list[tuple[bool, int]],
                  aliases: Mapping[str, str]) -> Repeats:
    """Take each call that repeats one of the other source before it (in `order`) out of
    `calls` (the native ones then the text's; a native one out of `native` too), as a stream
    fails it where it ends (`toolcalls.providers._duplicates`); the repetitions found."""
    repeats = Repeats()
    natives = len(native.calls)
    repeated = []
    for is_text, number in order:
        which = natives + number if is_text else number
        call = canonical(calls[which], aliases)
        earlier = repeats.earlier(call)
        if earlier is not None:
            repeats.repetition(call, earlier)
            repeated.append(which)
    for which in sorted(repeated, reverse=True):
        del calls[which]
        if which < natives:
            del native.calls[which]
            del native.call_places[which]
    return repeats


def with_repeats(result: ParseResult, repeats: Repeats, calls: list[ToolCall]) -> ParseResult:
    """`result` with `calls`, and the repetitions `repeats` found as incomplete calls."""
    if not repeats.issues:
        return result
    return result.model_copy(update={"calls": calls,
                                     "incomplete": result.incomplete + repeats.incomplete,
                                     "issues": result.issues + repeats.issues})


def as_json(response: Any) -> Json:
    """The response as a JSON object: from the SDK object's own dump, a dict, or JSON text."""
    if isinstance(response, str | bytes | bytearray):
        response = load_json(response)
        if not isinstance(response, dict):  # the text is JSON, of another kind
            raise ValueError(f"a response is a JSON object, not {_json_kind(response)}")
    elif not isinstance(response, Mapping):
        if callable(getattr(response, "to_dict", None)):  # openai, anthropic: what was sent
            response = response.to_dict()
        elif callable(getattr(response, "model_dump", None)):  # google-genai, ollama
            response = response.model_dump(mode="json", by_alias=True, exclude_none=True)
    if not isinstance(response, Mapping):
        raise TypeError(f"a response is a JSON object, not {type(response).__name__}")
    return dict(response)


def _json_kind(value: Any) -> str:
    kinds = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return kinds.get(type(value), "a number")


def parse_text(
    text: str, format: str | Format | None, model: str | None, declared: Sequence[Tool]  # noqa: A002
) -> ParseResult:
    return _read_text(text, format, model, declared)[0]


def _read_text(
    text: str, format: str | Format | None, model: str | None, declared: Sequence[Tool]  # noqa: A002
) -> tuple[ParseResult, bool]:
    """The text parsed, and whether it was read by its markers under ``"auto"`` (the model id
    names no format, or the one it names read no call, complete or not, and detection read
    calls): a stream reads such text at its end, so its calls come after the native ones."""
    if format is None:
        return _no_format().parse(text, tools=declared), False
    if format != "auto":
        return parse(text, format, tools=declared), False
    named = model_format(model)
    if named is None:
        return parse(text, "auto", tools=declared), True
    result = named.parse(text, tools=declared)
    if result.calls or result.incomplete:
        return result, False
    detected = parse(text, "auto", tools=declared)
    return (detected, True) if detected.calls else (result, False)


def model_format(model: str | None) -> Format | None:
    if not model:
        return None
    try:
        return get_format(model)
    except UnknownFormatError:
        return None


def assemble(
    native: NativeRead, provider: str, text: ParseResult, declared: Sequence[Tool],
    calls: list[ToolCall],
) -> ParseResult:
    """The result of a response: `calls` are the native calls then the text's, ids given."""
    reasoning = [*native.reasoning, *([text.reasoning] if text.reasoning else [])]
    incomplete, issues = native.incomplete, native.issues
    aliases = alias_names(declared)
    if aliases:
        calls, incomplete, issues = _resolved(native, calls, aliases)
    usage, blocks, unkept = _kept(native)
    return ParseResult(
        format=text.format,
        content=text.content,
        reasoning="".join(reasoning) if reasoning else text.reasoning,
        calls=calls,
        incomplete=incomplete + text.incomplete,
        issues=issues + unkept + _unknown_tools(calls[:len(native.calls)], declared)
        + text.issues,
        segments=text.segments,
        provider=provider,
        finish_reason=native.finish_reason and escape_surrogates(native.finish_reason),
        usage=usage,
        reasoning_blocks=blocks or None,
    )


def _kept(native: NativeRead) -> tuple[Json | None, list[Json], list[ParseIssue]]:
    """The usage and reasoning blocks a result keeps as the provider gave them: those JSON
    writes back (a result is serialized); any other is noted (``unread_part``), not kept."""
    issues: list[ParseIssue] = []
    usage = native.usage
    problem = json_problem(usage)
    if problem:
        issues.append(ParseIssue(kind="unread_part", span=None,
                                 message=f"the usage is not kept: its fields {problem}"))
        usage = None
    blocks = []
    for block in native.reasoning_blocks:
        problem = json_problem(block)
        if problem:
            issues.append(ParseIssue(kind="unread_part", span=None, message="a reasoning block "
                                     f"of type {brief(block.get('type'))} is not kept: its "
                                     f"fields {problem}"))
        else:
            blocks.append(block)
    return usage, blocks, issues


def arrival(
    native: NativeRead, text_calls: list[ToolCall], natives_first: bool
) -> list[tuple[bool, int]]:
    """The order the calls come in (as a stream gives them): (from the text, its number among
    the native or the text calls) for each."""
    end = sum(len(text) for text in native.text)
    order: list[tuple[int, int, int]] = []  # (place in the text, natives first on a tie, which)
    for number, (said, _) in enumerate(native.call_places):
        place = -1 if natives_first else end if native.calls_after_text else said
        order.append((place, 0, number))
    for number, call in enumerate(text_calls):
        order.append((call.span[0] if call.span else 0, 1, number))
    return [(bool(is_text), number) for _, is_text, number in sorted(order)]


def ordered_ids(
    native: NativeRead, text_calls: list[ToolCall], natives_first: bool
) -> list[ToolCall]:
    """The native calls then the text's, each with an id no other has, given in the order the
    calls come (see the module docstring)."""
    ids = CallIds({call.id for call, (_, named)
                   in zip(native.calls, native.call_places, strict=True) if named})
    calls = [*native.calls, *text_calls]
    for is_text, number in arrival(native, text_calls, natives_first):
        which = len(native.calls) + number if is_text else number
        if is_text or not native.call_places[number][1]:
            ident = ids.claim(calls[which].id)
            if ident != calls[which].id:
                calls[which] = calls[which].model_copy(update={"id": ident})
    return calls


class CallIds:
    """The ids the calls of one response have so far; `claim` gives the next call its own."""

    __slots__ = ("_free", "taken")

    def __init__(self, taken: set[str]) -> None:
        self.taken = taken
        self._free = 0
        """No ``call_<m>`` below this one is free (ids are only ever added)."""

    def claim(self, ident: str) -> str:
        """`ident`, or where a call has it already, the first ``call_<m>`` no call has."""
        if ident in self.taken:
            while f"call_{self._free}" in self.taken:
                self._free += 1
            ident = f"call_{self._free}"
        self.taken.add(ident)
        return ident


def _unknown_tools(calls: list[ToolCall], declared: Sequence[Tool]) -> list[ParseIssue]:
    if not declared:
        return []
    names = {tool.name for tool in declared}
    return [ParseIssue(kind="unknown_tool", span=None,
                       message=f"native call {call.id} names {call.name!r}, not a declared tool")
            for call in calls if call.name not in names]


def alias_names(declared: Sequence[Tool]) -> dict[str, str]:
    """Each alias of the declared tools -> its tool's name (a tool's own name wins over
    another's alias, as in the text: `toolcalls.parsing.reader`)."""
    if not declared:
        return {}
    return {key: tool.name for key, tool in _tool_table(declared).items() if key != tool.name}


def canonical(call: _Call, aliases: Mapping[str, str]) -> _Call:
    """`call` with its tool's own name where it named the tool by an alias."""
    name = aliases.get(call.name) if call.name is not None else None
    return call if name is None else call.model_copy(update={"name": name})


def _resolved(
    native: NativeRead, calls: list[ToolCall], aliases: Mapping[str, str]
) -> tuple[list[ToolCall], list[IncompleteCall], list[ParseIssue]]:
    """The native calls (the first of `calls`) and incomplete calls by their tools' own names,
    and the issues with an ``alias_used`` for each that named its tool by an alias."""
    calls, issues = list(calls), list(native.issues)
    for which, call in enumerate(calls[:len(native.calls)]):
        if call.name in aliases:
            calls[which] = canonical(call, aliases)
            issues.append(_alias_used(f"native call {call.id}", call.name, aliases))
    for failed in native.incomplete:
        if failed.name is not None and failed.name in aliases:
            issues.append(_alias_used("an incomplete native call", failed.name, aliases))
    return calls, [canonical(failed, aliases) for failed in native.incomplete], issues


def _alias_used(what: str, alias: str, aliases: Mapping[str, str]) -> ParseIssue:
    name = aliases[alias]
    return ParseIssue(kind="alias_used", span=None, message=f"{what} named {alias!r}, an alias "
                      f"of {name!r}: read as a call to {name!r}")
