"""A scripted model server for the agent tests: OpenAI Chat Completions, Anthropic Messages,
Gemini's ``generateContent`` and Ollama's ``/api/chat`` on 127.0.0.1, each request answered
with the next scripted turn in that API's shape.

A turn is a text and calls. `ModelServer` writes it as the API returns it (native calls, with
`toolcalls.providers.write_response` / `write_stream`, which the real SDKs then validate), or,
with ``text_format``, as a model without tool calling writes it: the calls as text in that
format in the content (what `toolcalls serve` reads in front of such a model). It records each
request body, so a test can check what the loop sent.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from toolcalls import ParseResult, ToolCall, get_format
from toolcalls.providers import stream_text, write_response, write_stream

Turn = tuple[str, Sequence[tuple[str, dict[str, Any]]]]
"""What the model says: its text, and its calls as (name, arguments)."""


class ModelServer:
    """Answers each request with the next turn of `turns` (the last one again at the end)."""

    def __init__(self, turns: Sequence[Turn], *, text_format: str | None = None) -> None:
        self.turns, self.text_format = list(turns), text_format
        self.requests: list[dict[str, Any]] = []
        self.app = Starlette(routes=[
            Route("/v1/chat/completions", self._openai, methods=["POST"]),
            Route("/v1/messages", self._anthropic, methods=["POST"]),
            Route("/api/chat", self._ollama, methods=["POST"]),
            Route("/{version}/models/{method}", self._gemini, methods=["POST"]),
        ])

    def _result(self, provider: str) -> ParseResult:
        text, calls = self.turns[min(len(self.requests) - 1, len(self.turns) - 1)]
        native = [ToolCall(id=f"call_{len(self.requests)}_{number}", name=name,
                           arguments=arguments, source="native")
                  for number, (name, arguments) in enumerate(calls)]
        if self.text_format is not None:
            text, native = get_format(self.text_format).render_calls(native, text), []
        return ParseResult(format="native", content=text, calls=native, provider=provider,
                           finish_reason="tool_calls" if native else "stop")

    async def _openai(self, request: Request) -> Response:
        return await self._answer(request, "openai")

    async def _anthropic(self, request: Request) -> Response:
        return await self._answer(request, "anthropic")

    async def _ollama(self, request: Request) -> Response:
        return await self._answer(request, "ollama")

    async def _gemini(self, request: Request) -> Response:
        streamed = request.path_params["method"].endswith(":streamGenerateContent")
        return await self._answer(request, "gemini", stream=streamed)

    async def _answer(self, request: Request, provider: str,
                      stream: bool | None = None) -> Response:
        body = await request.json()
        self.requests.append(body)
        result = self._result(provider)
        model = body.get("model", "scripted")
        if stream is None:  # Ollama streams unless told not to; the others when told to
            stream = body.get("stream", provider == "ollama")
        if not stream:
            return JSONResponse(write_response(result, provider, model=model))
        wire = stream_text(write_stream(result, provider, model=model), provider)
        kind = "application/x-ndjson" if provider == "ollama" else "text/event-stream"
        return StreamingResponse(_pieces(wire), media_type=kind)


def _pieces(wire: str, size: int = 17) -> Iterator[str]:
    for start in range(0, len(wire), size):
        yield wire[start:start + size]
