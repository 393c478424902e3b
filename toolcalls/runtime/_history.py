"""Results back to the model: a batch of `ToolResult`s as the next request takes them.

The executor answers the calls of one response with results in call order, each with its
``call`` set. One call turns them into the next request's history, through the writers the
providers and formats already have::

    messages = result_messages(results, "anthropic")   # append to the request's messages
    text = result_text(results, "hermes")              # the next user turn, in prompt mode

What is sent (`ToolResult.value`): a result's text, its JSON value, or its text and images.
``is_error`` goes where the API has a flag (Anthropic's ``is_error``, Gemini's
``response.error``); elsewhere the result's own text says it, as every runtime error's text
does (`ToolError.for_model`), and a result a tool flagged itself starts with ``Error:``.
Images go where the API takes them in a result (Anthropic,
Responses, Gemini, Ollama). Chat Completions APIs (OpenAI Chat, Mistral) take only text in a
tool message: there each image is a placeholder in the tool message's text, and the images
follow in one user message after the batch's tool messages (tool messages must directly follow
the assistant turn, so the user message cannot sit between them). Prompt formats have no
place for an image: its placeholder ``[image: image/png]`` is all the model reads.

The assistant turn that carried the calls is `toolcalls.providers.native_call_message` (for
the provider) or ``get_format(name).render_calls`` (for a format); it is not repeated here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from .._errors import ToolCallsError
from ..parsing._models import ToolCall
from ..parsing._registry import get_format
from ..parsing.formats._base import Format
from ..parsing.formats.kimi_k2 import KimiK2
from ..providers._content import ToolImage
from ..providers._messages import Message
from ..providers._messages import ToolResult as ProviderResult
from ..providers._registry import get_provider
from ..providers.openai_chat import OpenAIChat
from ._results import Text, ToolResult

__all__ = ["UnansweredResultError", "result_messages", "result_text"]

IMAGE_PLACEHOLDER = "[image {number}: {media_type}, sent in the next user message]"
"""Where an image was, in a Chat Completions tool message."""


class UnansweredResultError(ToolCallsError, ValueError):
    """A result does not say which call it answers (its ``call`` is None)."""


def result_messages(results: Sequence[ToolResult], provider: str) -> list[Message]:
    """The messages (or items) that give each call its result, for `provider`'s next request,
    grouped as its API wants them (one per call, or one for the batch)."""
    calls, results = _calls(results), _said(results)
    api = get_provider(provider)
    if isinstance(api, OpenAIChat):  # tool messages take text only (see the module docstring)
        return _chat_messages(api, calls, results)
    return api.render_results([ProviderResult(call, result.value(), result.is_error)
                               for call, result in zip(calls, results, strict=True)])


def result_text(results: Sequence[ToolResult], format: str) -> str:
    """The results as `format`'s chat template writes them into the next turn: each result
    block (`Format.render_result`, which escapes a closing marker inside a result so it
    cannot end its block early), joined as the template joins one turn's results.

    `results` answer one assistant turn, in call order (a call's place in the batch is its
    place in its turn, which Kimi K2 writes in each result's heading)."""
    calls, results = _calls(results), _said(results)
    fmt = get_format(format)
    before, between, after = fmt.result_run
    blocks = [_result_block(fmt, call, result.text(), place)
              for place, (call, result) in enumerate(zip(calls, results, strict=True))]
    return before + between.join(blocks) + after


def _said(results: Sequence[ToolResult]) -> list[ToolResult]:
    """`results` as the model reads them: a result a tool flagged as an error itself (no
    runtime error, whose text already says so) starts with ``Error:``, because most APIs
    (OpenAI, Responses, Ollama, Mistral, every prompt format) have no flag to carry it."""
    said = []
    for result in results:
        if result.is_error and result.error is None and not result.text().startswith("Error"):
            result = replace(result, content=(Text("Error:"), *result.content))
        said.append(result)
    return said


def _calls(results: Sequence[ToolResult]) -> list[ToolCall]:
    calls = []
    for index, result in enumerate(results):
        if result.call is None:
            raise UnansweredResultError(
                f"results[{index}] answers no call: build results with ToolResult.for_call("
                "call), as the executor does, so each is sent with its call's id")
        calls.append(result.call)
    return calls


def _result_block(fmt: Format, call: ToolCall, text: str, place: int) -> str:
    if isinstance(fmt, KimiK2):
        # Kimi names a result by the id render_calls gave its call: functions.NAME:PLACE
        return fmt.render_result(call, text, index=place)
    return fmt.render_result(call, text)


# -- Chat Completions: text in the tool messages, the images after them -------------------------


def _chat_messages(api: OpenAIChat, calls: Sequence[ToolCall],
                   results: Sequence[ToolResult]) -> list[Message]:
    values = [_text_with_placeholders(result.value()) for result in results]
    messages = api.render_results([ProviderResult(call, value, result.is_error)
                                   for call, value, result in zip(calls, values, results,
                                                                  strict=True)])
    parts: list[Message] = []
    for message, call, result in zip(messages, calls, results, strict=True):
        parts += _image_parts(message["tool_call_id"], call.name, result.value())
    return [*messages, {"role": "user", "content": parts}] if parts else messages


def _images(value: Any) -> list[ToolImage]:
    return [part for part in value if isinstance(part, ToolImage)] if isinstance(
        value, list) else []


def _text_with_placeholders(value: Any) -> Any:
    """A value with images as its text, each image a numbered placeholder."""
    if not _images(value):
        return value
    texts, number = [], 0
    for part in value:
        if isinstance(part, ToolImage):
            number += 1
            part = IMAGE_PLACEHOLDER.format(number=number, media_type=part.media_type)
        texts.append(part)
    return "\n".join(texts)


def _image_parts(call_id: str, tool: str, value: Any) -> list[Message]:
    """The user message's parts for one result's images: a line naming the call, the
    images in order (numbered as their placeholders)."""
    images = _images(value)
    if not images:
        return []
    heading = {"type": "text",
               "text": f"The images of the result of {tool} (call {call_id}), in order:"}
    return [heading, *({"type": "image_url", "image_url": {"url": image.data_url()}}
                       for image in images)]
