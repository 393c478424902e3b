"""The vLLM ``ToolParser`` classes: one per toolcalls format, and the registration.

vLLM makes one parser per request and calls, for a whole response, ``extract_tool_calls(text,
request)``, and for a stream, ``extract_tool_calls_streaming(previous_text, current_text,
delta_text, ...)`` per delta. Here only ``delta_text`` is read, fed to one toolcalls
`StreamParser` per response (`Session`): the text is never parsed again. The parsers declare
``engine_based_streaming``: vLLM then passes each delta without re-joining the text so far, and
calls ``finish_streaming`` at the end of the stream, where what was held back (text that could
still have opened a call) and calls left open (failed: their text as content) come out.

With vLLM's ``--reasoning-parser`` configured, these parsers only see the text after the
reasoning. Without one, reasoning is content, as in vLLM, where calls inside it are still read.
With ``tool_choice: "none"`` the text passes through untouched, as vLLM's own parsers leave it.
Call ids are vLLM's (``chatcmpl-tool-...``): toolcalls' own (``call_0``...) repeat every turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from vllm.entrypoints.generate.base.protocol import (
    DeltaFunctionCall,
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCallInformation,
    FunctionCall,
    ToolCall,
)
from vllm.renderers.chat_utils import make_tool_call_id
from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager

from .._session import AUTO, Session, Step, classes_by_name, record_complete_calls, tools_of

__all__ = ["PARSERS", "ToolcallsToolParser", "register"]


class ToolcallsToolParser(ToolParser):  # type: ignore[misc]  # vLLM's class, Any to mypy
    """A vLLM tool parser reading `format` with toolcalls (`toolcalls_auto`: the format the
    request's model id names, else detected from the whole response)."""

    format: ClassVar[str] = AUTO
    engine_based_streaming = True

    def __init__(self, tokenizer: Any, tools: list[Any] | None = None,
                 *args: Any, **kwargs: Any) -> None:
        super().__init__(tokenizer, tools)
        self._session: Session | None = None

    def extract_tool_calls(self, model_output: str, request: Any) -> Any:
        """A whole response: its complete calls, and the rest as content."""
        if _no_tools_wanted(request):
            return ExtractedToolCallInformation(tools_called=False, tool_calls=[],
                                                content=model_output)
        session = self._session_for(request)
        step = session.whole(model_output)
        calls = [
            ToolCall(id=make_tool_call_id(), type="function",
                     function=FunctionCall(name=call.name, arguments=call.arguments))
            for _, call in session.complete_calls()
        ]
        return ExtractedToolCallInformation(tools_called=bool(calls), tool_calls=calls,
                                            content=step.content or None)

    def extract_tool_calls_streaming(
        self, previous_text: str, current_text: str, delta_text: str,
        previous_token_ids: Sequence[int], current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int], request: Any,
    ) -> Any:
        """One delta: the content and call pieces it made final (None when nothing)."""
        if _no_tools_wanted(request):
            return DeltaMessage(content=delta_text) if delta_text else None
        if self._session is None:
            self._session = self._session_for(request)
        return self._message(self._session.feed(delta_text))

    def finish_streaming(self) -> Any:
        """The end of the stream (vLLM calls it after the last delta)."""
        if self._session is None:
            return None
        return self._message(self._session.close())

    def get_remaining_unstreamed_args(self) -> str:
        """Nothing: each argument fragment is streamed as soon as it is read."""
        return ""

    def _session_for(self, request: Any) -> Session:
        return Session(self.format, tools_of(getattr(request, "tools", None)),
                       model=getattr(request, "model", None))

    def _message(self, step: Step) -> Any:
        assert self._session is not None
        record_complete_calls(self, self._session)
        if not step.content and not step.calls:
            return None
        pieces = [
            DeltaToolCall(
                index=piece.index,
                id=make_tool_call_id() if piece.name is not None else None,
                type="function" if piece.name is not None else None,
                function=DeltaFunctionCall(name=piece.name, arguments=piece.arguments),
            )
            for piece in step.calls
        ]
        return DeltaMessage(content=step.content or None, tool_calls=pieces)


def _no_tools_wanted(request: Any) -> bool:
    return getattr(request, "tool_choice", None) == "none"


PARSERS: dict[str, type[ToolcallsToolParser]] = classes_by_name(ToolcallsToolParser, "vLLM")
"""Every parser by the name it is registered under."""


def register() -> list[str]:
    """Register every parser with vLLM's ``ToolParserManager``; their names."""
    for name, parser in PARSERS.items():
        ToolParserManager.register_module(name=name, module=parser)
    return list(PARSERS)
