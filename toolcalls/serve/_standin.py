"""Stand-ins until _requests/_emit land: minimal versions of `toolcalls.serve._requests` and
`toolcalls.providers._emit` (the signatures of the shared design), so the server runs and is
tested before they are merged. Delete this module once both are on main."""

# stand-in until _requests/_emit land

from __future__ import annotations

import fnmatch
import json
from collections.abc import Callable, Mapping
from typing import Any

from .._errors import UnknownFormatError
from ..parsing._events import Event, ReasoningDelta, TextDelta, ToolCallEnd
from ..parsing._models import ToolCall
from ..parsing._registry import get_format
from ..parsing.formats._base import Format
from ..providers._wire import dumps
from ..tools._importers import import_tools

Message = dict[str, Any]


class RequestError(ValueError):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def validate_chat_request(body: object) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise RequestError("body", "expected a JSON object")
    if not isinstance(body.get("model"), str):
        raise RequestError("model", "expected a string")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise RequestError("messages", "expected a non-empty list of messages")
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            raise RequestError(f"messages[{i}]", "expected an object")
        if message.get("role") not in ("system", "developer", "user", "assistant", "tool"):
            raise RequestError(f"messages[{i}].role", "expected system, user, assistant or tool")
    if "stream" in body and not isinstance(body["stream"], bool):
        raise RequestError("stream", "expected a boolean")
    return body


def chat_request_from_messages(body: object) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise RequestError("body", "expected a JSON object")
    if not isinstance(body.get("model"), str):
        raise RequestError("model", "expected a string")
    if not isinstance(body.get("max_tokens"), int):
        raise RequestError("max_tokens", "required: expected an integer")
    if not isinstance(body.get("messages"), list):
        raise RequestError("messages", "expected a list of messages")
    chat: dict[str, Any] = {"model": body["model"], "max_tokens": body["max_tokens"]}
    messages: list[Message] = []
    system = body.get("system")
    if isinstance(system, list):
        system = "".join(block.get("text", "") for block in system)
    if system:
        messages.append({"role": "system", "content": system})
    for message in body["messages"]:
        content = message.get("content")
        if isinstance(content, str):
            messages.append({"role": message["role"], "content": content})
            continue
        text = "".join(b.get("text", "") for b in content if b.get("type") == "text")
        uses = [b for b in content if b.get("type") == "tool_use"]
        results = [b for b in content if b.get("type") == "tool_result"]
        for block in results:
            result = block.get("content", "")
            if isinstance(result, list):
                result = "".join(b.get("text", "") for b in result)
            messages.append({"role": "tool", "tool_call_id": block["tool_use_id"],
                             "content": result})
        if uses:
            messages.append({"role": "assistant", "content": text or None, "tool_calls": [
                {"id": b["id"], "type": "function",
                 "function": {"name": b["name"], "arguments": json.dumps(b.get("input", {}))}}
                for b in uses]})
        elif text or not results:
            messages.append({"role": message["role"], "content": text})
    chat["messages"] = messages
    if body.get("tools"):
        chat["tools"] = [{"type": "function", "function": {
            "name": t["name"], "description": t.get("description", ""),
            "parameters": t.get("input_schema", {})}} for t in body["tools"]]
    choice = body.get("tool_choice")
    if isinstance(choice, dict):
        kind = str(choice.get("type"))
        chat["tool_choice"] = {"any": "required", "none": "none", "auto": "auto"}.get(
            kind, {"type": "function", "function": {"name": choice.get("name")}})
        if choice.get("disable_parallel_tool_use"):
            chat["parallel_tool_calls"] = False
    if body.get("stop_sequences"):
        chat["stop"] = body["stop_sequences"]
    for key in ("stream", "temperature", "top_p"):
        if key in body:
            chat[key] = body[key]
    return chat


def prompt_request(chat: dict[str, Any], fmt: Format) -> dict[str, Any]:
    body = {k: v for k, v in chat.items()
            if k not in ("tools", "tool_choice", "parallel_tool_calls")}
    tools = import_tools(chat.get("tools") or [])
    calls: dict[str, ToolCall] = {}
    messages: list[Message] = []
    for message in chat["messages"]:
        if message["role"] == "assistant" and message.get("tool_calls"):
            made = [ToolCall(id=c["id"], name=c["function"]["name"],
                             arguments=json.loads(c["function"]["arguments"] or "{}"),
                             source="native")
                    for c in message["tool_calls"]]
            calls.update((c.id, c) for c in made)
            messages.append({"role": "assistant",
                             "content": fmt.render_calls(made, message.get("content") or "")})
        elif message["role"] == "tool":
            call = calls[message["tool_call_id"]]
            messages.append({"role": "user",
                             "content": fmt.render_result(call, str(message["content"]))})
        else:
            messages.append(message)
    if tools and chat.get("tool_choice") != "none":
        block = fmt.render_tools(tools)
        if messages and messages[0]["role"] == "system":
            messages[0] = {**messages[0], "content": f"{messages[0]['content']}\n\n{block}"}
        else:
            messages.insert(0, {"role": "system", "content": block})
    body["messages"] = messages
    return body


