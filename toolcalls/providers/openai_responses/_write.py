"""OpenAI Responses written: a result as ``/v1/responses`` returns it (`write_response`) and
streams it (`ResponsesStreamWriter`, which writes a stream while it is read too), both built
from the same items and events.

    response   {"object": "response", "status": "completed", "output": [a ``reasoning`` item,
               a ``message`` item with one ``output_text`` part, a ``function_call`` item per
               call ({"call_id", "name", "arguments"} as a JSON string)]}
    stream     response.created, response.in_progress; per item response.output_item.added,
               its deltas (response.reasoning_text.delta/done; response.content_part.added,
               response.output_text.delta/done, response.content_part.done;
               response.function_call_arguments.delta/done), response.output_item.done;
               response.completed with the whole response. Every event has the next
               sequence_number

A result cut off ("length", as any provider says it) is ``"status": "incomplete"`` with
``incomplete_details.reason`` "max_output_tokens" ("content_filter" for one filtered), and its
stream ends with response.incomplete. Usage read from this API is written as it came; else
the counts, when known.
The call's id is the item's ``call_id`` (what a result refers to); item ids are made from the
response id. The reasoning items of a result read from the Responses API (its
``reasoning_blocks``: summaries, encrypted_content) are written as they came; other reasoning
is one item with ``reasoning_text`` content, as open-weight servers (vLLM, gpt-oss) give it.

While a stream is read, text and reasoning each fill an item of their kind as they come (a
``message`` item with one ``output_text`` part, a ``reasoning`` item with ``reasoning_text``
content): the item is added at its first delta and done (its ``*.done`` events, the item
whole) when another kind of item starts or the stream ends. A call is a ``function_call`` item
added, filled with its arguments and done at once. An error is the API's ``error`` event.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...parsing._models import ParseResult, ToolCall
from .._messages import Message
from .._stream_writer import CallId, CallsMode, StreamWriter
from .._write_options import WriteOptions, reasoning_blocks

__all__ = ["ResponsesStreamWriter", "write_response"]


# -- a whole response -----------------------------------------------------------------------------

_INCOMPLETE = {"length": "max_output_tokens", "content_filter": "content_filter"}


def _items(result: ParseResult, options: WriteOptions) -> list[Message]:
    items = reasoning_blocks(result, "reasoning")
    if result.reasoning and not items:
        items.append({"id": f"rs_{options.id}_{len(items)}", "type": "reasoning",
                      "summary": [], "status": "completed",
                      "content": [{"type": "reasoning_text", "text": result.reasoning}]})
    if result.content:
        items.append({"id": f"msg_{options.id}_{len(items)}", "type": "message",
                      "role": "assistant", "status": "completed",
                      "content": [_text_part(result.content)]})
    for call in result.calls:
        items.append({"id": f"fc_{options.id}_{len(items)}", "type": "function_call",
                      "call_id": call.id, "name": call.name,
                      "arguments": call.arguments_json(), "status": "completed"})
    return items


def _text_part(text: str) -> Message:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def _response_object(options: WriteOptions, output: list[Message], status: str) -> Message:
    return {"id": options.id, "object": "response", "created_at": options.created,
            "model": options.model, "status": status, "output": output, "error": None,
            "incomplete_details": None, "parallel_tool_calls": True, "tool_choice": "auto",
            "tools": []}


def _finished(has_calls: bool, options: WriteOptions, output: list[Message]) -> Message:
    """The response as it ends: completed, or incomplete and why; with its usage if known."""
    response = _response_object(options, output, "completed")
    reason = _INCOMPLETE.get(options.finish(has_calls))
    if reason is not None:
        response["status"] = "incomplete"
        response["incomplete_details"] = {"reason": reason}
    tokens = options.tokens()
    if (own := options.own_usage("openai_responses")) is not None:
        response["usage"] = dict(own)
    elif tokens is not None:
        response["usage"] = {
            "input_tokens": tokens.input,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": tokens.output, "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": tokens.total}
    return response


def write_response(result: ParseResult, options: WriteOptions) -> Message:
    return _finished(bool(result.calls), options, _items(result, options))


# -- streamed -------------------------------------------------------------------------------------


def _opened(item: Message) -> Message:
    """An item as response.output_item.added announces it: in progress, nothing in it yet."""
    if item["type"] == "function_call":
        return {**item, "arguments": "", "status": "in_progress"}
    if item["type"] == "reasoning":
        return {**item, "summary": [], "content": []}
    return {**item, "content": [], "status": "in_progress"}


def _deltas(item: Message) -> list[Message]:
    """The events that fill an item: its text, or its arguments, in one delta."""
    if item["type"] == "function_call":
        return [{"type": "response.function_call_arguments.delta", "delta": item["arguments"]},
                {"type": "response.function_call_arguments.done",
                 "arguments": item["arguments"]}]
    if item["type"] == "reasoning":
        return _reasoning_deltas(item)
    part = item["content"][0]
    text = part["text"]
    return [
        {"type": "response.content_part.added", "content_index": 0, "part": _text_part("")},
        {"type": "response.output_text.delta", "content_index": 0, "delta": text,
         "logprobs": []},
        {"type": "response.output_text.done", "content_index": 0, "text": text,
         "logprobs": []},
        {"type": "response.content_part.done", "content_index": 0, "part": part},
    ]


def _reasoning_deltas(item: Message) -> list[Message]:
    """A reasoning item's summary parts and reasoning text, each in one delta."""
    events: list[Message] = []
    for index, part in enumerate(item.get("summary") or []):
        at = {"summary_index": index}
        text = part.get("text", "")
        events += [
            {"type": "response.reasoning_summary_part.added", **at,
             "part": {"type": "summary_text", "text": ""}},
            {"type": "response.reasoning_summary_text.delta", **at, "delta": text},
            {"type": "response.reasoning_summary_text.done", **at, "text": text},
            {"type": "response.reasoning_summary_part.done", **at,
             "part": {"type": "summary_text", "text": text}},
        ]
    for index, part in enumerate(item.get("content") or []):
        text = part.get("text", "")
        events += [
            {"type": "response.reasoning_text.delta", "content_index": index, "delta": text},
            {"type": "response.reasoning_text.done", "content_index": index, "text": text},
        ]
    return events


