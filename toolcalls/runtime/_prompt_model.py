"""Models without tool calling of their own, and models that replay recorded responses.

`PromptModel` gives tools to a model whose server has no tool calling: the tools go into the
system prompt as the model's chat template writes them (`Format.render_tools`), its calls are
parsed from its text in that format, and its calls and their results go back into the history
as text, as the template writes them (`Format.render_calls`, `result_text`).

`ScriptedModel` answers each request with the next recorded response (a provider's JSON, or a
captured stream's text): an agent tested offline, with no key, against what real models said.

>>> from toolcalls.runtime import OpenAIChatModel, PromptModel
>>> model = PromptModel(OpenAIChatModel(client=None, model="qwen3"), "hermes")
>>> model.user_turn("hi")
{'role': 'user', 'content': 'hi'}
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Sequence
from pathlib import Path
from typing import Any

from ..parsing._models import ParseResult
from ..parsing._registry import get_format
from ..parsing.formats._base import Format
from ..providers._messages import Message
from ._history import result_text
from ._models import Model, ModelRequest, ModelSetupError, Reply
from ._results import ToolResult

__all__ = ["PromptModel", "ScriptedModel"]


class PromptModel(Model):
    """`model` (any adapter) with the tools written into its prompt in `format`."""

    def __init__(self, model: Model, format: str | Format) -> None:  # noqa: A002
        self.model = model
        self.text_format = get_format(format) if isinstance(format, str) else format
        self.format, self.provider = self.text_format, model.provider

    async def send(self, request: ModelRequest, *, stream: bool) -> Reply:
        block = self.text_format.render_tools(request.tools) if request.tools else ""
        system = "\n\n".join(part for part in (request.system, block) if part) or None
        text_only = ModelRequest(request.messages, [], system)
        return await self.model.send(text_only, stream=stream)

    def user_turn(self, text: str) -> Message:
        return self.model.user_turn(text)

    def assistant_turn(self, response: ParseResult) -> list[Message]:
        if not response.calls and not response.content:
            return []
        text = self.text_format.render_calls(response.calls, response.content)
        return [{"role": "assistant", "content": text}]

    def result_turns(self, results: Sequence[ToolResult]) -> list[Message]:
        return [self.model.user_turn(result_text(results, self.text_format.name))]


class ScriptedModel(Model):
    """Replays `responses` in order, one per request, whatever was asked.

    Each is a whole response (an SDK object, a dict or JSON text) or a captured stream (its
    SSE or NDJSON text, which is fed as chunks of ``chunk_size`` characters), or a path to a
    ``.json`` or ``.sse``/``.ndjson`` file. ``requests`` records what each request carried.
    """

    def __init__(self, responses: Iterable[Any], *, provider: str = "openai",
                 format: str | Format | None = "auto",  # noqa: A002
                 chunk_size: int = 64) -> None:
        self.responses = [_loaded(response) for response in responses]
        self.provider, self.format, self.chunk_size = provider, format, chunk_size
        self.requests: list[ModelRequest] = []

    async def send(self, request: ModelRequest, *, stream: bool) -> Reply:
        if len(self.requests) >= len(self.responses):
            raise ModelSetupError(f"the script has {len(self.responses)} responses and the "
                                  f"agent asked for one more: add a response, or lower "
                                  f"max_steps")
        self.requests.append(request)
        response = self.responses[len(self.requests) - 1]
        if isinstance(response, str) and _is_captured_stream(response):
            return self._chunks(response)
        return response

    async def _chunks(self, text: str) -> AsyncIterator[str]:
        for start in range(0, len(text), self.chunk_size):
            yield text[start:start + self.chunk_size]


def _loaded(response: Any) -> Any:
    if isinstance(response, Path):
        return response.read_text(encoding="utf-8")
    return response


def _is_captured_stream(text: str) -> bool:
    """SSE (``data:``/``event:`` lines) or NDJSON (one object per line), not one JSON."""
    head = text.lstrip()
    if head.startswith(("data:", "event:", ":")):
        return True
    return head.startswith("{") and head.rstrip().count("\n") > 0 and _several_objects(head)


def _several_objects(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip()]
    return len(lines) > 1 and all(line.lstrip().startswith("{") for line in lines)
