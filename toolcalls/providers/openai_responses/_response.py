"""OpenAI Responses: reading a whole ``Response`` (`read_response`, for
`toolcalls.read_response`), item by item in ``output``:

    calls      ``function_call`` items: ``call_id`` kept as the call's id (the id a
               ``function_call_output`` names; the item's own ``id`` is not), ``name``,
               ``arguments`` decoded from JSON text; a ``custom_tool_call`` (free text) is an
               incomplete call with a ``custom_tool_call`` issue
    text       ``message`` items: their ``output_text`` parts, and ``refusal`` parts as content,
               parsed for calls in the text; an ``output_text`` part's ``annotations`` (URL and
               file citations, spans of its text) are not kept, only its text
    reasoning  ``reasoning`` items: their ``content`` (``reasoning_text``) where given, else
               their ``summary`` (``summary_text`` parts joined by a blank line); each item
               goes to ``reasoning_blocks`` as it is (with ``encrypted_content``), to send back
    not calls  ``web_search_call``, ``file_search_call``, ``code_interpreter_call``,
               ``image_generation_call``, ``mcp_call``, ``mcp_list_tools`` (tools OpenAI runs
               itself) give a ``server_tool_call`` issue
    search     a ``tool_search_call`` the client executes (``execution: "client"``: the
               ``tool_search`` tool with our own search, `toolcalls.budget.native_deferral`) is
               a call named ``tool_search``: its ``call_id`` as id (the id the answering
               ``tool_search_output`` names; the item's ``id`` where there is none), its
               ``arguments``. A hosted one (``execution: "server"``) and any
               ``tool_search_output`` item (the tools OpenAI loaded) are OpenAI's own work,
               not calls and not issues: they go to ``reasoning_blocks`` as they are, the
               items a stateless caller sends back with the turn (the loaded definitions live
               in them); the result has no other field for provider items
    finish     ``incomplete_details.reason`` (``max_output_tokens``...) where there is one,
               else ``status``; ``usage`` as it is; ``model``
    other      an item of another type gives an ``unread_part`` issue naming its type, id
               and what it holds: ``computer_call``, ``local_shell_call``, ``shell_call`` and
               ``apply_patch_call`` are actions of OpenAI's built-in tools for the caller to
               carry out (not function calls: no `ToolCall` says them; the message gives the
               ``call_id`` and the action)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._fields import Json, NativeRead, brief, is_obj, items, obj, obj_or_none, raw, string

__all__ = ["TOOL_SEARCH", "is_client_search", "read_item", "read_response", "reasoning_text",
           "unread_item"]

_SERVER_TOOLS = frozenset({"web_search_call", "file_search_call", "code_interpreter_call",
                           "image_generation_call", "mcp_call", "mcp_list_tools"})

TOOL_SEARCH = "tool_search"
"""The name a client ``tool_search_call`` is read under (the tool's own type name, and the name
`toolcalls.budget`'s session answers)."""

_SEARCH_ITEMS = frozenset({"tool_search_call", "tool_search_output"})


def read_response(data: Json) -> NativeRead:
    """The pieces of a ``Response`` (see the module docstring)."""
    incomplete = string(obj(data.get("incomplete_details")).get("reason"))
    read = NativeRead(model=string(data.get("model")),
                      finish_reason=incomplete or string(data.get("status")),
                      usage=obj_or_none(data.get("usage")))
    for item in items(read, data.get("output"), "output"):
        if is_obj(item):
            read_item(item, read)
        else:
            read.issue("unread_part", f"an output item is {brief(item)}, not an object: not read")
    return read


def read_item(item: Mapping[str, Any], read: NativeRead) -> None:
    """One output item into `read` (the stream reader's way too for an item whose done event
    is all it gets)."""
    kind = item.get("type")
    if not isinstance(kind, str):
        read.issue("unread_part", f"an output item of type {brief(kind)} was not read")
    elif kind == "message":
        for part in items(read, item.get("content"), "a message item's content"):
            if is_obj(part):
                read.say(part.get("text") if part.get("type") == "output_text"
                         else part.get("refusal"))
    elif kind == "function_call":
        read.call(item.get("call_id"), item.get("name"), item.get("arguments"))
    elif kind == "reasoning":
        read.think(reasoning_text(item))
        read.reasoning_blocks.append(dict(item))
    elif kind == "custom_tool_call":
        read.fail_call("custom_tool_call",
                       f"{kind} {brief(item.get('call_id'))}: free text, not JSON",
                       string(item.get("name")), raw(item.get("input")))
    elif kind in _SERVER_TOOLS:
        read.issue("server_tool_call", f"{kind} {brief(item.get('id'))}: run by OpenAI, not a "
                                       "call")
    elif is_client_search(item):
        read.call(item.get("call_id") or item.get("id"), TOOL_SEARCH, item.get("arguments"))
    elif kind in _SEARCH_ITEMS:
        read.reasoning_blocks.append(dict(item))
    else:
        read.issue("unread_part", unread_item(item))


def is_client_search(item: Mapping[str, Any]) -> bool:
    """Whether an output item is a ``tool_search_call`` for the client to answer."""
    return item.get("type") == "tool_search_call" and item.get("execution") == "client"


_CALLER_ACTIONS = {
    "computer_call": "a computer-use action for the caller to perform",
    "local_shell_call": "a shell command for the caller to run",
    "shell_call": "a shell command for the caller to run",
    "apply_patch_call": "a file patch for the caller to apply",
}
"""Output items of OpenAI's built-in tools that the caller carries out, not read as calls."""


def unread_item(item: Mapping[str, Any]) -> str:
    """What an ``unread_part`` issue says of an output item not read: its type, its id and
    what it holds (the action of a built-in tool's call, shortened)."""
    kind = item.get("type")
    ident = item.get("call_id") or item.get("id")
    named = f"{kind} {ident}" if isinstance(ident, str) else f"{kind!r}"
    held = item.get("action", item.get("operation"))
    if held is None:
        what = ", ".join(sorted(key for key in item if key not in ("type", "id", "call_id")))
        held_text = f"fields {what}" if what else "no fields"
    else:
        held_text = brief(held, 120)
    meaning = _CALLER_ACTIONS.get(str(kind), "a type this reader does not know")
    return f"output item {named} not read ({meaning}): {held_text}"


def reasoning_text(item: Mapping[str, Any]) -> str:
    """A reasoning item's full text where the API gives it, else its summary."""
    full = _texts(item.get("content"), "reasoning_text")
    return "".join(full) if full else "\n\n".join(_texts(item.get("summary"), "summary_text"))


def _texts(parts: Any, part_type: str) -> list[str]:
    if not isinstance(parts, list):
        return []
    return [part["text"] for part in parts if is_obj(part) and part.get("type") == part_type
            and isinstance(part.get("text"), str)]
