"""What an MCP server answers a ``tools/call`` with, as the `ToolResult` the model reads.

Each content block becomes one item:

- text: `Text`; an image: `ToolImage` (its base64 data and MIME type, as sent);
- an embedded text resource: `Text` headed by its URI; an embedded binary resource: a
  `ToolImage` when it is an image, else `Json` with its URI, MIME type and size (the bytes are
  dropped: a model cannot read base64, and they would fill its context);
- a resource link: `Json` with its URI, name, description and MIME type;
- audio: `Text` saying that audio of that type was left out.

``structuredContent`` is the tool's typed value. Servers also send it as JSON text (the spec
asks them to, for older clients): that text item becomes `Json` of the value, so the model
reads it once. When no text carries it, it is added as `Json`, unless the content already
says something else, in which case the value goes to ``details["structured_content"]``.
``isError`` makes the result a `Failed` error, whose message is the server's text.

Dropped everywhere: annotations (audience, priority), ``_meta``, icons and titles.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ._results import Content, Failed, Json, Text, ToolImage, ToolResult

if TYPE_CHECKING:  # the SDK is imported by `toolcalls.runtime._mcp`, which checks it is there
    from mcp import types

__all__ = ["call_result", "content_item"]


def call_result(result: types.CallToolResult) -> ToolResult:
    """The `ToolResult` for what the server answered."""
    items = [content_item(block) for block in result.content]
    if result.is_error:
        text = "\n".join(item.text for item in items if isinstance(item, Text))
        return ToolResult.failure(Failed(text or "the server reported an error, with no text"))
    structured = result.structured_content
    if structured is None:
        return ToolResult(tuple(items))
    if _holds(items, structured):
        return ToolResult(tuple(Json(structured) if _is_json_of(item, structured) else item
                                for item in items))
    if not any(isinstance(item, Text) for item in items):
        return ToolResult((*items, Json(structured)))
    return ToolResult(tuple(items), details={"structured_content": structured})


def content_item(block: types.ContentBlock) -> Content:
    """One content block as a result item (see the module's list)."""
    if block.type == "text":
        return Text(block.text)
    if block.type == "image":
        return ToolImage(block.data, block.mime_type)
    if block.type == "resource":
        return _resource(block.resource)
    if block.type == "resource_link":
        link = {"resource_link": str(block.uri), "name": block.name,
                "description": block.description, "mime_type": block.mime_type}
        return Json({key: value for key, value in link.items() if value is not None})
    media = getattr(block, "mime_type", None) or "an unknown type"
    return Text(f"[{getattr(block, 'type', 'content')} of {media} left out: this client "
                "passes only text, images and resources to the model]")


def _resource(resource: types.TextResourceContents | types.BlobResourceContents) -> Content:
    uri, media = str(resource.uri), resource.mime_type
    if hasattr(resource, "text"):
        heading = f"Resource {uri}" + (f" ({media})" if media else "")
        return Text(f"{heading}:\n{resource.text}")
    if media is not None and media.startswith("image/"):
        return ToolImage(resource.blob, media)
    size = len(resource.blob) * 3 // 4  # base64 length to bytes, near enough for a hint
    return Json({"resource": uri, "mime_type": media, "bytes": size,
                 "note": "binary content not shown"})


def _holds(items: list[Content], structured: Any) -> bool:
    return any(_is_json_of(item, structured) for item in items)


def _is_json_of(item: Content, value: Any) -> bool:
    if not isinstance(item, Text):
        return False
    try:
        return bool(json.loads(item.text) == value)
    except ValueError:
        return False
