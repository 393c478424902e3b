"""Models for the agent loop: a provider client the user already has, behind one interface.

An adapter sends one request (system text, history, tools) through the client and returns
what the client returned: a whole response, or its stream of chunks. The agent reads either
with `read_response` / `read_stream` (native calls first, calls in the text after), so the
adapters hold no parsing of their own. Each also says how its API wants the history written:
the user's turn, the assistant's turn with its calls, and the results.

>>> import openai                                                     # doctest: +SKIP
>>> model = OpenAIChatModel(openai.AsyncOpenAI(), "gpt-4o-mini")      # doctest: +SKIP
>>> model = OpenAIChatModel.at("http://127.0.0.1:8000/v1", "qwen3")   # doctest: +SKIP

Sync clients (``openai.OpenAI``, ``anthropic.Anthropic``, ``ollama.Client``) work too: their
calls run in a worker thread, so the event loop keeps running the other calls' tools.
"""

from __future__ import annotations

import asyncio
import inspect
from abc import ABC
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._errors import ToolCallsError
from ..parsing._models import ParseResult
from ..parsing.formats._base import Format
from ..providers._messages import Message
from ..providers._native import native_call_message, render_native
from ..tools._tool import Tool
from ._history import result_messages
from ._results import ToolResult

__all__ = [
    "AnthropicModel",
    "GeminiModel",
    "Model",
    "ModelRequest",
    "ModelSetupError",
    "OllamaModel",
    "OpenAIChatModel",
]


class ModelSetupError(ToolCallsError, ValueError):
    """A model adapter was given something it cannot use (a missing client library, a
    recorded response of the wrong kind)."""


@dataclass(frozen=True)
class ModelRequest:
    """One request of the loop, before it is written for an API."""

    messages: list[Message]
    tools: list[Tool] = field(default_factory=list)
    system: str | None = None


Reply = Any | AsyncIterator[Any]
"""A whole response (an SDK object, a dict, JSON text), or an async iterator of its chunks."""


class Model(ABC):  # noqa: B024 - every method has the default most APIs want
    """A model behind one provider API: sends requests, and writes the history its way.

    Subclasses set `provider` (the API the responses are read as, and the history written
    in) and implement `send`; `format` says which text format to look for calls in the
    text as well ("auto": the one the model id names; None: native calls only).
    """

    provider: str = "openai"
    format: str | Format | None = "auto"

    async def send(self, request: ModelRequest, *, stream: bool) -> Reply:
        """The client's response to `request`, or its chunks when `stream` is asked."""
        raise NotImplementedError

    def user_turn(self, text: str) -> Message:
        """The user's message."""
        if self.provider == "gemini":  # the one API whose messages hold parts, not content
            return {"role": "user", "parts": [{"text": text}]}
        return {"role": "user", "content": text}

    def assistant_turn(self, response: ParseResult) -> list[Message]:
        """The assistant's turn as it goes back in the history: its text and every call it
        made, native or found in the text, as native calls (so each result has its call),
        with the reasoning the API wants back (Anthropic's signed thinking, Gemini's thought
        signatures)."""
        if not response.calls and not response.content:
            return []
        turn = native_call_message(response.calls, self.provider,
                                   content=response.content or None)
        with_reasoning = _REASONING_BACK.get(self.provider)
        if with_reasoning is not None and response.reasoning_blocks:
            turn[0] = with_reasoning(turn[0], response.reasoning_blocks)
        return turn

    def result_turns(self, results: Sequence[ToolResult]) -> list[Message]:
        """The messages that give each call of the last turn its result."""
        return result_messages(results, self.provider)


class OpenAIChatModel(Model):
    """OpenAI Chat Completions, or any server that speaks it (vLLM, SGLang, llama.cpp,
    LM Studio, `toolcalls serve`), through an ``openai.OpenAI`` or ``AsyncOpenAI`` client."""

    provider = "openai"

    def __init__(self, client: Any, model: str, *, format: str | Format | None = "auto",  # noqa: A002
                 **options: Any) -> None:
        self.client, self.model, self.format, self.options = client, model, format, options

    @classmethod
    def at(cls, base_url: str, model: str, *, api_key: str = "none",
           format: str | Format | None = "auto", **options: Any) -> OpenAIChatModel:  # noqa: A002
        """A model at an OpenAI-compatible `base_url` (``http://host:port/v1``)."""
        openai = _client_library("openai", "openai")
        return cls(openai.AsyncOpenAI(base_url=base_url, api_key=api_key), model,
                   format=format, **options)

    async def send(self, request: ModelRequest, *, stream: bool) -> Reply:
        system = [{"role": "system", "content": request.system}] if request.system else []
        body = {"model": self.model, "messages": [*system, *request.messages],
                **_tools(request.tools, self.provider), **self.options}
        if stream:
            body["stream"] = True
        return await _call(self.client.chat.completions.create, body, stream)