def format_for(model: str, *, format: str = "auto",  # noqa: A002
               model_formats: Mapping[str, str] = {}) -> Format:  # noqa: B006
    for pattern, name in model_formats.items():
        if model == pattern or fnmatch.fnmatchcase(model, pattern):
            return get_format(name)
    try:
        return get_format(model if format == "auto" else format)
    except UnknownFormatError:
        return get_format("xml")


class StreamWriter:
    def __init__(self, *, model: str, id: str | None = None, created: int | None = None,  # noqa: A002
                 call_id: Callable[[int, str], str] | None = None) -> None:
        self.model, self.id, self.created = model, id or "toolcalls-0", created or 0
        self.calls = 0

    def start(self) -> list[Message]:
        raise NotImplementedError

    def feed(self, event: Event) -> list[Message]:
        raise NotImplementedError

    def finish(self, finish_reason: str | None = None,
               usage: Mapping[str, Any] | None = None) -> list[Message]:
        raise NotImplementedError

    def fail(self, message: str, *, kind: str = "api_error") -> list[Message]:
        raise NotImplementedError


class _ChatWriter(StreamWriter):
    def _chunk(self, delta: Message, finish: str | None = None) -> Message:
        return {"id": self.id, "object": "chat.completion.chunk", "created": self.created,
                "model": self.model, "choices": [{"index": 0, "delta": delta,
                                                  "finish_reason": finish}]}

    def start(self) -> list[Message]:
        return [self._chunk({"role": "assistant", "content": ""})]

    def feed(self, event: Event) -> list[Message]:
        if isinstance(event, TextDelta):
            return [self._chunk({"content": event.text})]
        if isinstance(event, ReasoningDelta):
            return [self._chunk({"reasoning_content": event.text})]
        if isinstance(event, ToolCallEnd):
            call, index = event.call, self.calls
            self.calls += 1
            return [self._chunk({"tool_calls": [{"index": index, "id": call.id,
                                                 "type": "function", "function": {
                                                     "name": call.name,
                                                     "arguments": call.arguments_json()}}]})]
        return []

    def finish(self, finish_reason: str | None = None,
               usage: Mapping[str, Any] | None = None) -> list[Message]:
        reason = "tool_calls" if self.calls else (finish_reason or "stop")
        chunks = [self._chunk({}, reason)]
        if usage:
            chunks.append({**self._chunk({}), "choices": [], "usage": dict(usage)})
        return chunks

    def fail(self, message: str, *, kind: str = "api_error") -> list[Message]:
        return [{"error": {"message": message, "type": kind, "code": None}}]


class _MessagesWriter(StreamWriter):
    _open: str | None = None
    _index = 0

    def start(self) -> list[Message]:
        return [{"type": "message_start", "message": {
            "id": self.id, "type": "message", "role": "assistant", "model": self.model,
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 0, "output_tokens": 0}}}]

    def _close(self) -> list[Message]:
        if self._open is None:
            return []
        self._open = None
        self._index += 1
        return [{"type": "content_block_stop", "index": self._index - 1}]

    def _text(self, kind: str, text: str) -> list[Message]:
        out: list[Message] = []
        if self._open != kind:
            out += self._close()
            block = {"type": "text", "text": ""} if kind == "text" else {
                "type": "thinking", "thinking": "", "signature": ""}
            out.append({"type": "content_block_start", "index": self._index,
                        "content_block": block})
            self._open = kind
        delta = ({"type": "text_delta", "text": text} if kind == "text"
                 else {"type": "thinking_delta", "thinking": text})
        out.append({"type": "content_block_delta", "index": self._index, "delta": delta})
        return out

    def feed(self, event: Event) -> list[Message]:
        if isinstance(event, TextDelta):
            return self._text("text", event.text)
        if isinstance(event, ReasoningDelta):
            return self._text("thinking", event.text)
        if isinstance(event, ToolCallEnd):
            self.calls += 1
            call, out = event.call, self._close()
            out.append({"type": "content_block_start", "index": self._index, "content_block": {
                "type": "tool_use", "id": call.id, "name": call.name, "input": {}}})
            out.append({"type": "content_block_delta", "index": self._index, "delta": {
                "type": "input_json_delta", "partial_json": call.arguments_json()}})
            self._open = "tool"
            return out + self._close()
        return []

    def finish(self, finish_reason: str | None = None,
               usage: Mapping[str, Any] | None = None) -> list[Message]:
        reason = "tool_use" if self.calls else {"length": "max_tokens"}.get(
            finish_reason or "", "end_turn")
        tokens = {"output_tokens": (usage or {}).get("completion_tokens", 0)}
        return self._close() + [
            {"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": None},
             "usage": tokens}, {"type": "message_stop"}]

    def fail(self, message: str, *, kind: str = "api_error") -> list[Message]:
        return [{"type": "error", "error": {"type": kind, "message": message}}]


def stream_writer(provider: str, **options: Any) -> StreamWriter:
    return {"openai": _ChatWriter, "anthropic": _MessagesWriter}[provider](**options)


def wire_message(provider: str, message: Message) -> str:
    if provider == "anthropic":
        return f"event: {message['type']}\ndata: {dumps(message)}\n\n"
    return f"data: {dumps(message)}\n\n"


def wire_done(provider: str) -> str:
    return "data: [DONE]\n\n" if provider == "openai" else ""
