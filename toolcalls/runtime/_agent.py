"""One agent loop over any model: send, read the calls, run them, send the results, repeat.

>>> from toolcalls.runtime import Agent, ScriptedModel, tool
>>> @tool
... def get_capital(country: str) -> str:
...     "The capital of a country."
...     return {"France": "Paris"}.get(country, "unknown")
>>> call = {"role": "assistant", "content": None, "tool_calls": [{"id": "c1",
...     "type": "function", "function": {"name": "get_capital",
...     "arguments": '{"country": "France"}'}}]}
>>> answer = {"role": "assistant", "content": "Paris."}
>>> model = ScriptedModel([{"choices": [{"message": call}]},
...                        {"choices": [{"message": answer}]}])
>>> Agent(model, [get_capital]).run_sync("Capital of France?").answer
'Paris.'

One step: the model is sent the history and the tools (`Model.send`); its response is read
with `read_response` (or `read_stream`, streamed), native calls first and calls in its text
after; the assistant turn goes into the history with every call as a native call; the calls
run through the `Executor` (permissions, limits, hooks, timeouts: a refusal or a crash is a
result the model reads); the results go into the history in the API's shape. The loop ends
with an answer (a response with no call), at ``max_steps``, when a call waits for approval
(`Agent.resume` answers it and goes on), or when the cancel token is cancelled.

A call the model cut off or wrote so that it cannot be read has no id to answer; the model is
told so in a user message after the other calls' results, and asked to write it again (a
response with only such calls counts as a step, within ``max_steps``).

`Agent.events` gives the same loop as events for a UI: the parser's events of a streamed
response (`TextDelta`, `ToolCallStart`, `ArgumentsDelta`, `ToolCallEnd`...), then
`ResponseRead`, `ApprovalNeeded`, `ToolFinished` and, last, `Finished`.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from .._errors import ToolCallsError
from ..budget._session import Session
from ..parsing._events import Event
from ..parsing._models import ParseResult
from ..providers._messages import Message
from ..providers._response_reader import read_response
from ..providers._stream_reader import read_stream
from ..tools._tool import Tool
from ._context import CancelToken
from ._executor import Batch, Executor
from ._models import Model, ModelRequest
from ._permissions import Answer, PendingApproval, Permissions
from ._registry import ToolRegistry
from ._results import ToolResult
from ._tool import RuntimeTool

__all__ = ["Agent", "AgentError", "AgentEvent", "AgentResult", "ApprovalNeeded", "Finished",
           "ResponseRead", "Step", "StopReason", "ToolFinished"]

T = TypeVar("T")

StopReason = Literal["answer", "max_steps", "approval", "cancelled"]

UNREADABLE_CALL = ("A tool call in your last turn could not be read ({why}), so it was not "
                   "run. Write that whole call again.")
"""What the model is told when its call was cut off or malformed (no call id to answer)."""


class AgentError(ToolCallsError, RuntimeError):
    """The loop was set up or driven wrongly (a new prompt while calls wait for approval)."""


@dataclass(frozen=True)
class Step:
    """One model response and what its calls gave."""

    response: ParseResult
    batch: Batch | None = None


@dataclass(frozen=True)
class AgentResult:
    """How one run of the loop ended."""

    stop: StopReason
    answer: str | None
    """The final response's text (on ``"answer"``); None otherwise."""
    steps: list[Step]
    pending: list[PendingApproval] = field(default_factory=list)
    """The calls that wait for an answer (on ``"approval"``): `Agent.resume` takes them."""


@dataclass(frozen=True)
class ResponseRead:
    """A model response, read."""

    response: ParseResult


@dataclass(frozen=True)
class ApprovalNeeded:
    """A call waits for the user: answer it with `Agent.resume`."""

    pending: PendingApproval


@dataclass(frozen=True)
class ToolFinished:
    """A call's result, as the model will read it."""

    result: ToolResult


@dataclass(frozen=True)
class Finished:
    """The loop stopped (always the last event)."""

    result: AgentResult


AgentEvent = Event | ResponseRead | ApprovalNeeded | ToolFinished | Finished


