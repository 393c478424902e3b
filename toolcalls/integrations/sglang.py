"""toolcalls' formats as SGLang function-call parsers: ``--tool-call-parser toolcalls_<format>``.

    pip install 'toolcalls[sglang]'
    sglang serve --model-path MODEL --tool-call-parser toolcalls_hermes

SGLang loads the plugins that installed packages declare (the ``sglang.srt.plugins`` entry
point group) in each of its processes before it reads its flags; toolcalls declares `register`
there, which adds one detector per format to SGLang's ``FunctionCallParser`` map
(``toolcalls_hermes``, ``toolcalls_qwen3_coder``, ... and ``toolcalls_auto``). SGLang's
``SGLANG_PLUGINS`` (a comma-separated list of plugin names) limits which plugins load: name
``toolcalls`` there if it is set.

A detector reads a stream once, chunk by chunk, with toolcalls' streaming parser (`Session`);
a whole response as if it were streamed in one piece. Reasoning is left to SGLang's
``--reasoning-parser``: without one it is content, in its place. A call that fails (cut off or
malformed) is never a call: its text is content. The structural tags SGLang asks for
(``structure_info``, for strict tools and ``tool_choice: "required"``) come from toolcalls' own
export, `toolcalls.decoding.structural_tag`, for the formats it can write as one.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any, ClassVar

from sglang.srt.function_call.base_format_detector import BaseFormatDetector
from sglang.srt.function_call.core_types import StreamingParseResult, StructureInfo, ToolCallItem
from sglang.srt.function_call.function_call_parser import FunctionCallParser

from ._session import AUTO, Session, Step, classes_by_name, record_complete_calls, tools_of

__all__ = ["DETECTORS", "ToolcallsDetector", "register"]


class ToolcallsDetector(BaseFormatDetector):  # type: ignore[misc]  # SGLang's class, Any to mypy
    """An SGLang detector reading `format` with toolcalls (`toolcalls_auto`: detected from the
    whole response, which a stream then gives at its end)."""

    format: ClassVar[str] = AUTO

    def __init__(self) -> None:
        super().__init__()
        self._session: Session | None = None

    @classmethod
    def parses_without_tools(cls) -> bool:
        """Calls are read without tool definitions too: none is left in content as text."""
        return True

    def has_tool_call(self, text: str) -> bool:
        """Whether reading `text` takes anything out of its content (a call, complete or not;
        reasoning markup): SGLang then parses the whole response with `detect_and_parse`.

        SGLang asks without the request's tools; a call without markup (a bare ``[f(x=1)]``)
        is only told from text by the tools, so under ``toolcalls_auto`` every response with
        text is parsed (SGLang logs a warning for one that holds no call)."""
        if self.format == AUTO:
            return bool(text)
        session = Session(self.format)
        step = session.whole(text)
        return bool(session.calls) or step.content != text

    def detect_and_parse(self, text: str, tools: list[Any]) -> Any:
        """A whole response: its complete calls, and the rest as content."""
        session = Session(self.format, tools_of(tools))
        step = session.whole(text)
        positions = {_tool_name(tool): index for index, tool in enumerate(tools or ())}
        calls = [
            ToolCallItem(tool_index=positions.get(call.name, -1), name=call.name,
                         parameters=call.arguments)
            for _, call in session.complete_calls()
        ]
        return StreamingParseResult(normal_text=step.content, calls=calls)

    def parse_streaming_increment(self, new_text: str, tools: list[Any]) -> Any:
        """One chunk: the content and call pieces it made final."""
        if self._session is None:
            self._session = Session(self.format, tools_of(tools))
        return self._result(self._session.feed(new_text))

    def finish(self, tools: list[Any]) -> Any:
        """The end of the stream: text held back, and calls left open (failed: their text)."""
        if self._session is None:
            return StreamingParseResult()
        return self._result(self._session.close())

    def supports_structural_tag(self) -> bool:
        """Whether toolcalls writes this format's calls as a structural tag (a JSON object
        between fixed strings)."""
        return _structure(self.format, "f") is not None

    def structure_info(self) -> Callable[[str], Any]:
        """Each tool's call as SGLang's structural tag wants it: begin, end, trigger."""
        fmt = self.format

        def info(name: str) -> Any:
            found = _structure(fmt, name)
            if found is None:
                raise ValueError(f"toolcalls writes no structural tag for format {fmt!r}")
            return found

        return info

    def _result(self, step: Step) -> Any:
        assert self._session is not None
        record_complete_calls(self, self._session)
        calls = [ToolCallItem(tool_index=piece.index, name=piece.name, parameters=piece.arguments)
                 for piece in step.calls]
        return StreamingParseResult(normal_text=step.content, calls=calls)


def _tool_name(tool: Any) -> str | None:
    function = getattr(tool, "function", None)
    return getattr(function, "name", None)


@lru_cache(maxsize=4096)  # SGLang asks per request (`owns_tool_format`) and per tool
def _structure(fmt: str, name: str) -> Any:
    """SGLang's `StructureInfo` for a call of `name`, from toolcalls' structural tag (legacy
    shape: begin, end and trigger); None where toolcalls writes none for the format."""
    if fmt == AUTO:
        return None
    # Imported here, on SGLang's first ask: the grammar export costs about a second to import,
    # which every SGLang process would pay at start for a path only strict tools take.
    from ..decoding import structural_tag

    tool = {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
    try:
        tag = structural_tag(fmt, [tool], legacy=True)
    except ValueError:
        return None
    (structure,) = tag["structures"]
    return StructureInfo(begin=structure["begin"], end=structure["end"],
                         trigger=tag["triggers"][0])


DETECTORS: dict[str, type[ToolcallsDetector]] = classes_by_name(ToolcallsDetector, "SGLang")
"""Every detector by the name it is registered under."""


def register() -> list[str]:
    """Add every detector to SGLang's parser map (what its plugin loader calls); their names."""
    FunctionCallParser.ToolCallParserEnum.update(DETECTORS)
    return list(DETECTORS)