class ResponsesStreamWriter(StreamWriter):
    """Responses events (see the module docstring)."""

    provider = "openai_responses"
    id_prefix = "resp_"

    def __init__(self, *, model: str, id: str | None = None,  # noqa: A002 - the API's word
                 created: int | None = None, call_id: CallId | None = None,
                 calls: CallsMode = "whole") -> None:
        super().__init__(model=model, id=id, created=created, call_id=call_id, calls=calls)
        self._items: list[Message] = []
        """Every item so far, in output order; the open one last."""
        self._open_kind = ""
        """The type of the item still open ("message", "reasoning"), or ""."""
        self._open_text: list[str] = []
        self._sequence = 0

    def _event(self, event: Message, out: list[Message]) -> None:
        out.append({**event, "sequence_number": self._sequence})
        self._sequence += 1

    def _opening(self) -> list[Message]:
        out: list[Message] = []
        for kind in ("response.created", "response.in_progress"):
            self._event({"type": kind,
                         "response": _response_object(self._options, [], "in_progress")}, out)
        return out

    def _text(self, text: str, out: list[Message]) -> None:
        self._delta("message", {"type": "response.output_text.delta", "content_index": 0,
                                "delta": text, "logprobs": []}, out)
        self._open_text.append(text)

    def _reasoning(self, text: str, out: list[Message]) -> None:
        self._delta("reasoning", {"type": "response.reasoning_text.delta", "content_index": 0,
                                  "delta": text}, out)
        self._open_text.append(text)

    def _delta(self, kind: str, delta: Message, out: list[Message]) -> None:
        if self._open_kind != kind:
            self._close_item(out)
            item = self._item(kind, "")
            self._items.append(item)
            self._open_kind = kind
            self._event({"type": "response.output_item.added",
                         "output_index": len(self._items) - 1, "item": _opened(item)},
                        out)
            if kind == "message":
                self._event({**self._at(), "type": "response.content_part.added",
                             "content_index": 0, "part": _text_part("")}, out)
        self._event({**self._at(), **delta}, out)

    def _item(self, kind: str, text: str) -> Message:
        ident = f"{'msg' if kind == 'message' else 'rs'}_{self.id}_{len(self._items)}"
        if kind == "message":
            return {"id": ident, "type": "message", "role": "assistant", "status": "completed",
                    "content": [_text_part(text)]}
        return {"id": ident, "type": "reasoning", "summary": [], "status": "completed",
                "content": [{"type": "reasoning_text", "text": text}]}

    def _at(self) -> Message:
        """Where the open item is: its output_index and item_id."""
        return {"output_index": len(self._items) - 1, "item_id": self._items[-1]["id"]}

    def _close_item(self, out: list[Message]) -> None:
        if not self._open_kind:
            return
        item = self._item(self._open_kind, "".join(self._open_text))
        item["id"] = self._items[-1]["id"]
        self._items[-1] = item
        text = item["content"][0]["text"]
        if self._open_kind == "message":
            self._event({**self._at(), "type": "response.output_text.done", "content_index": 0,
                         "text": text, "logprobs": []}, out)
            self._event({**self._at(), "type": "response.content_part.done", "content_index": 0,
                         "part": item["content"][0]}, out)
        else:
            self._event({**self._at(), "type": "response.reasoning_text.done",
                         "content_index": 0, "text": text}, out)
        self._event({"type": "response.output_item.done", "output_index": len(self._items) - 1,
                     "item": item}, out)
        self._open_kind = ""
        self._open_text = []

    def _whole_item(self, item: Message, out: list[Message]) -> None:
        self._close_item(out)
        self._items.append(item)
        self._event({"type": "response.output_item.added", "output_index": len(self._items) - 1,
                     "item": _opened(item)}, out)
        for event in _deltas(item):
            self._event({**self._at(), **event}, out)
        self._event({"type": "response.output_item.done", "output_index": len(self._items) - 1,
                     "item": item}, out)

    def _result_reasoning(self, result: ParseResult, out: list[Message]) -> None:
        # Reasoning items read from the Responses API go back as they came.
        items = reasoning_blocks(result, "reasoning")
        if not items:
            super()._result_reasoning(result, out)
        for item in items:
            self._whole_item(item, out)

    def _call(self, index: int, call: ToolCall, out: list[Message]) -> None:
        self._whole_item({"id": f"fc_{self.id}_{len(self._items)}", "type": "function_call",
                          "call_id": call.id, "name": call.name,
                          "arguments": call.arguments_json(), "status": "completed"}, out)

    def _closing(self, options: WriteOptions, out: list[Message]) -> None:
        self._close_item(out)
        finished = _finished(bool(self.calls), options, self._items)
        self._event({"type": f"response.{finished['status']}", "response": finished}, out)

    def _error(self, message: str, kind: str) -> Message:
        out: list[Message] = []
        self._event({"type": "error", "code": kind, "message": message, "param": None}, out)
        return out[0]

    def _own_usage(self, usage: Mapping[str, Any]) -> bool:
        return "input_tokens" in usage and "total_tokens" in usage  # not Anthropic's
