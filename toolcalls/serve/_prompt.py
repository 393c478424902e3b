"""Prompt mode's upstream request (`prompt_request`), for an upstream that has no tool calling
of its own: the tools go into the system prompt and the history's calls and results into
text, each as the model's own chat template writes them (`Format.render_tools`,
`render_calls`, `render_result`). A history it cannot write is a `RequestError` naming the
field.

A pure function of JSON-decoded values: no HTTP, no starlette.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..parsing._models import ToolCall
from ..parsing.formats.kimi_k2 import KimiK2
from ..tools._importers import from_openai
from . import _checks as check
from ._checks import RequestError

if TYPE_CHECKING:
    from ..parsing.formats._base import Format

__all__ = ["prompt_request"]


_NOT_UPSTREAM = ("tools", "tool_choice", "parallel_tool_calls")


def prompt_request(chat: dict[str, Any], fmt: Format) -> dict[str, Any]:
    """The upstream body for `chat` (a validated Chat Completions request) in prompt mode.

    No ``tools``, ``tool_choice`` or ``parallel_tool_calls`` go upstream. Instead the tools
    block (``fmt.render_tools``) is appended to the first system (or developer) message, or is
    a new first system message, with one line for ``tool_choice`` ``"required"`` or a named
    function and one for ``parallel_tool_calls: false``; with ``tool_choice: "none"`` no tools
    are written. The history is rewritten either way: an assistant message with ``tool_calls``
    becomes the text ``fmt.render_calls(calls, content)``; each ``tool`` message
    ``fmt.render_result(call, content)``, the call found by ``tool_call_id`` among the earlier
    assistant calls (an unknown id is a `RequestError`; Kimi K2 also gets the call's place in
    its turn, the ``:N`` of the ``functions.NAME:N`` its calls were written with), and the
    results that follow one another are one user message, joined as the family's template
    joins them (`Format.result_run`).
    Every other field and message passes through as it came; `chat` itself is not changed.

    Where the upstream's template then writes other than the model's template would have
    with native tools (the role around the tools block and the results, which a template
    with native tools writes in a role of its own) is listed in tests/serve/test_prompt_request.py.
    """
    upstream = {key: value for key, value in chat.items() if key not in _NOT_UPSTREAM}
    messages = _history(chat["messages"], fmt)
    block = _tools_block(chat, fmt)
    upstream["messages"] = _with_system(messages, block) if block else messages
    return upstream


def _tools_block(chat: Mapping[str, Any], fmt: Format) -> str:
    tools = from_openai(chat.get("tools") or [])
    choice = chat.get("tool_choice") or "auto"
    if not tools or choice == "none":
        return ""
    lines: list[str] = []
    if choice == "required":
        lines.append("You must call at least one of these tools.")
    elif isinstance(choice, Mapping):
        lines.append(f"You must call the tool {choice['function']['name']}.")
    if chat.get("parallel_tool_calls") is False:
        lines.append("Call at most one tool per turn.")
    block = _rendered(functools.partial(fmt.render_tools, tools), "tools", fmt)
    if not lines:
        return block
    # The rendered block is kept whole (the template's own text); a blank line, then the lines.
    ending = len(block) - len(block.rstrip("\n"))
    return block + "\n" * max(0, 2 - ending) + "\n".join(lines)


def _with_system(messages: list[dict[str, Any]], block: str) -> list[dict[str, Any]]:
    for index, message in enumerate(messages):
        if message["role"] in ("system", "developer"):  # developer: OpenAI's newer name
            text = _text(message.get("content"))
            merged = {**message, "content": f"{text}\n\n{block}" if text else block}
            return [*messages[:index], merged, *messages[index + 1:]]
    return [{"role": "system", "content": block}, *messages]


def _history(messages: Sequence[Mapping[str, Any]], fmt: Format) -> list[dict[str, Any]]:
    # by id: the calls of the assistant turns so far, each with its place in its turn
    calls: dict[str, tuple[ToolCall, int]] = {}
    rewritten: list[dict[str, Any]] = []
    results: list[str] = []  # the run of results being read
    for index, message in enumerate(messages):
        if message["role"] == "tool":
            results.append(_result(message, f"messages[{index}]", calls, fmt))
            continue
        if results:
            rewritten.append(_results_message(results, fmt))
            results = []
        if message["role"] == "assistant" and "tool_calls" in message:
            turn = [_history_call(item, number)
                    for number, item in enumerate(message["tool_calls"] or [])]
            calls.update((call.id, (call, place)) for place, (call, _) in enumerate(turn))
            # An empty list or null is dropped too: the upstream is told of no tool calling.
            kept = {key: value for key, value in message.items() if key != "tool_calls"}
            if turn:
                kept["content"] = _rendered_turn(turn, _text(message.get("content")),
                                                 f"messages[{index}].tool_calls", fmt)
            rewritten.append(kept)
        else:
            rewritten.append(dict(message))
    if results:
        rewritten.append(_results_message(results, fmt))
    return rewritten


def _rendered(render: Callable[[], str], field: str, fmt: Format) -> str:
    """What `render` writes; a name or value the format cannot write names the field."""
    try:
        return render()
    except ValueError as error:  # such as a call name that would not read back as a tag
        raise RequestError(field, f"cannot be written in the {fmt.name} format: {error}") from None


_UNREAD = "toolcalls-arguments-as-written-{}"
"""The stand-in value a call's unreadable arguments are rendered with, then replaced."""


