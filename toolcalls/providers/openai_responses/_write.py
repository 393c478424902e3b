"""OpenAI Responses: a result written as ``/v1/responses`` returns it (item 3 of the issue).

    response   {"object": "response", "status": "completed", "output": [a ``reasoning`` item,
               a ``message`` item with one ``output_text`` part, a ``function_call`` item per
               call ({"call_id", "name", "arguments"} as a JSON string)]}
    stream     response.created, response.in_progress; per item response.output_item.added,
               its deltas (response.reasoning_text.delta/done; response.content_part.added,
               response.output_text.delta/done, response.content_part.done;
               response.function_call_arguments.delta/done), response.output_item.done;
               response.completed with the whole response. Every event has a sequence_number
               (written by `_openai_responses_emit`, which writes a stream while it is read)
    wire       ``event: <type>`` and ``data: {json}`` per event

A result cut off ("length", as any provider says it) is ``"status": "incomplete"`` with
``incomplete_details.reason`` "max_output_tokens" ("content_filter" for one filtered), and its
stream ends with response.incomplete. Usage read from this API is written as it came; else
the counts, when known.
The call's id is the item's ``call_id`` (what a result refers to); item ids are made from the
response id. The reasoning items of a result read from the Responses API (its
``reasoning_blocks``: summaries, encrypted_content) are written as they came; other reasoning
is one item with ``reasoning_text`` content, as open-weight servers (vLLM, gpt-oss) give it.
"""

from __future__ import annotations

from ...parsing._models import ParseResult
from .._messages import Message
from .._write_options import WriteOptions, reasoning_blocks

_INCOMPLETE = {"length": "max_output_tokens", "content_filter": "content_filter"}

__all__ = ["write_response"]


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


def _response(options: WriteOptions, output: list[Message], status: str) -> Message:
    return {"id": options.id, "object": "response", "created_at": options.created,
            "model": options.model, "status": status, "output": output, "error": None,
            "incomplete_details": None, "parallel_tool_calls": True, "tool_choice": "auto",
            "tools": []}


def _finished(has_calls: bool, options: WriteOptions, output: list[Message]) -> Message:
    """The response as it ends: completed, or incomplete and why; with its usage if known."""
    response = _response(options, output, "completed")
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
