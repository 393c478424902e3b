"""OpenAI Responses streamed while it is read (`_stream_writer.StreamWriter`): the events of
`_openai_responses_write`, item by item.

response.created and response.in_progress open the stream. Text and reasoning each fill an item
of their kind while they come (a ``message`` item with one ``output_text`` part, a
``reasoning`` item with ``reasoning_text`` content): the item is added when its first delta
comes and done (its ``*.done`` events, the item whole) when another kind of item starts or the
stream ends. A call is a ``function_call`` item added, filled with its arguments and done at
once. response.completed (or response.incomplete) ends it with every item; an error is the
API's ``error`` event. Every event has the next sequence_number.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...parsing._models import ParseResult, ToolCall
from .._messages import Message
from .._stream_writer import CallId, CallsMode, StreamWriter
from .._write_options import WriteOptions, reasoning_blocks
from . import _write as written

__all__ = ["ResponsesStreamWriter"]


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
                         "response": written._response(self._options, [], "in_progress")}, out)
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
                         "output_index": len(self._items) - 1, "item": written._opened(item)},
                        out)
            if kind == "message":
                self._event({**self._at(), "type": "response.content_part.added",
                             "content_index": 0, "part": written._text_part("")}, out)
        self._event({**self._at(), **delta}, out)

    def _item(self, kind: str, text: str) -> Message:
        ident = f"{'msg' if kind == 'message' else 'rs'}_{self.id}_{len(self._items)}"
        if kind == "message":
            return {"id": ident, "type": "message", "role": "assistant", "status": "completed",
                    "content": [written._text_part(text)]}
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
                     "item": written._opened(item)}, out)
        for event in written._deltas(item):
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
        finished = written._finished(bool(self.calls), options, self._items)
        self._event({"type": f"response.{finished['status']}", "response": finished}, out)

    def _error(self, message: str, kind: str) -> Message:
        out: list[Message] = []
        self._event({"type": "error", "code": kind, "message": message, "param": None}, out)
        return out[0]

    def _own_usage(self, usage: Mapping[str, Any]) -> bool:
        return "input_tokens" in usage and "total_tokens" in usage  # not Anthropic's