def _history_call(item: Mapping[str, Any], number: int) -> tuple[ToolCall, str | None]:
    """A history call, and its arguments text when it is not a JSON object (``{``: a call
    cut off, sent back): OpenAI takes arguments as an opaque string, and so does the proxy."""
    function = item["function"]
    try:
        arguments = check.json_object(function["arguments"], "arguments")
    except RequestError:
        stand_in = {"_": _UNREAD.format(number)}
        return ToolCall(id=item["id"], name=function["name"], arguments=stand_in,
                        source="native"), function["arguments"]
    return ToolCall(id=item["id"], name=function["name"], arguments=arguments,
                    source="native"), None


def _rendered_turn(turn: Sequence[tuple[ToolCall, str | None]], content: str, field: str,
                   fmt: Format) -> str:
    """An assistant turn's calls as the model writes them. Arguments that are not a JSON
    object are written as they came where the format writes arguments as JSON (Hermes,
    Mistral, Kimi...); a format with markup per argument (Qwen3-Coder, GLM, pythonic) cannot
    hold them, and writes that call with none."""
    calls = [call for call, _ in turn]
    written = _rendered(functools.partial(fmt.render_calls, calls, content), field, fmt)
    unread = [(json.dumps(call.arguments, ensure_ascii=False), raw) for call, raw in turn
              if raw is not None]
    if all(stand_in in written for stand_in, _ in unread):
        for stand_in, raw in unread:
            written = written.replace(stand_in, raw, 1)
        return written
    calls = [call if raw is None else call.model_copy(update={"arguments": {}})
             for call, raw in turn]
    return _rendered(functools.partial(fmt.render_calls, calls, content), field, fmt)


def _result(message: Mapping[str, Any], field: str,
            calls: Mapping[str, tuple[ToolCall, int]], fmt: Format) -> str:
    found = calls.get(message["tool_call_id"])
    if found is None:
        raise RequestError(check.at(field, "tool_call_id"),
                           f"no earlier assistant tool call has id {message['tool_call_id']!r}")
    call, place = found
    if isinstance(fmt, KimiK2):
        # Kimi names a result by the call's id as render_calls wrote it, functions.NAME:N with
        # N the call's place in its turn (a client's id such as call_abc123 is not written)
        return fmt.render_result(call, _text(message["content"]), index=place)
    return fmt.render_result(call, _text(message["content"]))


def _results_message(results: Sequence[str], fmt: Format) -> dict[str, Any]:
    before, between, after = fmt.result_run
    return {"role": "user", "content": before + between.join(results) + after}


def _text(content: Any) -> str:
    """A message's text: content parts joined by newlines, as servers join them."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "\n".join(part.get("text") or part.get("refusal") or "" for part in content)