class Agent:
    """The loop, over `model` with `tools` (a registry, tools, functions or an `Executor`).

    ``messages`` is the conversation so far in the model's API shape; each `run` goes on from
    it, so one agent holds one conversation. An error of the client (the server down, a 4xx)
    comes out of `run` as the client raised it, the history kept: ``run()`` with no prompt
    tries that request again. ``permissions`` and ``session`` configure the executor made for
    `tools`; an `Executor` given as `tools` brings its own.
    """

    def __init__(self, model: Model,
                 tools: Executor | ToolRegistry | Iterable[RuntimeTool | Any] = (), *,
                 system: str | None = None, permissions: Permissions | None = None,
                 session: Session | None = None, max_steps: int = 10,
                 stream: bool = False) -> None:
        if isinstance(tools, Executor):
            if permissions is not None or session is not None:
                raise AgentError("this Executor has its own permissions and session: set them "
                                 "on it, not on the Agent")
            self.executor = tools
        else:
            self.executor = Executor(tools, permissions=permissions or Permissions(),
                                     session=session)
        self.model, self.system = model, system
        self.max_steps, self.stream = max_steps, stream
        self.messages: list[Message] = []
        self._waiting: tuple[Batch, list[Step]] | None = None

    @property
    def pending(self) -> list[PendingApproval]:
        """The calls that wait for an answer (`resume` takes them); empty when none do."""
        return self._waiting[0].pending if self._waiting is not None else []

    async def run(self, prompt: str | None = None, *,
                  cancel: CancelToken | None = None) -> AgentResult:
        """Add `prompt` as the user's turn (None: go on from the history) and loop."""
        return await _last(self.events(prompt, cancel=cancel))

    def run_sync(self, prompt: str | None = None) -> AgentResult:
        """`run` for code without an event loop."""
        return asyncio.run(self.run(prompt))

    async def resume(self, answers: Mapping[str, Answer], *,
                     cancel: CancelToken | None = None) -> AgentResult:
        """Answer the calls that wait (by call id) and go on."""
        return await _last(self.resume_events(answers, cancel=cancel))

    def resume_sync(self, answers: Mapping[str, Answer]) -> AgentResult:
        """`resume` for code without an event loop."""
        return asyncio.run(self.resume(answers))

    async def events(self, prompt: str | None = None, *,
                     cancel: CancelToken | None = None) -> AsyncIterator[AgentEvent]:
        """`run`, as events."""
        if self._waiting is not None:
            raise AgentError("calls wait for approval: answer them with agent.resume("
                             "{call_id: Answer...}) before sending a new prompt")
        if prompt is not None:
            self.messages.append(self.model.user_turn(prompt))
        async for event in self._loop([], cancel or CancelToken(), None):
            yield event

    async def resume_events(self, answers: Mapping[str, Answer], *,
                            cancel: CancelToken | None = None) -> AsyncIterator[AgentEvent]:
        """`resume`, as events."""
        if self._waiting is None:
            raise AgentError("no call waits for approval: there is nothing to resume")
        (batch, steps), self._waiting = self._waiting, None
        token = cancel or CancelToken()
        batch = await self.executor.resume(batch, answers, cancel=token)
        steps[-1] = Step(steps[-1].response, batch)
        async for event in self._loop(steps, token, batch):
            yield event

    async def _loop(self, steps: list[Step], cancel: CancelToken,
                    batch: Batch | None) -> AsyncIterator[AgentEvent]:
        while True:
            if batch is not None:
                async for event in self._answer(batch, steps, cancel):
                    yield event
                if self._waiting is not None or cancel.cancelled:
                    return
                batch = None
            if len(steps) >= self.max_steps:
                yield Finished(AgentResult("max_steps", None, steps))
                return
            response: ParseResult | None = None
            async for event in self._respond(cancel):
                if isinstance(event, ResponseRead):
                    response = event.response
                yield event
            if response is None:  # cancelled while the model answered: nothing to keep
                yield Finished(AgentResult("cancelled", None, steps))
                return
            self.messages += self.model.assistant_turn(response)
            if not response.calls:
                if self._told_to_retry(response, steps):
                    continue
                yield Finished(AgentResult("answer", response.content, steps))
                return
            if self.executor.session is not None:  # calls to loaded tools keep them loaded
                self.executor.session.check_calls(response.calls)
            batch = await self.executor.run(response.calls, cancel=cancel)
            steps.append(Step(response, batch))

    async def _answer(self, batch: Batch, steps: list[Step],
                      cancel: CancelToken) -> AsyncIterator[AgentEvent]:
        """Results of a finished batch into the history; a batch that waits stops here."""
        if not batch.complete:
            self._waiting = (batch, steps)
            for pending in batch.pending:
                yield ApprovalNeeded(pending)
            yield Finished(AgentResult("approval", None, steps, batch.pending))
            return
        for result in batch.results:
            yield ToolFinished(result)
        self.messages += self.model.result_turns(batch.results)
        self._tell_unreadable(steps[-1].response)
        if cancel.cancelled:
            yield Finished(AgentResult("cancelled", None, steps))

    def _told_to_retry(self, response: ParseResult, steps: list[Step]) -> bool:
        """Only calls that could not be read: tell the model, and count it as a step."""
        if not self._tell_unreadable(response):
            return False
        steps.append(Step(response))
        return True

    def _tell_unreadable(self, response: ParseResult) -> bool:
        """Tell the model which of its calls could not be read (they have no id to answer)."""
        if not response.incomplete:
            return False
        why = "; ".join(issue.message for issue in response.issues) or "it was cut off"
        self.messages.append(self.model.user_turn(UNREADABLE_CALL.format(why=why)))
        return True

    async def _respond(self, cancel: CancelToken) -> AsyncIterator[Event | ResponseRead]:
        """The model's response, read (its events first when streamed); nothing if `cancel`
        fires first."""
        tools = self._tools()
        request = ModelRequest(list(self.messages), tools, self.system)
        sent = await _unless_cancelled(self.model.send(request, stream=self.stream), cancel)
        if sent is None:
            return
        (reply,) = sent
        if not hasattr(reply, "__aiter__"):
            yield ResponseRead(read_response(reply, self.model.provider,
                                             format=self.model.format, tools=tools))
            return
        reader = read_stream(self.model.provider, format=self.model.format, tools=tools)
        chunks = aiter(reply)
        try:
            while (chunk := await _unless_cancelled(anext(chunks, _END), cancel)) is not None:
                if chunk[0] is _END:
                    break
                for event in reader.feed(chunk[0]):
                    yield event
        finally:
            await _close(reply)
        if cancel.cancelled:
            return
        for event in reader.close():
            yield event
        yield ResponseRead(reader.result())

    def _tools(self) -> list[Tool]:
        """What the model may call now: the session's loaded tools in lazy mode."""
        session = self.executor.session
        if session is not None:
            return session.request_tools()
        registry = self.executor.registry
        assert isinstance(registry, ToolRegistry)  # Executor makes one of any tools given
        return registry.definitions()


_END = object()


async def _unless_cancelled(work: Awaitable[T], cancel: CancelToken) -> tuple[T] | None:
    """`work`'s value (in a 1-tuple, as it may be None), or None once `cancel` fires first
    (`work` is cancelled then: the client closes its request)."""
    task = asyncio.ensure_future(work)
    waiter = asyncio.ensure_future(cancel.wait())
    try:
        await asyncio.wait((task, waiter), return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
    if task.done() and not cancel.cancelled:
        return (task.result(),)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    return None


async def _close(stream: Any) -> None:
    """Close a stream left early: an SDK's stream holds its HTTP response until then."""
    for name in ("aclose", "close"):
        close = getattr(stream, name, None)
        if callable(close):
            closing = close()
            if inspect.isawaitable(closing):
                await closing
            return


async def _last(events: AsyncIterator[AgentEvent]) -> AgentResult:
    async for event in events:
        if isinstance(event, Finished):
            return event.result
    raise AgentError("the loop ended without a result")  # unreachable: _loop always finishes
