"""Anthropic Messages: reading a whole ``Message`` (`read_response`, for
`toolcalls.read_response`), block by block in ``content``; the stream reader (`_stream`) reads
the blocks the same way with the names given here (`SERVER_TOOLS`, `is_tool_search`,
`server_tool_issue`).

    calls      ``tool_use`` blocks: ``id`` kept, ``name``, ``input`` as the object it is
    text       ``text`` blocks, joined in order, parsed for calls in the text; a block's
               ``citations`` (search results or documents it cites: ``cited_text``, source,
               location) are not kept, only its text (they are metadata on the text, which
               repeats nothing of them)
    reasoning  ``thinking`` blocks' text; each ``thinking`` block (with its ``signature``) and
               each ``redacted_thinking`` block goes to ``reasoning_blocks`` as it is, to send
               back unchanged with the turn
    not calls  ``server_tool_use`` and ``mcp_tool_use`` blocks (tools Anthropic runs itself,
               such as web search) give a ``server_tool_call`` issue; their results
               (``web_search_tool_result`` and the other ``*_tool_result`` blocks) are data for
               the model, not content, and are not read
    search     Anthropic's tool search (``server_tool_use`` of ``tool_search_tool_regex`` or
               ``tool_search_tool_bm25``, then its ``tool_search_tool_result`` block whose
               ``tool_reference`` s load the deferred tools found) is Anthropic's own work in
               the turn: not a call, not an issue; both blocks go to ``reasoning_blocks`` as
               they are, the blocks to send back unchanged with the assistant turn (the result
               has no other field for provider blocks). A client search (our ``tool_search``
               tool, `toolcalls.budget.native_deferral`) is a ``tool_use`` like any call
    finish     ``stop_reason``; ``usage`` as it is; ``model``
    other      a block of another type gives an ``unread_part`` issue
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._fields import Json, NativeRead, brief, is_obj, items, obj_or_none, string

__all__ = ["SERVER_TOOLS", "is_tool_search", "read_response", "server_tool_issue"]

SERVER_TOOLS = frozenset({"server_tool_use", "mcp_tool_use"})
"""Blocks of a tool Anthropic runs itself (web search, code execution, MCP): not calls."""

_SEARCH_TOOLS = frozenset({"tool_search_tool_regex", "tool_search_tool_bm25"})
"""Anthropic's tool search server tools (``ServerToolUseBlock.name``)."""

_SEARCH_RESULT = "tool_search_tool_result"


def is_tool_search(block: Mapping[str, Any]) -> bool:
    """Whether a content block is Anthropic's own tool search: its use or its result."""
    kind = block.get("type")
    return kind == _SEARCH_RESULT or (kind == "server_tool_use"
                                     and string(block.get("name")) in _SEARCH_TOOLS)


def read_response(data: Json) -> NativeRead:
    """The pieces of a ``Message`` (see the module docstring)."""
    read = NativeRead(model=string(data.get("model")),
                      finish_reason=string(data.get("stop_reason")),
                      usage=obj_or_none(data.get("usage")))
    for block in items(read, data.get("content"), "content"):
        if is_obj(block):
            _read_block(block, read)
        else:
            read.issue("unread_part", f"a content block is {brief(block)}, not an object: "
                                      "not read")
    return read


def _read_block(block: Mapping[str, Any], read: NativeRead) -> None:
    kind = block.get("type")
    if not isinstance(kind, str):
        read.issue("unread_part", f"a content block of type {brief(kind)} was not read")
    elif kind == "text":
        read.say(block.get("text"))
    elif kind == "tool_use":
        read.call(block.get("id"), block.get("name"), block.get("input"))
    elif kind in ("thinking", "redacted_thinking"):
        read.think(block.get("thinking"))
        read.reasoning_blocks.append(dict(block))
    elif is_tool_search(block):
        read.reasoning_blocks.append(dict(block))
    elif kind in SERVER_TOOLS:
        read.issue("server_tool_call", server_tool_issue(block))
    elif not kind.endswith("_tool_result"):
        read.issue("unread_part", f"a content block of type {kind!r} was not read")


def server_tool_issue(block: Mapping[str, Any]) -> str:
    """What a ``server_tool_call`` issue says of a tool Anthropic ran itself."""
    return (f"{block.get('type')} {brief(block.get('name'))} ({brief(block.get('id'))}): "
            "run by Anthropic, not a call to run")
