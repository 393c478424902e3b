"""A fake OpenAI-compatible upstream for the proxy tests: replays real model outputs.

`FakeUpstream.app` is a Starlette app with ``POST /v1/chat/completions`` and ``GET
/v1/models``. What it answers is scripted by the test (`script`): a text (a corpus row's raw
model output, `corpus_rows`) as the assistant content, whole or as SSE chat chunks of random
sizes (seeded) with usage; or native ``tool_calls``; or a fault: ``"status_500"``, ``"hang"``
(answers nothing for `HANG_SECONDS`), ``"disconnect"`` (streams half the text, then drops the
connection), ``"truncate"`` (streams half the text, then ends the response cleanly: no finish
reason, no ``[DONE]``), ``"error_body"`` (an error object with status 200, or after half the
stream), ``"slow"`` (streams a chunk every 20 ms until the client goes away). A ``gate`` (a
`threading.Event`) stops a stream halfway until the test's client opens it (or `GATE_SECONDS`
pass; `gate_opened` says which): what the client read by then came before the rest was sent.
It records every request body and headers it got, and whether the last stream was closed by its
client. ``POST /tokenize`` (at the root) answers 404 unless the test set `tokenize_count`
(reset by `script`): then as vLLM does (a chat in, ``count`` out), or with `tokenize_style`
"llamacpp" as llama.cpp does (a ``content`` text in, ``tokens`` out; a chat gives no tokens,
and ``/apply-template`` writes the text); it records what it was asked in `tokenized`. Every
answer sets a cookie (`COOKIE`), as a server behind a login gateway does: the proxy must never
send it back.
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

CORPUS = Path(__file__).resolve().parents[2] / "fixtures" / "corpus"
HANG_SECONDS = 5.0
GATE_SECONDS = 1.0
USAGE = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
COOKIE = "upstream_session=client-a-secret; Path=/"


def corpus_rows(fmt: str, *, calls: int) -> list[dict[str, Any]]:
    """The rows of `fmt`'s corpus file with tools and exactly `calls` expected calls."""
    lines = (CORPUS / f"{fmt}.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]
    return [row for row in rows if row.get("tools") and len(row["expected"]["calls"]) == calls]


class FakeUpstream:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.stream_closed = threading.Event()
        self.script("Hello!")
        self.app = Starlette(routes=[
            Route("/v1/chat/completions", self._chat, methods=["POST"]),
            Route("/v1/models", self._models, methods=["GET"]),
            Route("/tokenize", self._tokenize, methods=["POST"]),
            Route("/apply-template", self._apply_template, methods=["POST"]),
        ])
        self.app.add_middleware(_SetCookie)

    def script(self, text: str = "", *, fault: str | None = None,
               native_calls: list[dict[str, Any]] | None = None, seed: int = 0,
               finish_reason: str = "stop", then: tuple[str, ...] = (),
               gate: threading.Event | None = None,
               usage: dict[str, Any] | None = None) -> None:
        """Answer `text`, then (one request each) the texts of `then`, the last one again;
        with `usage` (`USAGE` if None)."""
        self.usage = USAGE if usage is None else usage
        self.text, self.fault, self.native_calls = text, fault, native_calls
        self.gate, self.gate_opened = gate, False
        self.then = list(then)
        self.seed, self.finish_reason = seed, finish_reason
        self.tokenize_count: int | None = None
        self.tokenize_style = "vllm"
        self.tokenized: list[dict[str, Any]] = []
        self.requests.clear()
        self.headers.clear()
        self.stream_closed.clear()

    async def _models(self, request: Request) -> Response:
        self.headers.append(dict(request.headers))
        return JSONResponse({"object": "list", "data": [
            {"id": "qwen3_coder", "object": "model", "created": 0, "owned_by": "fake"}]})

    async def _tokenize(self, request: Request) -> Response:
        if self.tokenize_count is None:
            return JSONResponse({"detail": "Not Found"}, status_code=404)
        body = await request.json()
        self.tokenized.append(body)
        if self.tokenize_style == "llamacpp":
            return JSONResponse({"tokens": list(range(self.tokenize_count))
                                 if "content" in body else []})
        return JSONResponse({"count": self.tokenize_count, "max_model_len": 32768,
                             "tokens": list(range(self.tokenize_count))})

    async def _apply_template(self, request: Request) -> Response:
        if self.tokenize_count is None or self.tokenize_style != "llamacpp":
            return JSONResponse({"detail": "Not Found"}, status_code=404)
        body = await request.json()
        self.tokenized.append(body)
        return JSONResponse({"prompt": "".join(f"<|{m['role']}|>{m['content']}"
                                               for m in body["messages"])})

    async def _chat(self, request: Request) -> Response:
        body = await request.json()
        if self.requests and self.then:
            self.text = self.then.pop(0)
        self.requests.append(body)
        self.headers.append(dict(request.headers))
        if self.fault == "status_500":
            return JSONResponse({"error": {"message": "model crashed"}}, status_code=500)
        if self.fault == "hang":
            await asyncio.sleep(HANG_SECONDS)
        if self.fault == "error_body" and not body.get("stream"):  # 200, an error for a body
            return JSONResponse({"error": {"message": "out of memory", "code": 503}})
        if body.get("stream"):
            usage = bool((body.get("stream_options") or {}).get("include_usage"))
            return StreamingResponse(self._stream(body["model"], usage),
                                     media_type="text/event-stream")
        message: dict[str, Any] = {"role": "assistant", "content": self.text}
        if self.native_calls:
            message["tool_calls"] = self.native_calls
        return _Json({
            "id": "chatcmpl-fake", "object": "chat.completion", "created": 1,
            "model": body["model"], "usage": self.usage,
            "choices": [{"index": 0, "message": message, "finish_reason": self._finish()}]})

    def _finish(self) -> str:
        return "tool_calls" if self.native_calls else self.finish_reason

    def _chunk(self, model: str, delta: dict[str, Any], finish: str | None = None) -> str:
        chunk = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1,
                 "model": model, "choices": [{"index": 0, "delta": delta,
                                              "finish_reason": finish}]}
        return f"data: {json.dumps(chunk)}\n\n"

    def _pieces(self) -> Iterator[str]:
        rng, text, at = random.Random(self.seed), self.text, 0
        while at < len(text):
            size = rng.randint(1, 12)
            yield text[at:at + size]
            at += size

    async def _stream(self, model: str, usage: bool) -> AsyncIterator[str]:
        try:
            yield self._chunk(model, {"role": "assistant", "content": ""})
            if self.fault == "slow":
                while True:
                    await asyncio.sleep(0.02)
                    yield self._chunk(model, {"content": "."})
            pieces = list(self._pieces())
            for number, piece in enumerate(pieces):
                if self.gate is not None and number == len(pieces) // 2:
                    self.gate_opened = await asyncio.to_thread(self.gate.wait, GATE_SECONDS)
                if self.fault == "disconnect" and number >= len(pieces) // 2:
                    raise ConnectionAbortedError("the fake upstream drops the connection")
                if self.fault == "truncate" and number >= len(pieces) // 2:
                    return
                if self.fault == "error_body" and number >= len(pieces) // 2:
                    yield f"data: {json.dumps({'error': {'message': 'out of memory'}})}\n\n"
                    yield "data: [DONE]\n\n"
                    return
                yield self._chunk(model, {"content": piece})
            for index, call in enumerate(self.native_calls or []):
                yield self._chunk(model, {"tool_calls": [{**call, "index": index}]})
            yield self._chunk(model, {}, self._finish())
            if usage:
                chunk = {"id": "chatcmpl-fake", "object": "chat.completion.chunk",
                         "created": 1, "model": model, "choices": [], "usage": self.usage}
                yield f"data: {json.dumps(chunk)}\n\n"
            yield "data: [DONE]\n\n"
        except (asyncio.CancelledError, GeneratorExit):
            self.stream_closed.set()
            raise


class _Json(JSONResponse):
    """JSON as Python's json writes it by default (ASCII, NaN allowed), as a server may."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content).encode("ascii")


class _SetCookie:
    """ASGI middleware: every answer sets `COOKIE`."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def with_cookie(message: Any) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message["headers"], (b"set-cookie", COOKIE.encode())]
            await send(message)

        await self.app(scope, receive, with_cookie if scope["type"] == "http" else send)