class AnthropicModel(Model):
    """Anthropic Messages, through an ``anthropic.Anthropic`` or ``AsyncAnthropic`` client."""

    provider = "anthropic"

    def __init__(self, client: Any, model: str, *, max_tokens: int = 4096,
                 format: str | Format | None = None, **options: Any) -> None:  # noqa: A002
        self.client, self.model, self.format = client, model, format
        self.max_tokens, self.options = max_tokens, options

    async def send(self, request: ModelRequest, *, stream: bool) -> Reply:
        body = {"model": self.model, "max_tokens": self.max_tokens,
                "messages": request.messages, **_tools(request.tools, self.provider),
                **self.options}
        if request.system:
            body["system"] = request.system
        if stream:
            body["stream"] = True
        return await _call(self.client.messages.create, body, stream)


class OllamaModel(Model):
    """Ollama's ``/api/chat``, through an ``ollama.Client`` or ``AsyncClient``."""

    provider = "ollama"

    def __init__(self, client: Any, model: str, *, format: str | Format | None = "auto",  # noqa: A002
                 **options: Any) -> None:
        self.client, self.model, self.format, self.options = client, model, format, options

    async def send(self, request: ModelRequest, *, stream: bool) -> Reply:
        system = [{"role": "system", "content": request.system}] if request.system else []
        body = {"model": self.model, "messages": [*system, *request.messages],
                **_tools(request.tools, self.provider), **self.options, "stream": stream}
        return await _call(self.client.chat, body, stream)


class GeminiModel(Model):
    """Gemini's ``generateContent``, through a ``google.genai.Client`` (its ``aio`` side)."""

    provider = "gemini"

    def __init__(self, client: Any, model: str, *, format: str | Format | None = None,  # noqa: A002
                 **config: Any) -> None:
        self.client, self.model, self.format, self.config = client, model, format, config

    async def send(self, request: ModelRequest, *, stream: bool) -> Reply:
        config = {**_tools(request.tools, self.provider), **self.config}
        if request.system:
            config["system_instruction"] = request.system
        models = self.client.aio.models
        body = {"model": self.model, "contents": request.messages, "config": config}
        if stream:
            return await models.generate_content_stream(**body)
        return await models.generate_content(**body)


def _thinking_first(turn: Message, blocks: list[dict[str, Any]]) -> Message:
    """Anthropic: the signed thinking blocks go back first, as they came."""
    return {**turn, "content": [*blocks, *turn["content"]]}


def _signed(turn: Message, blocks: list[dict[str, Any]]) -> Message:
    """Gemini: the thought signatures go back on the calls (in order), and the signed thought
    parts first: a Gemini 3 model refuses a call sent back unsigned."""
    signatures = [block["thoughtSignature"] for block in blocks if "functionCall" in block]
    parts: list[Message] = [block for block in blocks if "functionCall" not in block]
    for part in turn["parts"]:
        if "functionCall" in part and signatures:
            part = {**part, "thoughtSignature": signatures.pop(0)}
        parts.append(part)
    return {**turn, "parts": parts}


_REASONING_BACK: dict[str, Callable[[Message, list[dict[str, Any]]], Message]] = {
    "anthropic": _thinking_first,
    "gemini": _signed,
}
"""How each API wants a turn's reasoning sent back with it (`ParseResult.reasoning_blocks`)."""


def _tools(tools: Sequence[Tool], provider: str) -> dict[str, Any]:
    """The request's ``tools`` field, or nothing: several APIs refuse an empty list."""
    return render_native(tools, provider) if tools else {}


async def _call(method: Callable[..., Any], body: dict[str, Any], stream: bool) -> Reply:
    """Call a client method, async or sync (a sync one in a worker thread, and its stream
    read there chunk by chunk)."""
    if inspect.iscoroutinefunction(inspect.unwrap(method)):  # the SDKs wrap their methods
        reply = await method(**body)
    else:
        reply = await asyncio.to_thread(lambda: method(**body))
        if inspect.isawaitable(reply):  # an async method behind a wrapper unwrap cannot see
            reply = await reply
    if stream and not hasattr(reply, "__aiter__"):
        return _in_thread(reply)
    return reply


_END = object()


async def _in_thread(stream: Iterable[Any]) -> AsyncIterator[Any]:
    chunks = iter(stream)
    try:
        while (chunk := await asyncio.to_thread(next, chunks, _END)) is not _END:
            yield chunk
    finally:
        close = getattr(stream, "close", None)
        if callable(close):  # the SDK's stream holds an HTTP connection until closed
            close()


def _client_library(module: str, extra: str) -> Any:
    try:
        return __import__(module)
    except ImportError as error:
        raise ModelSetupError(f"this model needs the {module!r} package: "
                              f"pip install {extra}") from error
